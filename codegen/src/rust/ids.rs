//! A newtype per resource id, so a `UnitId` is never passed where a `TaskId` belongs.

use proc_macro2::TokenStream;
use quote::quote;

use super::{docs, names};
use crate::ir::TypeDef;

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

        impl #name {
            /// Wraps an id.
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id as an owned string.
            pub fn into_inner(self) -> String {
                self.0
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for #name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for #name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for #name {
            fn from(id: &str) -> Self {
                Self(id.to_string())
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                ::inspection_runtime::model::deserialize_id(deserializer).map(Self)
            }
        }
    }
}
