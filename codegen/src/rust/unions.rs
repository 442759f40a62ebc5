//! Tagged unions (dispatch on the tag, then decode that variant only) and scalar unions.

use proc_macro2::TokenStream;
use quote::quote;

use super::{docs, names};
use crate::ir::{Interface, ScalarKind, TypeDef, TypeKind, Union};

pub fn union(i: &Interface, t: &TypeDef, u: &Union) -> TokenStream {
    let name = names::type_ident(&t.name);
    // Decided once, in `ir::resolve`, for every language.
    let open = u.open;
    let tag = u.tag.as_str();
    let idents: Vec<_> = u
        .variants
        .iter()
        .map(|v| names::variant_ident(&v.tag_value))
        .collect();
    // A member that always holds a whole record inline (an event's `data`) is boxed, so the
    // enum stays about as small as its other members.
    let shapes: Vec<_> = u
        .variants
        .iter()
        .map(|v| {
            let shape = names::type_ident(&i.ty(v.shape).name);
            if holds_record(i, v.shape) {
                quote!(Box<#shape>)
            } else {
                quote!(#shape)
            }
        })
        .collect();
    let values: Vec<&str> = u.variants.iter().map(|v| v.tag_value.as_str()).collect();
    let variant_docs = u
        .variants
        .iter()
        .map(|v| docs::attrs(&format!("`{tag}: {}`. {}", v.tag_value, v.doc.trim())));

    let mut doc = docs::Doc::new(&t.doc);
    doc.push(format!(
        "Discriminated by the `{tag}` property: only the variant it names is decoded, so an \
         error names the tag and the failing field."
    ));
    if open {
        doc.push(format!(
            "Open: a member whose `{tag}` this version does not know is kept whole in \
             `Unknown` and written back unchanged."
        ));
    }
    let doc = doc.attrs();

    let (unknown_variant, unknown_tag, unknown_ser, missing_tag, fallback) = if open {
        (
            quote! {
                /// A member whose tag this version of the client does not know, kept whole.
                Unknown(::inspection_runtime::UnknownMember),
            },
            quote!(Self::Unknown(member) => member.tag(),),
            quote!(Self::Unknown(member) => serde::Serialize::serialize(member, serializer),),
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
            quote!(),
            quote!(),
            quote!(),
            quote!(return Err(D::Error::custom(#missing));),
            quote!(other => return Err(D::Error::custom(format!(#expected))),),
        )
    };

    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum #name {
            #(#variant_docs #idents(#shapes),)*
            #unknown_variant
        }

        impl #name {
            #[doc = concat!("The value of the `", #tag, "` property.")]
            pub fn tag(&self) -> &str {
                match self {
                    #(Self::#idents(_) => #values,)*
                    #unknown_tag
                }
            }
        }

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    #(Self::#idents(value) => ::inspection_runtime::__private::serialize_tagged(serializer, #tag, #values, value),)*
                    #unknown_ser
                }
            }
        }

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
    let open = t.usage.response_side();
    let mut doc = docs::Doc::new(&t.doc);
    if open {
        doc.push(
            "A JSON value of any other kind is kept in `Other` rather than refused.".to_string(),
        );
    }
    let doc = doc.attrs();
    let mut variants = Vec::new();
    let mut de_arms = Vec::new();
    let mut ser_arms = Vec::new();
    let mut eq = true;
    for kind in kinds {
        match kind {
            ScalarKind::String => {
                variants.push(quote!(/// A string. 
                    String(String),));
                de_arms.push(quote!(serde_json::Value::String(s) => Self::String(s),));
                ser_arms.push(quote!(Self::String(v) => serializer.serialize_str(v),));
            }
            ScalarKind::Integer => {
                variants.push(quote!(/// An integer.
                    Integer(i64),));
                de_arms.push(quote!(serde_json::Value::Number(n) if n.is_i64() => Self::Integer(n.as_i64().unwrap_or_default()),));
                ser_arms.push(quote!(Self::Integer(v) => serializer.serialize_i64(*v),));
            }
            ScalarKind::Boolean => {
                variants.push(quote!(/// A boolean.
                    Boolean(bool),));
                de_arms.push(quote!(serde_json::Value::Bool(b) => Self::Boolean(b),));
                ser_arms.push(quote!(Self::Boolean(v) => serializer.serialize_bool(*v),));
            }
            ScalarKind::Number => {
                eq = false;
                variants.push(quote!(/// A number.
                    Number(f64),));
                de_arms.push(quote!(serde_json::Value::Number(n) if n.as_f64().is_some() => Self::Number(n.as_f64().unwrap_or_default()),));
                ser_arms.push(quote!(Self::Number(v) => serializer.serialize_f64(*v),));
            }
            ScalarKind::Null => {
                variants.push(quote!(/// `null`.
                    Null,));
                de_arms.push(quote!(serde_json::Value::Null => Self::Null,));
                ser_arms.push(quote!(Self::Null => serializer.serialize_unit(),));
            }
        }
    }
    let expected = format!(
        "expected {}",
        kinds
            .iter()
            .map(|k| format!("{k:?}").to_lowercase())
            .collect::<Vec<_>>()
            .join(" or ")
    );
    let (other_variant, other_de, other_ser) = if open {
        (
            quote!(/// A value of a kind the spec does not list, kept as sent.
                Other(serde_json::Value),),
            quote!(other => Self::Other(other),),
            quote!(Self::Other(v) => serde::Serialize::serialize(v, serializer),),
        )
    } else {
        (
            quote!(),
            quote!(other => return Err(D::Error::custom(format!("{}, got {other}", #expected))),),
            quote!(),
        )
    };
    let eq = if eq { quote!(Eq,) } else { quote!() };
    let error_import = if open {
        quote!()
    } else {
        quote!(
            use serde::de::Error as _;
        )
    };
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, #eq)]
        #[non_exhaustive]
        pub enum #name {
            #(#variants)*
            #other_variant
        }

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    #(#ser_arms)*
                    #other_ser
                }
            }
        }

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
