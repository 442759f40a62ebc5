//! Names: each key listed once, each name a distinct identifier in generated code, and
//! none meeting a name the generated code introduces itself (a `one_of`'s types, the
//! catch-all member of a union or open enum), as each backend states them.

use std::collections::BTreeMap;

use heck::ToSnakeCase;
use serde_saphyr::Spanned;

use crate::spec::{OneOfDef, OrderedMap};

use super::Checker;

impl<'a> Checker<'a> {
    /// Names become identifiers in snake_case: each must give one, and no two the same.
    /// `reserved` are names generated code uses itself.
    pub(super) fn identifiers(
        &mut self,
        names: &[&Spanned<String>],
        what: &str,
        reserved: &[&str],
    ) {
        let mut seen: BTreeMap<String, &Spanned<String>> = BTreeMap::new();
        for name in names {
            let ident = name.value.to_snake_case();
            if ident.is_empty() || !ident.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                self.error(
                    name,
                    format!("{what} `{}` gives no identifier (`{ident}`)", name.value),
                    "use letters, digits and `_` (the wire name may differ only in case style)",
                );
                continue;
            }
            if reserved.contains(&ident.as_str()) {
                self.error(
                    name,
                    format!(
                        "{what} `{}` is named like the generated code's own `{ident}`",
                        name.value
                    ),
                    format!("rename it; {} are reserved", reserved.join(", ")),
                );
            }
            if let Some(prev) = seen.get(&ident) {
                if prev.value != name.value {
                    let msg = format!(
                        "{what}s `{}` and `{}` both become `{ident}`",
                        prev.value, name.value
                    );
                    self.error(name, msg, "rename one of them");
                }
            } else {
                seen.insert(ident, name);
            }
        }
    }

    /// The types each language declares for `one`: none may be a declared type or one
    /// another `one_of` already declared.
    pub(super) fn one_of_types(&mut self, one: &OneOfDef) {
        let variants: Vec<&str> = one.variants.iter().map(|(k, _)| k.value.as_str()).collect();
        let here = format!(
            "the one_of `{}` at {}",
            one.name.value,
            place(&one.type_name)
        );
        for (language, ty) in crate::backend::one_of_types(&one.type_name.value, &variants) {
            let clash = if self.ids.contains_key(&ty) {
                Some("a declared type".to_string())
            } else {
                self.introduced.get(&ty).filter(|w| **w != here).cloned()
            };
            if let Some(other) = clash {
                let what = if ty == one.type_name.value {
                    format!("the one_of type name `{ty}` is also {other}")
                } else {
                    format!(
                        "the one_of `{}` gives the {language} type `{ty}` for a variant, which is also {other}",
                        one.name.value
                    )
                };
                self.error(
                    &one.type_name,
                    what,
                    "choose another `type_name`: the generated code declares a type by it and by it followed by each variant's name",
                );
                return;
            }
            self.introduced.insert(ty, here.clone());
        }
    }

    /// A union member or open-enum value that a language's catch-all member would meet.
    pub(super) fn catch_all_member(&mut self, name: &Spanned<String>, what: &str) {
        if let Some(language) = crate::backend::refusing_member_name(&name.value) {
            self.error(
                name,
                format!("{what} cannot be named `{}`", name.value),
                format!(
                    "the generated {language} code keeps what the client does not know in a member of that name; rename it"
                ),
            );
        }
    }

    pub(super) fn unique_keys<V>(&mut self, map: &OrderedMap<V>, what: &str, within: &str) {
        for ((key, _), first) in map.iter().zip(repeated(map)) {
            if let Some(first) = first {
                self.error(
                    key,
                    format!(
                        "{what} `{}` is listed twice in this {within} (first at {})",
                        key.value,
                        place(first)
                    ),
                    format!("remove or rename one of the two {what}s"),
                );
            }
        }
    }
}

/// For each entry of `map`, the first entry with the same key when this one repeats it.
pub(super) fn repeated<V>(map: &OrderedMap<V>) -> Vec<Option<&Spanned<String>>> {
    let mut first: BTreeMap<&str, &Spanned<String>> = BTreeMap::new();
    map.iter()
        .map(|(key, _)| match first.get(key.value.as_str()) {
            Some(prev) => Some(*prev),
            None => {
                first.insert(&key.value, key);
                None
            }
        })
        .collect()
}

/// `line:col` of a name, for "first at" notes.
pub(super) fn place(at: &Spanned<String>) -> String {
    format!("{}:{}", at.referenced.line(), at.referenced.column())
}
