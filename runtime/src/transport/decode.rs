//! Reading JSON answers: typed decoding, and the JSON path of a failure.

use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use crate::error::Error;

/// An answer with a success status (2xx).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Response {
    /// The HTTP status (2xx).
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body, read whole.
    pub body: Bytes,
}

impl Response {
    /// Decodes the JSON body; a failure names the JSON path where it happened.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, Error> {
        decode(self.status, &self.body)
    }
}

/// Decodes `body` as `T`, naming the JSON path of a failure.
pub fn decode<T: DeserializeOwned>(status: u16, body: &[u8]) -> Result<T, Error> {
    // The JSON path is tracked only to explain a failure (decoding again): tracking it on
    // every answer costs ~15 % of the decode.
    if let Ok(value) = serde_json::from_slice(body) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let message = crate::model::without_position(&e.inner().to_string());
        Error::Decode {
            status,
            path: through_unions(&e.path().to_string(), &message),
            message,
        }
    })
}

/// The whole JSON path of a failure: serde stops at the first union member it passes
/// through, whose message names the rest (`type `pass_fail`: items[0].label: ...`, one
/// union after another); those steps are joined to the outer path.
fn through_unions(outer: &str, message: &str) -> String {
    let mut path = if outer == "." {
        String::new()
    } else {
        outer.to_string()
    };
    let mut rest = message;
    // Each union member's message starts "<tag> `<value>`: ", then its inner path, if any.
    while let Some(after) = member_prefix(rest) {
        let Some((step, tail)) = after.split_once(": ") else {
            break;
        };
        if step.is_empty()
            || !step
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c))
        {
            break;
        }
        if !path.is_empty() && !step.starts_with('[') {
            path.push('.');
        }
        path.push_str(step);
        rest = tail;
    }
    if path.is_empty() {
        ".".to_string()
    } else {
        path
    }
}

/// What follows a leading "<word> `<value>`: ", if the text starts so.
fn member_prefix(text: &str) -> Option<&str> {
    let (word, after_word) = text.split_once(" `")?;
    if word.is_empty() || !word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let (_, after_value) = after_word.split_once("`: ")?;
    Some(after_value)
}

#[cfg(test)]
mod path_tests {
    use super::through_unions;

    #[test]
    fn union_steps_join_the_outer_path() {
        let message = "object `checklist`: data[0]: type `pass_fail`: items[0].label: invalid type: integer `5`, expected a string";
        assert_eq!(
            through_unions("data[0].results[0]", message),
            "data[0].results[0].data[0].items[0].label"
        );
        assert_eq!(
            through_unions(".", "type `inspection.created`: data: invalid type: string"),
            "data"
        );
        assert_eq!(through_unions(".", "type `x`: missing field `id`"), ".");
        assert_eq!(through_unions("a.b", "invalid type: null"), "a.b");
    }
}
