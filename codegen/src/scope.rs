//! Names in generated code, as each template backend states them in data: how a kind of
//! name is cased from a spec name ([`Casing`]), and handing out names in one scope (a
//! module, a class, a parameter list), each distinct and none a word the language reserves.
//! The template backends escape alike, with trailing underscores.

use std::collections::BTreeSet;

use heck::{ToLowerCamelCase, ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

/// How one kind of name is spelled from a spec name: its case, and the prefix that makes it
/// an identifier where the cased name would be empty or start with a digit. Only ASCII
/// letters, digits and `_` are kept (every tool reads such a name the same way), and no
/// leading `_` (a generated code's own mark in some languages).
#[derive(Debug, Clone, Copy)]
pub struct Casing {
    pub case: Case,
    pub prefix: &'static str,
}

/// A case of names.
#[derive(Debug, Clone, Copy)]
pub enum Case {
    /// `referenceNumber`
    LowerCamel,
    /// `ReferenceNumber`
    UpperCamel,
    /// `reference_number`
    Snake,
    /// `REFERENCE_NUMBER`
    ShoutySnake,
    /// UpperCamelCase with these words in capitals wherever one stands as a word, and no
    /// `_` (Go's MixedCaps: `UnitID`, `PDFShareURL`).
    Initialisms(&'static [&'static str]),
}

impl Casing {
    /// `name` in this casing, as an identifier.
    pub fn apply(&self, name: &str) -> String {
        let cased = match self.case {
            Case::LowerCamel => name.to_lower_camel_case(),
            Case::UpperCamel => name.to_upper_camel_case(),
            Case::Snake => name.to_snake_case(),
            Case::ShoutySnake => name.to_shouty_snake_case(),
            Case::Initialisms(words) => with_initialisms(name, words),
        };
        let kept: String = cased
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let kept = kept.trim_start_matches('_');
        if kept.is_empty() || kept.starts_with(|c: char| c.is_ascii_digit()) {
            format!("{}{kept}", self.prefix)
        } else {
            kept.to_string()
        }
    }
}

/// `name` in UpperCamelCase without `_`, each of `initialisms` in capitals as a word.
fn with_initialisms(name: &str, initialisms: &[&str]) -> String {
    name.to_upper_camel_case()
        .split_inclusive(|c: char| c.is_ascii_digit())
        .flat_map(capitalized_words)
        .map(|word| {
            let upper = word.to_ascii_uppercase();
            if initialisms.contains(&upper.as_str()) {
                upper
            } else {
                word.to_string()
            }
        })
        .collect::<String>()
        .replace('_', "")
}

/// The words of an UpperCamelCase name, each starting at a capital.
fn capitalized_words(name: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = 0;
    for (i, c) in name.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            words.push(&name[start..i]);
            start = i;
        }
    }
    words.push(&name[start..]);
    words
}

/// The names in use in one scope, and what the language reserves.
#[derive(Debug, Clone)]
pub struct Scope {
    used: BTreeSet<String>,
    reserved: fn(&str) -> bool,
}

impl Scope {
    /// A scope where `taken` are already in use and `reserved` names are never handed out.
    pub fn new(taken: &[&str], reserved: fn(&str) -> bool) -> Self {
        Scope {
            used: taken.iter().map(|s| s.to_string()).collect(),
            reserved,
        }
    }

    /// Marks `name` as used, so later claims avoid it.
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }

    /// Whether `name` is neither used nor reserved.
    pub fn is_free(&self, name: &str) -> bool {
        !self.used.contains(name) && !(self.reserved)(name)
    }

    /// `wanted`, or with trailing underscores until it is free; then marks it used.
    pub fn claim(&mut self, wanted: &str) -> String {
        self.claim_if(wanted, self.reserved)
    }

    /// Like `claim`, for the generated code's own names, which the reserved words may
    /// exclude on purpose (Python's `_`-prefixed constants, kept from spec names).
    pub fn claim_private(&mut self, wanted: &str) -> String {
        self.claim_if(wanted, |_| false)
    }

    fn claim_if(&mut self, wanted: &str, reserved: fn(&str) -> bool) -> String {
        let mut name = wanted.to_string();
        while self.used.contains(&name) || reserved(&name) {
            name.push('_');
        }
        self.used.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_never_reserved() {
        let mut scope = Scope::new(&["taken"], |n| n == "class");
        assert_eq!(scope.claim("taken"), "taken_");
        assert_eq!(scope.claim("class"), "class_");
        assert_eq!(scope.claim("x"), "x");
        assert_eq!(scope.claim("x"), "x_");
        assert_eq!(scope.claim_private("class"), "class");
    }

    #[test]
    fn each_casing_gives_an_ascii_identifier_with_its_prefix() {
        let casing = |case, prefix| Casing { case, prefix };
        let lower = casing(Case::LowerCamel, "n");
        assert_eq!(lower.apply("reference_number"), "referenceNumber");
        assert_eq!(lower.apply("3d"), "n3d");
        assert_eq!(lower.apply("café_au_lait"), "cafAuLait");
        assert_eq!(lower.apply("ünter"), "nter");
        assert_eq!(lower.apply("-"), "n");
        assert_eq!(casing(Case::Snake, "n").apply("_private"), "private");
        assert_eq!(
            casing(Case::UpperCamel, "T").apply("in-progress"),
            "InProgress"
        );
        assert_eq!(casing(Case::ShoutySnake, "V_").apply("3/4"), "V_3_4");
        let go = casing(Case::Initialisms(&["API", "ID", "URL", "PDF"]), "T");
        assert_eq!(go.apply("pdf_share_url"), "PDFShareURL");
        assert_eq!(go.apply("ids"), "Ids");
        assert_eq!(go.apply("api_key_id"), "APIKeyID");
        assert_eq!(go.apply("3d_model"), "T3dModel");
    }

    /// A spec type named like the client class of a template backend's modules gets
    /// another name there, and so does a second type of the same name.
    #[test]
    fn a_template_backends_module_keeps_its_client_name() {
        for mut scope in [
            crate::python::names::module_scope(),
            crate::typescript::names::module_scope(),
        ] {
            assert_eq!(scope.claim("Client"), "Client_");
            assert_eq!(scope.claim("Unit"), "Unit");
            assert_eq!(scope.claim("Unit"), "Unit_");
        }
    }
}
