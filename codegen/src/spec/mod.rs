//! The spec format: its serde model and how a file is read.

pub mod model;
pub mod ordered;
pub mod packages;
pub mod tools;

pub use model::*;
pub use ordered::OrderedMap;
pub use tools::*;

use crate::diagnostic::Diagnostic;

/// Reads one spec file. `file` is the name used in error messages.
pub fn parse(file: &str, text: &str) -> Result<SpecFile, Diagnostic> {
    parse_as(file, text)
}

/// Reads a file of the spec folder into `T` (an interface, the package settings).
pub fn parse_as<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, Diagnostic> {
    // Duplicate keys reach our ordered maps so `check` can name what was repeated (a type,
    // an operation, a discriminator value); derived structs still refuse repeated keys.
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
    };
    serde_saphyr::from_str_with_options(text, options).map_err(|e| yaml_error(file, text, &e))
}

fn yaml_error(file: &str, text: &str, err: &serde_saphyr::Error) -> Diagnostic {
    let raw = err.without_snippet().to_string();
    let message = strip_location_suffix(strip_location_prefix(&raw).trim()).to_string();
    // Every diagnostic has a real place: a repeated key of a record is found in the text
    // (the parser does not say where), anything else unplaced is the file's start.
    let (line, column) = err
        .location()
        .map(|l| (l.line() as u32, l.column() as u32))
        .or_else(|| repeated_key(text, &message))
        .unwrap_or((1, 1));
    let help = yaml_help(&message);
    Diagnostic {
        file: file.to_string(),
        line,
        column,
        message,
        help,
    }
}

/// The place of the second occurrence of the key a "duplicate field `key`" message names,
/// at the first indentation where it occurs twice.
fn repeated_key(text: &str, message: &str) -> Option<(u32, u32)> {
    let key = message
        .strip_prefix("duplicate field `")?
        .split('`')
        .next()?;
    let mut seen: Vec<usize> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let bare = trimmed
            .strip_prefix(key)
            .is_some_and(|r| r.starts_with(':'));
        let quoted = trimmed
            .strip_prefix(&format!("\"{key}\""))
            .is_some_and(|r| r.starts_with(':'));
        if bare || quoted {
            if seen.contains(&indent) {
                return Some((n as u32 + 1, indent as u32 + 1));
            }
            seen.push(indent);
        }
    }
    None
}

/// serde-saphyr prefixes its message with `error: line L column C: `; we print the place
/// ourselves in `file:line:col` form.
fn strip_location_prefix(raw: &str) -> &str {
    let s = raw.strip_prefix("error: ").unwrap_or(raw);
    if let Some(rest) = s.strip_prefix("line ")
        && let Some(idx) = rest.find(": ")
    {
        let place = &rest[..idx];
        if place.contains(" column ") {
            return &rest[idx + 2..];
        }
    }
    s
}

/// Some messages also end with ` at line L, column C`.
fn strip_location_suffix(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(", column ") => &message[..i],
        _ => message,
    }
}

fn yaml_help(message: &str) -> String {
    let schema = "spec/spec.schema.json describes every key";
    if message.starts_with("unknown field") {
        format!("remove the key or correct its spelling ({schema})")
    } else if message.starts_with("unknown variant") {
        format!("use one of the values listed ({schema})")
    } else if message.starts_with("missing field") {
        format!("add the missing key ({schema})")
    } else if message.starts_with("duplicate field") {
        "a key may appear once in a mapping: remove or merge the repeated one".to_string()
    } else if message.starts_with("invalid type") || message.starts_with("expected") {
        format!("give a value of the expected kind ({schema})")
    } else {
        "fix the YAML syntax at this place (indentation, quotes, brackets)".to_string()
    }
}
