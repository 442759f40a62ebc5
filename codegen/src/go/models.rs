//! The contexts of the types an interface package declares: one Go type per IR type,
//! used by answers and requests alike, each with its reader and writer.

use crate::doc_text::{self, Doc};
use crate::ir::{Enum, Field, Interface, Object, TypeDef, TypeKind, Union};
use crate::limits;
use crate::templates::EnumValueCx;

use super::names::{self, Scope};
use super::types::Types;

/// One declared type of an interface's package, by kind (the template's macro for it).
#[derive(serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeCx {
    Record(RecordCx),
    Enum(EnumCx),
    Union(UnionCx),
    /// An opaque id or a record reference: a string type of its own.
    Text(TextCx),
    /// A scalar union: the JSON value as it came.
    Raw(TextCx),
}

#[derive(serde::Serialize)]
pub struct RecordCx {
    pub name: String,
    pub doc: String,
    pub fields: Vec<FieldCx>,
    /// The wire names of its fields (literals), which `SetExtra` refuses, a few to a line.
    pub wires: Vec<String>,
    /// The statements of its check (indented as a function's body), fields' and nested
    /// values' limits and its exactly-one-of choice.
    pub checks: Vec<String>,
    /// An inferred envelope, read bare or wrapped.
    pub envelope: Option<EnvelopeCx>,
}

/// An inferred envelope: its member (a literal), the field holding the wrapped record and
/// how it is read, and the wire names that record knows (literals, a few to a line),
/// which tell a bare record.
#[derive(serde::Serialize)]
pub struct EnvelopeCx {
    pub wire: String,
    pub field: String,
    pub read: String,
    pub knows: Vec<String>,
}

/// A record's field: its wire name (a literal), Go name and type, and how it is read
/// (`read`, an expression of the decoder `d`) and written (`write`, a statement writing
/// `r.<name>` to the encoder `e`).
#[derive(serde::Serialize)]
pub struct FieldCx {
    /// Its place among the record's fields (the decoder's `seen` flags).
    pub index: usize,
    pub wire: String,
    pub name: String,
    pub ty: String,
    /// A plain value (`true`), or an `Opt` that may be absent or null.
    pub plain: bool,
    pub required: bool,
    pub read: String,
    pub write: String,
    /// The statements checking it (indented as a function's body), where limits are
    /// documented.
    pub check: Option<String>,
    pub doc: String,
}

#[derive(serde::Serialize)]
pub struct EnumCx {
    /// Whether something outside the type reads, writes or checks it (its helpers are
    /// written only then).
    pub read: bool,
    pub write: bool,
    pub check: bool,
    pub name: String,
    pub doc: String,
    pub values: Vec<EnumValueCx>,
    /// A closed enum's listed values, quoted and joined, which its check names.
    pub closed: Option<String>,
}

#[derive(serde::Serialize)]
pub struct UnionCx {
    /// Whether something outside the type reads or checks it (its writer is always used:
    /// its members' `MarshalJSON` call it).
    pub read: bool,
    pub check: bool,
    pub name: String,
    pub doc: String,
    /// The tag property, a literal.
    pub tag: String,
    /// The unexported marker method that seals the interface.
    pub marker: String,
    pub members: Vec<MemberCx>,
    /// The member holding an unknown tag's object, when the union is open.
    pub unknown: Option<String>,
    /// What a closed union's reader says of an unknown tag (a literal).
    pub refusal: String,
}

#[derive(serde::Serialize)]
pub struct MemberCx {
    pub name: String,
    pub tag_value: String,
    /// The record type it embeds.
    pub shape: String,
    pub doc: String,
}

#[derive(serde::Serialize)]
pub struct TextCx {
    /// Whether something outside the type reads or writes it.
    pub read: bool,
    pub write: bool,
    pub name: String,
    pub doc: String,
    /// An id the service may send as a JSON integer.
    pub integers: bool,
}

/// The generic page of a cursor-paged interface: `{items: [...], paging: {...}}`, its Go
/// fields and their wire names (literals).
#[derive(serde::Serialize)]
pub struct PageCx {
    pub name: String,
    pub doc: String,
    pub items: String,
    pub items_wire: String,
    pub paging: String,
    pub paging_wire: String,
    pub paging_type: String,
}

/// The Go names of an interface's declared types, and of the names each type adds to the
/// package (enum constants, union members), claimed in one package scope.
pub struct Claimed {
    pub types: Vec<String>,
    /// The generic page type of a cursor-paged interface.
    pub page: Option<String>,
    /// Per type (by index): its constants' or members' names, and the unknown member's.
    pub added: Vec<(Vec<String>, Option<String>)>,
}

/// Claims every name `i`'s package declares: the types first (so a spec type keeps its
/// name), then the constants and union members derived from them.
pub fn claim(i: &Interface, scope: &mut Scope) -> Claimed {
    let types: Vec<String> = i
        .types
        .iter()
        .map(|t| scope.claim(&names::exported(&t.name)))
        .collect();
    let added = i
        .types
        .iter()
        .zip(&types)
        .map(|(t, name)| match &t.kind {
            TypeKind::Enum(e) => (
                e.values
                    .iter()
                    .map(|v| scope.claim(&format!("{name}{}", names::exported(&v.wire))))
                    .collect(),
                None,
            ),
            TypeKind::Union(u) => (
                u.variants
                    .iter()
                    .map(|v| scope.claim(&format!("{name}{}", names::exported(&v.tag_value))))
                    .collect(),
                u.open.then(|| scope.claim(&format!("Unknown{name}"))),
            ),
            _ => (Vec::new(), None),
        })
        .collect();
    let page = i.cursor_paging().map(|_| scope.claim("Page"));
    Claimed { types, page, added }
}

/// The page type of `i`, when its lists are cursor-paged.
pub fn page_cx(i: &Interface, claimed: &Claimed) -> Option<PageCx> {
    let c = i.cursor_paging()?;
    let mut fields = names::field_scope();
    Some(PageCx {
        name: claimed.page.clone()?,
        doc: c.doc.clone(),
        items: fields.claim(&names::exported(&c.items_field)),
        items_wire: names::string(&c.items_field),
        paging: fields.claim(&names::exported(&c.paging_field)),
        paging_wire: names::string(&c.paging_field),
        paging_type: claimed.types[c.paging_type.index()].clone(),
    })
}

/// The context of the declared type `t` (index `index` of `claimed`).
pub fn type_cx(t: &TypeDef, index: usize, claimed: &Claimed, types: &Types) -> TypeCx {
    let name = claimed.types[index].clone();
    let (added, unknown) = &claimed.added[index];
    match &t.kind {
        TypeKind::Object(o) => TypeCx::Record(record_cx(t, o, name, types)),
        TypeKind::Enum(e) => TypeCx::Enum(enum_cx(t, e, name, added)),
        TypeKind::Union(u) => TypeCx::Union(union_cx(t, u, name, added, unknown, types)),
        TypeKind::Id {
            max_length,
            accepts_integers,
        } => TypeCx::Text(TextCx {
            read: true,
            write: true,
            doc: doc_text::opaque_id(
                &t.doc,
                *max_length,
                "A type of its own",
                &format!("`{name}(\"...\")`"),
            ),
            name,
            integers: *accepts_integers,
        }),
        TypeKind::RecordRef(r) => {
            let mut doc = Doc::new(&t.doc);
            doc.source(r.source);
            doc.push(format!(
                "A path reference: an id{}{}.",
                if r.external { ", `_<external id>`" } else { "" },
                r.self_keyword
                    .as_deref()
                    .map(|k| format!(", or `{k}` (the caller)"))
                    .unwrap_or_default()
            ));
            TypeCx::Text(TextCx {
                read: true,
                write: true,
                name,
                doc: doc.text(),
                integers: false,
            })
        }
        TypeKind::ScalarUnion(kinds) => {
            let doc = doc_text::scalar_union(&t.doc, kinds);
            TypeCx::Raw(TextCx {
                read: true,
                write: true,
                name,
                doc,
                integers: false,
            })
        }
    }
}

fn record_cx(t: &TypeDef, o: &Object, name: String, types: &Types) -> RecordCx {
    let mut doc = Doc::new(&t.doc);
    doc.not_shown(o.not_shown.as_deref()).source(o.source);
    let mut scope = names::field_scope();
    let fields: Vec<FieldCx> = o
        .fields
        .iter()
        .map(|f| (f, f.required))
        .chain(
            o.one_of
                .iter()
                .flat_map(|one| one.variants.iter().flat_map(|v| &v.fields))
                .map(|f| (f, false)),
        )
        .enumerate()
        .map(|(index, (f, required))| field_cx(index, f, required, &mut scope, types))
        .collect();
    let mut checks: Vec<String> = fields.iter().filter_map(|f| f.check.clone()).collect();
    if let Some(one) = o.one_of.as_ref().filter(|_| t.usage.request) {
        checks.push(one_of_check(one, &fields));
    }
    RecordCx {
        name,
        doc: doc.text(),
        wires: lines(fields.iter().map(|f| f.wire.as_str()), 80),
        checks,
        envelope: envelope_cx(o, &fields, types),
        fields,
    }
}

fn envelope_cx(o: &Object, fields: &[FieldCx], types: &Types) -> Option<EnvelopeCx> {
    let field = o.envelope_field()?;
    let wire = names::string(&field.name);
    let cx = fields.iter().find(|f| f.wire == wire)?;
    let knows: Vec<String> = match types.interface.named(&field.ty).map(|t| &t.kind) {
        Some(crate::ir::TypeKind::Object(inner)) => inner
            .wire_fields()
            .map(|f| names::string(&f.name))
            .collect(),
        _ => Vec::new(),
    };
    Some(EnvelopeCx {
        field: cx.name.clone(),
        read: cx.read.clone(),
        knows: lines(knows.iter().map(String::as_str), 80),
        wire,
    })
}

/// `items` joined by `, ` into lines of at most `width` characters (one item may be
/// longer), for a list a case clause spreads over lines.
fn lines<'a>(items: impl Iterator<Item = &'a str>, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for item in items {
        match lines.last_mut() {
            Some(line) if line.len() + 2 + item.len() <= width => {
                line.push_str(", ");
                line.push_str(item);
            }
            _ => lines.push(item.to_string()),
        }
    }
    lines
}

fn field_cx(index: usize, f: &Field, required: bool, scope: &mut Scope, types: &Types) -> FieldCx {
    let name = scope.claim(&names::exported(&f.name));
    let plain = required && !f.nullable;
    let go = types.go(&f.ty);
    let mut doc = Doc::new(&f.doc);
    if let Some(limits) = doc_text::describe_limits(&f.constraints) {
        doc.push(limits);
    }
    doc.not_shown(f.not_shown.as_deref()).source(f.source);
    let path = format!("runtime.Field(path, {})", names::string(&f.name));
    let check = if plain {
        limits::of_field(types, f, &format!("r.{name}"), &path).map(|c| super::types::indent(&c))
    } else {
        limits::of_field(types, f, "v", &path).map(|c| {
            format!(
                "\tif v, ok := r.{name}.Get(); ok {{\n{}\n\t}}",
                super::types::indent(&super::types::indent(&c))
            )
        })
    };
    let (ty, read, write) = if plain {
        (
            go,
            types.read(&f.ty, "d"),
            types.write(&f.ty, "e", &format!("r.{name}")),
        )
    } else {
        (
            format!("Opt[{go}]"),
            format!("runtime.ReadOpt(d, {})", types.reader(&f.ty)),
            format!("runtime.WriteOpt(e, r.{name}, {})", types.writer(&f.ty)),
        )
    };
    FieldCx {
        index,
        wire: names::string(&f.name),
        name,
        ty,
        plain,
        required,
        read,
        write,
        check,
        doc: doc.text(),
    }
}

/// The statements of an exactly-one-of check: which groups are given (a field set and not
/// null), and a violation unless exactly one is.
fn one_of_check(one: &crate::ir::OneOf, fields: &[FieldCx]) -> String {
    let field = |wire: &str| {
        let literal = names::string(wire);
        fields
            .iter()
            .find(|f| f.wire == literal)
            .map(|f| {
                if f.plain {
                    "true".to_string()
                } else {
                    format!("r.{}.IsSet()", f.name)
                }
            })
            .unwrap_or_else(|| "false".to_string())
    };
    let mut out = vec!["\tvar given []string".to_string()];
    let mut all = Vec::new();
    for v in &one.variants {
        let text: Vec<String> = v.fields.iter().map(|f| format!("`{}`", f.name)).collect();
        let text = text.join("+");
        let test: Vec<String> = v.fields.iter().map(|f| field(&f.name)).collect();
        out.push(format!("\tif {} {{", test.join(" || ")));
        out.push(format!(
            "\t\tgiven = append(given, {})",
            names::string(&text)
        ));
        out.push("\t}".to_string());
        all.push(text);
    }
    out.push(format!(
        "\tc.ExactlyOne(runtime.Field(path, {}), {}, given)",
        names::string(&one.name),
        names::string(&all.join(", "))
    ));
    out.join("\n")
}

fn enum_cx(t: &TypeDef, e: &Enum, name: String, constants: &[String]) -> EnumCx {
    let mut doc = Doc::new(&t.doc);
    if e.open && t.usage.response_side() {
        doc.push(
            "Open: the service may send values this spec does not list; such a value is kept \
             (`IsKnown` is false) and sent back as it came."
                .to_string(),
        );
    }
    doc.not_shown(e.not_shown.as_deref());
    let closed = (!e.open).then(|| {
        e.values
            .iter()
            .map(|v| format!("`{}`", v.wire))
            .collect::<Vec<_>>()
            .join(", ")
    });
    EnumCx {
        read: true,
        write: true,
        check: true,
        name,
        doc: doc.text(),
        closed: closed.map(|c| names::string(&c)),
        values: e
            .values
            .iter()
            .zip(constants)
            .map(|(v, constant)| EnumValueCx::new(v, constant.clone()))
            .collect(),
    }
}

fn union_cx(
    t: &TypeDef,
    u: &Union,
    name: String,
    members: &[String],
    unknown: &Option<String>,
    types: &Types,
) -> UnionCx {
    let members: Vec<MemberCx> = u
        .variants
        .iter()
        .zip(members)
        .map(|(v, member)| MemberCx {
            name: member.clone(),
            tag_value: names::string(&v.tag_value),
            shape: types.names[v.shape.index()].clone(),
            doc: doc_text::union_member(v, &types.interface.ty(v.shape).name),
        })
        .collect();
    let mut doc = Doc::new(&t.doc);
    doc.push(format!(
        "Discriminated by `{}`: read a value with a type switch over its members.",
        u.tag
    ));
    if let Some(unknown) = unknown {
        doc.push(format!(
            "A member with a tag this spec does not know is an `{unknown}`: it keeps the whole \
             object and writes it back unchanged."
        ));
    }
    UnionCx {
        read: true,
        check: true,
        marker: format!("is{name}"),
        refusal: names::string(&format!("expected a `{}` of {name}", u.tag)),
        name,
        doc: doc.text(),
        tag: names::string(&u.tag),
        members,
        unknown: unknown.clone(),
    }
}

impl TypeCx {
    /// Keeps the helpers of a type that is not a record only where `uses` says something
    /// calls them.
    pub fn keep_used(&mut self, index: usize, uses: &super::uses::Uses) {
        let (read, write, check) = (
            uses.read.contains(&index),
            uses.write.contains(&index),
            uses.check.contains(&index),
        );
        match self {
            TypeCx::Record(_) => {}
            TypeCx::Enum(e) => (e.read, e.write, e.check) = (read, write, check),
            TypeCx::Union(u) => (u.read, u.check) = (read, check),
            TypeCx::Text(t) | TypeCx::Raw(t) => (t.read, t.write) = (read, write),
        }
    }
}
