//! Doc text for generated items: the spec's doc plus what a user must know about its
//! provenance, gaps and limits.

use proc_macro2::TokenStream;
use quote::quote;

pub use crate::doc_text::{Doc, describe_limits};
use crate::ir::Field;

/// `#[doc = "..."]` attributes, one per line, so rustdoc renders the text as written.
pub fn attrs(text: &str) -> TokenStream {
    let lines = doc_lines(text);
    quote! { #( #[doc = #lines] )* }
}

/// Inner `#![doc = "..."]` attributes for a module.
pub fn inner_attrs(text: &str) -> TokenStream {
    let lines = doc_lines(text);
    quote! { #( #![doc = #lines] )* }
}

/// Where a doc line wraps: with `/// ` and a little nesting, no generated line runs past
/// about 100 columns.
const WIDTH: usize = 88;

/// The lines of a doc comment, wrapped: a leading space as `///` gives, none on blank lines.
fn doc_lines(text: &str) -> Vec<String> {
    crate::doc_text::wrap(text.trim_end(), WIDTH)
        .lines()
        .map(|l| match l.trim_end() {
            "" => String::new(),
            l => format!(" {l}"),
        })
        .collect()
}

/// Rust doc attributes of a language-neutral doc text.
impl Doc {
    pub fn attrs(&self) -> TokenStream {
        attrs(&self.text())
    }
}

/// The doc of a field: its text, provenance, gaps and (for requests) its limits.
pub fn field(f: &Field, show_limits: bool) -> Doc {
    let mut d = Doc::new(&f.doc);
    if f.nullable && !f.required {
        d.push("`None` when absent, `Some(None)` when the service sent `null`.".to_string());
    }
    if show_limits && let Some(limits) = describe_limits(&f.constraints) {
        d.push(format!("Limits: {limits}."));
    }
    d.not_shown(f.not_shown.as_deref()).source(f.source);
    d
}
