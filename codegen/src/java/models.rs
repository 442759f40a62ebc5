//! The contexts of the classes an interface's package declares: one per declared type
//! (records, unions, enums, ids, record references, scalar unions), each its own file.

use crate::doc_text::{self, Doc};
use crate::ir::{Enum, Field, Interface, Object, RecordRef, TypeDef, TypeKind, Union};
use crate::limits;
use crate::templates::EnumValueCx;

use super::names::{self, Scope};
use super::types::{self, Types};

/// One class of an interface's package, by kind (the template it is rendered with).
#[derive(serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeCx {
    Record(RecordCx),
    OpenEnum(EnumCx),
    ClosedEnum(EnumCx),
    Union(UnionCx),
    /// An opaque id, a record reference or a scalar union: a class around one value.
    Value(ValueCx),
}

#[derive(serde::Serialize)]
pub struct RecordCx {
    pub name: String,
    pub doc: String,
    pub fields: Vec<FieldCx>,
    /// The exactly-one-of check of a record sent in requests.
    pub one_of: Option<OneOfCx>,
    /// An inferred envelope: its property (a literal) and the wire names its record knows
    /// (literals), so a bare record is read as if it had come wrapped.
    pub envelope: Option<(String, Vec<String>)>,
}

/// An exactly-one-of group check: its path (the group's name, a literal) and its groups,
/// each a test per field of whether it is given (set and not null) and how the message
/// names it (`` `a`+`b` ``).
#[derive(serde::Serialize)]
pub struct OneOfCx {
    pub name: String,
    pub groups: Vec<GroupCx>,
    /// Every group, as the message lists them.
    pub all: String,
}

#[derive(serde::Serialize)]
pub struct GroupCx {
    pub fields: Vec<String>,
    pub text: String,
}

/// A record's field: its wire name (a literal), the accessor and the builder's other
/// method names, its Java types, and the expressions reading and writing it.
#[derive(serde::Serialize)]
pub struct FieldCx {
    pub wire: String,
    pub wire_text: String,
    pub name: String,
    /// The three-state accessor and setter (`nameState`), for nullable fields.
    pub state: String,
    /// The builder's method making it absent (`clearName`).
    pub clear: String,
    /// `required`, `optional` or `nullable`.
    pub presence: &'static str,
    /// The Java type as a required field holds it (primitive where it can be).
    pub ty: String,
    /// The boxed type (optional storage, type arguments).
    pub boxed: String,
    pub primitive: bool,
    /// Reads `value` (a `JsonValue`), the member `wire` of the object at `path`.
    pub decode: String,
    /// Writes `v` (the field's value).
    pub encode: String,
    /// Checks `v` at `Check.at(path, wire)`, where limits are documented.
    pub check: Option<String>,
    pub doc: String,
    pub sensitive: bool,
}

#[derive(serde::Serialize)]
pub struct EnumCx {
    pub name: String,
    pub doc: String,
    pub values: Vec<EnumValueCx>,
}

#[derive(serde::Serialize)]
pub struct UnionCx {
    pub name: String,
    pub doc: String,
    /// The tag property, a literal.
    pub tag: String,
    pub tag_text: String,
    pub members: Vec<MemberCx>,
    /// The member holding an unknown tag's object, when the union is open.
    pub unknown: Option<String>,
}

#[derive(serde::Serialize)]
pub struct MemberCx {
    pub class: String,
    pub tag_value: String,
    pub tag_text: String,
    pub shape: String,
    pub doc: String,
}

/// A class around one value: `java` its type, `decode` reading `value` at `path`,
/// `encode` writing `value`.
#[derive(serde::Serialize)]
pub struct ValueCx {
    pub name: String,
    pub doc: String,
    pub java: String,
    pub decode: String,
    pub encode: String,
    /// How the value is shown by `toString()` (an expression of `value`).
    pub show: String,
    /// Checks `value` at `path`, where a limit is documented (an id's length).
    pub check: Option<String>,
    /// What a record reference is made from besides its text.
    pub reference: Option<ReferenceCx>,
}

/// A record reference's makers: from its id type, an external id, the self keyword.
#[derive(serde::Serialize)]
pub struct ReferenceCx {
    pub id: String,
    pub external: bool,
    /// The self keyword, a literal.
    pub self_keyword: Option<String>,
}

/// The class of the declared type `t`, named `name`.
pub fn type_cx(i: &Interface, t: &TypeDef, name: &str, types: &Types) -> TypeCx {
    let name = name.to_string();
    match &t.kind {
        TypeKind::Object(o) => TypeCx::Record(record_cx(t, o, name, types)),
        TypeKind::Enum(e) if e.open && t.usage.response_side() => {
            TypeCx::OpenEnum(enum_cx(t, e, name, true))
        }
        TypeKind::Enum(e) => TypeCx::ClosedEnum(enum_cx(t, e, name, false)),
        TypeKind::Union(u) => TypeCx::Union(union_cx(i, t, u, name, types)),
        TypeKind::Id {
            max_length,
            accepts_integers,
        } => TypeCx::Value(ValueCx {
            doc: doc_text::opaque_id(
                &t.doc,
                *max_length,
                "A class of its own",
                &format!("`{name}.of(\"...\")`"),
            ),
            name,
            java: "String".into(),
            decode: format!("Wire.id(value, path, {accepts_integers})"),
            encode: "JsonString.of(value)".into(),
            show: "value".into(),
            check: max_length
                .map(|n| format!("Check.string(value, false, {n}, null, null, \"\", path, out);")),
            reference: None,
        }),
        TypeKind::RecordRef(r) => TypeCx::Value(record_ref_cx(t, r, name, types)),
        TypeKind::ScalarUnion(kinds) => {
            let doc = doc_text::scalar_union(&t.doc, kinds);
            TypeCx::Value(ValueCx {
                name,
                doc,
                java: "JsonValue".into(),
                decode: "value".into(),
                encode: "value".into(),
                show: "value.toJson()".into(),
                check: None,
                reference: None,
            })
        }
    }
}

fn record_cx(t: &TypeDef, o: &Object, name: String, types: &Types) -> RecordCx {
    let mut doc = Doc::new(&t.doc);
    doc.not_shown(o.not_shown.as_deref()).source(o.source);
    if let Some(one) = &o.one_of {
        doc.push(format!(
            "{} Its groups' fields are optional fields here: {}.",
            one.doc.trim(),
            crate::doc_text::one_of_groups(one)
        ));
    }
    let mut scope = names::member_scope();
    let mut fields: Vec<FieldCx> = o
        .fields
        .iter()
        .map(|f| field_cx(f, f.required, &mut scope, types))
        .collect();
    let mut groups = Vec::new();
    if let Some(one) = &o.one_of {
        for v in &one.variants {
            let mut group = GroupCx {
                fields: Vec::new(),
                text: v
                    .fields
                    .iter()
                    .map(|f| format!("`{}`", f.name))
                    .collect::<Vec<_>>()
                    .join("+"),
            };
            for f in &v.fields {
                let field = field_cx(f, false, &mut scope, types);
                group.fields.push(if field.presence == "nullable" {
                    format!("this.{}.isPresent()", field.name)
                } else {
                    format!("this.{} != null", field.name)
                });
                fields.push(field);
            }
            groups.push(group);
        }
    }
    let one_of = o
        .one_of
        .as_ref()
        .filter(|_| t.usage.request)
        .map(|one| OneOfCx {
            name: names::string(&one.name),
            all: groups
                .iter()
                .map(|g| g.text.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            groups,
        });
    RecordCx {
        name,
        doc: doc.text(),
        fields,
        one_of,
        envelope: envelope(o, types),
    }
}

/// The envelope's property and the properties of the record it wraps.
fn envelope(o: &Object, types: &Types) -> Option<(String, Vec<String>)> {
    let field = o.envelope_field()?;
    let known: Vec<String> = match types.interface.named(&field.ty).map(|t| &t.kind) {
        Some(crate::ir::TypeKind::Object(inner)) => inner
            .wire_fields()
            .map(|f| names::string(&f.name))
            .collect(),
        _ => Vec::new(),
    };
    Some((names::string(&field.name), known))
}

fn field_cx(f: &Field, required: bool, scope: &mut Scope, types: &Types) -> FieldCx {
    let name = scope.claim(&names::member(&f.name));
    let upper = upper_first(&name);
    let state = scope.claim(&format!("{name}State"));
    let clear = scope.claim(&format!("clear{upper}"));
    let presence = match (f.nullable, required) {
        (true, _) => "nullable",
        (false, true) => "required",
        (false, false) => "optional",
    };
    let mut doc = Doc::new(&f.doc);
    if let Some(limits) = doc_text::describe_limits(&f.constraints) {
        doc.push(limits);
    }
    doc.not_shown(f.not_shown.as_deref()).source(f.source);
    let wire = names::string(&f.name);
    FieldCx {
        decode: types.decode_member(&f.ty, "value", "path", &wire),
        encode: types.encode(&f.ty, "v", 0),
        check: limits::of_field(types, f, "v", &format!("Check.at(path, {wire})")),
        wire_text: f.name.clone(),
        wire,
        name,
        state,
        clear,
        presence,
        ty: types.java(&f.ty, false),
        boxed: types.java(&f.ty, true),
        primitive: types::is_primitive(&f.ty),
        doc: doc.text(),
        sensitive: f.sensitive,
    }
}

/// `name` with its first letter upper-case (`referenceNumber` -> `ReferenceNumber`).
pub(super) fn upper_first(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn enum_cx(t: &TypeDef, e: &Enum, name: String, open: bool) -> EnumCx {
    let mut doc = Doc::new(&t.doc);
    if open {
        doc.push(
            "Open: the service may send values this spec does not list; such a value is kept \
             (`isKnown()` is false) and sent back as it came. `known()` gives the listed ones \
             as an `enum` to `switch` on."
                .to_string(),
        );
    }
    doc.not_shown(e.not_shown.as_deref());
    // `BY_WIRE` and `UNKNOWN` are the class's own.
    let mut scope = Scope::new(&["BY_WIRE", "UNKNOWN"], names::is_keyword);
    EnumCx {
        name,
        doc: doc.text(),
        values: e
            .values
            .iter()
            .map(|v| EnumValueCx::new(v, scope.claim(&names::constant(&v.wire))))
            .collect(),
    }
}

fn union_cx(i: &Interface, t: &TypeDef, u: &Union, name: String, types: &Types) -> UnionCx {
    // The members are nested classes: none may shadow a type the file names.
    let mut scope = Scope::new(&[name.as_str(), "Visitor"], names::reserved_type);
    let unknown = u.open.then(|| scope.claim("Unknown"));
    let members: Vec<MemberCx> = u
        .variants
        .iter()
        .map(|v| MemberCx {
            class: scope.claim(&names::type_name(&v.tag_value)),
            tag_value: names::string(&v.tag_value),
            tag_text: v.tag_value.clone(),
            shape: types.names[v.shape.index()].clone(),
            doc: doc_text::union_member(v, &i.ty(v.shape).name),
        })
        .collect();
    let mut doc = Doc::new(&t.doc);
    doc.push(format!(
        "Discriminated by `{}`: read a value with a `switch` over its classes or with a \
         `Visitor`.",
        u.tag
    ));
    if let Some(unknown) = &unknown {
        doc.push(format!(
            "A member with a tag this spec does not know is an `{unknown}`: it keeps the whole \
             object and writes it back unchanged."
        ));
    }
    UnionCx {
        name,
        doc: doc.text(),
        tag: names::string(&u.tag),
        tag_text: u.tag.clone(),
        members,
        unknown,
    }
}

/// A record reference: the id's text, `_<external id>` or the self keyword, as the path
/// takes it.
fn record_ref_cx(t: &TypeDef, r: &RecordRef, name: String, types: &Types) -> ValueCx {
    let mut doc = Doc::new(&t.doc);
    doc.source(r.source);
    let id = &types.names[r.id_type.index()];
    doc.push(format!(
        "A path reference: `{name}.of({id})`{}{}.",
        if r.external {
            ", `ofExternal(\"...\")` (sent as `_<external id>`)"
        } else {
            ""
        },
        if r.self_keyword.is_some() {
            ", or `ofSelf()` (the caller)"
        } else {
            ""
        }
    ));
    ValueCx {
        name,
        doc: doc.text(),
        java: "String".into(),
        decode: "Wire.string(value, path)".into(),
        encode: "JsonString.of(value)".into(),
        show: "value".into(),
        check: None,
        reference: Some(ReferenceCx {
            id: id.clone(),
            external: r.external,
            self_keyword: r.self_keyword.as_deref().map(names::string),
        }),
    }
}
