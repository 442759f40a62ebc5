//! Python annotations for spec type references, and the wire descriptor expressions
//! (`_rt.Str(...)`, `_rt.F(...)`) that decode, encode and validate values of them.

use crate::ir::{Builtin, Constraints, Field, Interface, TypeKind, TypeRef};

use super::names;

pub use crate::templates::TypeNames;

/// What the Python modules say of the declared types besides their names.
impl TypeNames<'_> {
    /// The wire descriptor variable of a declared type.
    pub fn wire(&self, id: crate::ir::TypeId) -> String {
        format!("{}_w_{}", self.prefix, self.names[id.index()])
    }

    /// The annotation of a value of `ty` (`sensitive`: held in a `Secret`).
    pub fn annotation(&self, i: &Interface, ty: &TypeRef, sensitive: bool) -> String {
        match ty {
            TypeRef::Builtin(b) if sensitive && b.is_string_like() => "_rt.Secret".to_string(),
            TypeRef::Builtin(b) => builtin(*b).to_string(),
            TypeRef::Named(id) => {
                let name = self.named(*id);
                match &i.ty(*id).kind {
                    TypeKind::Enum(e) if e.open => format!("{name} | str"),
                    _ => name,
                }
            }
            TypeRef::Array(inner) => format!("list[{}]", self.annotation(i, inner, sensitive)),
            TypeRef::Map(inner) => format!("dict[str, {}]", self.annotation(i, inner, sensitive)),
            TypeRef::Page(inner) => format!(
                "{}Page[{}]",
                self.prefix,
                self.annotation(i, inner, sensitive)
            ),
            TypeRef::JsonEncoded(inner) => self.annotation(i, inner, sensitive),
        }
    }

    /// The descriptor of a value of type `ty` with the field-level limits `c`.
    pub fn desc(&self, i: &Interface, ty: &TypeRef, c: &Constraints, sensitive: bool) -> String {
        let limits = limits(c);
        match ty {
            TypeRef::Builtin(b) => {
                let ctor = match b {
                    Builtin::String | Builtin::Url if sensitive => {
                        return match limits {
                            Some(l) => format!("_rt.Str({l}, secret=True)"),
                            None => "_rt.Str(secret=True)".to_string(),
                        };
                    }
                    Builtin::String | Builtin::Url => "Str",
                    Builtin::Integer => return int(64, limits),
                    Builtin::Int32 => return int(32, limits),
                    Builtin::Number => "Num",
                    Builtin::Boolean => "Bool",
                    Builtin::Date => "Date",
                    Builtin::DateTime => "DateTime",
                    Builtin::DateOrDateTime => "DateOrDateTime",
                    Builtin::DateTimeOrRange => "DateTimeOrRange",
                    Builtin::Json => "Json",
                    Builtin::Binary => "Binary",
                };
                call(&format!("_rt.{ctor}"), limits)
            }
            TypeRef::Named(id) => match &i.ty(*id).kind {
                // Ids are inlined so a field's own limit and the id's merge into one.
                TypeKind::Id { max_length, .. } => {
                    let merged = Constraints {
                        max_length: c.max_length.or(*max_length),
                        ..c.clone()
                    };
                    call("_rt.Id", self::limits(&merged))
                }
                _ => self.wire(*id),
            },
            TypeRef::Array(inner) => {
                let of = self.desc(i, inner, &Constraints::default(), sensitive);
                match limits {
                    Some(l) => format!("_rt.Array({of}, {l})"),
                    None => format!("_rt.Array({of})"),
                }
            }
            TypeRef::Map(inner) => format!(
                "_rt.Map({})",
                self.desc(i, inner, &Constraints::default(), sensitive)
            ),
            TypeRef::Page(inner) => format!(
                "{}_page_wire({})",
                self.prefix,
                self.desc(i, inner, &Constraints::default(), false)
            ),
            TypeRef::JsonEncoded(inner) => self.desc(i, inner, c, sensitive),
        }
    }

    /// The `_rt.F(...)` of one field, under the attribute name `attr`; `in_group`: a field
    /// of an exactly-one-of group, required by the group rather than alone.
    pub fn field(
        &self,
        i: &Interface,
        f: &Field,
        attr: &str,
        in_group: bool,
        filled: bool,
    ) -> String {
        let mut args = vec![
            names::string(&f.name),
            names::string(attr),
            self.desc(i, &f.ty, &f.constraints, f.sensitive),
        ];
        if f.required && !in_group {
            args.push("req=True".into());
        }
        if f.nullable {
            args.push("nul=True".into());
        }
        if filled {
            match &f.ty {
                TypeRef::Array(_) => args.push("fill=list".into()),
                TypeRef::Map(_) => args.push("fill=dict".into()),
                _ => {}
            }
        }
        format!("_rt.F({})", args.join(", "))
    }
}

fn builtin(b: Builtin) -> &'static str {
    match b {
        Builtin::String | Builtin::Url => "str",
        Builtin::Integer | Builtin::Int32 => "int",
        Builtin::Number => "float",
        Builtin::Boolean => "bool",
        Builtin::Date => "_dt.date",
        Builtin::DateTime => "_dt.datetime",
        Builtin::DateOrDateTime => "_dt.date | _dt.datetime",
        Builtin::DateTimeOrRange => "_dt.datetime | tuple[_dt.datetime, _dt.datetime]",
        Builtin::Json => "JsonValue",
        Builtin::Binary => "bytes",
    }
}

fn int(bits: u8, limits: Option<String>) -> String {
    match limits {
        Some(l) => format!("_rt.Int({bits}, {l})"),
        None => format!("_rt.Int({bits})"),
    }
}

fn call(ctor: &str, limits: Option<String>) -> String {
    format!("{ctor}({})", limits.unwrap_or_default())
}

/// What a user must know about how Python holds a value of `ty`.
pub fn note(ty: &TypeRef) -> Option<&'static str> {
    match ty {
        TypeRef::Builtin(Builtin::Date) => Some("A calendar date (`datetime.date`)."),
        TypeRef::Builtin(Builtin::DateTime) => Some(
            "An aware `datetime.datetime` (UTC when the service sends no offset); digits beyond \
             the microsecond are dropped.",
        ),
        TypeRef::Builtin(Builtin::DateOrDateTime) => Some(
            "A `datetime.date` when the service sends a date, a `datetime.datetime` when it \
             sends a date-time: test `isinstance(x, datetime.datetime)` first.",
        ),
        TypeRef::Builtin(Builtin::DateTimeOrRange) => {
            Some("A `datetime.datetime`, or a `(from, to)` pair of them.")
        }
        _ => None,
    }
}

/// `_rt.Limits(max_length=255, ...)`, or `None` when there are no limits.
pub fn limits(c: &Constraints) -> Option<String> {
    let mut parts: Vec<String> = c
        .numbers()
        .into_iter()
        .map(|(key, v)| format!("{key}={v}"))
        .collect();
    if let Some(rule) = &c.chars {
        parts.push(format!("allow=\"{}\"", rule.allow.wire()));
        if !rule.forbid.is_empty() {
            parts.push(format!("forbid={}", names::string(&rule.forbid)));
        }
    }
    (!parts.is_empty()).then(|| format!("_rt.Limits({})", parts.join(", ")))
}

/// The descriptor of a named type that is not a record or a union (those are defined in
/// two steps, since they may refer to each other).
pub fn simple_desc(kind: &TypeKind, class: &str) -> Option<String> {
    Some(match kind {
        TypeKind::Enum(e) => format!(
            "_rt.Enum({class}, open={})",
            if e.open { "True" } else { "False" }
        ),
        TypeKind::ScalarUnion(kinds) => {
            let kinds: Vec<String> = kinds.iter().map(|k| names::string(k.json_type())).collect();
            format!("_rt.Scalar({})", kinds.join(", "))
        }
        TypeKind::Id { max_length, .. } => call(
            "_rt.Id",
            limits(&Constraints {
                max_length: *max_length,
                ..Constraints::default()
            }),
        ),
        // Path references are formatted, not decoded.
        TypeKind::RecordRef(_) => "_rt.Json()".to_string(),
        TypeKind::Object(_) | TypeKind::Union(_) => return None,
    })
}

/// How a generated decoder reads a value of some type (its straight-line fast path): the
/// test of the common case, the value then, and what reads any other value. Every
/// expression is written over the variable the value is in.
pub struct Read {
    /// The test of the common case (`type(x) is str`), or none when `value` reads any value.
    pub test: Option<String>,
    /// The value when `test` holds (every value when there is no test).
    pub value: String,
    /// What reads a value that fails `test` (`_rt.read_int(x)`), or none: the decoder gives
    /// up and the descriptors read the whole answer again, naming what does not fit.
    pub other: Option<String>,
}

impl Read {
    fn test(test: String, value: String) -> Read {
        Read {
            test: Some(test),
            value,
            other: None,
        }
    }

    fn any(value: String) -> Read {
        Read {
            test: None,
            value,
            other: None,
        }
    }

    /// One expression reading the value or raising (an item of an array or a map).
    pub fn expr(&self) -> String {
        match &self.test {
            None => self.value.clone(),
            Some(test) => format!(
                "({} if {test} else {})",
                self.value,
                self.other.as_deref().unwrap_or("_rt.mismatch()")
            ),
        }
    }
}

impl TypeNames<'_> {
    /// The generated decoder function of a declared record or union.
    pub fn reader(&self, id: crate::ir::TypeId) -> String {
        format!("{}_d_{}", self.prefix, self.names[id.index()])
    }

    /// The member table (tag value to member decoder) of a union.
    pub fn union_table(&self, id: crate::ir::TypeId) -> String {
        format!("{}_U_{}", self.prefix, self.names[id.index()])
    }

    /// What reads a member of a union whose tag is not in its table.
    pub fn union_other(&self, id: crate::ir::TypeId) -> String {
        format!("{}_X_{}", self.prefix, self.names[id.index()])
    }

    /// How the member of the union `id` (tagged by `tag`) held in `var` is read: its
    /// decoder looked up in the table by its tag, `_X_` for a tag not there.
    pub fn union_read(&self, id: crate::ir::TypeId, tag: &str, var: &str) -> String {
        format!(
            "{}.get({var}.get({}), {})({var})",
            self.union_table(id),
            crate::python::names::string(tag),
            self.union_other(id)
        )
    }

    /// The member table (wire value to member) of a declared enum.
    pub fn enum_table(&self, id: crate::ir::TypeId) -> String {
        format!("{}_E_{}", self.prefix, self.names[id.index()])
    }

    /// How the generated decoders read a value of `ty` held in the variable `var` (`depth`:
    /// how many arrays and maps it is inside, which names the item variables). Exactly what
    /// the descriptor of `ty` accepts is read, into the same value.
    pub fn read(
        &self,
        i: &Interface,
        ty: &TypeRef,
        sensitive: bool,
        var: &str,
        depth: usize,
    ) -> Read {
        let is = |t: &str| format!("type({var}) is {t}");
        match ty {
            TypeRef::Builtin(b) => read_builtin(*b, sensitive, var),
            TypeRef::Named(id) => self.read_named(i, *id, var),
            TypeRef::Array(inner) => {
                let item = item_var(depth);
                let read = self.read(i, inner, sensitive, &item, depth + 1);
                if read.test.is_none() && read.value == item {
                    // Kept as parsed, as `Array` keeps a list of JSON values.
                    Read::test(is("list"), var.to_string())
                } else {
                    Read::test(is("list"), format!("[{} for {item} in {var}]", read.expr()))
                }
            }
            TypeRef::Map(inner) => {
                let item = item_var(depth);
                let read = self.read(i, inner, sensitive, &item, depth + 1);
                if read.test.is_none() && read.value == item {
                    Read::test(is("dict"), format!("dict({var})"))
                } else {
                    let key = format!(
                        "k{}",
                        if depth == 0 {
                            String::new()
                        } else {
                            depth.to_string()
                        }
                    );
                    Read::test(
                        is("dict"),
                        format!(
                            "{{{key}: {} for {key}, {item} in {var}.items()}}",
                            read.expr()
                        ),
                    )
                }
            }
            // Not a property's type in any spec: read by the descriptor.
            TypeRef::Page(_) => Read::any(format!(
                "{}.decode({var})",
                self.desc(i, ty, &Constraints::default(), false)
            )),
            TypeRef::JsonEncoded(inner) => self.read(i, inner, sensitive, var, depth),
        }
    }

    /// How the generated decoders read a value of the declared type `id` held in `var`.
    fn read_named(&self, i: &Interface, id: crate::ir::TypeId, var: &str) -> Read {
        let is = |t: &str| format!("type({var}) is {t}");
        match &i.ty(id).kind {
            TypeKind::Object(_) => Read::any(format!("{}({var})", self.reader(id))),
            // The member's decoder, from the table, without the union's own call.
            TypeKind::Union(u) => Read::any(self.union_read(id, &u.tag, var)),
            // An unknown value stays a `str`; a closed enum's unknown value is left to
            // the descriptor (it keeps it too), so its read has the enum's own type.
            TypeKind::Enum(e) if e.open => Read::test(
                is("str"),
                format!("{}.get({var}, {var})", self.enum_table(id)),
            ),
            TypeKind::Enum(_) => Read::test(is("str"), format!("{}[{var}]", self.enum_table(id))),
            TypeKind::Id { .. } => Read {
                other: Some(format!("_rt.read_id({var})")),
                ..Read::test(is("str"), var.to_string())
            },
            // Passed through untouched, as their descriptors do.
            TypeKind::ScalarUnion(_) | TypeKind::RecordRef(_) => Read::any(var.to_string()),
        }
    }
}

/// How the generated decoders read a builtin value held in `var`.
fn read_builtin(b: Builtin, sensitive: bool, var: &str) -> Read {
    let is = |t: &str| format!("type({var}) is {t}");
    match b {
        Builtin::String | Builtin::Url if sensitive => {
            Read::test(is("str"), format!("_rt.Secret({var})"))
        }
        Builtin::String | Builtin::Url => Read::test(is("str"), var.to_string()),
        Builtin::Integer | Builtin::Int32 => Read {
            other: Some(format!("_rt.read_int({var})")),
            ..Read::test(is("int"), var.to_string())
        },
        Builtin::Number => Read::test(
            format!("({} or {})", is("float"), is("int")),
            var.to_string(),
        ),
        Builtin::Boolean => Read::test(is("bool"), var.to_string()),
        Builtin::Date => Read::test(is("str"), format!("_rt.parse_date({var})")),
        Builtin::DateTime => Read::test(is("str"), format!("_rt.parse_datetime({var})")),
        Builtin::DateOrDateTime => {
            Read::test(is("str"), format!("_rt.parse_date_or_datetime({var})"))
        }
        Builtin::DateTimeOrRange => Read::any(format!("_rt.read_datetime_or_range({var})")),
        Builtin::Json => Read::any(var.to_string()),
        // Never read from an answer.
        Builtin::Binary => Read::any("_rt.mismatch()".to_string()),
    }
}

/// The variable of an array's or a map's items, `depth` containers deep.
fn item_var(depth: usize) -> String {
    if depth == 0 {
        "i".to_string()
    } else {
        format!("i{depth}")
    }
}
