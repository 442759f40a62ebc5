//! Java names for spec names: keywords and the names the generated code declares itself.

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
}
