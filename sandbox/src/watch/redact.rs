//! What the watch writes never holds a secret: the credentials' headers, tokens,
//! passwords and any field the spec marks sensitive, login bodies, and the signatures of
//! pre-signed URLs, each replaced by `<redacted>`.

use std::collections::BTreeSet;

use axum::http::HeaderMap;
use serde_json::Value;

use crate::ir::{Auth, Interface, Ir, TypeKind};

pub const REDACTED: &str = "<redacted>";

/// Words that make a header, query parameter or JSON property a secret wherever it is.
const SECRET_WORDS: &[&str] = &[
    "authorization",
    "cookie",
    "password",
    "secret",
    "token",
    "signature",
    "credential",
];

/// The names a spec makes secret: sensitive fields and headers, the token field.
#[derive(Debug, Default, Clone)]
pub struct Secrets {
    names: BTreeSet<String>,
}

impl Secrets {
    pub fn of(ir: &Ir) -> Self {
        let mut names = BTreeSet::new();
        for interface in &ir.interfaces {
            collect(interface, &mut names);
        }
        Secrets { names }
    }

    fn is_secret(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        self.names.contains(&lower) || SECRET_WORDS.iter().any(|w| lower.contains(w))
    }

    /// The headers as JSON, secret values replaced.
    pub fn headers(&self, headers: &HeaderMap) -> Value {
        let mut out = serde_json::Map::new();
        for (name, value) in headers {
            let shown = if self.is_secret(name.as_str()) {
                REDACTED.to_string()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            out.insert(name.as_str().to_string(), Value::String(shown));
        }
        Value::Object(out)
    }

    /// A path and query with the value of every secret query parameter replaced (a
    /// pre-signed URL's signature, a token).
    pub fn path_and_query(&self, path: &str, query: Option<&str>) -> String {
        let Some(query) = query.filter(|q| !q.is_empty()) else {
            return path.to_string();
        };
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if self.is_secret(name) => format!("{name}={REDACTED}"),
                _ => pair.to_string(),
            })
            .collect();
        format!("{path}?{}", pairs.join("&"))
    }

    /// `text` with every secret the request carries (its secret headers' values, its
    /// body's secret properties' values) replaced: a message that quotes the request.
    pub fn scrub(&self, text: &str, headers: &HeaderMap, body: &[u8]) -> String {
        let mut secrets: Vec<String> = headers
            .iter()
            .filter(|(name, _)| self.is_secret(name.as_str()))
            .map(|(_, v)| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect();
        if let Ok(value) = serde_json::from_slice::<Value>(body) {
            self.secret_values(&value, false, &mut secrets);
        }
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let mut out = text.to_string();
        for secret in secrets.iter().filter(|s| !s.is_empty()) {
            out = out.replace(secret.as_str(), REDACTED);
        }
        out
    }

    /// The string values under secret properties, at any depth.
    fn secret_values(&self, value: &Value, secret: bool, out: &mut Vec<String>) {
        match value {
            Value::String(s) if secret => out.push(s.clone()),
            Value::Object(map) => {
                for (k, v) in map {
                    self.secret_values(v, secret || self.is_secret(k), out);
                }
            }
            Value::Array(items) => {
                for v in items {
                    self.secret_values(v, secret, out);
                }
            }
            _ => {}
        }
    }

    /// A JSON value with every secret property's value replaced, at any depth.
    pub fn json(&self, value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let shown = match self.is_secret(k) {
                            true => Value::String(REDACTED.into()),
                            false => self.json(v),
                        };
                        (k.clone(), shown)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            other => other.clone(),
        }
    }
}

fn collect(interface: &Interface, names: &mut BTreeSet<String>) {
    match &interface.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            names.extend(headers.iter().map(|h| h.name.to_ascii_lowercase()));
        }
        Auth::TokenLogin {
            token_field,
            header,
            ..
        } => {
            names.insert(token_field.to_ascii_lowercase());
            names.insert(header.to_ascii_lowercase());
        }
    }
    for t in &interface.types {
        if let TypeKind::Object(o) = &t.kind {
            let sensitive = o.wire_fields().filter(|f| f.sensitive);
            names.extend(sensitive.map(|f| f.name.to_ascii_lowercase()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_replaced_wherever_they_are() {
        let secrets = Secrets::of(&crate::ir::embedded());
        let mut headers = HeaderMap::new();
        headers.insert("api-key-secret", "s3cret".parse().unwrap());
        headers.insert("api-key-id", "key-1".parse().unwrap());
        headers.insert("authorization", "Token eyJ.x.y".parse().unwrap());
        headers.insert("accept", "application/json".parse().unwrap());
        let shown = secrets.headers(&headers).to_string();
        for secret in ["s3cret", "key-1", "eyJ.x.y"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("application/json"), "{shown}");
        let path = secrets.path_and_query(
            "/_uploads/t",
            Some("X-Amz-Signature=abc&X-Amz-Credential=k&partNumber=1"),
        );
        assert_eq!(
            path,
            "/_uploads/t?X-Amz-Signature=<redacted>&X-Amz-Credential=<redacted>&partNumber=1"
        );
        let body = serde_json::json!({"user": {"username": "a", "password": "pw"},
            "auth_token": "eyJ", "list": [{"secret_code": "1234"}]});
        let shown = secrets.json(&body).to_string();
        assert!(!shown.contains("pw") && !shown.contains("eyJ"), "{shown}");
        assert!(shown.contains("\"username\":\"a\""), "{shown}");
        let quoted = "user.password: `pw` is too short; pin `1234`; key s3cret; name `a`";
        let scrubbed = secrets.scrub(quoted, &headers, body.to_string().as_bytes());
        assert_eq!(
            scrubbed,
            "user.password: `<redacted>` is too short; pin `<redacted>`; key <redacted>; name `a`"
        );
    }
}
