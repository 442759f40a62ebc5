//! Java names for spec names: types as written (UpperCamelCase), members in lowerCamelCase,
//! constants in UPPER_SNAKE_CASE, with keywords, the `java.lang` and imported names the
//! generated code refers to, and the methods every class declares escaped (a trailing `_`),
//! and no two alike in a scope. Wire names are never changed: the JSON code keeps them.

pub use crate::scope::Scope;
use crate::scope::{Case, Casing};

/// Java's reserved words and literals (JLS 3.9), and the contextual keywords a type may
/// not take (`var`, `yield`, `record`, `sealed`, `permits`).
pub const KEYWORDS: &[&str] = &[
    "_",
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "exports",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "module",
    "native",
    "new",
    "non-sealed",
    "null",
    "open",
    "opens",
    "package",
    "permits",
    "private",
    "protected",
    "provides",
    "public",
    "record",
    "requires",
    "return",
    "sealed",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "to",
    "transient",
    "transitive",
    "true",
    "try",
    "uses",
    "var",
    "void",
    "volatile",
    "when",
    "while",
    "with",
    "yield",
];

/// Whether `name` cannot be one part of a Java package name.
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// Whether an interface cannot be named `name`: a keyword (its package would be
/// `….name`), or the runtime's package.
pub fn reserved_module(name: &str) -> bool {
    is_keyword(name) || name == "runtime"
}

/// Type names the generated files refer to unqualified (`java.lang`, their imports, the
/// runtime's): a spec type of one of these names would shadow it in its package.
const TAKEN_TYPES: &[&str] = &[
    "BigDecimal",
    "Boolean",
    "Builder",
    "Character",
    "Class",
    "ClientException",
    "DateOrDateTime",
    "DateTimeOrRange",
    "Deprecated",
    "Enum",
    "Error",
    "Exception",
    "Integer",
    "Iterable",
    "JsonArray",
    "JsonException",
    "JsonObject",
    "JsonValue",
    "LinkedHashMap",
    "List",
    "LocalDate",
    "Long",
    "Map",
    "Math",
    "Number",
    "Object",
    "Objects",
    "OffsetDateTime",
    "Optional",
    "Override",
    "Presence",
    "Record",
    "RuntimeException",
    "String",
    "StringBuilder",
    "System",
    "Thread",
    "Void",
];

/// Methods every generated class declares or inherits (`Object`'s): a field named like
/// one gets another accessor name.
const CLASS_MEMBERS: &[&str] = &[
    "accept",
    "additionalProperties",
    "build",
    "builder",
    "check",
    "clone",
    "decode",
    "equals",
    "finalize",
    "fromJson",
    "getClass",
    "hashCode",
    "isKnown",
    "known",
    "notify",
    "notifyAll",
    "of",
    "putAdditionalProperty",
    "toBuilder",
    "toJson",
    "toJsonValue",
    "toString",
    "validate",
    "value",
    "violations",
    "wait",
    "wire",
];

/// Whether a type, or a class nested in one, cannot take `name`.
pub fn reserved_type(name: &str) -> bool {
    is_keyword(name) || TAKEN_TYPES.contains(&name)
}

fn reserved_member(name: &str) -> bool {
    is_keyword(name) || CLASS_MEMBERS.contains(&name)
}

/// The scope of a package's type names (each interface's package).
pub fn type_scope() -> Scope {
    Scope::new(&[], reserved_type)
}

/// The scope of one class's members (its fields' accessors, its builder's setters).
pub fn member_scope() -> Scope {
    Scope::new(&[], reserved_member)
}

/// A type name: UpperCamelCase, a leading digit prefixed (Java names cannot start with one).
pub const TYPE: Casing = Casing {
    case: Case::UpperCamel,
    prefix: "T",
};

/// A member name (accessor, setter, parameter): lowerCamelCase.
pub const MEMBER: Casing = Casing {
    case: Case::LowerCamel,
    prefix: "v",
};

/// A constant name: UPPER_SNAKE_CASE.
pub const CONSTANT: Casing = Casing {
    case: Case::ShoutySnake,
    prefix: "V",
};

/// `name` as a type name ([`TYPE`]).
pub fn type_name(name: &str) -> String {
    TYPE.apply(name)
}

/// `wire` as a member name ([`MEMBER`]).
pub fn member(wire: &str) -> String {
    MEMBER.apply(wire)
}

/// `wire` as a constant name ([`CONSTANT`]).
pub fn constant(wire: &str) -> String {
    CONSTANT.apply(wire)
}

/// A Java string literal of `text` (JSON's escapes are Java's, for every character JSON
/// escapes; `\u2028` and the like are fine in Java source).
pub use crate::templates::quoted as string;

/// Every name the backend reserves, for the fuzzer.
pub const OWN_NAMES: &[&[&str]] = &[KEYWORDS, TAKEN_TYPES, CLASS_MEMBERS];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_and_the_runtime_are_reserved_as_interface_names() {
        assert!(reserved_module("class"));
        assert!(reserved_module("record"));
        assert!(reserved_module("runtime"));
        assert!(!reserved_module("v3"));
    }

    #[test]
    fn names_are_java_identifiers_and_never_taken() {
        assert_eq!(type_name("3d_model"), "T3dModel");
        assert_eq!(member("created_at"), "createdAt");
        assert_eq!(member("3d"), "v3d");
        assert_eq!(constant("in-progress"), "IN_PROGRESS");
        let mut types = type_scope();
        assert_eq!(types.claim(&type_name("string")), "String_");
        assert_eq!(types.claim(&type_name("record")), "Record_");
        let mut members = member_scope();
        assert_eq!(members.claim(&member("class")), "class_");
        assert_eq!(members.claim(&member("to_json")), "toJson_");
        assert_eq!(members.claim(&member("name")), "name");
        assert_eq!(members.claim(&member("Name")), "name_");
    }
}
