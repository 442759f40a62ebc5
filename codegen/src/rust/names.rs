//! Rust names for spec names: types as written, fields in snake_case, variants in
//! UpperCamelCase, with keywords escaped.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

/// Keywords that cannot be raw identifiers get a trailing underscore instead.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "extern", "_"];

const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The crate's cargo features besides the interfaces' (`cargo_toml` writes them): each
/// interface is a feature of its name, so none may take one of these.
pub const OWN_FEATURES: &[&str] = &["default", "native-roots", "native-tls", "secrecy"];

/// Whether an interface cannot be named `name` in the crate: a keyword, `lib` (the
/// crate root's own file), or a cargo feature of the crate other than its own.
pub fn reserved_module(name: &str) -> bool {
    KEYWORDS.contains(&name)
        || ["lib", "main", "runtime"].contains(&name)
        || OWN_FEATURES.contains(&name)
        || name.starts_with("native")
}

/// Whether `name` is a Rust keyword (a crate cannot be imported under one).
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

pub fn ident(name: &str) -> Ident {
    if NOT_RAW.contains(&name) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// The snake_case name of a field or parameter, before keyword escaping.
pub fn field_name(wire: &str) -> String {
    let snake = wire.to_snake_case();
    if snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("n{snake}")
    } else {
        snake
    }
}

pub fn field_ident(wire: &str) -> Ident {
    ident(&field_name(wire))
}

/// The client's own associated functions and methods; an operation named like one gets
/// a trailing `_` (`new_`), as keywords do.
pub const CLIENT_MEMBERS: &[&str] = &[
    "new",
    "with_config",
    "default_config",
    "from_env",
    "core",
    "login",
    "login_with_config",
    "DEFAULTS",
];

/// The client method of the operation `name`.
pub fn method_ident(name: &str) -> Ident {
    if CLIENT_MEMBERS.contains(&name) {
        ident(&format!("{name}_"))
    } else {
        ident(name)
    }
}

/// A member the generator adds to a record (`additional_properties`, its setter), renamed
/// with `_` until no field of the record has that name.
pub fn record_member(o: &crate::ir::Object, base: &str) -> Ident {
    let taken: Vec<String> = o
        .wire_fields()
        .map(|f| field_name(&f.name))
        .chain(o.one_of.iter().map(|one| field_name(&one.name)))
        .collect();
    let mut name = base.to_string();
    while taken.contains(&name) {
        name.push('_');
    }
    ident(&name)
}

/// The name a field has in Rust source once serde strips `r#`: equal to the wire name
/// means no `#[serde(rename)]` is needed.
pub fn field_serde_name(wire: &str) -> String {
    let name = field_name(wire);
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

pub fn variant_name(wire: &str) -> String {
    let camel = wire.to_upper_camel_case();
    if camel.is_empty() || camel.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{camel}")
    } else {
        camel
    }
}

pub fn variant_ident(wire: &str) -> Ident {
    ident(&variant_name(wire))
}

/// Names an interface module declares or relies on unqualified: the client and its
/// credentials, the page envelope, and the prelude's types and traits the generated code
/// names (a model glob-imported under one of these would shadow it). A spec type named
/// like one gets a trailing underscore, as in the other backends; spec type names are
/// UpperCamelCase, so none ends in `_` and none can collide with the escaped name.
pub const TAKEN_TYPES: &[&str] = &[
    "ApiKey",
    "AsRef",
    "Box",
    "Client",
    "Clone",
    "Copy",
    "Default",
    "Drop",
    "Eq",
    "Err",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Into",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "Page",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
];

/// The types the Rust crate declares for a `one_of`: the choice enum (`type_name`) and a
/// struct per variant (`type_name` then the variant's name). Unescaped, as `check` compares
/// them with the spec's type names (escaping maps distinct names to distinct names).
pub fn one_of_types(type_name: &str, variants: &[&str]) -> Vec<String> {
    std::iter::once(type_name.to_string())
        .chain(variants.iter().map(|v| one_of_variant_type(type_name, v)))
        .collect()
}

/// The struct of the `one_of` variant `variant`.
pub fn one_of_variant_type(type_name: &str, variant: &str) -> String {
    format!("{type_name}{}", variant_name(variant))
}

/// Whether a union member or open-enum value named `wire` would be the variant `Unknown`,
/// which keeps what the client does not know.
pub fn catch_all_member(wire: &str) -> bool {
    variant_name(wire) == "Unknown"
}

/// Every name the crate reserves or declares whatever the spec.
pub const OWN_NAMES: &[&[&str]] = &[NOT_RAW, KEYWORDS, CLIENT_MEMBERS, TAKEN_TYPES, &["Unknown"]];

pub fn type_ident(name: &str) -> Ident {
    if TAKEN_TYPES.contains(&name) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else {
        ident(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_named_like_the_crates_own_names_are_escaped() {
        assert_eq!(type_ident("Client").to_string(), "Client_");
        assert_eq!(type_ident("Option").to_string(), "Option_");
        assert_eq!(type_ident("Unit").to_string(), "Unit");
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_serde_name("self"), "self_");
        assert_eq!(
            field_ident("referenceNumber").to_string(),
            "reference_number"
        );
        assert_eq!(
            variant_ident("barcode_scan_textbox").to_string(),
            "BarcodeScanTextbox"
        );
        assert_eq!(variant_ident("3d").to_string(), "V3d");
    }
}
