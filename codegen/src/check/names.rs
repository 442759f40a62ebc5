//! Names: each key listed once, each name a distinct identifier in generated code.

use std::collections::BTreeMap;

use heck::ToSnakeCase;
use serde_saphyr::Spanned;

use crate::spec::OrderedMap;

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
