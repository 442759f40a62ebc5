//! Doc text for generated items: the spec's doc plus what a user must know about its
//! provenance, gaps and limits.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{CharClass, Constraints, Field, Source};

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

/// The lines of a doc comment: a leading space as `///` gives, none on blank lines.
fn doc_lines(text: &str) -> Vec<String> {
    text.trim_end()
        .lines()
        .map(|l| match l.trim_end() {
            "" => String::new(),
            l => format!(" {l}"),
        })
        .collect()
}

/// Builds a doc from paragraphs, skipping empty ones.
#[derive(Default)]
pub struct Doc {
    paragraphs: Vec<String>,
}

impl Doc {
    pub fn new(main: &str) -> Self {
        let mut d = Doc::default();
        d.push(main.trim().to_string());
        d
    }

    pub fn push(&mut self, paragraph: String) -> &mut Self {
        if !paragraph.trim().is_empty() {
            self.paragraphs.push(paragraph);
        }
        self
    }

    pub fn not_shown(&mut self, text: Option<&str>) -> &mut Self {
        if let Some(t) = text {
            self.push(format!(
                "*Not shown by the interface document:* {}",
                t.trim()
            ));
        }
        self
    }

    pub fn source(&mut self, source: Source) -> &mut Self {
        let note = match source {
            Source::Seed => return self,
            Source::PublicDocs => "*Source: the service's public documentation.*",
            Source::Inferred => {
                "*Inferred, not documented: the client only tolerates it, never requires it.*"
            }
            Source::ThirdParty => {
                "*Seen in third-party code only: the client tolerates it, never requires it.*"
            }
        };
        self.push(note.to_string())
    }

    pub fn text(&self) -> String {
        self.paragraphs.join("\n\n")
    }

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

/// The limits in words (`at most 255 characters`), or `None` when there are none.
pub fn describe_limits(c: &Constraints) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(n) = c.length {
        parts.push(format!("exactly {n} characters"));
    }
    if let Some(n) = c.max_length {
        parts.push(format!("at most {n} characters"));
    }
    if let Some(rule) = &c.chars {
        let class = match rule.allow {
            CharClass::AsciiAlphanumeric => "ASCII letters and digits",
            CharClass::AsciiDigits => "ASCII digits",
        };
        if rule.forbid.is_empty() {
            parts.push(format!("only {class}"));
        } else {
            let forbidden: Vec<String> = rule.forbid.chars().map(|c| format!("`{c}`")).collect();
            parts.push(format!("only {class}, never {}", forbidden.join(", ")));
        }
    }
    match (c.min, c.max) {
        (Some(min), Some(max)) => parts.push(format!("from {min} to {max}")),
        (Some(min), None) => parts.push(format!("at least {min}")),
        (None, Some(max)) => parts.push(format!("at most {max}")),
        (None, None) => {}
    }
    if let Some(n) = c.min_items {
        parts.push(format!("at least {n} items"));
    }
    if let Some(n) = c.max_items {
        parts.push(format!("at most {n} items"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
