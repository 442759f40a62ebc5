//! Structs for object types and their exactly-one-of choices (the list envelopes are in
//! `pages.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{decode, docs, encode, names, types};
use crate::ir::{Builtin, Field, Interface, Object, OneOf, OneOfVariant, TypeDef, TypeRef};

pub fn object(i: &Interface, t: &TypeDef, o: &Object) -> TokenStream {
    let response_side = t.usage.response_side();
    let mut out = object_struct(i, t, o, response_side);
    out.extend(encode::record(
        &names::type_ident(&t.name),
        o,
        response_side,
    ));
    // An envelope reads its record wrapped or bare, so it has a `Deserialize` of its own.
    if o.envelope.is_none() {
        out.extend(decode::record(
            &names::type_ident(&t.name),
            o,
            response_side,
        ));
    }
    out.extend(impl_record(t, o, response_side));
    out.extend(envelope_impl(i, t, o));
    if o.fields.iter().any(|f| f.sensitive) {
        out.extend(redacted_debug(&t.name, o));
    }
    out.extend(constructor(i, t, o, !response_side));
    if let Some(one) = &o.one_of {
        out.extend(one_of_types(i, one));
    }
    out
}

/// The record's struct: its fields, its `one_of` choice, and the properties the spec does
/// not list.
fn object_struct(i: &Interface, t: &TypeDef, o: &Object, response_side: bool) -> TokenStream {
    let name = names::type_ident(&t.name);
    let extras = names::record_member(o, "additional_properties");
    let doc = object_doc(t, o, response_side);
    let fields: Vec<TokenStream> = o
        .fields
        .iter()
        .map(|f| written_field(i, f, response_side))
        .collect();
    let one_of = o.one_of.as_ref().map(|one| {
        let ident = names::field_ident(&one.name);
        let ty = names::type_ident(&one.type_name);
        let doc = docs::attrs(&one.doc);
        quote! {
            #doc
            pub #ident: #ty,
        }
    });
    let extra = quote! {
        /// Properties the spec does not list, as the service sent them (or as they are to be sent).
        pub #extras: serde_json::Map<String, serde_json::Value>,
    };
    // A record with a sensitive field gets the redacting `Debug` of `redacted_debug`.
    let sensitive = o.fields.iter().any(|f| f.sensitive);
    let debug = if sensitive { quote!() } else { quote!(Debug,) };
    let default = if derives_default(o) {
        quote!(Default,)
    } else {
        quote!()
    };
    // `Serialize` is `encode::record`'s; `Deserialize` `decode::record`'s, or an
    // envelope's own.
    quote! {
        #doc
        #[derive(Clone, #debug #default PartialEq)]
        #[non_exhaustive]
        pub struct #name {
            #(#fields)*
            #one_of
            #extra
        }
    }
}

/// The record's doc: the spec's text, then what happens to properties it does not list
/// and, for an envelope, that the record is also read bare.
fn object_doc(t: &TypeDef, o: &Object, response_side: bool) -> TokenStream {
    let extras = names::record_member(o, "additional_properties");
    let mut doc = docs::Doc::new(&t.doc);
    doc.push(if response_side {
        format!(
            "Properties this spec does not list are kept in `{extras}` and written back, so \
             nothing the service sends is lost."
        )
    } else {
        format!(
            "A property the spec does not list yet (the service may add optional ones) can be \
             sent through `{extras}`."
        )
    });
    if let Some(env) = &o.envelope {
        doc.push(format!(
            "Also read bare: an answer that is the record itself (no `{env}` property) is read \
             as if wrapped, since the wrapping is not documented for every answer."
        ));
    }
    doc.not_shown(o.not_shown.as_deref()).source(o.source);
    doc.attrs()
}

/// `impl_record!`: access to the properties the spec does not list. A request body also
/// gets the setter for such a property.
fn impl_record(t: &TypeDef, o: &Object, response_side: bool) -> TokenStream {
    let name = names::type_ident(&t.name);
    let extras = names::record_member(o, "additional_properties");
    if response_side {
        quote!(::inspection_runtime::__private::impl_record!(#name, #extras);)
    } else {
        let setter = names::record_member(o, "additional_property");
        quote!(::inspection_runtime::__private::impl_record!(#name, #extras, #setter);)
    }
}

/// `impl_envelope!` for a record that an answer wraps in one of its fields (or sends bare).
fn envelope_impl(i: &Interface, t: &TypeDef, o: &Object) -> TokenStream {
    let Some(f) = o.envelope_field() else {
        return quote!();
    };
    let env = f.name.as_str();
    let name = names::type_ident(&t.name);
    let extras = names::record_member(o, "additional_properties");
    let field = names::field_ident(&f.name);
    let inner = types::rust_type(i, &f.ty);
    quote! {
        ::inspection_runtime::__private::impl_envelope!(#name { #field: #inner = #env, #extras });
    }
}

/// `new(required...)` (records are `#[non_exhaustive]`, so this is how users make one)
/// and, for request bodies, a chainable setter per optional field:
/// `NewUnit::new("A-001").make("Cat").year(2021)`. A response record's other fields are
/// set by assignment (`unit.make = Some(..)`), as they are when read.
fn constructor(i: &Interface, t: &TypeDef, o: &Object, setters_too: bool) -> TokenStream {
    let name = names::type_ident(&t.name);
    let mut params = Vec::new();
    let mut inits = Vec::new();
    let mut setters = Vec::new();
    for f in &o.fields {
        let (ident, ty, value, into) = types::arg(i, f);
        if f.required {
            params.push(quote!(#ident: #ty));
            inits.push(if f.nullable {
                quote!(#ident: Some(#value))
            } else if into {
                quote!(#ident: #value)
            } else {
                quote!(#ident)
            });
            continue;
        }
        inits.push(quote!(#ident: Default::default()));
        if !setters_too {
            continue;
        }
        let doc = docs::field(f, true).attrs();
        let (param_ty, assign) = if f.nullable {
            let inner = types::rust_type(i, &f.ty);
            (quote!(Option<#inner>), quote!(Some(#ident)))
        } else {
            (ty, quote!(Some(#value)))
        };
        setters.push(quote! {
            #doc
            pub fn #ident(mut self, #ident: #param_ty) -> Self {
                self.#ident = #assign;
                self
            }
        });
    }
    if let Some(one) = &o.one_of {
        let ident = names::field_ident(&one.name);
        let ty = names::type_ident(&one.type_name);
        params.push(quote!(#ident: #ty));
        inits.push(quote!(#ident));
    }
    let extras = names::record_member(o, "additional_properties");
    inits.push(quote!(#extras: Default::default()));
    let new_doc = if setters_too {
        " The body with its required fields; set the others with the methods below."
    } else {
        " The record with its required fields; the others are unset."
    };
    let new = (!derives_default(o)).then(|| {
        quote! {
            #[doc = #new_doc]
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits),* }
            }
        }
    });
    if new.is_none() && setters.is_empty() {
        return quote!();
    }
    quote! {
        impl #name {
            #new
            #(#setters)*
        }
    }
}

fn derives_default(o: &Object) -> bool {
    o.one_of.is_none() && o.fields.iter().all(|f| !f.required)
}

/// A field of a record (a `one_of` variant's struct is request-side: only requests send
/// those).
fn written_field(i: &Interface, f: &Field, response_side: bool) -> TokenStream {
    field_decl(f, !response_side, types::held_type(i, f, response_side))
}

/// The field's declaration: its `Serialize` and `Deserialize` are the record's
/// (`encode.rs`, `decode.rs`), so it needs no attributes.
fn field_decl(f: &Field, show_limits: bool, ty: TokenStream) -> TokenStream {
    let ident = names::field_ident(&f.name);
    let doc = docs::field(f, show_limits).attrs();
    quote! {
        #doc
        pub #ident: #ty,
    }
}

/// `Debug` that prints sensitive fields as `"<redacted>"`.
fn redacted_debug(type_name: &str, o: &Object) -> TokenStream {
    let name = names::type_ident(type_name);
    let entries = o.fields.iter().map(|f| {
        let ident = names::field_ident(&f.name);
        let label = names::field_serde_name(&f.name);
        if f.sensitive {
            quote!(.field(#label, &"<redacted>"))
        } else {
            quote!(.field(#label, &self.#ident))
        }
    });
    let one_of = o.one_of.as_ref().map(|one| {
        let ident = names::field_ident(&one.name);
        let label = names::field_serde_name(&one.name);
        quote!(.field(#label, &self.#ident))
    });
    let extras = names::record_member(o, "additional_properties");
    let label = extras.to_string();
    let extra = quote!(.field(#label, &self.#extras));
    quote! {
        impl std::fmt::Debug for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(#type_name)
                    #(#entries)*
                    #one_of
                    #extra
                    .finish()
            }
        }
    }
}

/// The choice enum of a `one_of` and one struct per variant.
fn one_of_types(i: &Interface, one: &OneOf) -> TokenStream {
    let enum_name = names::type_ident(&one.type_name);
    let enum_doc = docs::Doc::new(&format!(
        "{}\n\nExactly one variant applies, so \"none\" and \"two at once\" cannot be written.",
        one.doc.trim()
    ))
    .attrs();
    let variants = one.variants.iter().map(|v| {
        let vident = names::variant_ident(&v.name);
        let sname = variant_struct_name(one, v);
        let vdoc = docs::attrs(&v.doc);
        quote! {
            #vdoc
            #vident(#sname),
        }
    });
    let constructors = one.variants.iter().map(|v| variant_constructor(i, one, v));
    let deserialize = one_of_deserialize(one);
    let structs = one.variants.iter().map(|v| variant_struct(i, one, v));
    let variant_idents = one.variants.iter().map(|v| names::variant_ident(&v.name));
    quote! {
        #enum_doc
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum #enum_name {
            #(#variants)*
        }

        // Written as the chosen variant's properties.
        ::inspection_runtime::__private::impl_encode!(enum #enum_name, [#(#variant_idents),*]);

        impl #enum_name {
            #(#constructors)*
        }

        #deserialize

        #(#structs)*
    }
}

/// The name of a `one_of` variant's struct: the choice's name, then the variant's.
fn variant_struct_name(one: &OneOf, v: &OneOfVariant) -> proc_macro2::Ident {
    format_ident!("{}", names::one_of_variant_type(&one.type_name, &v.name))
}

/// The struct holding the fields of one `one_of` variant.
fn variant_struct(i: &Interface, one: &OneOf, v: &OneOfVariant) -> TokenStream {
    let sname = variant_struct_name(one, v);
    let fields = v.fields.iter().map(|f| written_field(i, f, false));
    let sdoc = docs::attrs(&format!(
        "The fields of [`{}::{}`]. {}",
        one.type_name,
        names::variant_name(&v.name),
        v.doc.trim()
    ));
    let encode = encode::variant(&sname, &v.fields);
    let decode = decode::variant(&sname, &v.fields);
    quote! {
        #sdoc
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub struct #sname {
            #(#fields)*
        }

        #encode
        #decode
    }
}

/// The choice's constructor of one variant, from that variant's fields (strings as
/// `impl Into<String>`).
fn variant_constructor(i: &Interface, one: &OneOf, v: &OneOfVariant) -> TokenStream {
    let vident = names::variant_ident(&v.name);
    let sname = variant_struct_name(one, v);
    let ctor = names::field_ident(&v.name);
    let takes_into =
        |f: &Field| matches!(f.ty, TypeRef::Builtin(Builtin::String | Builtin::Url)) && f.required;
    let params = v.fields.iter().map(|f| {
        let id = names::field_ident(&f.name);
        if takes_into(f) {
            quote!(#id: impl Into<String>)
        } else {
            let ty = types::held_type(i, f, false);
            quote!(#id: #ty)
        }
    });
    let inits = v.fields.iter().map(|f| {
        let id = names::field_ident(&f.name);
        if takes_into(f) {
            quote!(#id: #id.into())
        } else {
            quote!(#id)
        }
    });
    let cdoc = docs::attrs(&format!(
        "Builds [`{}::{}`].",
        one.type_name,
        names::variant_name(&v.name)
    ));
    quote! {
        #cdoc
        pub fn #ctor(#(#params),*) -> Self {
            Self::#vident(#sname { #(#inits),* })
        }
    }
}

/// The choice's `Deserialize`: decodes the one variant whose properties are present;
/// none, or two at once, is an error.
fn one_of_deserialize(one: &OneOf) -> TokenStream {
    let enum_name = names::type_ident(&one.type_name);
    let groups = one.variants.iter().map(|v| {
        let keys = v.fields.iter().map(|f| f.name.as_str());
        quote!(&[#(#keys),*])
    });
    let last = one.variants.len().saturating_sub(1);
    let arms = one.variants.iter().enumerate().map(|(index, v)| {
        let vident = names::variant_ident(&v.name);
        let pattern = if index == last {
            quote!(_)
        } else {
            quote!(#index)
        };
        quote! {
            #pattern => serde_json::from_value(value).map(Self::#vident),
        }
    });
    quote! {
        impl<'de> serde::Deserialize<'de> for #enum_name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let map = <serde_json::Map<String, serde_json::Value> as serde::Deserialize>::deserialize(deserializer)?;
                let index = ::inspection_runtime::__private::pick_one_of(&map, &[#(#groups),*])
                    .map_err(D::Error::custom)?;
                let value = serde_json::Value::Object(map);
                match index {
                    #(#arms)*
                }
                .map_err(D::Error::custom)
            }
        }
    }
}
