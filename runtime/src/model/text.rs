//! JSON text read apart from its input, and serde_json's messages without the position it
//! appends: what the kept properties, the unions and the records share when a failure
//! inside a nested value must name its path.

use serde::de::{self, DeserializeOwned};

/// `T` read from JSON text apart from the input: a failure's message starts with the path
/// to it, `step` and the path inside the text (`data[1]: ...`), which the client's decode
/// joins to the path it tracked; with neither, the message alone.
pub(crate) fn decode_text<T: DeserializeOwned, E: de::Error>(
    text: &str,
    step: &str,
) -> Result<T, E> {
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let err = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(value) => return Ok(value),
        Err(err) => err,
    };
    let inner = without_position(&err.inner().to_string());
    let path = match (step, err.path().to_string()) {
        (step, p) if p == "." => step.to_string(),
        ("", p) => p,
        (step, p) if p.starts_with('[') => format!("{step}{p}"),
        (step, p) => format!("{step}.{p}"),
    };
    Err(E::custom(if path.is_empty() {
        inner
    } else {
        format!("{path}: {inner}")
    }))
}

/// serde_json appends ` at line L column C`, which means nothing to a reader of a nested
/// member; the JSON path replaces it.
///
/// Only a position serde_json wrote is cut: the message may quote a value that holds the
/// words " at line " itself.
pub(crate) fn without_position(message: &str) -> String {
    let Some(i) = message.rfind(" at line ") else {
        return message.to_string();
    };
    let is_number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let position = message[i + " at line ".len()..]
        .split_once(" column ")
        .is_some_and(|(line, column)| is_number(line) && is_number(column));
    if position {
        message[..i].to_string()
    } else {
        message.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_position_serde_json_wrote_is_cut() {
        assert_eq!(
            without_position("invalid type: string \"x\" at line 1 column 9"),
            "invalid type: string \"x\""
        );
        // A value quoting the words, read apart from the input (no position after it).
        let quoted = "invalid type: string \"meet at line 5\", expected i64";
        assert_eq!(without_position(quoted), quoted);
        assert_eq!(
            without_position("a: string \"at line 5\" at line 2 column 14"),
            "a: string \"at line 5\""
        );
    }
}
