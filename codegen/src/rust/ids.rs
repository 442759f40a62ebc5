//! A newtype per resource id, so a `UnitId` is never passed where a `TaskId` belongs.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{docs, names};
use crate::ir::{Interface, RecordRef, TypeDef};

pub fn id(t: &TypeDef, max_length: Option<u32>) -> TokenStream {
    let name = names::type_ident(&t.name);
    let mut doc = docs::Doc::new(&t.doc);
    doc.push(
        "Opaque and case-sensitive: compare it whole, never parse it. Its length and \
         format may change."
            .to_string(),
    );
    if let Some(n) = max_length {
        doc.push(format!("At most {n} characters."));
    }
    let doc = doc.attrs();
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #name(String);

        ::inspection_runtime::__private::impl_id!(#name);
    }
}

/// A path reference: the record's id, an external id (`_<id>`), or the self keyword.
pub fn record_ref(i: &Interface, t: &TypeDef, r: &RecordRef) -> TokenStream {
    let name = names::type_ident(&t.name);
    let id_type = names::type_ident(&i.ty(r.id_type).name);
    let mut out = record_ref_enum(t, r, &id_type);
    out.extend(record_ref_display(&name, r));
    out.extend(record_ref_from_id(&name, &id_type));
    out
}

/// The reference's enum (the id, and the external id and self keyword where the spec has
/// them), with the constructor of an external reference.
fn record_ref_enum(t: &TypeDef, r: &RecordRef, id_type: &Ident) -> TokenStream {
    let name = names::type_ident(&t.name);
    let doc = record_ref_doc(t, r);
    let external = r.external.then(|| {
        quote! {
            /// An external id (such as a VIN), sent as `_<external id>`.
            External(String),
        }
    });
    let me = r.self_keyword.as_ref().map(|k| {
        let vdoc = format!(" The caller's own record (`{k}`).");
        quote!(#[doc = #vdoc] Me,)
    });
    let external_ctor = r.external.then(|| {
        quote! {
            /// Names the record by its external id.
            pub fn external(id: impl Into<String>) -> Self {
                Self::External(id.into())
            }
        }
    });
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #name {
            /// The record's id.
            Id(#id_type),
            #external
            #me
        }

        impl #name {
            #external_ctor
        }
    }
}

/// The reference's doc: the spec's text and the forms it is sent in.
fn record_ref_doc(t: &TypeDef, r: &RecordRef) -> TokenStream {
    let mut doc = docs::Doc::new(&t.doc);
    doc.push(format!(
        "Sent as one path segment: the id as is{}{}.",
        if r.external {
            ", an external id as `_<external id>`"
        } else {
            ""
        },
        r.self_keyword
            .as_ref()
            .map(|k| format!(", or `{k}` for the caller's own record"))
            .unwrap_or_default()
    ));
    doc.source(r.source);
    doc.attrs()
}

/// `Display`: the path segment the reference is sent as.
fn record_ref_display(name: &Ident, r: &RecordRef) -> TokenStream {
    let external_arm = r
        .external
        .then(|| quote!(Self::External(id) => write!(f, "_{id}"),));
    let me_arm = r
        .self_keyword
        .as_ref()
        .map(|k| quote!(Self::Me => f.write_str(#k),));
    quote! {
        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    Self::Id(id) => f.write_str(id.as_str()),
                    #external_arm
                    #me_arm
                }
            }
        }
    }
}

/// `From` the id type and from strings, so an id is passed where a reference is taken.
fn record_ref_from_id(name: &Ident, id_type: &Ident) -> TokenStream {
    quote! {
        impl From<#id_type> for #name {
            fn from(id: #id_type) -> Self {
                Self::Id(id)
            }
        }

        impl From<&str> for #name {
            fn from(id: &str) -> Self {
                Self::Id(#id_type::new(id))
            }
        }

        impl From<String> for #name {
            fn from(id: String) -> Self {
                Self::Id(#id_type::new(id))
            }
        }
    }
}
