//! The contexts of the records, unions, enums and aliases a models module declares.

use crate::doc_text::{self, Doc};
use crate::ir::{
    Enum, Field, Interface, Object, RecordRef, ScalarKind, TypeDef, TypeKind, TypeRef,
};
use crate::python::names;
use crate::python::types::{self, TypeNames};

use super::{AttrCx, MemberCx, RecordAttrs, RecordCx, TypeCx, UnknownCx};

pub(super) fn record_cx(
    i: &Interface,
    t: &TypeDef,
    name: &str,
    attrs: &RecordAttrs,
    tags: &[(String, Vec<String>)],
    local: &TypeNames,
    response_side: bool,
) -> RecordCx {
    let TypeKind::Object(o) = &t.kind else {
        unreachable!("record_cx is called for objects")
    };
    let mut out = Vec::new();
    for ((tag, values), a) in attrs.tags(tags) {
        out.push(tag_attr_cx(tag, values, a.to_string()));
    }
    for (f, a) in attrs.fields(o) {
        let filled = response_side && !f.nullable;
        out.push(attr_cx(
            i,
            f,
            a.to_string(),
            local,
            filled,
            f.required,
            !response_side,
        ));
    }
    for (f, a) in attrs.one_of(o) {
        out.push(attr_cx(i, f, a.to_string(), local, false, false, true));
    }
    RecordCx {
        name: name.to_string(),
        doc: record_doc(t, o),
        attrs: out,
        extra: attrs.extra.clone(),
        extra_doc: extra_doc(response_side),
    }
}

/// A record's doc: how an inferred envelope is read, and which exactly-one-of groups it
/// takes.
fn record_doc(t: &TypeDef, o: &Object) -> String {
    let mut doc = Doc::new(&t.doc);
    if let Some(env) = &o.envelope {
        doc.push(format!(
            "The wrapping is inferred, not documented: an answer that is the bare record (no \
             `{env}` property) is read as if it were wrapped."
        ));
    }
    doc.not_shown(o.not_shown.as_deref()).source(o.source);
    if let Some(one) = &o.one_of {
        doc.push(format!(
            "{}\n\nExactly one of these groups is given (checked before sending): {}.",
            one.doc.trim(),
            crate::doc_text::one_of_groups(one)
        ));
    }
    doc.text()
}

/// The attribute of a union tag that a record serves (`values`: the tag values it serves).
fn tag_attr_cx(tag: &str, values: &[String], name: String) -> AttrCx {
    let literals: Vec<String> = values.iter().map(|v| names::string(v)).collect();
    let several = if values.len() == 1 {
        ""
    } else {
        ": this record serves several tags"
    };
    let d = if name == *tag {
        Doc::new(&format!("The union tag{several}."))
    } else {
        Doc::new(&format!("The union tag (`{tag}` on the wire){several}."))
    };
    AttrCx {
        name,
        annotation: format!("Literal[{}]", literals.join(", ")),
        default: match literals.as_slice() {
            [one] => format!(" = {one}"),
            _ => String::new(),
        },
        doc: d.text(),
    }
}

/// The doc of a record's extra properties, which differ by side.
fn extra_doc(response_side: bool) -> String {
    if response_side {
        "Properties this spec does not list, as the service sent them; written back as they are."
            .to_string()
    } else {
        "Properties this spec does not list yet, sent as they are (the service may accept new \
         optional properties before the spec has them). One the spec lists is refused by \
         validation: set its own attribute."
            .to_string()
    }
}

/// One dataclass attribute: required ones have no default, optional ones are `UNSET`
/// until given, and response-side collections start empty (decoding fills them).
fn attr_cx(
    i: &Interface,
    f: &Field,
    name: String,
    local: &TypeNames,
    filled: bool,
    required: bool,
    show_limits: bool,
) -> AttrCx {
    let mut annotation = local.annotation(i, &f.ty, f.sensitive);
    let collection = matches!(f.ty, TypeRef::Array(_) | TypeRef::Map(_));
    if f.nullable {
        annotation.push_str(" | None");
    }
    let default = if required {
        if f.sensitive {
            " = _field(repr=False)".to_string()
        } else {
            String::new()
        }
    } else if filled && collection {
        let factory = if matches!(f.ty, TypeRef::Array(_)) {
            "list"
        } else {
            "dict"
        };
        format!(" = _field(default_factory={factory})")
    } else {
        annotation.push_str(" | Unset");
        if f.sensitive {
            " = _field(default=UNSET, repr=False)".to_string()
        } else {
            " = UNSET".to_string()
        }
    };
    let mut d = Doc::new(&f.doc);
    if f.name != name {
        d.push(format!("`{}` on the wire.", f.name));
    }
    if let Some(note) = types::note(&f.ty) {
        d.push(note.to_string());
    }
    if f.nullable && !f.required {
        d.push("Absent (`UNSET`) is not the same as `None` (a JSON `null`).".to_string());
    }
    if f.sensitive {
        d.push("Held in a `Secret`: never shown by `repr`, `str` or logs.".to_string());
    }
    if show_limits && let Some(limits) = doc_text::describe_limits(&f.constraints) {
        d.push(format!("Limits: {limits}."));
    }
    d.not_shown(f.not_shown.as_deref()).source(f.source);
    AttrCx {
        name,
        annotation,
        default,
        doc: d.text(),
    }
}

pub(super) fn union_cx(
    t: &TypeDef,
    name: &str,
    u: &crate::ir::Union,
    unknown: Option<&str>,
    local: &TypeNames,
) -> TypeCx {
    let mut doc = Doc::new(&t.doc);
    doc.push(format!(
        "Discriminated by `{}`: narrow with `isinstance` or `match`.",
        u.tag
    ));
    let members: Vec<String> = u
        .variants
        .iter()
        .map(|v| {
            format!(
                "- `{}`: `{}`. {}",
                v.tag_value,
                local.named(v.shape),
                v.doc.trim()
            )
        })
        .collect();
    doc.push(format!("Members:\n\n{}", members.join("\n")));
    if let Some(unknown) = unknown {
        doc.push(format!(
            "A member with a tag this spec does not know is an `{unknown}`: it keeps the whole \
             object (`.raw`) and serialises back unchanged."
        ));
    }
    let mut classes: Vec<String> = u.variants.iter().map(|v| local.named(v.shape)).collect();
    classes.dedup();
    TypeCx::Union {
        name: name.to_string(),
        doc: doc.text(),
        members: classes,
        unknown: unknown.map(|n| UnknownCx {
            name: n.to_string(),
            tag: names::string(&u.tag),
            union: name.to_string(),
        }),
    }
}

pub(super) fn simple_cx(t: &TypeDef, name: &str, local: &TypeNames) -> TypeCx {
    let name = name.to_string();
    match &t.kind {
        TypeKind::Enum(e) => enum_cx(t, e, name),
        TypeKind::Id { max_length, .. } => TypeCx::Id {
            doc: doc_text::opaque_id(
                &t.doc,
                *max_length,
                "A `NewType`",
                &format!("`{name}(\"...\")`"),
            ),
            name,
        },
        TypeKind::RecordRef(r) => record_ref_cx(t, r, name, local),
        TypeKind::ScalarUnion(kinds) => scalar_cx(t, kinds, name),
        TypeKind::Object(_) | TypeKind::Union(_) => {
            unreachable!("records and unions have their own contexts")
        }
    }
}

fn enum_cx(t: &TypeDef, e: &Enum, name: String) -> TypeCx {
    let mut doc = Doc::new(&t.doc);
    if e.open {
        doc.push(
            "Open: the service may send values this spec does not list; fields typed \
             with this enum then hold the value as a plain `str`."
                .to_string(),
        );
    }
    doc.not_shown(e.not_shown.as_deref());
    let mut scope = names::scope(&["name", "value"]);
    TypeCx::Enum {
        name,
        doc: doc.text(),
        members: e
            .values
            .iter()
            .map(|v| MemberCx {
                name: scope.claim(&names::member(&v.wire)),
                literal: names::string(&v.wire),
                doc: v.doc.clone(),
            })
            .collect(),
    }
}

/// A record reference: an alias of the id, and of `ExternalId` and `SelfRef` where the
/// reference takes them.
fn record_ref_cx(t: &TypeDef, r: &RecordRef, name: String, local: &TypeNames) -> TypeCx {
    let mut doc = Doc::new(&t.doc);
    doc.source(r.source);
    let mut target = vec![format!("\"{}\"", local.named(r.id_type))];
    if r.external {
        target.push("_rt.ExternalId".into());
    }
    if r.self_keyword.is_some() {
        target.push("_rt.SelfRef".into());
    }
    doc.push(format!(
        "An id{}{}.",
        if r.external {
            ", `ExternalId(\"...\")` (sent as `_<external id>`)"
        } else {
            ""
        },
        if r.self_keyword.is_some() {
            ", or `SELF` (the caller)"
        } else {
            ""
        }
    ));
    TypeCx::Alias {
        name,
        doc: doc.text(),
        target: format!("Union[{}]", target.join(", ")),
    }
}

/// A scalar union: an alias of the Python types of its kinds, each once.
fn scalar_cx(t: &TypeDef, kinds: &[ScalarKind], name: String) -> TypeCx {
    let mut py: Vec<&str> = Vec::new();
    for k in kinds {
        let t = match k {
            ScalarKind::String => "str",
            ScalarKind::Integer => "int",
            ScalarKind::Number => "float",
            ScalarKind::Boolean => "bool",
            ScalarKind::Null => "None",
        };
        if !py.contains(&t) {
            py.push(t);
        }
    }
    let mut doc = Doc::new(&t.doc);
    doc.push(
        "Decoding never refuses another JSON kind here: it is passed through untouched."
            .to_string(),
    );
    TypeCx::Alias {
        name,
        doc: doc.text(),
        target: format!("Union[{}]", py.join(", ")),
    }
}

/// The arguments of a record descriptor's `define`, in the order of its attributes: the
/// union tags, the fields, the exactly-one-of fields and groups; then `extra` and the
/// envelope.
pub(super) fn record_wire_args(
    i: &Interface,
    o: &Object,
    attrs: &RecordAttrs,
    tags: &[(String, Vec<String>)],
    local: &TypeNames,
    response_side: bool,
) -> Vec<String> {
    let mut args = Vec::new();
    for ((tag, _), a) in attrs.tags(tags) {
        args.push(format!(
            "_rt.F({}, {}, _rt.Str(), req=True)",
            names::string(tag),
            names::string(a)
        ));
    }
    for (f, a) in attrs.fields(o) {
        args.push(local.field(i, f, a, false, response_side && !f.nullable));
    }
    for (f, a) in attrs.one_of(o) {
        args.push(local.field(i, f, a, true, false));
    }
    if let Some(one) = &o.one_of {
        let mut groups = Vec::new();
        for v in &one.variants {
            let keys: Vec<String> = v.fields.iter().map(|f| names::string(&f.name)).collect();
            groups.push(format!(
                "({}, ({},))",
                names::string(&v.name),
                keys.join(", ")
            ));
        }
        args.push(format!(
            "one_of=_rt.OneOf({}, ({},))",
            names::string(&one.name),
            groups.join(", ")
        ));
    }
    args.push(format!("extra={}", names::string(&attrs.extra)));
    if let Some(env) = &o.envelope {
        args.push(format!("envelope={}", names::string(env)));
    }
    args
}
