//! Go types for IR type references, and the functions that read one from the runtime's
//! `Decoder` and write one to its `Encoder`: every declared type has `readX` and `writeX`
//! of its own, so a container's element is read by naming a function.

use super::names;
use crate::ir::{Builtin, Constraints, Interface, TypeId, TypeKind, TypeRef};
use crate::limits::{self, At, Text};

/// The Go language, the marker of its backend's [`Types`].
pub enum Go {}

/// The Go names of an interface's declared types, by type id, and the interface.
pub type Types<'a> = crate::templates::Declared<'a, Go>;

impl Types<'_> {
    /// The Go type of `ty`.
    pub fn go(&self, ty: &TypeRef) -> String {
        match ty {
            TypeRef::Builtin(b) => builtin(*b).to_string(),
            TypeRef::Named(id) => self.names[id.index()].clone(),
            TypeRef::Array(item) => format!("[]{}", self.go(item)),
            TypeRef::Map(value) => format!("map[string]{}", self.go(value)),
            // A list envelope is read by the client, never held by a model.
            TypeRef::Page(_) => "json.RawMessage".to_string(),
            TypeRef::JsonEncoded(inner) => self.go(inner),
        }
    }

    /// A function of type `func(*runtime.Decoder) T` reading `ty`.
    pub fn reader(&self, ty: &TypeRef) -> String {
        match ty {
            TypeRef::Builtin(b) => format!("(*runtime.Decoder).{}", builtin_wire(*b)),
            TypeRef::Named(id) => format!("read{}", self.names[id.index()]),
            TypeRef::Array(_) | TypeRef::Map(_) => format!(
                "func(d *runtime.Decoder) {} {{ return {} }}",
                self.go(ty),
                self.read(ty, "d")
            ),
            TypeRef::Page(_) => "(*runtime.Decoder).Raw".to_string(),
            TypeRef::JsonEncoded(inner) => self.reader(inner),
        }
    }

    /// An expression reading `ty` from the decoder `d`.
    pub fn read(&self, ty: &TypeRef, d: &str) -> String {
        match ty {
            TypeRef::Builtin(b) => format!("{d}.{}()", builtin_wire(*b)),
            TypeRef::Named(id) => format!("read{}({d})", self.names[id.index()]),
            TypeRef::Array(item) => format!("runtime.ReadList({d}, {})", self.reader(item)),
            TypeRef::Map(item) => format!("runtime.ReadMap({d}, {})", self.reader(item)),
            TypeRef::Page(_) => format!("{d}.Raw()"),
            TypeRef::JsonEncoded(inner) => self.read(inner, d),
        }
    }

    /// A function of type `func(*runtime.Encoder, T)` writing `ty`.
    pub fn writer(&self, ty: &TypeRef) -> String {
        match ty {
            TypeRef::Builtin(b) => format!("(*runtime.Encoder).{}", builtin_wire(*b)),
            TypeRef::Named(id) => format!("write{}", self.names[id.index()]),
            TypeRef::Array(_) | TypeRef::Map(_) => format!(
                "func(e *runtime.Encoder, v {}) {{ {} }}",
                self.go(ty),
                self.write(ty, "e", "v")
            ),
            TypeRef::Page(_) => "(*runtime.Encoder).Raw".to_string(),
            TypeRef::JsonEncoded(inner) => self.writer(inner),
        }
    }

    /// A statement writing `value` (of `ty`) to the encoder `e`.
    pub fn write(&self, ty: &TypeRef, e: &str, value: &str) -> String {
        match ty {
            TypeRef::Builtin(b) => format!("{e}.{}({value})", builtin_wire(*b)),
            TypeRef::Named(id) => format!("write{}({e}, {value})", self.names[id.index()]),
            TypeRef::Array(item) => {
                format!("runtime.WriteList({e}, {value}, {})", self.writer(item))
            }
            TypeRef::Map(item) => format!("runtime.WriteMap({e}, {value}, {})", self.writer(item)),
            TypeRef::Page(_) => format!("{e}.Raw({value})"),
            TypeRef::JsonEncoded(inner) => self.write(inner, e, value),
        }
    }
}

/// The checks in Go: calls on the runtime's checks `c`, loops over lists and maps.
impl limits::Spelling for Types<'_> {
    fn interface(&self) -> &Interface {
        self.interface
    }

    fn string(&self, text: Text, secret: bool, At { value, path, .. }: At) -> String {
        // No class allowed is the empty string to the runtime's check.
        let allow = names::string(text.allow.unwrap_or(""));
        let (max, length) = (limit(text.max_length), limit(text.length));
        let forbid = names::string(text.forbid);
        format!("c.String(string({value}), {secret}, {max}, {length}, {allow}, {forbid}, {path})")
    }

    fn range(&self, builtin: Builtin, limits: &Constraints, At { value, path, .. }: At) -> String {
        let bound = |n: Option<i64>| n.map_or("nil".to_string(), |n| format!("runtime.Bound({n})"));
        let (min, max) = (bound(limits.min), bound(limits.max));
        match builtin {
            Builtin::Number => format!("c.DecimalRange(string({value}), {min}, {max}, {path})"),
            _ => format!("c.Range(int64({value}), {min}, {max}, {path})"),
        }
    }

    fn named(&self, id: TypeId, kind: &TypeKind, secret: bool, at: At) -> Option<String> {
        let At { value, path, .. } = at;
        let own = || format!("check{}(c, {path}, {value})", self.names[id.index()]);
        match kind {
            TypeKind::Object(_) | TypeKind::Union(_) => Some(own()),
            TypeKind::Enum(e) if !e.open => Some(own()),
            TypeKind::Id {
                max_length: Some(n),
                ..
            } => Some(format!(
                "c.String(string({value}), {secret}, {n}, runtime.NoLimit, \"\", \"\", {path})"
            )),
            _ => None,
        }
    }

    fn element(&self, list: bool, At { path, depth, .. }: At) -> (String, String) {
        let place = if list { "Item" } else { "Field" };
        let path = format!("runtime.{place}({path}, i{depth})");
        (format!("x{depth}"), path)
    }

    fn list(&self, limits: &Constraints, each: Option<String>, at: At) -> Option<String> {
        let counted = limits.min_items.is_some() || limits.max_items.is_some();
        let count = counted.then(|| {
            let (min, max) = (limit(limits.min_items), limit(limits.max_items));
            format!("c.Items(len({}), {min}, {max}, {})", at.value, at.path)
        });
        let each = each.map(|e| self.map(e, at));
        match (count, each) {
            (None, None) => None,
            (a, b) => Some(a.into_iter().chain(b).collect::<Vec<_>>().join("\n")),
        }
    }

    fn map(&self, each: String, At { value, depth, .. }: At) -> String {
        let (i, x) = (format!("i{depth}"), format!("x{depth}"));
        format!("for {i}, {x} := range {value} {{\n{}\n}}", indent(&each))
    }
}

/// `lines` one tab further in.
pub fn indent(lines: &str) -> String {
    lines
        .lines()
        .map(|l| format!("\t{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn limit(n: Option<u32>) -> String {
    n.map_or("runtime.NoLimit".to_string(), |n| n.to_string())
}

/// The Go type of a builtin (the runtime's types through the package's aliases).
fn builtin(b: Builtin) -> &'static str {
    match b {
        Builtin::String | Builtin::Url => "string",
        Builtin::Integer => "int64",
        Builtin::Int32 => "int32",
        Builtin::Boolean => "bool",
        Builtin::Number => "json.Number",
        Builtin::Date => "Date",
        Builtin::DateTime => "time.Time",
        Builtin::DateOrDateTime => "DateOrDateTime",
        Builtin::DateTimeOrRange => "DateTimeOrRange",
        Builtin::Json | Builtin::Binary => "json.RawMessage",
    }
}

/// The runtime's `Decoder` and `Encoder` method of a builtin.
fn builtin_wire(b: Builtin) -> &'static str {
    match b {
        Builtin::String | Builtin::Url => "String",
        Builtin::Integer => "Int64",
        Builtin::Int32 => "Int32",
        Builtin::Boolean => "Bool",
        Builtin::Number => "Number",
        Builtin::Date => "Date",
        Builtin::DateTime => "DateTime",
        Builtin::DateOrDateTime => "DateOrDateTime",
        Builtin::DateTimeOrRange => "DateTimeOrRange",
        Builtin::Json | Builtin::Binary => "Raw",
    }
}

/// Whether a model holding `ty` imports `time` or `encoding/json`.
pub fn imports(ty: &TypeRef, time: &mut bool, json: &mut bool) {
    match ty {
        TypeRef::Builtin(Builtin::DateTime) => *time = true,
        TypeRef::Builtin(Builtin::Number | Builtin::Json | Builtin::Binary) | TypeRef::Page(_) => {
            *json = true
        }
        TypeRef::Builtin(_) | TypeRef::Named(_) => {}
        TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::JsonEncoded(inner) => {
            imports(inner, time, json)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_spec::{nested_containers, unit_interface};

    #[test]
    fn containers_read_and_write_through_function_values() {
        let (interface, names) = unit_interface();
        let types = Types::new(&names, &interface);
        let ty = nested_containers();
        assert_eq!(types.go(&ty), "[]map[string]int64");
        assert_eq!(
            types.read(&ty, "d"),
            "runtime.ReadList(d, func(d *runtime.Decoder) map[string]int64 { return runtime.ReadMap(d, (*runtime.Decoder).Int64) })"
        );
        assert_eq!(
            types.write(&ty, "e", "r.X"),
            "runtime.WriteList(e, r.X, func(e *runtime.Encoder, v map[string]int64) { runtime.WriteMap(e, v, (*runtime.Encoder).Int64) })"
        );
    }
}
