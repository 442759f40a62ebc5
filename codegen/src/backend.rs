//! The seam between the IR and the languages: each backend maps the same resolved IR to
//! the files of one output, and decides nothing about the service's meaning.

use crate::ir::Api;
use crate::output::OutputFile;

/// One output of the generator.
pub struct Backend {
    /// What it produces, for messages.
    pub name: &'static str,
    pub render: fn(&Api) -> Result<Vec<OutputFile>, String>,
    /// Interface names this language cannot give a module (keywords, its own modules):
    /// `check` refuses them, with their place in the spec.
    pub reserved_module: fn(&str) -> bool,
}

/// The language that cannot name a module `name`, if one cannot.
pub fn refusing_module_name(name: &str) -> Option<&'static str> {
    ALL.iter()
        .find(|b| (b.reserved_module)(name))
        .map(|b| b.name)
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
        reserved_module: crate::rust::reserved_module,
    },
    Backend {
        name: "typescript",
        render: crate::typescript::render,
        reserved_module: crate::typescript::reserved_module,
    },
    Backend {
        name: "python",
        render: crate::python::render,
        reserved_module: crate::python::reserved_module,
    },
    Backend {
        name: "cli",
        render: crate::rust::cli::render,
        reserved_module: crate::rust::cli::reserved_module,
    },
    Backend {
        name: "openapi",
        render: crate::openapi::render,
        reserved_module: crate::openapi::reserved_module,
    },
];
