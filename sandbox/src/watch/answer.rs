//! An answer's JSON body held to the type the spec gives it, departure by departure:
//! unlisted properties, unknown enum values and union members, promised fields absent,
//! `null` where the spec has none, values of another JSON type or format. Unlike the
//! strict request checks, nothing here refuses: every departure is a finding, named by the
//! spec element that would change.

use serde_json::Value;

use crate::ir::{
    Builtin, Element, Field, Interface, Object, TypeId, TypeKind, TypeRef, position_key,
};
use crate::json_shape::{self, Reading, Tagged};

use super::report::Kind;

/// One departure inside a body: what, which spec element, where in the JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub kind: Kind,
    /// The element's key (`Unit.vin`) and its spec position.
    pub element: String,
    pub position: Option<String>,
    /// The JSON path of the value (`data[3].status`).
    pub path: String,
    pub detail: String,
}

/// Every departure of `value` from `ty`.
pub fn walk(interface: &Interface, ty: &TypeRef, value: &Value) -> Vec<Found> {
    let mut walker = Walker {
        interface,
        found: Vec::new(),
    };
    let holder = Holder::Root;
    walker.value(ty, value, "", holder);
    walker.found
}

/// The element a value belongs to, for naming a departure found at it: a field, or the
/// answer itself ([`ROOT`], which the caller names by its operation).
#[derive(Clone, Copy)]
enum Holder<'a> {
    Root,
    Field(&'a str, &'a str),
}

/// The element of a departure of the whole answer (an array where a record was promised).
pub const ROOT: &str = "body";

struct Walker<'a> {
    interface: &'a Interface,
    found: Vec<Found>,
}

impl<'a> Walker<'a> {
    fn report(&mut self, kind: Kind, element: Element, path: &str, detail: String) {
        self.found.push(Found {
            kind,
            element: position_key(&element),
            position: self.interface.position(&element),
            path: if path.is_empty() {
                "body".into()
            } else {
                path.into()
            },
            detail,
        });
    }

    fn wrong(&mut self, holder: Holder, path: &str, expected: &str, value: &Value) {
        let element = match holder {
            Holder::Field(t, f) => Element::Field(t, f),
            Holder::Root => Element::Type(ROOT),
        };
        let detail = format!("expected {expected}, got {}", json_shape::kind(value));
        self.report(Kind::WrongType, element, path, detail);
    }

    fn value(&mut self, ty: &'a TypeRef, value: &Value, path: &str, holder: Holder<'a>) {
        match ty {
            TypeRef::Builtin(b) => self.builtin(*b, value, path, holder),
            TypeRef::Named(id) => self.named(*id, value, path, holder),
            TypeRef::Array(item) | TypeRef::Page(item) => match value {
                Value::Array(items) => {
                    for (n, v) in items.iter().enumerate() {
                        self.value(item, v, &format!("{path}[{n}]"), holder);
                    }
                }
                other => self.wrong(holder, path, "an array", other),
            },
            TypeRef::Map(item) => match value {
                Value::Object(entries) => {
                    for (k, v) in entries {
                        self.value(item, v, &join(path, k), holder);
                    }
                }
                other => self.wrong(holder, path, "an object", other),
            },
            TypeRef::JsonEncoded(_) => {}
        }
    }

    fn builtin(&mut self, b: Builtin, value: &Value, path: &str, holder: Holder) {
        let fits = json_shape::fits(b, value, Reading::Answer);
        if !fits {
            let name = b.name();
            let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            self.wrong(holder, path, &format!("{article} {name}"), value);
        }
    }

    fn named(&mut self, id: TypeId, value: &Value, path: &str, holder: Holder<'a>) {
        let t = self.interface.ty(id);
        match &t.kind {
            TypeKind::Object(o) => self.object(&t.name, o, value, path, holder, None),
            TypeKind::Enum(e) => match value.as_str() {
                Some(s) if e.values.iter().any(|v| v.wire == s) => {}
                Some(s) => {
                    let detail = format!("`{s}` is no value of {}", t.name);
                    self.report(
                        Kind::UnknownValue,
                        Element::Member(&t.name, s),
                        path,
                        detail,
                    );
                }
                None => self.wrong(holder, path, &format!("a value of {}", t.name), value),
            },
            TypeKind::Union(u) => match json_shape::tagged(u, value) {
                Tagged::Member(v) => {
                    let shape = self.interface.ty(v.shape);
                    if let TypeKind::Object(o) = &shape.kind {
                        self.object(&shape.name, o, value, path, holder, Some(&u.tag));
                    }
                }
                Tagged::Unknown(tag) => {
                    let detail = format!("`{tag}` is no member of {}", t.name);
                    let element = Element::Member(&t.name, tag);
                    self.report(Kind::UnknownMember, element, path, detail);
                }
                Tagged::Untagged => {
                    let expected = format!("an object with a `{}` string", u.tag);
                    self.wrong(holder, path, &expected, value);
                }
            },
            TypeKind::ScalarUnion(kinds) => {
                if !kinds.iter().any(|k| json_shape::scalar_fits(*k, value)) {
                    let names: Vec<&str> = kinds.iter().map(|k| k.json_type()).collect();
                    self.wrong(holder, path, &format!("one of {}", names.join(", ")), value);
                }
            }
            TypeKind::Id {
                accepts_integers, ..
            } => {
                if !json_shape::id_fits(*accepts_integers, value) {
                    self.wrong(holder, path, &format!("an id ({})", t.name), value);
                }
            }
            TypeKind::RecordRef(_) => {
                if !value.is_string() {
                    self.wrong(holder, path, "a string", value);
                }
            }
        }
    }

    /// A record: promised fields present, `null` only where allowed, each field of its
    /// type, no property the spec does not list. An inferred envelope may wrap it or not.
    fn object(
        &mut self,
        name: &'a str,
        o: &'a Object,
        value: &Value,
        path: &str,
        holder: Holder<'a>,
        tag: Option<&str>,
    ) {
        let Value::Object(given) = value else {
            return self.wrong(holder, path, &format!("an object ({name})"), value);
        };
        // An answer without its inferred envelope is the bare record.
        if let Some(envelope) = &o.envelope
            && !given.contains_key(envelope)
            && let Some(record) = o.fields.iter().find(|f| f.name == *envelope)
        {
            return self.value(&record.ty, value, path, holder);
        }
        for field in o.wire_fields() {
            self.field(name, field, given.get(&field.name), path);
        }
        for key in given.keys() {
            let listed = o.wire_fields().any(|f| f.name == *key) || tag == Some(key.as_str());
            if !listed {
                let detail = format!("`{key}` is no property of {name}");
                let kind = match o.not_shown {
                    Some(_) => Kind::FillsGap,
                    None => Kind::UnlistedProperty,
                };
                self.report(kind, Element::Field(name, key), &join(path, key), detail);
            }
        }
    }

    fn field(&mut self, record: &'a str, field: &'a Field, value: Option<&Value>, path: &str) {
        let at = join(path, &field.name);
        let element = Element::Field(record, &field.name);
        match value {
            // A one-of variant's fields are each absent in the other variants.
            None if field.required => {
                let detail = format!("{record}.{} is promised and absent", field.name);
                self.report(Kind::MissingField, element, &at, detail);
            }
            None => {}
            Some(Value::Null) if !field.nullable => {
                let detail = format!("{record}.{} is null, which it may not be", field.name);
                self.report(Kind::UnexpectedNull, element, &at, detail);
            }
            Some(Value::Null) => {}
            Some(v) => self.value(&field.ty, v, &at, Holder::Field(record, &field.name)),
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}
