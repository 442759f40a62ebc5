//! Tagged unions (dispatch on the tag, then decode that variant only) and scalar unions.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{docs, names};
use std::collections::BTreeMap;

use crate::ir::{Builtin, Interface, ScalarKind, TypeDef, TypeKind, TypeRef, Union};

pub fn union(i: &Interface, t: &TypeDef, u: &Union) -> TokenStream {
    let name = names::type_ident(&t.name);
    let mut out = union_enum(i, t, u);
    out.extend(union_tag(&name, u));
    out.extend(union_serialize(&name, u));
    if streams(i, u) {
        out.extend(union_decode(i, &name, &t.name, u));
    } else {
        out.extend(union_deserialize(&name, u));
    }
    out
}

/// Whether every member is a record with a generated `DecodeRecord` (not an envelope),
/// so the union reads its members in one pass (`union_decode`).
fn streams(i: &Interface, u: &Union) -> bool {
    u.variants
        .iter()
        .all(|v| matches!(&i.ty(v.shape).kind, TypeKind::Object(o) if o.envelope.is_none()))
}

/// `Deserialize` in one pass (the runtime's `decode_union`): the tag selects the member,
/// whose record then reads the rest of the object as it streams by.
fn union_decode(i: &Interface, name: &Ident, label: &str, u: &Union) -> TokenStream {
    let tag = u.tag.as_str();
    let values = tag_values(u);
    let scalars = shared_scalars(i, u);
    let arms = u.variants.iter().map(|v| {
        let ident = names::variant_ident(&v.tag_value);
        let value = v.tag_value.as_str();
        let shape = names::type_ident(&i.ty(v.shape).name);
        let wrap = if holds_record(i, v.shape) {
            quote!(|m| Self::#ident(Box::new(m)))
        } else {
            quote!(Self::#ident)
        };
        quote! {
            #value => Ok(<#shape as ::inspection_runtime::__private::DecodeRecord>::visit(map).map(#wrap)),
        }
    });
    // A closed union refuses a member it does not know.
    let (member, unknown) = if u.open {
        (quote!(member), quote!(Some(Self::Unknown(member))))
    } else {
        (quote!(_member), quote!(None))
    };
    quote! {
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                ::inspection_runtime::__private::decode_union(deserializer)
            }
        }

        impl<'de> ::inspection_runtime::__private::DecodeUnion<'de> for #name {
            const NAME: &'static str = #label;
            const TAG: &'static str = #tag;
            const SCALARS: &'static [&'static str] = &[#(#scalars),*];

            fn member<F: ::inspection_runtime::__private::Fields<'de>>(tag: &str, map: F) -> Result<Result<Self, F::Error>, F> {
                match tag {
                    #(#arms)*
                    _ => Err(map),
                }
            }

            fn unknown(#member: ::inspection_runtime::UnknownMember) -> Option<Self> {
                #unknown
            }

            fn known() -> &'static [&'static str] {
                &[#(#values),*]
            }
        }
    }
}

/// The properties (other than the tag) that every member listing them holds as a scalar:
/// the runtime keeps such a property sent before the tag as a `Value`, not as raw JSON to
/// read again. Measured on the benchmark page, whose fields send `id`, `object` and
/// `label` before their `type`.
fn shared_scalars<'a>(i: &'a Interface, u: &Union) -> Vec<&'a str> {
    let mut verdicts: BTreeMap<&str, bool> = BTreeMap::new();
    for v in &u.variants {
        let TypeKind::Object(o) = &i.ty(v.shape).kind else {
            continue;
        };
        for f in o.wire_fields().filter(|f| f.name != u.tag) {
            let scalar = is_scalar(i, &f.ty);
            verdicts
                .entry(f.name.as_str())
                .and_modify(|all| *all &= scalar)
                .or_insert(scalar);
        }
    }
    verdicts
        .into_iter()
        .filter_map(|(name, scalar)| scalar.then_some(name))
        .collect()
}

/// A value that is never an object or an array on the wire.
fn is_scalar(i: &Interface, ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Builtin(b) => !matches!(b, Builtin::Json | Builtin::DateTimeOrRange),
        TypeRef::Named(_) => matches!(
            i.named(ty).map(|t| &t.kind),
            Some(TypeKind::Enum(_) | TypeKind::Id { .. } | TypeKind::ScalarUnion(_))
        ),
        _ => false,
    }
}

/// The enum's variant names, one per tag value.
fn variant_idents(u: &Union) -> Vec<Ident> {
    u.variants
        .iter()
        .map(|v| names::variant_ident(&v.tag_value))
        .collect()
}

/// The tag values, in the order of the variants.
fn tag_values(u: &Union) -> Vec<&str> {
    u.variants.iter().map(|v| v.tag_value.as_str()).collect()
}

/// The union's enum: a variant per tag value, and `Unknown` when the union is open
/// (decided once, in `ir::resolve`, for every language).
fn union_enum(i: &Interface, t: &TypeDef, u: &Union) -> TokenStream {
    let name = names::type_ident(&t.name);
    let tag = u.tag.as_str();
    let idents = variant_idents(u);
    // A member that always holds a whole record inline (an event's `data`) is boxed, so the
    // enum stays about as small as its other members.
    let shapes = u.variants.iter().map(|v| {
        let shape = names::type_ident(&i.ty(v.shape).name);
        if holds_record(i, v.shape) {
            quote!(Box<#shape>)
        } else {
            quote!(#shape)
        }
    });
    let variant_docs = u
        .variants
        .iter()
        .map(|v| docs::attrs(&format!("`{tag}: {}`. {}", v.tag_value, v.doc.trim())));
    let doc = union_doc(t, u);
    let unknown_variant = u.open.then(|| {
        quote! {
            /// A member whose tag this version of the client does not know, kept whole.
            Unknown(::inspection_runtime::UnknownMember),
        }
    });
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum #name {
            #(#variant_docs #idents(#shapes),)*
            #unknown_variant
        }
    }
}

/// The union's doc: the spec's text, how it is decoded, and what an open one keeps.
fn union_doc(t: &TypeDef, u: &Union) -> TokenStream {
    let tag = u.tag.as_str();
    let mut doc = docs::Doc::new(&t.doc);
    doc.push(format!(
        "Discriminated by the `{tag}` property: only the variant it names is decoded, so an \
         error names the tag and the failing field."
    ));
    if u.open {
        doc.push(format!(
            "Open: a member whose `{tag}` this version does not know is kept whole in \
             `Unknown` and written back unchanged."
        ));
    }
    doc.attrs()
}

/// `tag()`: the value of the tag property of a member.
fn union_tag(name: &Ident, u: &Union) -> TokenStream {
    let tag = u.tag.as_str();
    let idents = variant_idents(u);
    let values = tag_values(u);
    let unknown_tag = u
        .open
        .then(|| quote!(Self::Unknown(member) => member.tag(),));
    quote! {
        impl #name {
            #[doc = concat!("The value of the `", #tag, "` property.")]
            pub fn tag(&self) -> &str {
                match self {
                    #(Self::#idents(_) => #values,)*
                    #unknown_tag
                }
            }
        }
    }
}

/// `Serialize`: the member's fields with its tag; an unknown member as it was read.
fn union_serialize(name: &Ident, u: &Union) -> TokenStream {
    let tag = u.tag.as_str();
    let idents = variant_idents(u);
    let values = tag_values(u);
    let unknown_ser = u
        .open
        .then(|| quote!(Self::Unknown(member) => serde::Serialize::serialize(member, serializer),));
    quote! {
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    #(Self::#idents(value) => ::inspection_runtime::__private::serialize_tagged(serializer, #tag, #values, value),)*
                    #unknown_ser
                }
            }
        }
    }
}

/// `Deserialize`: reads the tag, then decodes the variant it names only. A missing or
/// unknown tag is kept in `Unknown` when the union is open, and refused otherwise.
fn union_deserialize(name: &Ident, u: &Union) -> TokenStream {
    let tag = u.tag.as_str();
    let idents = variant_idents(u);
    let values = tag_values(u);
    let (missing_tag, fallback) = if u.open {
        (
            quote! {
                return Ok(Self::Unknown(::inspection_runtime::UnknownMember::new(String::new(), raw)));
            },
            quote! {
                _ => return Ok(Self::Unknown(::inspection_runtime::UnknownMember::new(tag, raw))),
            },
        )
    } else {
        let missing = format!("missing `{tag}` property");
        let expected = format!(
            "unknown `{tag}` `{{other}}`, expected one of: {}",
            values.join(", ")
        );
        (
            quote!(return Err(D::Error::custom(#missing));),
            quote!(other => return Err(D::Error::custom(format!(#expected))),),
        )
    };
    quote! {
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let raw = ::inspection_runtime::__private::capture(deserializer)?;
                let Some(tag) = ::inspection_runtime::__private::read_tag(&raw, #tag).map_err(D::Error::custom)? else {
                    #missing_tag
                };
                let decoded = match tag.as_str() {
                    #(#values => ::inspection_runtime::__private::decode_variant(&raw, #tag, #values).map(Self::#idents),)*
                    #fallback
                };
                decoded.map_err(D::Error::custom)
            }
        }
    }
}

/// Whether the object `shape` holds a whole record inline: a field whose type is an object
/// with a required field (a record with an id, not a small reference).
fn holds_record(i: &Interface, shape: crate::ir::TypeId) -> bool {
    let TypeKind::Object(o) = &i.ty(shape).kind else {
        return false;
    };
    o.fields.iter().any(|f| {
        matches!(i.named(&f.ty).map(|t| &t.kind),
            Some(TypeKind::Object(inner)) if inner.fields.iter().any(|g| g.required))
    })
}

pub fn scalar_union(t: &TypeDef, kinds: &[ScalarKind]) -> TokenStream {
    let name = names::type_ident(&t.name);
    // A response-side union keeps a value of another kind rather than refusing it.
    let open = t.usage.response_side();
    let mut out = scalar_union_enum(t, kinds, open);
    out.extend(scalar_union_serialize(&name, kinds, open));
    out.extend(scalar_union_deserialize(&name, kinds, open));
    out
}

/// One scalar kind's variant, its arm in `Deserialize` (from a `serde_json::Value`), and
/// its arm in `Serialize`.
fn scalar_variant(kind: ScalarKind) -> [TokenStream; 3] {
    match kind {
        ScalarKind::String => [
            quote!(/// A string. 
                String(String),),
            quote!(serde_json::Value::String(s) => Self::String(s),),
            quote!(Self::String(v) => serializer.serialize_str(v),),
        ],
        ScalarKind::Integer => [
            quote!(/// An integer.
                Integer(i64),),
            quote!(serde_json::Value::Number(n) if n.is_i64() => Self::Integer(n.as_i64().unwrap_or_default()),),
            quote!(Self::Integer(v) => serializer.serialize_i64(*v),),
        ],
        ScalarKind::Boolean => [
            quote!(/// A boolean.
                Boolean(bool),),
            quote!(serde_json::Value::Bool(b) => Self::Boolean(b),),
            quote!(Self::Boolean(v) => serializer.serialize_bool(*v),),
        ],
        ScalarKind::Number => [
            quote!(/// A number.
                Number(f64),),
            quote!(serde_json::Value::Number(n) if n.as_f64().is_some() => Self::Number(n.as_f64().unwrap_or_default()),),
            quote!(Self::Number(v) => serializer.serialize_f64(*v),),
        ],
        ScalarKind::Null => [
            quote!(/// `null`.
                Null,),
            quote!(serde_json::Value::Null => Self::Null,),
            quote!(Self::Null => serializer.serialize_unit(),),
        ],
    }
}

/// The scalar union's enum: a variant per kind, and `Other` when open. It is `Eq` unless
/// a variant holds a float.
fn scalar_union_enum(t: &TypeDef, kinds: &[ScalarKind], open: bool) -> TokenStream {
    let name = names::type_ident(&t.name);
    let mut doc = docs::Doc::new(&t.doc);
    if open {
        doc.push(
            "A JSON value of any other kind is kept in `Other` rather than refused.".to_string(),
        );
    }
    let doc = doc.attrs();
    let variants = kinds.iter().map(|&kind| {
        let [variant, _, _] = scalar_variant(kind);
        variant
    });
    let other_variant = open.then(|| {
        quote!(/// A value of a kind the spec does not list, kept as sent.
            Other(serde_json::Value),)
    });
    let eq = if kinds.contains(&ScalarKind::Number) {
        quote!()
    } else {
        quote!(Eq,)
    };
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, #eq)]
        #[non_exhaustive]
        pub enum #name {
            #(#variants)*
            #other_variant
        }
    }
}

/// The scalar union's `Serialize`: each variant as its JSON value.
fn scalar_union_serialize(name: &Ident, kinds: &[ScalarKind], open: bool) -> TokenStream {
    let ser_arms = kinds.iter().map(|&kind| {
        let [_, _, ser_arm] = scalar_variant(kind);
        ser_arm
    });
    let other_ser =
        open.then(|| quote!(Self::Other(v) => serde::Serialize::serialize(v, serializer),));
    quote! {
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    #(#ser_arms)*
                    #other_ser
                }
            }
        }
    }
}

/// The scalar union's `Deserialize`: the variant of the JSON value's kind; a value of
/// another kind is kept in `Other` when open, and refused otherwise.
fn scalar_union_deserialize(name: &Ident, kinds: &[ScalarKind], open: bool) -> TokenStream {
    let de_arms = kinds.iter().map(|&kind| {
        let [_, de_arm, _] = scalar_variant(kind);
        de_arm
    });
    let (other_de, error_import) = if open {
        (quote!(other => Self::Other(other),), quote!())
    } else {
        let expected = format!(
            "expected {}",
            kinds
                .iter()
                .map(|k| format!("{k:?}").to_lowercase())
                .collect::<Vec<_>>()
                .join(" or ")
        );
        (
            quote!(other => return Err(D::Error::custom(format!("{}, got {other}", #expected))),),
            quote!(
                use serde::de::Error as _;
            ),
        )
    };
    quote! {
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #error_import
                Ok(match <serde_json::Value as serde::Deserialize>::deserialize(deserializer)? {
                    #(#de_arms)*
                    #other_de
                })
            }
        }
    }
}
