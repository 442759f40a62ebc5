//! Webhook deliveries: reading one, and checking the authentication header that the
//! service's support configured for it.

use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use crate::error::Error;

/// Reads a delivery's JSON body as `T` (an interface's open `Event` union: an event type
/// the spec does not know is its `Unknown` member, never an error). A body that is not JSON,
/// or a known event whose payload does not fit, is `Error::Decode` with status 0 and the
/// JSON path.
pub fn parse_event<T: DeserializeOwned>(body: &[u8]) -> Result<T, Error> {
    crate::transport::decode(0, body)
}

/// Checks that the delivery carries header `name` with exactly `expected` (compared in
/// constant time, so the comparison does not reveal how much of a guess was right). A
/// missing, repeated or different header is `Error::Webhook`, whose text never holds
/// either value.
pub fn verify_webhook(headers: &HeaderMap, name: &str, expected: &str) -> Result<(), Error> {
    let mut values = headers.get_all(name).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(Error::Webhook(format!(
            "the delivery has no single `{name}` header"
        )));
    };
    if constant_time_eq(value.as_bytes(), expected.as_bytes()) {
        Ok(())
    } else {
        Err(Error::Webhook(format!(
            "the delivery's `{name}` header does not match"
        )))
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    // The length is not secret (it is the configured value's); the bytes are.
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn the_header_must_be_there_once_and_equal() {
        let mut headers = HeaderMap::new();
        assert!(verify_webhook(&headers, "x-hook-key", "s3cret").is_err());
        headers.insert("x-hook-key", HeaderValue::from_static("s3cret"));
        assert!(verify_webhook(&headers, "X-Hook-Key", "s3cret").is_ok());
        let wrong = verify_webhook(&headers, "x-hook-key", "s3cres").unwrap_err();
        assert!(!wrong.to_string().contains("s3cre"), "{wrong}");
        headers.append("x-hook-key", HeaderValue::from_static("s3cret"));
        assert!(verify_webhook(&headers, "x-hook-key", "s3cret").is_err());
    }

    #[test]
    fn a_body_that_is_not_json_is_a_decode_error() {
        let e = parse_event::<serde_json::Value>(b"not json").unwrap_err();
        assert!(matches!(e, Error::Decode { status: 0, .. }), "{e}");
    }
}
