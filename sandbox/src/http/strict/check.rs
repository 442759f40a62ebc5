//! One walk of a JSON value against an IR type reference: the JSON kind at every depth,
//! `null` only where the spec allows it, required fields, closed enums and union tags,
//! exactly one of a `one_of` group. Properties the spec does not list are not looked at:
//! the service may take new optional ones at any time (v3 versioning notes), so a client
//! may send them. Limits (lengths, ranges) are left to the typed decode that follows.
//!
//! An integer may be written `5.0` (JSON Schema counts it as an integer); the walk rewrites
//! it as `5` so the typed decode reads it.

use serde_json::{Number, Value};

use crate::ir::{
    self, Constraints, Field, Interface, Object, ScalarKind, TypeId, TypeKind, TypeRef,
};
use crate::json_shape::{self, Json, Reading, Tagged};

/// How a field's path is written in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStyle {
    /// `extended_data.key`, `parts[0].etag` (v3's field names).
    Dotted,
    /// `user[email]`, `parts[0][etag]` (the legacy docs' parameter names).
    Bracketed,
}

/// What a walk found: every problem, each `path: what is wrong`.
#[derive(Debug, Default)]
pub struct Outcome {
    pub problems: Vec<String>,
    /// Whether a whole-number float was rewritten as an integer.
    pub rewritten: bool,
}

/// Walks `value` as a `ty` of `interface`, rewriting whole-number floats where an integer
/// is expected.
pub fn check(interface: &Interface, style: PathStyle, ty: &TypeRef, value: &mut Value) -> Outcome {
    let mut walk = Walk {
        interface,
        style,
        out: Outcome::default(),
    };
    walk.value(value, ty, &Path::Root(""));
    walk.out
}

/// The problems with one query parameter's text, each `name: what is wrong` (a
/// JSON-encoded parameter's own fields by their path inside it: `filter[user_id]`). Its
/// type, and the limits the spec documents for it (range, length), decide.
pub fn query(interface: &Interface, style: PathStyle, param: &Field, text: &str) -> Vec<String> {
    let mut walk = Walk {
        interface,
        style,
        out: Outcome::default(),
    };
    let at = Path::Root(&param.name);
    match &param.ty {
        TypeRef::JsonEncoded(inner) => match serde_json::from_str::<Value>(text) {
            Ok(mut value) => walk.value(&mut value, inner, &at),
            Err(e) => walk.problem(&at, format!("is not JSON: {e}")),
        },
        TypeRef::Builtin(builtin) => walk.query_builtin(*builtin, &param.constraints, text, &at),
        // An enum, an id: the text is the JSON string.
        ty => walk.value(&mut Value::String(text.to_string()), ty, &at),
    }
    let limit = param.constraints.max_length;
    if let Some(max) = limit.filter(|&max| text.chars().count() > max as usize) {
        walk.problem(&at, format!("must be at most {max} characters"));
    }
    walk.out.problems
}

/// Where a value sits in the body (`Root("")`) or in a query parameter.
enum Path<'a> {
    Root(&'a str),
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn text(&self, style: PathStyle) -> String {
        match self {
            Path::Root("") => "body".to_string(),
            Path::Root(name) => name.to_string(),
            Path::Key(Path::Root(""), key) => key.to_string(),
            Path::Key(parent, key) => match style {
                PathStyle::Dotted => format!("{}.{key}", parent.text(style)),
                PathStyle::Bracketed => format!("{}[{key}]", parent.text(style)),
            },
            Path::Index(Path::Root(""), i) => format!("[{i}]"),
            Path::Index(parent, i) => format!("{}[{i}]", parent.text(style)),
        }
    }
}

struct Walk<'i> {
    interface: &'i Interface,
    style: PathStyle,
    out: Outcome,
}

impl Walk<'_> {
    fn problem(&mut self, at: &Path, what: impl std::fmt::Display) {
        let at = at.text(self.style);
        self.out.problems.push(format!("{at}: {what}"));
    }

    fn expected(&mut self, at: &Path, what: &str, got: &Value) {
        self.problem(
            at,
            format!("expected {what}, got {}", json_shape::kind(got)),
        );
    }

    fn value(&mut self, value: &mut Value, ty: &TypeRef, at: &Path) {
        if value.is_null() && !self.admits_null(ty) {
            self.problem(at, "null is not allowed");
            return;
        }
        match ty {
            TypeRef::Builtin(builtin) => self.builtin(value, *builtin, at),
            TypeRef::Named(n) => self.named(value, *n, at),
            TypeRef::Array(item) => match value {
                Value::Array(items) => {
                    for (i, v) in items.iter_mut().enumerate() {
                        self.value(v, item, &Path::Index(at, i));
                    }
                }
                other => self.expected(at, "an array", other),
            },
            TypeRef::Map(item) => match value {
                Value::Object(entries) => {
                    for (k, v) in entries.iter_mut() {
                        self.value(v, item, &Path::Key(at, k));
                    }
                }
                other => self.expected(at, "an object", other),
            },
            // Never a request body; an object of any content.
            TypeRef::Page(_) => {
                if !value.is_object() {
                    self.expected(at, "an object", value);
                }
            }
            TypeRef::JsonEncoded(inner) => self.value(value, inner, at),
        }
    }

    /// Whether `null` is a value of `ty` itself (apart from a field being nullable).
    fn admits_null(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::Builtin(builtin) => Json::of(*builtin) == Json::Any,
            TypeRef::Named(n) => match self.interface.types.get(n.index()).map(|t| &t.kind) {
                Some(TypeKind::ScalarUnion(kinds)) => kinds.contains(&ScalarKind::Null),
                _ => false,
            },
            TypeRef::JsonEncoded(inner) => self.admits_null(inner),
            _ => false,
        }
    }

    fn builtin(&mut self, value: &mut Value, builtin: ir::Builtin, at: &Path) {
        match Json::of(builtin) {
            Json::Text => match value.as_str() {
                Some(text) if !well_formed(builtin, text) => {
                    let name = builtin.name();
                    self.problem(at, format!("`{text}` is not a {name}"));
                }
                Some(_) => {}
                None => self.expected(at, "a string", value),
            },
            Json::TextOrPair => {
                let value: &Value = value;
                let texts: Vec<&str> = match value {
                    Value::String(text) => vec![text],
                    Value::Array(pair) => pair.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                let whole = match value {
                    Value::Array(pair) => pair.len() == 2 && texts.len() == 2,
                    _ => texts.len() == 1,
                };
                if !whole {
                    self.expected(at, "a date-time or an array of two date-times", value);
                } else if let Some(text) = texts
                    .iter()
                    .find(|t| !well_formed(ir::Builtin::DateTime, t))
                {
                    self.problem(at, format!("`{text}` is not a date-time"));
                }
            }
            Json::Integer { min, max } => self.integer(value, min, max, at),
            Json::Number => {
                if !value.is_number() {
                    self.expected(at, "a number", value);
                }
            }
            Json::Boolean => {
                if !value.is_boolean() {
                    self.expected(at, "a boolean", value);
                }
            }
            Json::Any => {}
        }
    }

    /// A query parameter of a builtin type, written as text.
    fn query_builtin(&mut self, builtin: ir::Builtin, limits: &Constraints, text: &str, at: &Path) {
        let number = match Json::of(builtin) {
            Json::Integer { min, max } => match text.parse::<i128>() {
                Ok(i) if i < i128::from(min) || i > i128::from(max) => {
                    let what = format!("expected an integer from {min} to {max}, got {text}");
                    return self.problem(at, what);
                }
                Ok(i) => i as f64,
                Err(_) => return self.problem(at, format!("`{text}` is not an integer")),
            },
            Json::Number => match text.parse::<f64>() {
                Ok(n) if n.is_finite() => n,
                _ => return self.problem(at, format!("`{text}` is not a number")),
            },
            Json::Boolean if text != "true" && text != "false" => {
                return self.problem(at, format!("`{text}` is not `true` or `false`"));
            }
            _ => {
                if !well_formed(builtin, text) {
                    let name = builtin.name();
                    self.problem(at, format!("`{text}` is not a {name}"));
                }
                return;
            }
        };
        if let Some(min) = limits.min.filter(|&min| number < min as f64) {
            self.problem(at, format!("must be at least {min}, got {text}"));
        } else if let Some(max) = limits.max.filter(|&max| number > max as f64) {
            self.problem(at, format!("must be at most {max}, got {text}"));
        }
    }

    /// An integer from `min` to `max`; a float with no fraction counts, and is rewritten.
    fn integer(&mut self, value: &mut Value, min: i64, max: i64, at: &Path) {
        let Value::Number(n) = &*value else {
            return self.expected(at, "an integer", value);
        };
        match json_shape::integer(value, Reading::Request) {
            None => self.problem(at, format!("expected an integer, got {n}")),
            Some(i) if i < i128::from(min) || i > i128::from(max) => {
                self.problem(
                    at,
                    format!("expected an integer from {min} to {max}, got {n}"),
                );
            }
            Some(i) => {
                if n.is_f64() {
                    // In range, so it fits an i64.
                    *value = Value::Number(Number::from(i as i64));
                    self.out.rewritten = true;
                }
            }
        }
    }

    fn named(&mut self, value: &mut Value, n: TypeId, at: &Path) {
        let interface = self.interface;
        let Some(def) = interface.types.get(n.index()) else {
            return;
        };
        match &def.kind {
            TypeKind::Object(object) => self.object(value, object, at),
            // Closed on requests: the sandbox stores only values it knows.
            TypeKind::Enum(e) => match value.as_str() {
                Some(s) if e.values.iter().any(|v| v.wire == s) => {}
                Some(s) => {
                    let known: Vec<&str> = e.values.iter().map(|v| v.wire.as_str()).collect();
                    self.problem(at, format!("`{s}` is not one of {}", known.join(", ")));
                }
                None => self.expected(at, "a string", value),
            },
            TypeKind::Union(u) => {
                if !value.is_object() {
                    return self.expected(at, "an object", value);
                }
                let got = match json_shape::tagged(u, value) {
                    Tagged::Member(variant) => return self.named(value, variant.shape, at),
                    Tagged::Unknown(tag) => format!("`{tag}`"),
                    Tagged::Untagged => "none".to_string(),
                };
                let known: Vec<&str> = u.variants.iter().map(|v| v.tag_value.as_str()).collect();
                let what = format!("must be one of {}, got {got}", known.join(", "));
                self.problem(&Path::Key(at, &u.tag), what);
            }
            TypeKind::ScalarUnion(kinds) => {
                if !kinds.iter().any(|k| json_shape::scalar_fits(*k, value)) {
                    let names: Vec<&str> = kinds.iter().map(|k| k.json_type()).collect();
                    self.expected(at, &format!("one of {}", names.join(", ")), value);
                }
            }
            // Ids are opaque strings; an interface whose examples also show them as numbers
            // (`accepts_integers`) takes an integer as its text.
            TypeKind::Id {
                accepts_integers, ..
            } => {
                if !json_shape::id_fits(*accepts_integers, value) {
                    let what = match accepts_integers {
                        true => "an id (a string or an integer)",
                        false => "an id (a string)",
                    };
                    self.expected(at, what, value);
                }
            }
            TypeKind::RecordRef(_) => {
                if !value.is_string() {
                    self.expected(at, "a string", value);
                }
            }
        }
    }

    fn object(&mut self, value: &mut Value, object: &Object, at: &Path) {
        let Value::Object(given) = value else {
            return self.expected(at, "an object", value);
        };
        for field in &object.fields {
            self.field(given, field, field.required, at);
        }
        let Some(one_of) = &object.one_of else {
            return;
        };
        // A group counts as given when any of its fields is; its fields are then required.
        let mut chosen = Vec::new();
        for variant in &one_of.variants {
            if variant.fields.iter().any(|f| given.contains_key(&f.name)) {
                chosen.push(variant);
                for field in &variant.fields {
                    self.field(given, field, true, at);
                }
            }
        }
        let names = |variants: &[&ir::OneOfVariant]| {
            let names: Vec<String> = variants
                .iter()
                .flat_map(|v| &v.fields)
                .map(|f| format!("`{}`", f.name))
                .collect();
            names.join(", ")
        };
        match chosen.len() {
            1 => {}
            0 => {
                let all: Vec<_> = one_of.variants.iter().collect();
                self.problem(at, format!("one of {} is required", names(&all)));
            }
            _ => {
                self.problem(at, format!("only one of {} may be given", names(&chosen)));
            }
        }
    }

    fn field(
        &mut self,
        given: &mut serde_json::Map<String, Value>,
        field: &Field,
        required: bool,
        at: &Path,
    ) {
        let here = Path::Key(at, &field.name);
        match given.get_mut(&field.name) {
            None if required => self.problem(&here, "is required"),
            None => {}
            Some(Value::Null) if field.nullable || self.admits_null(&field.ty) => {}
            Some(Value::Null) => {
                self.problem(&here, "null is not allowed (the field is not nullable)");
            }
            Some(v) => self.value(v, &field.ty, &here),
        }
    }
}

/// Whether `text` is of the string builtin's format, as a request is read.
fn well_formed(builtin: ir::Builtin, text: &str) -> bool {
    json_shape::text_fits(builtin, text, Reading::Request)
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
