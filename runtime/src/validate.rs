//! Client-side checks of documented limits. Generated code calls these for every request
//! body and query parameter; every violation is collected, then reported together.

use std::fmt;

/// One broken limit: where, and what the limit is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// The field path, e.g. `vin` or `assignee_username`.
    pub path: String,
    /// What the limit is and what was given: `must be exactly 17 characters, got 16`.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Every violation found in one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations(pub Vec<Violation>);

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

/// Which characters a string may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharClass {
    /// ASCII letters and digits.
    AsciiAlphanumeric,
    /// ASCII digits only.
    AsciiDigits,
}

/// A type whose documented limits can be checked: every request body and its parts.
/// The client checks them before sending (unless `Config::validate_requests` is off);
/// `body.validate()` checks one yourself.
pub trait Validate {
    /// Every documented limit `self` breaks, all at once; `Ok` when none.
    fn validate(&self) -> Result<(), Violations> {
        let mut v = Validator::new();
        self.collect_violations(&mut v);
        v.finish()
    }

    /// Adds every broken limit of `self` to `v` (generated; call `validate`).
    #[doc(hidden)]
    fn collect_violations(&self, v: &mut Validator);
}

/// Collects violations under a path prefix.
#[derive(Debug, Default)]
pub struct Validator {
    prefix: Vec<String>,
    violations: Vec<Violation>,
}

impl Validator {
    /// A validator with nothing found yet, at the top level (no path prefix).
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks a nested value under `name` (`name.field` in paths).
    pub fn nested<T: Validate + ?Sized>(&mut self, name: &str, value: &T) {
        self.prefix.push(name.to_string());
        value.collect_violations(self);
        self.prefix.pop();
    }

    /// Checks each item of a list under `name[i]`.
    pub fn each<T: Validate>(&mut self, name: &str, items: &[T]) {
        for (i, item) in items.iter().enumerate() {
            self.nested(&format!("{name}[{i}]"), item);
        }
    }

    fn push(&mut self, field: &str, message: String) {
        let mut path = self.prefix.join(".");
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(field);
        self.violations.push(Violation { path, message });
    }

    /// Refuses an additional property that has a field of its own: it would be sent twice.
    pub fn additional(
        &mut self,
        extras: &serde_json::Map<String, serde_json::Value>,
        listed: &[&str],
    ) {
        for key in extras.keys().filter(|k| listed.contains(&k.as_str())) {
            self.push(
                key,
                "is a property the spec lists: set it with its own method, not as an additional property"
                    .to_string(),
            );
        }
    }

    /// Checks that `value`, when given, has at most `max` characters.
    pub fn max_length(&mut self, field: &str, value: Option<&str>, max: usize) {
        if let Some(v) = value {
            let n = v.chars().count();
            if n > max {
                self.push(field, format!("must be at most {max} characters, got {n}"));
            }
        }
    }

    /// Checks that `value`, when given, has exactly `exact` characters.
    pub fn length(&mut self, field: &str, value: Option<&str>, exact: usize) {
        if let Some(v) = value {
            let n = v.chars().count();
            if n != exact {
                self.push(
                    field,
                    format!("must be exactly {exact} characters, got {n}"),
                );
            }
        }
    }

    /// Checks that `value`, when given, holds only characters of `class` and none of
    /// `forbid`.
    pub fn chars(&mut self, field: &str, value: Option<&str>, class: CharClass, forbid: &str) {
        self.check_chars(field, value, class, forbid, false);
    }

    /// [`Self::chars`] for a secret: the violation names the position, never the
    /// character (not even one of a secret is shown).
    pub fn secret_chars(
        &mut self,
        field: &str,
        value: Option<&str>,
        class: CharClass,
        forbid: &str,
    ) {
        self.check_chars(field, value, class, forbid, true);
    }

    fn check_chars(
        &mut self,
        field: &str,
        value: Option<&str>,
        class: CharClass,
        forbid: &str,
        secret: bool,
    ) {
        let Some(v) = value else { return };
        let allowed = |c: char| match class {
            CharClass::AsciiAlphanumeric => c.is_ascii_alphanumeric(),
            CharClass::AsciiDigits => c.is_ascii_digit(),
        };
        if let Some((i, c)) = v
            .chars()
            .enumerate()
            .find(|(_, c)| !allowed(*c) || forbid.contains(*c))
        {
            let class = match class {
                CharClass::AsciiAlphanumeric => "ASCII letters and digits",
                CharClass::AsciiDigits => "ASCII digits",
            };
            let never = if forbid.is_empty() {
                String::new()
            } else {
                let list: Vec<String> = forbid.chars().map(|c| c.to_string()).collect();
                format!(", never {}", list.join(", "))
            };
            let found = if secret {
                "a character not allowed".to_string()
            } else {
                format!("{c:?}")
            };
            self.push(
                field,
                format!(
                    "must hold only {class}{never}; found {found} at position {}",
                    i + 1
                ),
            );
        }
    }

    /// Checks that `value`, when given, is at least `min` and at most `max` (each
    /// optional).
    pub fn range(&mut self, field: &str, value: Option<i64>, min: Option<i64>, max: Option<i64>) {
        let Some(v) = value else { return };
        if let Some(min) = min.filter(|m| v < *m) {
            self.push(field, format!("must be at least {min}, got {v}"));
        }
        if let Some(max) = max.filter(|m| v > *m) {
            self.push(field, format!("must be at most {max}, got {v}"));
        }
    }

    /// Checks that a list of `len` items, when given, has at least `min` and at most `max`
    /// items (each optional).
    pub fn items(
        &mut self,
        field: &str,
        len: Option<usize>,
        min: Option<usize>,
        max: Option<usize>,
    ) {
        let Some(n) = len else { return };
        if let Some(min) = min.filter(|m| n < *m) {
            self.push(field, format!("must have at least {min} items, got {n}"));
        }
        if let Some(max) = max.filter(|m| n > *m) {
            self.push(field, format!("must have at most {max} items, got {n}"));
        }
    }

    /// `Ok` when nothing was broken, else every violation.
    pub fn finish(self) -> Result<(), Violations> {
        if self.violations.is_empty() {
            Ok(())
        } else {
            Err(Violations(self.violations))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_breaking_its_character_class_shows_where_never_what() {
        let mut v = Validator::new();
        v.chars("vin", Some("AB-"), CharClass::AsciiAlphanumeric, "");
        v.secret_chars("pin", Some("12x4"), CharClass::AsciiDigits, "");
        let messages: Vec<String> = v
            .finish()
            .unwrap_err()
            .0
            .iter()
            .map(|v| v.message.clone())
            .collect();
        assert!(
            messages[0].ends_with("found '-' at position 3"),
            "{messages:?}"
        );
        assert!(
            messages[1].ends_with("found a character not allowed at position 3"),
            "{messages:?}"
        );
        assert!(!messages[1].contains('x'), "{messages:?}");
    }
}
