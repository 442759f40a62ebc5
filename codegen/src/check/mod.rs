//! Semantic checks: turns a parsed spec file into the checked IR, or into every problem
//! found, each with its place and a fix.

mod export;
mod fields;
mod import;
mod interface;
mod names;
mod operations;
pub mod packages;
mod positions;
mod scalars;
mod suggest;
mod sync;
mod type_expr;
mod types;
mod usage;

use std::collections::BTreeMap;

use serde_saphyr::Spanned;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::ir;
use crate::spec;

pub use operations::path_placeholders;

/// Checks one parsed file and resolves it into an [`ir::Interface`].
pub fn check(file: &str, spec: &spec::SpecFile) -> Result<ir::Interface, Diagnostics> {
    let mut cx = Checker {
        file,
        diags: Vec::new(),
        ids: BTreeMap::new(),
        kinds: Vec::new(),
        scalars: BTreeMap::new(),
        introduced: BTreeMap::new(),
    };
    let interface = cx.interface(spec);
    if cx.diags.is_empty() {
        Ok(interface)
    } else {
        cx.diags.sort_by_key(|d| (d.line, d.column));
        Err(Diagnostics(cx.diags))
    }
}

/// `text` as a message shows it: whole when short, else its start and its length (a spec
/// may hold a name of any length, and a message must stay readable).
fn clip(text: &str) -> String {
    const SHOWN: usize = 60;
    let count = text.chars().count();
    if count <= SHOWN + 20 {
        return text.to_string();
    }
    let start: String = text.chars().take(SHOWN).collect();
    format!("{start}... ({count} characters)")
}

/// What kind of thing a declared name is, for checks that depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Enum,
    Union,
    ScalarUnion,
    Id,
    RecordRef,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Enum => "an enum",
            Kind::Union => "a union",
            Kind::ScalarUnion => "a scalar union",
            Kind::Id => "an id",
            Kind::RecordRef => "a record reference",
        }
    }
}

/// The state of one file's check, shared by the passes in this module's files.
struct Checker<'a> {
    file: &'a str,
    diags: Vec<Diagnostic>,
    /// Each declared name's index in the IR's `types` (its first declaration).
    ids: BTreeMap<String, ir::TypeId>,
    /// What kind of type each index is (`None` for a repeated declaration).
    kinds: Vec<Option<Kind>>,
    /// The named scalars, by name (a field whose type names one takes its builtin and limits).
    scalars: BTreeMap<String, spec::ScalarDef>,
    /// The types a language declares for the `one_of`s seen so far, and where each came
    /// from (`the one_of \`owner\` at 12:9`).
    introduced: BTreeMap<String, String>,
}

impl<'a> Checker<'a> {
    /// The id of a declared name. An undeclared one (already reported as unknown) gets an
    /// id past the end, which only an IR that is never returned can hold.
    fn id_of(&self, name: &str) -> ir::TypeId {
        self.ids.get(name).copied().unwrap_or(ir::TypeId(u32::MAX))
    }

    fn kind_of(&self, id: ir::TypeId) -> Option<Kind> {
        self.kinds.get(id.index()).copied().flatten()
    }

    fn kind_named(&self, name: &str) -> Option<Kind> {
        self.kind_of(*self.ids.get(name)?)
    }

    fn error<T>(&mut self, at: &Spanned<T>, message: impl Into<String>, help: impl Into<String>) {
        self.error_at(at.referenced, message, help);
    }

    fn error_at(
        &mut self,
        at: serde_saphyr::Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.diags.push(Diagnostic {
            file: self.file.to_string(),
            line: at.line() as u32,
            column: at.column() as u32,
            message: message.into(),
            help: help.into(),
        });
    }
}
