//! String enums. Open enums keep values they do not know; closed ones refuse them.

use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::quote;

use super::{docs, names};
use crate::ir::{Enum, TypeDef};

pub fn enumeration(t: &TypeDef, e: &Enum) -> TokenStream {
    let name = names::type_ident(&t.name);
    let idents: Vec<_> = e
        .values
        .iter()
        .map(|v| names::variant_ident(&v.wire))
        .collect();
    let wires: Vec<&str> = e.values.iter().map(|v| v.wire.as_str()).collect();
    let variant_docs = e.values.iter().map(|v| {
        let text = if v.doc.trim().is_empty() {
            format!("`{}`.", v.wire)
        } else {
            format!("`{}`: {}", v.wire, v.doc.trim())
        };
        docs::attrs(&text)
    });
    let values_doc =
        "Every value this version of the client knows, as sent on the wire.".to_string();
    let predicates = e.values.iter().zip(&idents).map(|(v, ident)| {
        let is = quote::format_ident!("is_{}", v.wire.to_snake_case());
        let doc = format!(" Whether this is `{}`.", v.wire);
        quote! {
            #[doc = #doc]
            pub fn #is(&self) -> bool {
                matches!(self, Self::#ident)
            }
        }
    });
    let common = quote! {
        impl #name {
            #[doc = #values_doc]
            pub const VALUES: &'static [&'static str] = &[#(#wires),*];

            #(#predicates)*
        }
    };

    if e.open {
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
            #common
        }
    } else {
        let mut doc = docs::Doc::new(&t.doc);
        doc.not_shown(e.not_shown.as_deref());
        let doc = doc.attrs();
        quote! {
            #doc
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
            #[non_exhaustive]
            pub enum #name {
                #(#variant_docs #[serde(rename = #wires)] #idents,)*
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

            ::inspection_runtime::__private::impl_enum!(#name);
            #common
        }
    }
}
