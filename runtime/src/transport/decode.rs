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
    // UTF-8 is checked once for the whole body (one fast pass), so that the parser need not
    // check each string apart. Only text is parsed, so each type's decoder is compiled for
    // one reader, not two.
    let text = std::str::from_utf8(body).map_err(|e| Error::Decode {
        status,
        path: ".".to_string(),
        message: format!("the body is not UTF-8 text: {e}"),
    })?;
    // The JSON path is tracked only to explain a failure (decoding again): tracking it on
    // every answer costs ~15 % of the decode.
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = crate::model::without_position(&e.inner().to_string());
        let (path, message) = through_unions(&e.path().to_string(), &inner);
        Error::Decode {
            status,
            path,
            message,
        }
    })
}

/// The whole JSON path of a failure, and its message naming the union members on the way
/// (`object `checklist`: type `pass_fail`: invalid type: ...`). serde tracks the path as
/// far as it read the answer straight; a union member's properties that came before its
/// tag were read apart, and their message names the rest of the path after the member
/// (`data[0]: ...`): those steps are joined to the path and left out of the message.
fn through_unions(outer: &str, message: &str) -> (String, String) {
    let mut path = if outer == "." {
        String::new()
    } else {
        outer.to_string()
    };
    let mut members = String::new();
    let mut rest = message;
    // Each union member's message starts "<tag> `<value>`: ", then its inner path, if any.
    while let Some(after) = member_prefix(rest) {
        members.push_str(&rest[..rest.len() - after.len()]);
        rest = after;
        let Some((step, tail)) = after.split_once(": ") else {
            break;
        };
        // A path has no space (a message's words do) and no backquote (a value does);
        // map keys may hold any other character (`tags.a-b`, `données`).
        if step.is_empty() || step.contains(|c: char| c.is_whitespace() || c == '`') {
            continue;
        }
        if !path.is_empty() && !step.starts_with('[') {
            path.push('.');
        }
        path.push_str(step);
        rest = tail;
    }
    if path.is_empty() {
        path.push('.');
    }
    (path, format!("{members}{rest}"))
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
    use super::{Error, decode, through_unions};

    #[test]
    fn a_body_that_is_not_utf8_is_a_decode_error_at_the_root() {
        let err = decode::<serde_json::Value>(200, b"{\"a\": \"\xff\"}").unwrap_err();
        let Error::Decode { path, message, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(path, ".");
        assert!(
            message.starts_with("the body is not UTF-8 text: invalid utf-8"),
            "{message}"
        );
    }

    #[test]
    fn union_steps_join_the_outer_path_and_leave_the_message() {
        let message = "object `checklist`: data[0]: type `pass_fail`: items[0].label: invalid type: integer `5`, expected a string";
        assert_eq!(
            through_unions("data[0].results[0]", message),
            (
                "data[0].results[0].data[0].items[0].label".to_string(),
                "object `checklist`: type `pass_fail`: invalid type: integer `5`, expected a string"
                    .to_string()
            )
        );
        // Read straight, the path is whole already and the message has no steps.
        let streamed = "object `checklist`: type `pass_fail`: invalid type: null";
        assert_eq!(
            through_unions("data[0].items[0].label", streamed),
            ("data[0].items[0].label".to_string(), streamed.to_string())
        );
        assert_eq!(
            through_unions(".", "type `inspection.created`: data: invalid type: string"),
            (
                "data".to_string(),
                "type `inspection.created`: invalid type: string".to_string()
            )
        );
        // A map's key may hold any character but a space.
        assert_eq!(
            through_unions("results[0]", "kind `circle`: tags.a-b.é: invalid type: map"),
            (
                "results[0].tags.a-b.é".to_string(),
                "kind `circle`: invalid type: map".to_string()
            )
        );
        // An envelope read apart names the steps inside it the same way.
        assert_eq!(
            through_unions(
                ".",
                "envelope `transaction`: transaction.count: invalid type"
            ),
            (
                "transaction.count".to_string(),
                "envelope `transaction`: invalid type".to_string()
            )
        );
        let missing = "type `x`: missing field `id`";
        assert_eq!(
            through_unions(".", missing),
            (".".to_string(), missing.to_string())
        );
        let plain = "invalid type: null";
        assert_eq!(
            through_unions("a.b", plain),
            ("a.b".to_string(), plain.to_string())
        );
    }
}
