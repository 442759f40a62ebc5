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
    /// The names of the types this language declares for a `one_of` (its `type_name`,
    /// its variants by name) beside the spec's own types; none when it declares none or
    /// escapes them itself. `check` refuses one that meets a declared type or another's.
    pub one_of_types: fn(&str, &[&str]) -> Vec<String>,
    /// Whether a union member or open-enum value of this wire name would take the name
    /// of the catch-all member the language adds for what the client does not know.
    pub catch_all_member: fn(&str) -> bool,
    /// Operation names this output cannot use (the command-line tool's own subcommands).
    pub reserved_operation: fn(&str) -> bool,
    /// Every name the language reserves or declares whatever the spec (keywords, its
    /// own types, members and parameters), list by list, for the fuzzer to rename spec
    /// names to.
    pub own_names: &'static [&'static [&'static str]],
}

/// Neither introduces nor escapes: for the backends that declare no such names.
fn none(_: &str, _: &[&str]) -> Vec<String> {
    Vec::new()
}

fn never(_: &str) -> bool {
    false
}

/// The output that cannot name an operation `name`, if one cannot.
pub fn refusing_operation_name(name: &str) -> Option<&'static str> {
    ALL.iter()
        .find(|b| (b.reserved_operation)(name))
        .map(|b| b.name)
}

/// Each backend's types for a `one_of`, by backend name.
pub fn one_of_types(type_name: &str, variants: &[&str]) -> Vec<(&'static str, String)> {
    ALL.iter()
        .flat_map(|b| {
            (b.one_of_types)(type_name, variants)
                .into_iter()
                .map(|t| (b.name, t))
        })
        .collect()
}

/// The language whose catch-all member a member named `wire` would meet, if one.
pub fn refusing_member_name(wire: &str) -> Option<&'static str> {
    ALL.iter()
        .find(|b| (b.catch_all_member)(wire))
        .map(|b| b.name)
}

/// The language that cannot name a module `name`, if one cannot.
pub fn refusing_module_name(name: &str) -> Option<&'static str> {
    ALL.iter()
        .find(|b| (b.reserved_module)(name))
        .map(|b| b.name)
}

/// A language a package setting names, for [`is_keyword`].
#[derive(Clone, Copy)]
pub enum Language {
    Rust,
    Python,
    Java,
}

/// Whether `name` is a word `language` reserves, so a package (or crate, or module) cannot
/// take it: `check` asks this of the package settings.
pub fn is_keyword(language: Language, name: &str) -> bool {
    match language {
        Language::Rust => crate::rust::names::is_keyword(name),
        Language::Python => crate::python::names::reserved_module(name),
        Language::Java => crate::java::names::is_keyword(name),
    }
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
        one_of_types: crate::rust::one_of_types,
        catch_all_member: crate::rust::catch_all_member,
        reserved_operation: never,
        own_names: crate::rust::OWN_NAMES,
    },
    Backend {
        name: "typescript",
        render: crate::typescript::render,
        reserved_module: crate::typescript::reserved_module,
        // Its module scope escapes a choice's type name that is taken.
        one_of_types: none,
        // The catch-all member is `$unknown`, which no wire name gives.
        catch_all_member: never,
        reserved_operation: never,
        own_names: crate::typescript::OWN_NAMES,
    },
    Backend {
        name: "python",
        render: crate::python::render,
        reserved_module: crate::python::reserved_module,
        // A choice's fields are attributes of its record; the unknown member's class is
        // claimed in the module scope, which escapes it.
        one_of_types: none,
        catch_all_member: never,
        reserved_operation: never,
        own_names: crate::python::OWN_NAMES,
    },
    Backend {
        name: "java",
        render: crate::java::render,
        reserved_module: crate::java::reserved_module,
        // The interface packages hold no types yet.
        one_of_types: none,
        catch_all_member: never,
        reserved_operation: never,
        own_names: crate::java::OWN_NAMES,
    },
    Backend {
        name: "go",
        render: crate::go::render,
        reserved_module: crate::go::reserved_module,
        // Its package scope escapes a member's or constant's name that is taken.
        one_of_types: none,
        catch_all_member: never,
        reserved_operation: never,
        own_names: crate::go::OWN_NAMES,
    },
    Backend {
        name: "cli",
        render: crate::rust::cli::render,
        reserved_module: crate::rust::cli::reserved_module,
        // It uses the Rust crate's types.
        one_of_types: none,
        catch_all_member: never,
        reserved_operation: crate::rust::cli::reserved_operation,
        own_names: crate::rust::cli::OWN_NAMES,
    },
    Backend {
        name: "openapi",
        render: crate::openapi::render,
        reserved_module: crate::openapi::reserved_module,
        one_of_types: none,
        catch_all_member: never,
        reserved_operation: never,
        own_names: &[],
    },
    Backend {
        name: "sql",
        render: crate::sql::render,
        reserved_module: crate::sql::reserved_module,
        one_of_types: none,
        catch_all_member: never,
        reserved_operation: never,
        own_names: &[],
    },
];
