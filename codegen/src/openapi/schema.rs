//! JSON Schema 2020-12 for the spec's types, as OpenAPI 3.1 components: records, open and
//! closed enums, discriminated unions with an explicit fallback for unknown members, ids,
//! and every documented limit.

use std::collections::BTreeSet;

use super::yaml::Node;
use crate::ir::{
    Builtin, CharClass, Constraints, Enum, Field, Interface, Object, OneOf, RecordRef, Source,
    TypeDef, TypeKind, TypeRef, Union, Variant,
};

/// A reference to a component schema.
pub fn reference(name: &str) -> Node {
    Node::map().with("$ref", Node::str(format!("#/components/schemas/{name}")))
}

/// The schema of a value of `ty` with the field-level limits `c`.
pub fn of(i: &Interface, ty: &TypeRef, c: &Constraints) -> Node {
    let base = match ty {
        TypeRef::Builtin(b) => builtin(*b),
        TypeRef::Named(id) => {
            let r = reference(&i.ty(*id).name);
            if c.is_empty() {
                return r;
            }
            // A field's own limits on top of the type's.
            return Node::map().with("allOf", Node::Seq(vec![r, limits(Node::map(), c, false)]));
        }
        TypeRef::Array(inner) => Node::map()
            .with("type", Node::str("array"))
            .with("items", of(i, inner, &Constraints::default())),
        TypeRef::Map(inner) => Node::map().with("type", Node::str("object")).with(
            "additionalProperties",
            of(i, inner, &Constraints::default()),
        ),
        TypeRef::Page(inner) => page(i, inner),
        TypeRef::JsonEncoded(inner) => return of(i, inner, c),
    };
    let is_array = matches!(ty, TypeRef::Array(_));
    limits(base, c, is_array)
}

fn builtin(b: Builtin) -> Node {
    let typed = |t: &str| Node::map().with("type", Node::str(t));
    match b {
        Builtin::String => typed("string"),
        Builtin::Url => typed("string").with("format", Node::str("uri")),
        Builtin::Integer => typed("integer").with("format", Node::str("int64")),
        Builtin::Int32 => typed("integer").with("format", Node::str("int32")),
        Builtin::Number => typed("number"),
        Builtin::Boolean => typed("boolean"),
        Builtin::Date => typed("string").with("format", Node::str("date")),
        Builtin::DateTime => typed("string").with("format", Node::str("date-time")),
        Builtin::DateOrDateTime => Node::map().with(
            "anyOf",
            Node::Seq(vec![builtin(Builtin::Date), builtin(Builtin::DateTime)]),
        ),
        Builtin::DateTimeOrRange => Node::map().with(
            "anyOf",
            Node::Seq(vec![
                builtin(Builtin::DateTime),
                typed("array")
                    .with("items", builtin(Builtin::DateTime))
                    .with("minItems", Node::Int(2))
                    .with("maxItems", Node::Int(2)),
            ]),
        ),
        Builtin::Json => Node::map(),
        Builtin::Binary => typed("string").with("format", Node::str("binary")),
    }
}

fn limits(mut node: Node, c: &Constraints, is_array: bool) -> Node {
    let mut int = |key: &str, v: Option<i64>| {
        if let Some(v) = v {
            node.set(key, Node::Int(v));
        }
    };
    int("maxLength", c.max_length.map(i64::from));
    int("minLength", c.length.map(i64::from));
    if c.length.is_some() {
        int("maxLength", c.length.map(i64::from));
    }
    int("minimum", c.min);
    int("maximum", c.max);
    if is_array {
        int("minItems", c.min_items.map(i64::from));
        int("maxItems", c.max_items.map(i64::from));
    }
    if let Some(rule) = &c.chars {
        node.set("pattern", Node::str(pattern(rule.allow, &rule.forbid)));
    }
    node
}

/// A regular expression of the allowed characters (ranges of what the class allows,
/// without the forbidden ones).
fn pattern(allow: CharClass, forbid: &str) -> String {
    let chars = allow.characters();
    let kept: Vec<char> = chars.into_iter().filter(|c| !forbid.contains(*c)).collect();
    let mut class = String::new();
    let mut i = 0;
    while i < kept.len() {
        let start = kept[i];
        let mut end = start;
        while i + 1 < kept.len() && kept[i + 1] as u32 == end as u32 + 1 {
            i += 1;
            end = kept[i];
        }
        if end == start {
            class.push(start);
        } else {
            class.push_str(&format!("{start}-{end}"));
        }
        i += 1;
    }
    format!("^[{class}]*$")
}

/// The cursor interface's list envelope around `item`.
fn page(i: &Interface, item: &TypeRef) -> Node {
    let Some((items_field, paging_field, paging_type)) = i.cursor_envelope() else {
        return Node::map();
    };
    Node::map().with("type", Node::str("object")).with(
        "properties",
        Node::map()
            .with(
                items_field,
                Node::map()
                    .with("type", Node::str("array"))
                    .with("items", of(i, item, &Constraints::default())),
            )
            .with(paging_field, reference(&i.ty(paging_type).name)),
    )
}

/// `schema` that also admits `null`.
pub fn nullable(schema: Node) -> Node {
    if let Node::Map(entries) = &schema
        && let Some((_, Node::Str(t))) = entries.iter().find(|(k, _)| k == "type")
        && !entries.iter().any(|(k, _)| k == "$ref" || k == "allOf")
    {
        let t = t.clone();
        let mut schema = schema;
        schema.set("type", Node::Seq(vec![Node::str(t), Node::str("null")]));
        return schema;
    }
    Node::map().with(
        "anyOf",
        Node::Seq(vec![schema, Node::map().with("type", Node::str("null"))]),
    )
}

fn described(mut node: Node, doc: &str) -> Node {
    if !doc.trim().is_empty() {
        node.set("description", Node::str(doc.trim()));
    }
    node
}

/// Provenance that the spec marks, as `x-source`.
pub(super) fn source(mut node: Node, source: Source, not_shown: Option<&str>) -> Node {
    let tag = match source {
        Source::Seed => None,
        Source::PublicDocs => Some("public_docs"),
        Source::Inferred => Some("inferred"),
        Source::ThirdParty => Some("third_party"),
    };
    if let Some(tag) = tag {
        node.set("x-source", Node::str(tag));
    }
    if let Some(text) = not_shown {
        node.set("x-not-shown", Node::str(text.trim()));
    }
    node
}

/// The schema of one record field (`request_only`: of a record only requests use, where a
/// secret is `writeOnly`; an answer may carry one, such as a login's token).
pub fn field(i: &Interface, f: &Field, request_only: bool) -> Node {
    let mut schema = of(i, &f.ty, &f.constraints);
    if f.nullable {
        schema = nullable(schema);
    }
    if f.sensitive {
        schema.set("x-sensitive", Node::Bool(true));
        if request_only {
            schema.set("writeOnly", Node::Bool(true));
        }
    }
    let schema = if has_key(&schema, "$ref") {
        // Siblings of `$ref` are allowed in 2020-12, but some tools still drop them.
        Node::map().with("allOf", Node::Seq(vec![schema]))
    } else {
        schema
    };
    source(described(schema, &f.doc), f.source, f.not_shown.as_deref())
}

/// Every component schema of the interface: its types, and one per union member and
/// fallback (what the discriminator maps to).
pub fn components(i: &Interface) -> Node {
    let mut out = Node::map();
    let mut taken: BTreeSet<String> = i.types.iter().map(|t| t.name.clone()).collect();
    for t in &i.types {
        let schema = match &t.kind {
            TypeKind::Object(o) => object(i, t, o),
            TypeKind::Enum(e) => enumeration(e),
            // The members' components go in before the union's own.
            TypeKind::Union(u) => union(i, t, u, &mut taken, &mut out),
            TypeKind::ScalarUnion(kinds) => {
                let types: Vec<Node> = kinds.iter().map(|k| Node::str(k.json_type())).collect();
                Node::map().with("type", Node::Seq(types))
            }
            TypeKind::Id {
                max_length,
                accepts_integers,
            } => id(*max_length, *accepts_integers),
            TypeKind::RecordRef(r) => record_ref(i, r),
        };
        let schema = if has_key(&schema, "description") {
            schema
        } else {
            described(schema, &t.doc)
        };
        out.set(&t.name, schema);
    }
    out
}

/// A record: its properties (with those of its exactly-one-of variants), the required ones,
/// and the bare record that an inferred envelope also admits.
fn object(i: &Interface, t: &TypeDef, o: &Object) -> Node {
    let mut properties = Node::map();
    let mut required = Vec::new();
    // An answer's `null` for an optional property reads as absent in every
    // client, so a record only answers are made of admits it.
    let tolerant = t.usage.response && !t.usage.request;
    let request_only = t.usage.request_only();
    for f in &o.fields {
        let f = &Field {
            nullable: f.nullable || (tolerant && !f.required),
            ..f.clone()
        };
        properties.set(&f.name, field(i, f, request_only));
        if f.required {
            required.push(Node::str(&f.name));
        }
    }
    let mut node = Node::map().with("type", Node::str("object"));
    if let Some(one) = &o.one_of {
        let groups = one_of_groups(i, one, request_only, &mut properties);
        // Exactly one group: a request rule; answers are read whatever they hold.
        if t.usage.request_only() {
            node.set("oneOf", Node::Seq(groups));
        }
    }
    node.set("properties", properties);
    if !required.is_empty() {
        node.set("required", Node::Seq(required));
    }
    // An inferred envelope is also read bare: the record itself.
    let bare = o.envelope.as_ref().and_then(|env| {
        let f = o.fields.iter().find(|f| &f.name == env)?;
        Some(of(i, &f.ty, &Constraints::default()))
    });
    if let Some(bare) = bare {
        node = Node::map().with("anyOf", Node::Seq(vec![node, bare]));
    }
    source(node, o.source, o.not_shown.as_deref())
}

/// One `required` group per exactly-one-of variant; each variant's fields are added to
/// `properties`.
fn one_of_groups(
    i: &Interface,
    one: &OneOf,
    request_only: bool,
    properties: &mut Node,
) -> Vec<Node> {
    let mut groups = Vec::new();
    for v in &one.variants {
        for f in &v.fields {
            properties.set(&f.name, field(i, f, request_only));
        }
        let keys = v.fields.iter().map(|f| Node::str(&f.name)).collect();
        groups.push(Node::map().with("required", Node::Seq(keys)));
    }
    groups
}

/// A string enum; an open one also admits any other string.
fn enumeration(e: &Enum) -> Node {
    let values: Vec<Node> = e.values.iter().map(|v| Node::str(&v.wire)).collect();
    let mut node = Node::map().with("type", Node::str("string"));
    if e.open {
        // Open: the known values, and any other string the service may add.
        node.set(
            "anyOf",
            Node::Seq(vec![
                Node::map().with("enum", Node::Seq(values)),
                Node::map().with("type", Node::str("string")),
            ]),
        );
        node.set("x-open-enum", Node::Bool(true));
    } else {
        node.set("enum", Node::Seq(values));
    }
    node
}

/// A discriminated union. Each member, and the fallback of an open union, is a component of
/// its own, set in `out` under a name claimed in `taken`.
fn union(
    i: &Interface,
    t: &TypeDef,
    u: &Union,
    taken: &mut BTreeSet<String>,
    out: &mut Node,
) -> Node {
    let mut members = Vec::new();
    let mut mapping = Node::map();
    for v in &u.variants {
        let name = claim(taken, &format!("{}_{}", t.name, sanitize(&v.tag_value)));
        out.set(&name, union_member(i, u, v));
        mapping.set(
            &v.tag_value,
            Node::str(format!("#/components/schemas/{name}")),
        );
        members.push(reference(&name));
    }
    if u.open {
        let name = claim(taken, &format!("{}_unknown", t.name));
        out.set(&name, unknown_member(t, u));
        members.push(reference(&name));
    }
    Node::map().with("oneOf", Node::Seq(members)).with(
        "discriminator",
        Node::map()
            .with("propertyName", Node::str(&u.tag))
            .with("mapping", mapping),
    )
}

/// A union member: its shape, with the tag fixed to the member's value.
fn union_member(i: &Interface, u: &Union, v: &Variant) -> Node {
    let tagged = Node::map()
        .with("type", Node::str("object"))
        .with("required", Node::Seq(vec![Node::str(&u.tag)]))
        .with(
            "properties",
            Node::map().with(&u.tag, Node::map().with("const", Node::str(&v.tag_value))),
        );
    described(
        Node::map().with(
            "allOf",
            Node::Seq(vec![reference(&i.ty(v.shape).name), tagged]),
        ),
        &v.doc,
    )
}

/// An open union's fallback: any object whose tag is none of the listed values.
fn unknown_member(t: &TypeDef, u: &Union) -> Node {
    let known: Vec<Node> = u.variants.iter().map(|v| Node::str(&v.tag_value)).collect();
    Node::map()
        .with(
            "description",
            Node::str(format!(
                "A `{}` member whose `{}` this document does not list: kept whole by the clients.",
                t.name, u.tag
            )),
        )
        .with("type", Node::str("object"))
        .with(
            "not",
            Node::map()
                .with("required", Node::Seq(vec![Node::str(&u.tag)]))
                .with(
                    "properties",
                    Node::map().with(&u.tag, Node::map().with("enum", Node::Seq(known))),
                ),
        )
        .with("x-unknown-member", Node::Bool(true))
}

/// An id: some answers carry ids as numbers; the clients read them as their text.
/// An id: a string, or either form where the interface also takes an integer.
fn id(max_length: Option<u32>, accepts_integers: bool) -> Node {
    let ty = match accepts_integers {
        true => Node::Seq(vec![Node::str("string"), Node::str("integer")]),
        false => Node::str("string"),
    };
    limits(
        Node::map().with("type", ty),
        &Constraints {
            max_length,
            ..Constraints::default()
        },
        false,
    )
}

/// A record reference: a string, described by the forms it takes.
fn record_ref(i: &Interface, r: &RecordRef) -> Node {
    let mut doc = format!("The id of a `{}`", i.ty(r.id_type).name);
    if r.external {
        doc.push_str(", `_` and an external id");
    }
    if let Some(k) = &r.self_keyword {
        doc.push_str(&format!(", or `{k}` for the caller"));
    }
    doc.push('.');
    Node::map()
        .with("type", Node::str("string"))
        .with("description", Node::str(doc))
}

/// `wanted`, or with a number after it until no component has the name.
fn claim(taken: &mut BTreeSet<String>, wanted: &str) -> String {
    let mut name = wanted.to_string();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{wanted}{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// A tag value as part of a component name (`[A-Za-z0-9._-]` only).
fn sanitize(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".to_string() } else { s }
}

fn has_key(node: &Node, key: &str) -> bool {
    matches!(node, Node::Map(entries) if entries.iter().any(|(k, _)| k == key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_rules_become_patterns() {
        assert_eq!(
            pattern(CharClass::AsciiAlphanumeric, "IOQioq"),
            "^[0-9A-HJ-NPR-Za-hj-npr-z]*$"
        );
        assert_eq!(pattern(CharClass::AsciiDigits, ""), "^[0-9]*$");
    }
}
