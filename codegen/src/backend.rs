//! The seam between the IR and the languages: each backend maps the same resolved IR to
//! the files of one output, and decides nothing about the service's meaning.

use crate::ir::Api;
use crate::output::OutputFile;

/// One output of the generator.
pub struct Backend {
    /// What it produces, for messages.
    pub name: &'static str,
    pub render: fn(&Api) -> Result<Vec<OutputFile>, String>,
}

impl Backend {
    pub fn render(&self, api: &Api) -> Result<Vec<OutputFile>, String> {
        (self.render)(api).map_err(|e| format!("{} backend: {e}", self.name))
    }
}

/// Every backend, in the order their files are listed.
pub const ALL: &[Backend] = &[
    Backend {
        name: "rust",
        render: crate::rust::render,
    },
    Backend {
        name: "typescript",
        render: crate::typescript::render,
    },
    Backend {
        name: "python",
        render: crate::python::render,
    },
];
