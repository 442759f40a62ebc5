//! String enums. Open enums keep values they do not know; closed ones refuse them.

use heck::ToSnakeCase;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{docs, names};
use crate::ir::{Enum, TypeDef};

pub fn enumeration(t: &TypeDef, e: &Enum) -> TokenStream {
    let mut out = if e.open {
        open_enum(t, e)
    } else {
        closed_enum(t, e)
    };
    out.extend(known_values(t, e));
    out
}

/// The enum's variant names, one per value.
fn variant_idents(e: &Enum) -> Vec<Ident> {
    e.values
        .iter()
        .map(|v| names::variant_ident(&v.wire))
        .collect()
}

/// The values as sent on the wire, in the order of the variants.
fn wires(e: &Enum) -> Vec<&str> {
    e.values.iter().map(|v| v.wire.as_str()).collect()
}

/// Each variant's doc: its wire value and the spec's text.
fn variant_docs(e: &Enum) -> Vec<TokenStream> {
    e.values
        .iter()
        .map(|v| {
            let text = if v.doc.trim().is_empty() {
                format!("`{}`.", v.wire)
            } else {
                format!("`{}`: {}", v.wire, v.doc.trim())
            };
            docs::attrs(&text)
        })
        .collect()
}

/// `VALUES` and an `is_<value>` predicate per value, for open and closed enums alike.
fn known_values(t: &TypeDef, e: &Enum) -> TokenStream {
    let name = names::type_ident(&t.name);
    let wires = wires(e);
    let values_doc =
        "Every value this version of the client knows, as sent on the wire.".to_string();
    let predicates = e.values.iter().zip(variant_idents(e)).map(|(v, ident)| {
        let is = quote::format_ident!("is_{}", v.wire.to_snake_case());
        let doc = format!(" Whether this is `{}`.", v.wire);
        quote! {
            #[doc = #doc]
            pub fn #is(&self) -> bool {
                matches!(self, Self::#ident)
            }
        }
    });
    quote! {
        impl #name {
            #[doc = #values_doc]
            pub const VALUES: &'static [&'static str] = &[#(#wires),*];

            #(#predicates)*
        }
    }
}

/// An open enum: a value it does not know is kept in `Unknown`.
fn open_enum(t: &TypeDef, e: &Enum) -> TokenStream {
    let name = names::type_ident(&t.name);
    let (idents, wires, variant_docs) = (variant_idents(e), wires(e), variant_docs(e));
    let mut doc = docs::Doc::new(&t.doc);
    doc.push(
        "Open: a value this version does not know is kept in `Unknown` and written back \
         unchanged. Match with a wildcard arm, since new values may appear at any time."
            .to_string(),
    );
    doc.not_shown(e.not_shown.as_deref());
    let doc = doc.attrs();
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #name {
            #(#variant_docs #idents,)*
            /// A value this version of the client does not know, kept as sent.
            Unknown(::inspection_runtime::UnknownValue),
        }

        impl #name {
            /// The value as sent on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#idents => #wires,)*
                    Self::Unknown(value) => value.as_str(),
                }
            }

            /// Parses a known value; `None` for a value this version does not know.
            pub fn try_parse(value: &str) -> Option<Self> {
                match value {
                    #(#wires => Some(Self::#idents),)*
                    _ => None,
                }
            }
        }

        ::inspection_runtime::__private::impl_enum!(#name, open);
    }
}

/// A closed enum: a value it does not know is refused.
fn closed_enum(t: &TypeDef, e: &Enum) -> TokenStream {
    let name = names::type_ident(&t.name);
    let (idents, wires, variant_docs) = (variant_idents(e), wires(e), variant_docs(e));
    let mut doc = docs::Doc::new(&t.doc);
    doc.not_shown(e.not_shown.as_deref());
    let doc = doc.attrs();
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #name {
            #(#variant_docs #idents,)*
        }

        impl #name {
            /// The value as sent on the wire.
            pub fn as_str(&self) -> &'static str {
                match self {
                    #(Self::#idents => #wires,)*
                }
            }

            /// Parses a value; `None` for anything else.
            pub fn try_parse(value: &str) -> Option<Self> {
                match value {
                    #(#wires => Some(Self::#idents),)*
                    _ => None,
                }
            }
        }

        ::inspection_runtime::__private::impl_enum!(#name, closed, [#(#wires),*]);
    }
}
