//! TypeScript names for spec names: types as written, methods and parameters in
//! lowerCamelCase, properties as on the wire (quoted when they are not identifiers), with
//! reserved words and the generated code's own names escaped, and no two alike in a scope.

use crate::scope::{Case, Casing};

/// Words JavaScript reserves (strict mode and modules included).
const RESERVED: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// Whether an interface cannot be named `name` in the package: a reserved word (it is
/// imported as a namespace of that name), or `runtime` (the runtime's own folder).
pub fn reserved_module(name: &str) -> bool {
    RESERVED.contains(&name) || name == "runtime"
}

/// The generic list envelope of a cursor-paged interface.
pub const PAGE: &str = "Page";

/// Module-level names the generated modules declare or use themselves: a spec type named
/// like one of them gets a trailing underscore.
const TAKEN_TYPES: &[&str] = &[
    "ApiKey",
    "Array",
    "AsyncIterable",
    "Boolean",
    "Client",
    "Date",
    "Error",
    "JsonValue",
    "Map",
    "Number",
    "Object",
    PAGE,
    "Partial",
    "Promise",
    "Readonly",
    "Record",
    "SCHEMA",
    "Set",
    "String",
    "Symbol",
    "URL",
    "Uint8Array",
];

/// Members of the generated `Client` class other than operations.
const CLIENT_MEMBERS: &[&str] = &[
    "constructor",
    "core",
    "fetchPresigned",
    "fetchPresignedTo",
    "login",
    "putParts",
    "putPresigned",
    "toJSON",
    "toString",
];

/// Parameter names every generated method uses itself.
const OWN_PARAMS: &[&str] = &["body", "options", "out", "query", "request"];

pub use crate::scope::Scope;

fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// The scope of an interface module's exported names.
pub fn module_scope() -> Scope {
    Scope::new(TAKEN_TYPES, is_reserved)
}

/// The scope of the `Client` class's members.
pub fn client_scope() -> Scope {
    Scope::new(CLIENT_MEMBERS, is_reserved)
}

/// The scope of one method's parameters.
pub fn params_scope() -> Scope {
    Scope::new(OWN_PARAMS, is_reserved)
}

/// Methods, parameters and properties' names: lowerCamelCase (`n` before a leading digit).
pub const CAMEL: Casing = Casing {
    case: Case::LowerCamel,
    prefix: "n",
};

/// `snake_name` in lowerCamelCase ([`CAMEL`]).
pub fn camel(snake_name: &str) -> String {
    CAMEL.apply(snake_name)
}

/// A JavaScript identifier (ASCII only: what every tool reads the same way).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// A property key for a wire name: bare when it is an identifier, else a string literal.
pub fn property(wire: &str) -> String {
    if is_identifier(wire) {
        wire.to_string()
    } else {
        string(wire)
    }
}

/// Every name the package reserves or declares whatever the spec.
pub const OWN_NAMES: &[&[&str]] = &[
    RESERVED,
    TAKEN_TYPES,
    CLIENT_MEMBERS,
    OWN_PARAMS,
    &[PAGE, "$unknown"],
];

/// A TypeScript string literal.
pub use crate::templates::quoted as string;

#[cfg(test)]
mod tests {
    use super::*;

    // A module's own names (`Client`) and claiming a name twice: `scope.rs`'s tests.
    #[test]
    fn names_are_escaped_and_distinct() {
        let mut params = params_scope();
        assert_eq!(params.claim(&camel("class")), "class_");
        assert_eq!(params.claim(&camel("body")), "body_");
        assert_eq!(camel("3d"), "n3d");
        assert_eq!(camel("reference_number"), "referenceNumber");
        assert_eq!(property("3d"), "\"3d\"");
        assert_eq!(property("type"), "type");
        assert_eq!(property("a-b"), "\"a-b\"");
    }
}
