//! A record's `Deserialize`, written out rather than derived: one pass over the object
//! that matches each key against the record's fields and keeps the others in its
//! `additional_properties` (the runtime's `impl_decode!`, one line per field here).
//! serde's derive would need `#[serde(flatten)]` to keep them, which buffers every
//! property and read a page slower than an untyped `Value`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{names, types};
use crate::ir::{Field, Object};

/// `impl_decode!` for the record `name` with fields `o`.
pub fn record(name: &Ident, o: &Object, response_side: bool) -> TokenStream {
    let extras = names::record_member(o, "additional_properties");
    let fields = o.fields.iter().map(|f| entry(f, response_side));
    let one_of = o.one_of.as_ref().map(|one| {
        let keys = one
            .variants
            .iter()
            .flat_map(|v| v.fields.iter().map(|f| f.name.as_str()));
        let ident = names::field_ident(&one.name);
        let ty = names::type_ident(&one.type_name);
        quote!(, one_of(#ident, #ty, [#(#keys),*]))
    });
    quote! {
        ::inspection_runtime::__private::impl_decode!(#name, #extras, [#(#fields),*] #one_of);
    }
}

/// `impl_decode!` for a struct holding the fields of one variant of an exactly-one-of
/// choice: it has no unlisted properties (`_`), the record holding the choice keeps them.
pub fn variant(name: &Ident, fields: &[Field]) -> TokenStream {
    let fields = fields.iter().map(|f| entry(f, false));
    quote! {
        ::inspection_runtime::__private::impl_decode!(#name, _, [#(#fields),*]);
    }
}

/// `(field, "wire", read, finish)`: how the field's value is read, and what its absence
/// gives (an error for a field always present).
fn entry(f: &Field, response_side: bool) -> TokenStream {
    let local = names::field_ident(&f.name);
    let wire = f.name.as_str();
    let read = read(f, response_side);
    let finish = if matches!(types::shape(f, response_side), types::Shape::Plain) {
        quote!(required)
    } else {
        quote!(default)
    };
    quote!((#local, #wire, #read, #finish))
}

/// The name of the runtime's `read_value!` rule that reads the field's value.
fn read(f: &Field, response_side: bool) -> TokenStream {
    match types::read(f, response_side) {
        types::Read::Value => quote!(value),
        types::Read::NullAsEmpty => quote!(null_as_empty),
        types::Read::Present => quote!(present),
        types::Read::DateTime => quote!(date_time),
        types::Read::DateTimeOpt => quote!(date_time_opt),
        types::Read::DateTimePresent => quote!(date_time_present),
    }
}
