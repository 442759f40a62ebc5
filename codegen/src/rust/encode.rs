//! A record's `Serialize`, written out rather than derived: one entry per field in the
//! runtime's `impl_encode!` (written always, or only when present), then its
//! exactly-one-of choice and its unlisted properties. serde's derive wrote the same, but
//! its proc macro was in the build of every application using the client.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{names, types};
use crate::ir::{Field, Object};

/// `impl_encode!` for the record `name` with fields `o`.
pub fn record(name: &Ident, o: &Object, response_side: bool) -> TokenStream {
    let mut entries: Vec<TokenStream> = o.fields.iter().map(|f| entry(f, response_side)).collect();
    if let Some(one) = &o.one_of {
        let ident = names::field_ident(&one.name);
        entries.push(quote!(flatten(#ident)));
    }
    let extras = names::record_member(o, "additional_properties");
    entries.push(quote!(flatten(#extras)));
    quote! {
        ::inspection_runtime::__private::impl_encode!(#name, [#(#entries),*]);
    }
}

/// `impl_encode!` for a struct holding the fields of one variant of an exactly-one-of
/// choice (no unlisted properties: the record holding the choice keeps those).
pub fn variant(name: &Ident, fields: &[Field]) -> TokenStream {
    let entries = fields.iter().map(|f| entry(f, false));
    quote! {
        ::inspection_runtime::__private::impl_encode!(#name, [#(#entries),*]);
    }
}

/// A field written always, or only when the record has it (`Some`).
fn entry(f: &Field, response_side: bool) -> TokenStream {
    let ident = names::field_ident(&f.name);
    let wire = f.name.as_str();
    match types::shape(f, response_side) {
        types::Shape::Optional | types::Shape::OptionalNullable => {
            quote!(optional(#ident, #wire))
        }
        types::Shape::Plain | types::Shape::NullablePresent | types::Shape::Collection => {
            quote!(field(#ident, #wire))
        }
    }
}
