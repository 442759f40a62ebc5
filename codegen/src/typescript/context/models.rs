//! The contexts of the records, unions, enums and aliases a models module declares.

use crate::doc_text::{self, Doc};
use crate::ir::{
    Enum, Field, Object, OneOf, OneOfVariant, Operation, ScalarKind, TypeDef, TypeKind, TypeRef,
    Union,
};
use crate::typescript::names::{self, Scope};
use crate::typescript::types::{self, TypeNames};

use super::{EnumValueCx, MemberCx, OneOfCx, OneOfVariantCx, PropCx, RecordCx, TypeCx};

pub(super) fn type_cx(t: &TypeDef, name: &str, local: &TypeNames, scope: &mut Scope) -> TypeCx {
    let name = name.to_string();
    match &t.kind {
        TypeKind::Object(o) => TypeCx::Record(record_cx(t, o, name, local, scope)),
        TypeKind::Enum(e) => enum_cx(t, e, name),
        TypeKind::Union(u) => union_cx(t, u, name, local, scope),
        TypeKind::ScalarUnion(kinds) => scalar_cx(t, kinds, name),
        TypeKind::Id { max_length, .. } => TypeCx::Id {
            doc: doc_text::opaque_id(
                &t.doc,
                *max_length,
                "Branded",
                &format!("`{name}(\"...\")`"),
            ),
            name,
        },
        TypeKind::RecordRef(r) => {
            let mut doc = Doc::new(&t.doc);
            doc.source(r.source);
            TypeCx::RecordRef {
                name,
                doc: doc.text(),
                id_type: local.named(r.id_type),
                external: r.external,
                self_keyword: r.self_keyword.as_ref().map(|k| names::string(k)),
            }
        }
    }
}

fn record_cx(
    t: &TypeDef,
    o: &Object,
    name: String,
    local: &TypeNames,
    scope: &mut Scope,
) -> RecordCx {
    let response_side = t.usage.response_side();
    let fields = o
        .fields
        .iter()
        .map(|f| prop(f, local, response_side))
        .collect();
    let one_of = o
        .one_of
        .as_ref()
        .map(|one| one_of_cx(one, &name, local, scope));
    RecordCx {
        doc: record_doc(t, o, response_side),
        name,
        fields,
        open: response_side,
        one_of,
    }
}

/// A record's doc: what happens to the properties this spec does not list, and how an
/// envelope is also read bare.
fn record_doc(t: &TypeDef, o: &Object, response_side: bool) -> String {
    let mut doc = Doc::new(&t.doc);
    doc.push(if response_side {
        "Properties this spec does not list are kept as the service sent them.".to_string()
    } else {
        "A property this spec does not list yet (the service may add optional ones) is \
         sent with `withAdditional(record, { name: value })`; validation refuses one \
         this spec lists."
            .to_string()
    });
    if let Some(env) = &o.envelope {
        doc.push(format!(
            "Also read bare: an answer that is the record itself (no `{env}` property) \
             is read as if wrapped, since the wrapping is not documented for every \
             answer."
        ));
    }
    doc.not_shown(o.not_shown.as_deref()).source(o.source);
    doc.text()
}

/// The exactly-one-of choice of the record `name`: its names are claimed in `scope` (the
/// fields type, the choice, then each variant).
fn one_of_cx(one: &OneOf, name: &str, local: &TypeNames, scope: &mut Scope) -> OneOfCx {
    let fields_name = scope.claim(&format!("{name}Fields"));
    let choice = scope.claim(&one.type_name);
    let variants = one
        .variants
        .iter()
        .map(|v| one_of_variant_cx(one, v, local, scope))
        .collect();
    OneOfCx {
        fields_name,
        choice,
        doc: format!(
            "{}\n\nExactly one variant applies: \"none\" and \"two at once\" do not type-check.",
            one.doc.trim()
        ),
        variants,
    }
}

/// One variant: its fields, and every other variant's as `never`.
fn one_of_variant_cx(
    one: &OneOf,
    v: &OneOfVariant,
    local: &TypeNames,
    scope: &mut Scope,
) -> OneOfVariantCx {
    let vname = scope.claim(&format!(
        "{}{}",
        one.type_name,
        heck::ToUpperCamelCase::to_upper_camel_case(v.name.as_str())
    ));
    let never = one
        .variants
        .iter()
        .filter(|other| other.name != v.name)
        .flat_map(|other| other.fields.iter().map(|f| names::property(&f.name)))
        .collect();
    OneOfVariantCx {
        name: vname,
        doc: v.doc.clone(),
        fields: v.fields.iter().map(|f| prop(f, local, false)).collect(),
        never,
    }
}

fn enum_cx(t: &TypeDef, e: &Enum, name: String) -> TypeCx {
    let mut doc = Doc::new(&t.doc);
    if e.open {
        doc.push(
            "Open: the service may send values this spec does not list; they are kept as \
             strings."
                .to_string(),
        );
    }
    let values: Vec<String> = e
        .values
        .iter()
        .map(|v| format!("- `{}`: {}", v.wire, v.doc.trim()))
        .collect();
    doc.push(format!("Values:\n\n{}", values.join("\n")));
    doc.not_shown(e.not_shown.as_deref());
    TypeCx::Enum {
        name,
        doc: doc.text(),
        values: e
            .values
            .iter()
            .map(|v| EnumValueCx {
                literal: names::string(&v.wire),
                doc: v.doc.clone(),
            })
            .collect(),
        open: e.open,
    }
}

/// A union; an open one claims the name of its unknown member in `scope`.
fn union_cx(t: &TypeDef, u: &Union, name: String, local: &TypeNames, scope: &mut Scope) -> TypeCx {
    let mut doc = Doc::new(&t.doc);
    doc.push(format!(
        "Discriminated by `{}`: narrow with `switch (x.{})`.",
        u.tag,
        if names::is_identifier(&u.tag) {
            u.tag.clone()
        } else {
            format!("[{}]", names::string(&u.tag))
        }
    ));
    let members: Vec<String> = u
        .variants
        .iter()
        .map(|v| format!("- `{}`: {}", v.tag_value, v.doc.trim()))
        .collect();
    doc.push(format!("Members:\n\n{}", members.join("\n")));
    let unknown = u.open.then(|| scope.claim(&format!("Unknown{name}")));
    if let Some(unknown) = &unknown {
        doc.push(format!(
            "A member with a tag this spec does not know is an `{unknown}`: test \
             `x.$unknown` first; it keeps the whole object and serialises back unchanged."
        ));
    }
    TypeCx::Union {
        name,
        doc: doc.text(),
        tag: names::property(&u.tag),
        members: u
            .variants
            .iter()
            .map(|v| MemberCx {
                tag: names::string(&v.tag_value),
                shape: local.named(v.shape),
                doc: v.doc.clone(),
            })
            .collect(),
        unknown,
    }
}

/// A scalar union: the TypeScript types of its kinds, each once.
fn scalar_cx(t: &TypeDef, kinds: &[ScalarKind], name: String) -> TypeCx {
    let ts: Vec<&str> = kinds
        .iter()
        .map(|k| match k {
            ScalarKind::String => "string",
            ScalarKind::Integer | ScalarKind::Number => "number",
            ScalarKind::Boolean => "boolean",
            ScalarKind::Null => "null",
        })
        .collect();
    let mut unique: Vec<&str> = Vec::new();
    for k in ts {
        if !unique.contains(&k) {
            unique.push(k);
        }
    }
    let mut doc = Doc::new(&t.doc);
    doc.push(
        "Decoding never refuses another JSON kind here: it is passed through untouched."
            .to_string(),
    );
    TypeCx::Scalar {
        name,
        doc: doc.text(),
        ts: unique.join(" | "),
    }
}

/// A record property: response-side collections are always present (decoding fills
/// them), other optional fields are `?:`, and `null` is typed only where documented.
fn prop(f: &Field, local: &TypeNames, response_side: bool) -> PropCx {
    let mut ts = local.ts(&f.ty);
    if f.nullable {
        ts = format!("{ts} | null");
    }
    let collection = matches!(f.ty, TypeRef::Array(_) | TypeRef::Map(_));
    // Response-side collections are filled by decoding, so they are always there.
    let filled = response_side && collection && !f.nullable;
    let optional = !f.required && !filled;
    PropCx {
        key: names::property(&f.name),
        ts,
        optional,
        doc: field_doc(f, !response_side),
    }
}

fn field_doc(f: &Field, show_limits: bool) -> String {
    let mut d = Doc::new(&f.doc);
    if let Some(note) = types::note(&f.ty) {
        d.push(note.to_string());
    }
    if f.nullable && !f.required {
        d.push("Absent (`undefined`) is not the same as `null`.".to_string());
    }
    if show_limits && let Some(limits) = doc_text::describe_limits(&f.constraints) {
        d.push(format!("Limits: {limits}."));
    }
    d.not_shown(f.not_shown.as_deref()).source(f.source);
    d.text()
}

pub(super) fn query_cx(op: &Operation, name: &str, local: &TypeNames) -> RecordCx {
    RecordCx {
        name: name.to_string(),
        doc: format!(
            "The query parameters of `{}`, by their names on the wire.",
            names::camel(&op.name)
        ),
        fields: op.query.iter().map(|f| prop(f, local, false)).collect(),
        open: false,
        one_of: None,
    }
}
