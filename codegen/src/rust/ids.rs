//! A newtype per resource id, so a `UnitId` is never passed where a `TaskId` belongs.

use proc_macro2::TokenStream;
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
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        #[serde(transparent)]
        pub struct #name(String);

        ::inspection_runtime::__private::impl_id!(#name);
    }
}

/// A path reference: the record's id, an external id (`_<id>`), or the self keyword.
pub fn record_ref(i: &Interface, t: &TypeDef, r: &RecordRef) -> TokenStream {
    let name = names::type_ident(&t.name);
    let id_type = names::type_ident(&i.ty(r.id_type).name);
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
    let doc = doc.attrs();
    let external = r.external.then(|| {
        quote! {
            /// An external id (such as a VIN), sent as `_<external id>`.
            External(String),
        }
    });
    let external_arm = r
        .external
        .then(|| quote!(Self::External(id) => write!(f, "_{id}"),));
    let external_ctor = r.external.then(|| {
        quote! {
            /// Names the record by its external id.
            pub fn external(id: impl Into<String>) -> Self {
                Self::External(id.into())
            }
        }
    });
    let (me, me_arm) = match &r.self_keyword {
        Some(k) => {
            let vdoc = format!(" The caller's own record (`{k}`).");
            (
                quote!(#[doc = #vdoc] Me,),
                quote!(Self::Me => f.write_str(#k),),
            )
        }
        None => (quote!(), quote!()),
    };
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

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    Self::Id(id) => f.write_str(id.as_str()),
                    #external_arm
                    #me_arm
                }
            }
        }

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
