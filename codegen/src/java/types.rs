//! Java types for IR type references, and the expressions that read one from a
//! `JsonValue` and write one back (through the runtime's `Wire`).

use crate::ir::{Builtin, TypeRef};

/// The Java names of an interface's declared types, by type id.
pub struct Types<'a> {
    pub names: &'a [String],
}

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

    #[test]
    fn nested_containers_get_lambda_parameters_of_their_own() {
        let names = vec!["Unit".to_string()];
        let types = Types { names: &names };
        let ty = TypeRef::Array(Box::new(TypeRef::Map(Box::new(TypeRef::Builtin(
            Builtin::Integer,
        )))));
        assert_eq!(types.java(&ty, false), "List<Map<String, Long>>");
        assert_eq!(
            types.decode(&ty, "v", "p", 0),
            "Wire.list(v, p, (v0, p0) -> Wire.map(v0, p0, (v1, p1) -> Wire.int64(v1, p1)))"
        );
        assert_eq!(
            types.encode(&ty, "x", 0),
            "Wire.array(x, e0 -> Wire.object(e0, e1 -> JsonNumber.of(e1)))"
        );
    }
}
