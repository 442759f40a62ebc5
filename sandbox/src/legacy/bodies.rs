//! Request bodies held to the spec: a body must be a value of the operation's body type
//! (the generated client's type, so the sandbox follows the spec rather than a copy of it).
//! What is refused is stored nowhere.

use axum::http::StatusCode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::http::Reject;

/// Refuses `bytes` unless they are a `T`: a wrong JSON type at any depth is a 422 naming the
/// field's path, and so is a `null` where `T` holds no null (an optional field left out is
/// fine; a `null` would be stored and answered back where the spec promises a value).
pub fn conforms<T: DeserializeOwned + Serialize>(bytes: &[u8]) -> Result<(), Reject> {
    let refuse = |why: String| Reject::new(StatusCode::UNPROCESSABLE_ENTITY, why);
    let raw: Value = serde_json::from_slice(bytes)
        .map_err(|_| Reject::new(StatusCode::BAD_REQUEST, "the body is not JSON"))?;
    let typed: T = serde_path_to_error::deserialize(&raw)
        .map_err(|e| refuse(format!("{}: {}", e.path(), e.inner())))?;
    let back = serde_json::to_value(&typed).unwrap_or(Value::Null);
    match null_dropped(&raw, &back, "") {
        Some(path) => Err(refuse(format!("{path}: must not be null"))),
        None => Ok(()),
    }
}

/// The path of a `null` in `raw` that the typed value does not keep (read as "absent").
fn null_dropped(raw: &Value, back: &Value, path: &str) -> Option<String> {
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (raw, back) {
        (Value::Object(r), Value::Object(b)) => r.iter().find_map(|(k, v)| match b.get(k) {
            None if v.is_null() => Some(at(k)),
            Some(bv) => null_dropped(v, bv, &at(k)),
            None => None,
        }),
        (Value::Array(r), Value::Array(b)) => r
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (v, bv))| null_dropped(v, bv, &format!("{path}[{i}]"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Serialize)]
    struct Body {
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tags: Option<std::collections::BTreeMap<String, Value>>,
    }

    #[test]
    fn wrong_types_and_dropped_nulls_are_refused() {
        assert!(conforms::<Body>(br#"{"name": "a", "tags": {"x": 1}}"#).is_ok());
        assert!(conforms::<Body>(br#"{}"#).is_ok());
        let e = conforms::<Body>(br#"{"tags": [null, null]}"#).unwrap_err();
        assert_eq!(e.0, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(
            conforms::<Body>(br#"{"name": null}"#)
                .unwrap_err()
                .1
                .contains("name: must not be null")
        );
        assert!(conforms::<Body>(b"[1]").is_err());
    }
}
