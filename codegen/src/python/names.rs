//! Python names for spec names: classes as written (UpperCamelCase), attributes, methods
//! and parameters in snake_case, enum members in UPPER_SNAKE_CASE, with keywords and the
//! names the generated code itself refers to escaped (a trailing `_`), and no two alike in
//! a scope. Wire names are never changed: the descriptors keep them.

use crate::scope::{Case, Casing};

/// Python's keywords (soft keywords such as `match` and `type` are fine as names).
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Builtins the generated code refers to inside class bodies and annotations: a field
/// named like one would shadow it there (`str: str` breaks every later `str`).
const USED_BUILTINS: &[&str] = &[
    "bool", "bytes", "dict", "float", "int", "list", "str", "tuple",
];

/// Module-level names a generated module declares or imports itself.
pub const MODULE_NAMES: &[&str] = &[
    "AsyncClient",
    "ApiKey",
    "Client",
    "Generic",
    "INFO",
    "JsonValue",
    "Literal",
    "NewType",
    "T",
    "TypeAlias",
    "TypeVar",
    "UNSET",
    "Union",
    "Unset",
];

/// Members of the generated client classes other than operations.
const CLIENT_MEMBERS: &[&str] = &[
    "aclose",
    "close",
    "fetch_presigned",
    "fetch_presigned_to",
    "login",
    "put_file_parts",
    "put_parts",
    "put_presigned",
];

/// Parameter names every generated method uses itself.
const OWN_PARAMS: &[&str] = &["self", "cls", "body", "options"];

/// The package's subpackage holding the dlt sources (`inspection_client.dlt`), beside
/// the interfaces' modules.
pub const DLT_MODULE: &str = "dlt";

/// Whether an interface cannot be named `name` in the package: a keyword (it is a
/// subpackage of that name), or the subpackage of the dlt sources.
pub fn reserved_module(name: &str) -> bool {
    KEYWORDS.contains(&name) || name == DLT_MODULE
}

pub use crate::scope::Scope;

/// A scope of Python names where `taken` are already in use.
pub fn scope(taken: &[&str]) -> Scope {
    Scope::new(taken, is_reserved)
}

fn is_reserved(name: &str) -> bool {
    KEYWORDS.contains(&name)
        || USED_BUILTINS.contains(&name)
        // Dunder names belong to Python, and `_`-prefixed ones are the generated code's own.
        || name.starts_with('_')
}

/// The scope of one interface's module-level names.
pub fn module_scope() -> Scope {
    scope(MODULE_NAMES)
}

/// The scope of the client classes' members.
pub fn client_scope() -> Scope {
    scope(CLIENT_MEMBERS)
}

/// The scope of one method's parameters.
pub fn params_scope() -> Scope {
    scope(OWN_PARAMS)
}

/// The scope of one record's attributes: the module's type names are taken too, since a
/// later annotation in the class body would see the attribute instead of the type.
pub fn fields_scope(type_names: &[String]) -> Scope {
    let mut scope = scope(MODULE_NAMES);
    // The methods every record inherits.
    scope.reserve("from_json");
    scope.reserve("to_json");
    for name in type_names {
        scope.reserve(name);
    }
    scope
}

/// Attributes, methods and parameters: snake_case (`n` before a leading digit).
pub const SNAKE: Casing = Casing {
    case: Case::Snake,
    prefix: "n",
};

/// Classes: UpperCamelCase.
pub const CAMEL: Casing = Casing {
    case: Case::UpperCamel,
    prefix: "T",
};

/// Enum members: UPPER_SNAKE_CASE.
pub const MEMBER: Casing = Casing {
    case: Case::ShoutySnake,
    prefix: "V_",
};

/// `name` in snake_case ([`SNAKE`]).
pub fn snake(name: &str) -> String {
    SNAKE.apply(name)
}

/// `name` in UpperCamelCase ([`CAMEL`]).
pub fn camel(name: &str) -> String {
    CAMEL.apply(name)
}

/// An enum member's name for a wire value ([`MEMBER`]).
pub fn member(wire: &str) -> String {
    MEMBER.apply(wire)
}

/// Every name the package reserves or declares whatever the spec.
pub const OWN_NAMES: &[&[&str]] = &[
    KEYWORDS,
    USED_BUILTINS,
    MODULE_NAMES,
    CLIENT_MEMBERS,
    OWN_PARAMS,
];

/// A Python string literal.
pub use crate::templates::quoted as string;

#[cfg(test)]
mod tests {
    use super::*;

    // A module's own names (`Client`) and claiming a name twice: `scope.rs`'s tests.
    #[test]
    fn names_are_escaped_and_distinct() {
        let mut fields = fields_scope(&["Unit".to_string()]);
        assert_eq!(fields.claim(&snake("class")), "class_");
        assert_eq!(fields.claim(&snake("str")), "str_");
        assert_eq!(fields.claim("Unit"), "Unit_");
        assert_eq!(fields.claim(&snake("id")), "id");
        assert_eq!(fields.claim(&snake("to_json")), "to_json_");
        // Imported under `_` names, so a field may be called like them.
        assert_eq!(fields.claim("field"), "field");
        assert_eq!(fields.claim(&snake("referenceNumber")), "reference_number");
        let mut params = params_scope();
        assert_eq!(params.claim("body"), "body_");
        assert_eq!(snake("3d"), "n3d");
        assert_eq!(snake("_x"), "x");
        assert_eq!(snake("a-b"), "a_b");
        assert_eq!(member("in_progress"), "IN_PROGRESS");
        assert_eq!(member("2fa"), "V_2FA");
        assert_eq!(member(""), "V_");
        assert_eq!(camel("weird name"), "WeirdName");
        assert_eq!(string("a\"b\n"), "\"a\\\"b\\n\"");
    }

    /// An interface cannot be a keyword, nor `dlt`: the package's subpackage of the dlt
    /// sources sits beside the interfaces' modules.
    #[test]
    fn the_dlt_subpackage_name_is_no_interfaces() {
        assert!(reserved_module("class"));
        assert!(reserved_module(DLT_MODULE));
        assert!(!reserved_module("v3"));
    }
}
