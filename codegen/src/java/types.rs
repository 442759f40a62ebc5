//! Java types for IR type references, and the expressions that read one from a
//! `JsonValue` and write one back (through the runtime's `Wire`).

use super::names;
use crate::ir::{Builtin, Constraints, Interface, TypeId, TypeKind, TypeRef};
use crate::limits::{self, At, Text};

/// The Java language, the marker of its backend's [`Types`].
pub enum Java {}

/// The Java names of an interface's declared types, by type id, and the interface.
pub type Types<'a> = crate::templates::Declared<'a, Java>;

impl Types<'_> {
    /// The Java type of `ty`; `boxed` where it is a type argument (`Long`, not `long`).
    pub fn java(&self, ty: &TypeRef, boxed: bool) -> String {
        match ty {
            TypeRef::Builtin(b) => builtin(*b, boxed).to_string(),
            TypeRef::Named(id) => self.names[id.index()].clone(),
            TypeRef::Array(item) => format!("List<{}>", self.java(item, true)),
            TypeRef::Map(value) => format!("Map<String, {}>", self.java(value, true)),
            // A list envelope is read by the client, never held by a model.
            TypeRef::Page(_) => "JsonValue".to_string(),
            TypeRef::JsonEncoded(inner) => self.java(inner, boxed),
        }
    }

    /// An expression reading `value` (a `JsonValue`) at the JSON path `path` (a `String`)
    /// as `ty`; `depth` numbers the lambda parameters of nested containers, which Java
    /// does not let shadow each other.
    pub fn decode(&self, ty: &TypeRef, value: &str, path: &str, depth: usize) -> String {
        let (v, p) = (format!("v{depth}"), format!("p{depth}"));
        match ty {
            TypeRef::Builtin(b) => match builtin_wire(*b) {
                Some(read) => format!("Wire.{read}({value}, {path})"),
                None => value.to_string(),
            },
            TypeRef::Named(id) => format!("{}.decode({value}, {path})", self.names[id.index()]),
            TypeRef::Array(item) => format!(
                "Wire.list({value}, {path}, ({v}, {p}) -> {})",
                self.decode(item, &v, &p, depth + 1)
            ),
            TypeRef::Map(item) => format!(
                "Wire.map({value}, {path}, ({v}, {p}) -> {})",
                self.decode(item, &v, &p, depth + 1)
            ),
            TypeRef::Page(_) => value.to_string(),
            TypeRef::JsonEncoded(inner) => self.decode(inner, value, path, depth),
        }
    }

    /// An expression reading `value`, the member `wire` (a Java string literal) of the
    /// object at `object`: as [`Types::decode`] at `Wire.member(object, wire)`, but a
    /// builtin's reader is given the object's path and the name, so that the member's path
    /// is made only for an error.
    pub fn decode_member(&self, ty: &TypeRef, value: &str, object: &str, wire: &str) -> String {
        match ty {
            TypeRef::Builtin(b) => match builtin_wire(*b) {
                Some(read) => format!("Wire.{read}({value}, {object}, {wire})"),
                None => value.to_string(),
            },
            TypeRef::JsonEncoded(inner) => self.decode_member(inner, value, object, wire),
            _ => self.decode(ty, value, &format!("Wire.member({object}, {wire})"), 0),
        }
    }

    /// An expression writing `value` (of `ty`) as a `JsonValue`.
    pub fn encode(&self, ty: &TypeRef, value: &str, depth: usize) -> String {
        let e = format!("e{depth}");
        match ty {
            TypeRef::Builtin(b) => match b {
                Builtin::String | Builtin::Url => format!("JsonString.of({value})"),
                Builtin::Integer | Builtin::Int32 | Builtin::Number => {
                    format!("JsonNumber.of({value})")
                }
                Builtin::Boolean => format!("JsonBoolean.of({value})"),
                Builtin::Date | Builtin::DateTime => format!("Wire.write({value})"),
                Builtin::DateOrDateTime | Builtin::DateTimeOrRange => {
                    format!("{value}.toJsonValue()")
                }
                Builtin::Json | Builtin::Binary => value.to_string(),
            },
            TypeRef::Named(_) => format!("{value}.toJsonValue()"),
            TypeRef::Array(item) => format!(
                "Wire.array({value}, {e} -> {})",
                self.encode(item, &e, depth + 1)
            ),
            TypeRef::Map(item) => format!(
                "Wire.object({value}, {e} -> {})",
                self.encode(item, &e, depth + 1)
            ),
            TypeRef::Page(_) => value.to_string(),
            TypeRef::JsonEncoded(inner) => self.encode(inner, value, depth),
        }
    }
}

/// The checks in Java: calls on the runtime's `Check`, lambdas over lists and maps.
impl limits::Spelling for Types<'_> {
    fn interface(&self) -> &Interface {
        self.interface
    }

    fn string(&self, text: Text, secret: bool, At { value, path, .. }: At) -> String {
        // No class allowed is `null` to the runtime's check.
        let allow = text.allow.map_or("null".to_string(), names::string);
        let (max, length) = (int(text.max_length), int(text.length));
        let forbid = names::string(text.forbid);
        format!("Check.string({value}, {secret}, {max}, {length}, {allow}, {forbid}, {path}, out);")
    }

    fn range(&self, _: Builtin, limits: &Constraints, At { value, path, .. }: At) -> String {
        let (min, max) = (long(limits.min), long(limits.max));
        format!("Check.range({value}, {min}, {max}, {path}, out);")
    }

    fn named(&self, id: TypeId, kind: &TypeKind, secret: bool, at: At) -> Option<String> {
        let At { value, path, .. } = at;
        match kind {
            TypeKind::Object(_) => Some(format!("{value}.check({path}, out);")),
            // An interface's method would be public: the union's check is static.
            TypeKind::Union(_) => Some(format!(
                "{}.check({value}, {path}, out);",
                self.names[id.index()]
            )),
            TypeKind::Id {
                max_length: Some(n),
                ..
            } => Some(format!(
                "Check.string({value}.value(), {secret}, {n}, null, null, \"\", {path}, out);"
            )),
            _ => None,
        }
    }

    fn element(&self, _list: bool, At { depth, .. }: At) -> (String, String) {
        (format!("x{depth}"), format!("q{depth}"))
    }

    fn list(&self, limits: &Constraints, each: Option<String>, at: At) -> Option<String> {
        let counted = limits.min_items.is_some() || limits.max_items.is_some();
        (counted || each.is_some()).then(|| {
            let (x, q) = self.element(true, at);
            let each = each.map_or("null".to_string(), |e| format!("({x}, {q}) -> {{ {e} }}"));
            let (min, max) = (int(limits.min_items), int(limits.max_items));
            format!(
                "Check.items({}, {min}, {max}, {}, out, {each});",
                at.value, at.path
            )
        })
    }

    fn map(&self, each: String, at: At) -> String {
        let At { value, path, .. } = at;
        let (x, q) = self.element(false, at);
        format!("Check.values({value}, {path}, ({x}, {q}) -> {{ {each} }});")
    }
}

fn int(n: Option<u32>) -> String {
    n.map_or("null".to_string(), |n| n.to_string())
}

fn long(n: Option<i64>) -> String {
    n.map_or("null".to_string(), |n| format!("{n}L"))
}

/// Whether `ty` is a Java primitive unboxed (`long`, `int`, `boolean`).
pub fn is_primitive(ty: &TypeRef) -> bool {
    matches!(
        ty,
        TypeRef::Builtin(Builtin::Integer | Builtin::Int32 | Builtin::Boolean)
    )
}

fn builtin(b: Builtin, boxed: bool) -> &'static str {
    match (b, boxed) {
        (Builtin::String | Builtin::Url, _) => "String",
        (Builtin::Integer, false) => "long",
        (Builtin::Integer, true) => "Long",
        (Builtin::Int32, false) => "int",
        (Builtin::Int32, true) => "Integer",
        (Builtin::Boolean, false) => "boolean",
        (Builtin::Boolean, true) => "Boolean",
        (Builtin::Number, _) => "BigDecimal",
        (Builtin::Date, _) => "LocalDate",
        (Builtin::DateTime, _) => "OffsetDateTime",
        (Builtin::DateOrDateTime, _) => "DateOrDateTime",
        (Builtin::DateTimeOrRange, _) => "DateTimeOrRange",
        // A file's bytes are an upload's body, never JSON: a model keeps what came.
        (Builtin::Json | Builtin::Binary, _) => "JsonValue",
    }
}

/// The `Wire` method reading a builtin, or none where the value is kept as it came.
fn builtin_wire(b: Builtin) -> Option<&'static str> {
    Some(match b {
        Builtin::String | Builtin::Url => "string",
        Builtin::Integer => "int64",
        Builtin::Int32 => "int32",
        Builtin::Boolean => "bool",
        Builtin::Number => "number",
        Builtin::Date => "date",
        Builtin::DateTime => "dateTime",
        Builtin::DateOrDateTime => "dateOrDateTime",
        Builtin::DateTimeOrRange => "dateTimeOrRange",
        Builtin::Json | Builtin::Binary => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_spec::{nested_containers, unit_interface};

    #[test]
    fn nested_containers_get_lambda_parameters_of_their_own() {
        let (interface, names) = unit_interface();
        let types = Types::new(&names, &interface);
        let ty = nested_containers();
        assert_eq!(types.java(&ty, false), "List<Map<String, Long>>");
        assert_eq!(
            types.decode(&ty, "v", "p", 0),
            "Wire.list(v, p, (v0, p0) -> Wire.map(v0, p0, (v1, p1) -> Wire.int64(v1, p1)))"
        );
        assert_eq!(
            types.encode(&ty, "x", 0),
            "Wire.array(x, e0 -> Wire.object(e0, e1 -> JsonNumber.of(e1)))"
        );
        let limits = Constraints {
            max_items: Some(3),
            min: Some(1),
            ..Constraints::default()
        };
        assert_eq!(
            limits::check(&types, &ty, &limits, false, At::top("v", "p")).unwrap(),
            "Check.items(v, null, 3, p, out, (x0, q0) -> { Check.values(x0, q0, (x1, q1) -> { Check.range(x1, 1L, null, q1, out); }); });"
        );
        assert_eq!(
            limits::check(
                &types,
                &ty,
                &Constraints::default(),
                false,
                At::top("v", "p")
            ),
            None
        );
    }

    #[test]
    fn a_members_builtin_reader_gets_the_objects_path_and_the_name() {
        let (interface, names) = unit_interface();
        let types = Types::new(&names, &interface);
        let string = TypeRef::Builtin(Builtin::String);
        assert_eq!(
            types.decode_member(&string, "value", "path", "\"name\""),
            "Wire.string(value, path, \"name\")"
        );
        // Anything else is read at the member's own path, made as before.
        let list = TypeRef::Array(Box::new(string));
        assert_eq!(
            types.decode_member(&list, "value", "path", "\"tags\""),
            "Wire.list(value, Wire.member(path, \"tags\"), (v0, p0) -> Wire.string(v0, p0))"
        );
        let json = TypeRef::Builtin(Builtin::Json);
        assert_eq!(
            types.decode_member(&json, "value", "path", "\"x\""),
            "value"
        );
    }
}
