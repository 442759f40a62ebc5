//! TypeScript types for spec type references, and the runtime descriptors (`rt.Desc`
//! literals) that decode responses tolerantly and validate requests strictly.

use crate::ir::{Builtin, Constraints, Field, Interface, Object, Paging, TypeKind, TypeRef, Union};

use super::names;

pub use crate::templates::TypeNames;

/// What the TypeScript modules say of the declared types besides their names.
impl TypeNames<'_> {
    /// The TypeScript type of a reference.
    pub fn ts(&self, ty: &TypeRef) -> String {
        match ty {
            TypeRef::Builtin(b) => builtin(*b).to_string(),
            TypeRef::Named(id) => self.named(*id),
            TypeRef::Array(inner) => {
                let inner = self.ts(inner);
                if inner.contains(' ') {
                    format!("({inner})[]")
                } else {
                    format!("{inner}[]")
                }
            }
            TypeRef::Map(inner) => format!("Record<string, {}>", self.ts(inner)),
            TypeRef::Page(inner) => format!("{}{}<{}>", self.prefix, names::PAGE, self.ts(inner)),
            TypeRef::JsonEncoded(inner) => self.ts(inner),
        }
    }
}

fn builtin(b: Builtin) -> &'static str {
    match b {
        Builtin::String | Builtin::Url => "string",
        Builtin::Integer | Builtin::Int32 | Builtin::Number => "number",
        Builtin::Boolean => "boolean",
        // Kept as text: a `Date` would shift a date-only value a day west of UTC.
        Builtin::Date | Builtin::DateTime | Builtin::DateOrDateTime => "string",
        Builtin::DateTimeOrRange => "string | readonly [string, string]",
        Builtin::Json => "rt.JsonValue",
        Builtin::Binary => "Uint8Array",
    }
}

/// What a user of the type must know about how TypeScript holds it.
pub fn note(ty: &TypeRef) -> Option<&'static str> {
    match ty {
        TypeRef::Builtin(Builtin::Integer) => {
            Some("An int64 on the wire: values beyond 2^53 lose precision in a JavaScript number.")
        }
        TypeRef::Builtin(Builtin::Date) => Some("A date, `YYYY-MM-DD`, kept as text."),
        TypeRef::Builtin(Builtin::DateTime) => Some("An ISO 8601 date-time in UTC, kept as text."),
        TypeRef::Builtin(Builtin::DateOrDateTime) => {
            Some("A date (`YYYY-MM-DD`) or an ISO 8601 date-time, kept as text.")
        }
        TypeRef::Builtin(Builtin::DateTimeOrRange) => {
            Some("A date-time, or a `[from, to]` pair of them.")
        }
        _ => None,
    }
}

/// The descriptor of a value of type `ty` with the field-level limits `c`.
pub fn desc(i: &Interface, ty: &TypeRef, c: &Constraints) -> String {
    let limits = constraints(c);
    match ty {
        TypeRef::Builtin(b) => {
            let base = match b {
                Builtin::String | Builtin::Url => "k: \"string\"",
                Builtin::Integer => "k: \"int\", bits: 64",
                Builtin::Int32 => "k: \"int\", bits: 32",
                Builtin::Number => "k: \"number\"",
                Builtin::Boolean => "k: \"bool\"",
                Builtin::Date => "k: \"date\"",
                Builtin::DateTime => "k: \"datetime\"",
                Builtin::DateOrDateTime => "k: \"date_or_datetime\"",
                Builtin::DateTimeOrRange | Builtin::Json | Builtin::Binary => "k: \"json\"",
            };
            with_limits(base, &limits)
        }
        TypeRef::Named(id) => match &i.ty(*id).kind {
            // Ids are inlined so a field's own limit and the id's merge into one.
            TypeKind::Id { max_length, .. } => {
                let merged = Constraints {
                    max_length: c.max_length.or(*max_length),
                    ..c.clone()
                };
                with_limits("k: \"id\"", &constraints(&merged))
            }
            _ => format!("{{ k: \"ref\", name: {} }}", names::string(&i.ty(*id).name)),
        },
        TypeRef::Array(inner) => with_limits(
            &format!(
                "k: \"array\", of: {}",
                desc(i, inner, &Constraints::default())
            ),
            &limits,
        ),
        TypeRef::Map(inner) => format!(
            "{{ k: \"map\", of: {} }}",
            desc(i, inner, &Constraints::default())
        ),
        TypeRef::Page(_) if i.cursor_envelope().is_none() => "{ k: \"json\" }".to_string(),
        // Registered once per item type (see `page_record`), so a list answer's descriptor
        // is a reference, not the envelope again.
        TypeRef::Page(_) => format!("{{ k: \"ref\", name: {} }}", names::string(&i.spelled(ty))),
        TypeRef::JsonEncoded(inner) => desc(i, inner, c),
    }
}

fn with_limits(base: &str, limits: &Option<String>) -> String {
    match limits {
        Some(c) => format!("{{ {base}, c: {c} }}"),
        None => format!("{{ {base} }}"),
    }
}

/// `{ maxLength: 255, ... }`, or `None` when there are no limits.
fn constraints(c: &Constraints) -> Option<String> {
    let mut parts: Vec<String> = c
        .numbers()
        .into_iter()
        .map(|(key, v)| format!("{}: {v}", heck::ToLowerCamelCase::to_lower_camel_case(key)))
        .collect();
    if let Some(rule) = &c.chars {
        let allow = rule.allow.wire();
        parts.push(format!(
            "chars: {{ allow: \"{allow}\", forbid: {} }}",
            names::string(&rule.forbid)
        ));
    }
    (!parts.is_empty()).then(|| format!("{{ {} }}", parts.join(", ")))
}

/// The descriptor of one field of a record.
pub fn field_desc(i: &Interface, f: &Field) -> String {
    let fill = match (&f.ty, f.required || f.nullable) {
        (TypeRef::Array(_), false) => ", fill: \"array\"",
        (TypeRef::Map(_), false) => ", fill: \"map\"",
        _ => "",
    };
    // A secret string says so, so that a violation never shows its characters.
    let d = match &f.ty {
        TypeRef::Builtin(b) if f.sensitive && b.is_string_like() => {
            with_limits("k: \"string\", sec: true", &constraints(&f.constraints))
        }
        ty => desc(i, ty, &f.constraints),
    };
    format!(
        "{{ name: {}, d: {d}, req: {}, nul: {}{fill} }}",
        names::string(&f.name),
        f.required,
        f.nullable
    )
}

/// The registry entry of a page of `item` records (key: [`Interface::spelled`], as a
/// `page<Item>` reference names it): the cursor interface's list envelope.
pub fn page_record(i: &Interface, item: &TypeRef) -> Option<RecordDesc> {
    let (items_field, paging_field, paging_type) = i.cursor_envelope()?;
    let items = format!(
        "{{ name: {}, d: {{ k: \"array\", of: {} }}, req: false, nul: false, fill: \"array\" }}",
        names::string(items_field),
        desc(i, item, &Constraints::default())
    );
    let paging = format!(
        "{{ name: {}, d: {{ k: \"ref\", name: {} }}, req: false, nul: false }}",
        names::string(paging_field),
        names::string(&i.ty(paging_type).name)
    );
    Some(RecordDesc {
        fields: vec![items, paging],
        one_of: None,
        envelope: None,
    })
}

/// The registry entry of an operation's query parameters (key: [`query_key`]).
pub fn query_record(i: &Interface, query: &[Field]) -> RecordDesc {
    RecordDesc {
        fields: query.iter().map(|f| field_desc(i, f)).collect(),
        one_of: None,
        envelope: None,
    }
}

/// The registry key of an operation's query parameters: `<operation>?`, which no type's
/// name can be.
pub fn query_key(op: &str) -> String {
    format!("{op}?")
}

/// A registry entry, in parts a template lays out: a record a field a line, a union a
/// member a line, anything else on one line.
#[derive(Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EntryDesc {
    Line { desc: String },
    Record(RecordDesc),
    Union(UnionDesc),
}

/// The registry entry of a declared type.
pub fn type_entry(i: &Interface, kind: &TypeKind) -> EntryDesc {
    let line = |desc: String| EntryDesc::Line { desc };
    match kind {
        TypeKind::Object(o) => EntryDesc::Record(record_desc(i, o)),
        TypeKind::Enum(e) => {
            let values: Vec<String> = e.values.iter().map(|v| names::string(&v.wire)).collect();
            line(format!(
                "{{ k: \"enum\", values: [{}], open: {} }}",
                values.join(", "),
                e.open
            ))
        }
        TypeKind::Union(u) => EntryDesc::Union(union_desc(i, u)),
        TypeKind::ScalarUnion(kinds) => {
            let kinds: Vec<String> = kinds.iter().map(|k| names::string(k.json_type())).collect();
            line(format!("{{ k: \"scalar\", of: [{}] }}", kinds.join(", ")))
        }
        TypeKind::Id { max_length, .. } => line(with_limits(
            "k: \"id\"",
            &constraints(&Constraints {
                max_length: *max_length,
                ..Constraints::default()
            }),
        )),
        // Path references are formatted, not decoded.
        TypeKind::RecordRef(_) => line("{ k: \"json\" }".to_string()),
    }
}

/// A record's descriptor in parts: each field's descriptor, the exactly-one-of group, and
/// the envelope field (quoted).
#[derive(Debug, serde::Serialize)]
pub struct RecordDesc {
    pub fields: Vec<String>,
    pub one_of: Option<OneOfDesc>,
    pub envelope: Option<String>,
}

/// An exactly-one-of group: its name and each variant's `{ name, fields }` (quoted).
#[derive(Debug, serde::Serialize)]
pub struct OneOfDesc {
    pub name: String,
    pub variants: Vec<String>,
}

/// A tagged union: its tag (quoted) and each tag value's `value: "Record"` entry.
#[derive(Debug, serde::Serialize)]
pub struct UnionDesc {
    pub tag: String,
    pub variants: Vec<String>,
}

/// The registry entry of a record, in parts (see [`RecordDesc`]).
fn record_desc(i: &Interface, o: &Object) -> RecordDesc {
    let mut fields: Vec<String> = o.fields.iter().map(|f| field_desc(i, f)).collect();
    let one_of = o.one_of.as_ref().map(|one| {
        let variants = one
            .variants
            .iter()
            .map(|v| {
                fields.extend(v.fields.iter().map(|f| {
                    // Inside a group a field is required by the group, not alone.
                    let mut f = f.clone();
                    f.required = false;
                    field_desc(i, &f)
                }));
                let keys: Vec<String> = v.fields.iter().map(|f| names::string(&f.name)).collect();
                format!(
                    "{{ name: {}, fields: [{}] }}",
                    names::string(&v.name),
                    keys.join(", ")
                )
            })
            .collect();
        OneOfDesc {
            name: names::string(&one.name),
            variants,
        }
    });
    RecordDesc {
        fields,
        one_of,
        envelope: o.envelope.as_deref().map(names::string),
    }
}

/// The registry entry of a tagged union: its tag and each tag value's record.
fn union_desc(i: &Interface, u: &Union) -> UnionDesc {
    UnionDesc {
        tag: names::string(&u.tag),
        variants: u
            .variants
            .iter()
            .map(|v| {
                format!(
                    "{}: {}",
                    names::property(&v.tag_value),
                    names::string(&i.ty(v.shape).name)
                )
            })
            .collect(),
    }
}

/// The paging plan (`rt.PagingPlan`) of a paginated operation, as `key: value` entries
/// a template lays out a line each.
pub fn paging_plan(i: &Interface, paging: Paging<'_>) -> Vec<String> {
    let entry = |key: &str, v: &str| format!("{key}: {}", names::string(v));
    match paging {
        Paging::Cursor { item, settings: c } => {
            let mut plan = vec![
                "style: \"cursor\"".to_string(),
                entry("itemsField", &c.items_field),
                entry("pagingField", &c.paging_field),
            ];
            let optional = [
                ("nextUrlField", c.next_url_field.as_deref()),
                ("cursorField", c.cursor_field.as_deref()),
                ("pageSizeField", c.page_size_field.as_deref()),
            ];
            plan.extend(optional.iter().filter_map(|(k, v)| Some(entry(k, (*v)?))));
            plan.push(entry("pageParam", &c.page_param));
            plan.push(entry("perPageParam", &c.per_page_param));
            let page = TypeRef::Page(Box::new(item.clone()));
            plan.push(format!("page: {}", desc(i, &page, &Constraints::default())));
            plan
        }
        Paging::Links {
            envelope,
            items_field,
            settings: l,
            ..
        } => vec![
            "style: \"links\"".to_string(),
            entry("itemsField", items_field),
            entry("linksField", &l.links_field),
            format!(
                "page: {{ k: \"ref\", name: {} }}",
                names::string(&i.ty(envelope).name)
            ),
        ],
    }
}
