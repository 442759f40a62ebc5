//! What JSON fits a spec type, decided once for the sandbox's two readers of JSON: the
//! strict layer, which refuses a request a client should not have sent
//! (`http/strict/check.rs`), and the drift watch, which reports where a live answer departs
//! from the spec (`watch/answer.rs`). Each walks a value its own way (one refuses and
//! rewrites, the other reports by spec element); the facts they walk by are here.
//!
//! Where the two readings differ, [`Reading`] says so and why.

use serde_json::Value;

use crate::ir::{Builtin, ScalarKind, Union, Variant};

/// Who reads the JSON, which decides the two leniencies that differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// A request the sandbox takes: an integer may be written `5.0` (JSON Schema counts
    /// it as one; the strict layer rewrites it), and a date-time is RFC 3339, as every
    /// client writes it.
    Request,
    /// An answer as the clients decode it: an integer is written without a fraction, and
    /// a date-time is any ISO 8601 form they read (an offset, or none as UTC).
    Answer,
}

/// The spec's builtins by the JSON they take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Json {
    /// A string, of its builtin's format where one is read (dates).
    Text,
    /// A date-time, or an array of two (a range).
    TextOrPair,
    Integer {
        min: i64,
        max: i64,
    },
    Number,
    Boolean,
    /// Any JSON, `null` included.
    Any,
}

impl Json {
    /// What JSON a builtin takes (every builtin: a new one does not compile until it is
    /// placed here).
    pub fn of(builtin: Builtin) -> Json {
        use Builtin as B;
        match builtin {
            B::String | B::Url | B::Date | B::DateTime | B::DateOrDateTime | B::Binary => {
                Json::Text
            }
            B::DateTimeOrRange => Json::TextOrPair,
            B::Integer => Json::Integer {
                min: i64::MIN,
                max: i64::MAX,
            },
            B::Int32 => Json::Integer {
                min: i32::MIN.into(),
                max: i32::MAX.into(),
            },
            B::Number => Json::Number,
            B::Boolean => Json::Boolean,
            B::Json => Json::Any,
        }
    }
}

/// Whether `value` is a `builtin` as `reading` reads it.
pub fn fits(builtin: Builtin, value: &Value, reading: Reading) -> bool {
    match Json::of(builtin) {
        Json::Text => value
            .as_str()
            .is_some_and(|t| text_fits(builtin, t, reading)),
        Json::TextOrPair => match value {
            Value::String(t) => is_date_time(t, reading),
            Value::Array(two) => {
                two.len() == 2
                    && two
                        .iter()
                        .all(|v| v.as_str().is_some_and(|t| is_date_time(t, reading)))
            }
            _ => false,
        },
        Json::Integer { min, max } => integer(value, reading)
            .is_some_and(|i| (i128::from(min)..=i128::from(max)).contains(&i)),
        Json::Number => value.is_number(),
        Json::Boolean => value.is_boolean(),
        Json::Any => true,
    }
}

/// Whether the text of a string builtin is of its format: a date `YYYY-MM-DD`, a
/// date-time as `reading` reads it. Other formats (a URL) are the handler's to read.
pub fn text_fits(builtin: Builtin, text: &str, reading: Reading) -> bool {
    let date = || chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok();
    match builtin {
        Builtin::DateTime => is_date_time(text, reading),
        Builtin::Date => date(),
        Builtin::DateOrDateTime => date() || is_date_time(text, reading),
        _ => true,
    }
}

fn is_date_time(text: &str, reading: Reading) -> bool {
    chrono::DateTime::parse_from_rfc3339(text).is_ok()
        || reading == Reading::Answer
            && (chrono::DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f%z").is_ok()
                || chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f").is_ok())
}

/// The whole number a JSON number is, as `reading` reads it (`5.0` is one in a request
/// only); `None` for anything else. i128 holds every i64 and u64; a huge float
/// saturates, out of any range either way.
pub fn integer(value: &Value, reading: Reading) -> Option<i128> {
    let n = value.as_number()?;
    match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => Some(i128::from(i)),
        (None, Some(u), _) => Some(i128::from(u)),
        (None, None, Some(f))
            if reading == Reading::Request && f.is_finite() && f.fract() == 0.0 =>
        {
            Some(f as i128)
        }
        _ => None,
    }
}

/// Whether `value` is of one scalar kind of a scalar union.
pub fn scalar_fits(kind: ScalarKind, value: &Value) -> bool {
    match kind {
        ScalarKind::String => value.is_string(),
        ScalarKind::Integer => value.is_i64() || value.is_u64(),
        ScalarKind::Number => value.is_number(),
        ScalarKind::Boolean => value.is_boolean(),
        ScalarKind::Null => value.is_null(),
    }
}

/// Whether `value` is an id: a string, or an integer where the interface's examples also
/// show them as numbers (`accepts_integers`).
pub fn id_fits(accepts_integers: bool, value: &Value) -> bool {
    value.is_string() || accepts_integers && (value.is_i64() || value.is_u64())
}

/// What a tagged union's object names as its member.
pub enum Tagged<'u, 'v> {
    /// A known member.
    Member(&'u Variant),
    /// A tag no member has.
    Unknown(&'v str),
    /// Not an object with the tag as a string.
    Untagged,
}

/// The member `value` names by `union`'s tag.
pub fn tagged<'u, 'v>(union: &'u Union, value: &'v Value) -> Tagged<'u, 'v> {
    let Some(tag) = value.get(&union.tag).and_then(Value::as_str) else {
        return Tagged::Untagged;
    };
    match union.variants.iter().find(|v| v.tag_value == tag) {
        Some(variant) => Tagged::Member(variant),
        None => Tagged::Unknown(tag),
    }
}

/// The JSON kind of a value, for a message (never the value: it may be a secret).
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The two readings differ exactly where the module says: a whole float and a
    /// date-time without an offset; everything else is read alike.
    #[test]
    fn a_request_and_an_answer_are_read_alike_but_for_whole_floats_and_offsets() {
        use Reading::{Answer, Request};
        let cases = [
            (Builtin::Integer, json!(5.0), true, false),
            (Builtin::Int32, json!(5.0), true, false),
            (Builtin::Int32, json!(5), true, true),
            (Builtin::Int32, json!(3_000_000_000_i64), false, false),
            (Builtin::Integer, json!(5.5), false, false),
            (Builtin::Integer, json!("5"), false, false),
            (Builtin::DateTime, json!("2026-11-29T10:00:00Z"), true, true),
            (Builtin::DateTime, json!("2026-11-29T10:00:00"), false, true),
            (Builtin::DateTime, json!("2026-11-29"), false, false),
            (Builtin::Date, json!("2026-11-29"), true, true),
            (Builtin::Date, json!("29.11.2026"), false, false),
            (
                Builtin::DateOrDateTime,
                json!("2026-11-29T10:00:00"),
                false,
                true,
            ),
            (
                Builtin::DateTimeOrRange,
                json!(["2026-11-29T10:00:00Z", "2026-11-30T10:00:00Z"]),
                true,
                true,
            ),
            (
                Builtin::DateTimeOrRange,
                json!(["2026-11-29T10:00:00Z"]),
                false,
                false,
            ),
            (Builtin::String, json!(1), false, false),
            (Builtin::Boolean, json!(true), true, true),
            (Builtin::Number, json!(1.5), true, true),
            (Builtin::Json, Value::Null, true, true),
        ];
        for (builtin, value, request, answer) in cases {
            assert_eq!(
                (
                    fits(builtin, &value, Request),
                    fits(builtin, &value, Answer)
                ),
                (request, answer),
                "{builtin:?} {value}"
            );
        }
    }

    #[test]
    fn ids_and_kinds() {
        assert!(id_fits(false, &json!("u1")) && !id_fits(false, &json!(7)));
        assert!(id_fits(true, &json!(7)) && !id_fits(true, &json!(7.5)));
        assert_eq!(
            [json!(1), json!(1.5), json!(null)].map(|v| kind(&v)),
            ["an integer", "a number", "null"]
        );
    }
}
