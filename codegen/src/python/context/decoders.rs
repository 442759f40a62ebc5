//! The generated decoders of a models module: per record and union a straight-line
//! function that reads parsed JSON into the dataclasses with no descriptor in between, and
//! per enum the table of its members. They read exactly what the descriptors read, into the
//! same values; on anything else they give up (`_rt.Mismatch`, or any exception), and the
//! descriptors read the answer again and name what does not fit.

use serde::Serialize;

use crate::ir::{Field, Interface, Object, TypeDef, TypeId, TypeKind, TypeRef, Union};
use crate::python::names;
use crate::python::types::TypeNames;

use super::ModuleNames;

/// One generated decoder, or an enum's member table.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecoderCx {
    Record(RecordDecoderCx),
    Union {
        /// The function (`_d_Signature`), its descriptor and its member table (`_U_Signature`).
        name: String,
        wire: String,
        table: String,
        /// The union's annotation.
        returns: String,
        /// The member read from the value `v` (`TypeNames::union_read`).
        read: String,
        /// Tag value (a literal) and member decoder, in the spec's order.
        members: Vec<(String, String)>,
        /// The class keeping a member with an unknown tag; none: the union is closed.
        unknown: Option<String>,
        /// What reads a member with a tag not in the table (`_X_Signature`): the unknown
        /// class, or a refusal.
        other: String,
    },
    Enum {
        /// The table (`_E_TaskStatus`) from wire value to member.
        table: String,
        class: String,
    },
}

#[derive(Serialize)]
pub struct RecordDecoderCx {
    pub name: String,
    /// The descriptor that reads with it first (none for `Page`, whose `_page_wire` does).
    pub wire: Option<String>,
    /// The parameters after the value (`Page`'s item decoder).
    pub params: String,
    pub returns: String,
    pub class: String,
    /// The inferred envelope's property (a literal) and the set of the properties its record
    /// lists (`_K_Transaction`): a bare record is read as wrapped.
    pub envelope: Option<(String, String)>,
    pub fields: Vec<FieldReadCx>,
    /// The attribute of the properties the spec does not list.
    pub extra: String,
    /// The set of the listed properties (`_K_Unit`), to tell the unlisted ones.
    pub known: String,
}

/// How one attribute is read: the property `key` (a literal) is fetched into `x`
/// (`_ABSENT` when absent); the first branch whose test holds gives the value, else
/// `otherwise`.
#[derive(Serialize)]
pub struct FieldReadCx {
    pub attr: String,
    pub key: String,
    pub branches: Vec<BranchCx>,
    /// What any other value reads as; none: the decoder gives up.
    pub otherwise: Option<String>,
}

#[derive(Serialize)]
pub struct BranchCx {
    pub test: String,
    /// The attribute's value; none: the decoder gives up.
    pub value: Option<String>,
    /// The property is absent (counted, to know without a look at every key whether
    /// there are unlisted ones).
    pub absent: bool,
}

/// The decoders of every record, union and enum of `i`, in declaration order.
pub(super) fn decoders(i: &Interface, names: &ModuleNames, local: &TypeNames) -> Vec<DecoderCx> {
    let mut out = Vec::new();
    for (index, t) in i.types.iter().enumerate() {
        let id = TypeId(index as u32);
        let class = names.types[index].clone();
        match &t.kind {
            TypeKind::Object(o) => out.push(DecoderCx::Record(record(i, t, o, id, names, local))),
            TypeKind::Union(u) => out.push(union(u, id, class, names, local)),
            TypeKind::Enum(_) => out.push(DecoderCx::Enum {
                table: local.enum_table(id),
                class,
            }),
            _ => {}
        }
    }
    out
}

fn record(
    i: &Interface,
    t: &TypeDef,
    o: &Object,
    id: TypeId,
    names: &ModuleNames,
    local: &TypeNames,
) -> RecordDecoderCx {
    let attrs = names.record(id);
    let response_side = t.usage.response_side();
    // In the order of the descriptor's fields: the union tags, the fields, the one-of fields.
    let mut fields = Vec::new();
    for ((tag, _), a) in attrs.tags(&names.tags[id.index()]) {
        fields.push(FieldReadCx {
            attr: a.to_string(),
            key: names::string(tag),
            branches: vec![BranchCx {
                test: "type(x) is str".into(),
                value: Some("x".into()),
                absent: false,
            }],
            otherwise: None,
        });
    }
    let all = attrs
        .fields(o)
        .map(|(f, a)| (f, a, false, response_side && !f.nullable))
        .chain(attrs.one_of(o).map(|(f, a)| (f, a, true, false)));
    for (f, a, in_group, filled) in all {
        fields.push(field(
            i,
            f,
            a.to_string(),
            f.required && !in_group,
            filled,
            local,
        ));
    }
    let name = names.types[id.index()].clone();
    RecordDecoderCx {
        name: local.reader(id),
        wire: Some(local.wire(id)),
        params: String::new(),
        returns: name.clone(),
        class: name.clone(),
        envelope: envelope(o, names),
        fields,
        extra: attrs.extra.clone(),
        known: format!("_K_{name}"),
    }
}

/// An inferred envelope's property and the known-properties set of the record it wraps:
/// an object with another property that record lists is the bare record (a transaction
/// holds its nested `transaction`).
fn envelope(o: &Object, names: &ModuleNames) -> Option<(String, String)> {
    let field = o.envelope_field()?;
    let inner = field.ty.named()?;
    let known = format!("_K_{}", names.types[inner.index()]);
    Some((names::string(&field.name), known))
}

/// How the attribute `attr` of the field `f` is read, as `RecordDesc.decode` reads it: a
/// `null` is `None` where documented, else an empty collection where decoding fills one,
/// else refused where required, else absent; an absent property is an empty collection
/// where filled, else refused where required, else `UNSET`.
fn field(
    i: &Interface,
    f: &Field,
    attr: String,
    required: bool,
    filled: bool,
    local: &TypeNames,
) -> FieldReadCx {
    let read = local.read(i, &f.ty, f.sensitive, "x", 0);
    let fill = match (&f.ty, filled) {
        (TypeRef::Array(_), true) => Some("[]"),
        (TypeRef::Map(_), true) => Some("{}"),
        _ => None,
    };
    let mut branches = Vec::new();
    if let Some(test) = &read.test {
        branches.push(BranchCx {
            test: test.clone(),
            value: Some(read.value.clone()),
            absent: false,
        });
    }
    branches.push(BranchCx {
        test: "x is _ABSENT".into(),
        value: match (required, fill) {
            (_, Some(fill)) => Some(fill.into()),
            (true, None) => None,
            (false, None) => Some("UNSET".into()),
        },
        absent: true,
    });
    let null = if f.nullable {
        Some("None")
    } else if fill.is_some() {
        fill
    } else if required {
        None
    } else {
        Some("UNSET")
    };
    branches.push(BranchCx {
        test: "x is None".into(),
        value: null.map(str::to_string),
        absent: false,
    });
    let otherwise = match read.test {
        Some(_) => read.other,
        None => Some(read.value),
    };
    // Branches that give up as `else` does are left to it.
    if otherwise.is_none() {
        while branches.last().is_some_and(|b| b.value.is_none()) {
            branches.pop();
        }
    }
    FieldReadCx {
        attr,
        key: names::string(&f.name),
        branches,
        otherwise,
    }
}

fn union(
    u: &Union,
    id: TypeId,
    class: String,
    names: &ModuleNames,
    local: &TypeNames,
) -> DecoderCx {
    let index = id.index();
    DecoderCx::Union {
        name: local.reader(id),
        wire: local.wire(id),
        table: local.union_table(id),
        other: local.union_other(id),
        returns: class,
        read: local.union_read(id, &u.tag, "v"),
        members: u
            .variants
            .iter()
            .map(|v| (names::string(&v.tag_value), local.reader(v.shape)))
            .collect(),
        unknown: names.unknown[index].clone(),
    }
}

/// The decoder of the cursor interface's `Page` of items read by `item`: its items, its
/// paging object (of the declared type `paging_type`) and its unlisted properties.
pub(super) fn page(
    (items, paging, paging_type): (&str, &str, TypeId),
    (items_attr, paging_attr, extra): (String, String, String),
    local: &TypeNames,
) -> RecordDecoderCx {
    let absent = |fill: &str| BranchCx {
        test: "x is _ABSENT".into(),
        value: Some(fill.into()),
        absent: true,
    };
    let null = |value: &str| BranchCx {
        test: "x is None".into(),
        value: Some(value.into()),
        absent: false,
    };
    RecordDecoderCx {
        name: "_d_Page".into(),
        wire: None,
        params: ", item: _Callable[[_Any], T]".into(),
        returns: "Page[T]".into(),
        class: "Page".into(),
        envelope: None,
        fields: vec![
            FieldReadCx {
                attr: items_attr,
                key: names::string(items),
                branches: vec![
                    BranchCx {
                        test: "type(x) is list".into(),
                        value: Some("[item(i) for i in x]".into()),
                        absent: false,
                    },
                    absent("[]"),
                    null("[]"),
                ],
                otherwise: None,
            },
            FieldReadCx {
                attr: paging_attr,
                key: names::string(paging),
                branches: vec![absent("UNSET"), null("UNSET")],
                otherwise: Some(format!("{}(x)", local.reader(paging_type))),
            },
        ],
        extra,
        known: "_K_Page".into(),
    }
}
