//! Field-level helpers of the generated models: an id read as sent, and which of an
//! exactly-one-of choice's variants is present.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde_json::{Map, Value};

/// Reads an id that the service documents as a string. Some callers have seen numbers,
/// so an integer is accepted and kept as its decimal text.
pub fn deserialize_id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    struct IdVisitor;

    impl Visitor<'_> for IdVisitor {
        type Value = String;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an id (a string)")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
            Ok(v)
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
            Ok(v.to_string())
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
            Ok(v.to_string())
        }
    }

    deserializer.deserialize_any(IdVisitor)
}

/// Which of several field groups is present in `map`, when exactly one must be. A group
/// counts as present when any of its properties is present and not `null`.
pub fn pick_one_of(map: &Map<String, Value>, groups: &[&[&str]]) -> Result<usize, String> {
    let present = |group: &[&str]| {
        group
            .iter()
            .any(|k| map.get(*k).is_some_and(|v| !v.is_null()))
    };
    let found: Vec<usize> = (0..groups.len()).filter(|&i| present(groups[i])).collect();
    match found.as_slice() {
        [one] => Ok(*one),
        _ => {
            let all: Vec<String> = groups.iter().map(|g| quoted(g)).collect();
            let seen: Vec<String> = found.iter().map(|&i| quoted(groups[i])).collect();
            let found = if seen.is_empty() {
                "none".to_string()
            } else {
                seen.join(" and ")
            };
            Err(format!(
                "expected exactly one of {}, found {found}",
                all.join(", ")
            ))
        }
    }
}

fn quoted(group: &[&str]) -> String {
    group
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join("+")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_of_names_what_it_found() {
        let groups: &[&[&str]] = &[&["a"], &["b"], &["c"]];
        let map = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(pick_one_of(&map(json!({"b": 1})), groups), Ok(1));
        assert_eq!(
            pick_one_of(&map(json!({"x": 1, "c": null})), groups),
            Err("expected exactly one of `a`, `b`, `c`, found none".into())
        );
        assert_eq!(
            pick_one_of(&map(json!({"a": "u", "c": 2})), groups),
            Err("expected exactly one of `a`, `b`, `c`, found `a` and `c`".into())
        );
    }

    #[test]
    fn ids_accept_numbers() {
        let mut de = serde_json::Deserializer::from_str("42");
        assert_eq!(deserialize_id(&mut de).unwrap(), "42");
        let mut de = serde_json::Deserializer::from_str("true");
        assert!(deserialize_id(&mut de).is_err());
    }
}
