//! Calls the IR-driven sandbox tests share: a sandbox without rate limits, v3 and legacy
//! calls, and paths and statuses read from `generated/ir.json`.

use serde_json::{Value, json};

use sandbox::{Options, Sandbox};

use super::common;

pub const KEYS: [(&str, &str); 2] = [
    ("api-key-id", "demo-key"),
    ("api-key-secret", "demo-secret"),
];

/// The IR the generator wrote, read here as plain JSON (not through the sandbox's reader).
pub const IR: &str = include_str!("../../../generated/ir.json");

/// A sandbox without rate limits: these tests send many requests.
pub async fn start() -> Sandbox {
    Sandbox::start(Options {
        rate_limit: None,
        legacy_rate_limit: None,
        ..Options::default()
    })
    .await
    .unwrap()
}

/// A logged-in legacy caller's token.
pub async fn login(sandbox: &Sandbox, (username, password): (&str, &str)) -> String {
    let body = json!({ "user": { "username": username, "password": password } });
    let (status, answer) = legacy(sandbox, "", "POST", "/api/users/authenticate", body).await;
    assert_eq!(status, 200, "{answer}");
    answer["auth_token"].as_str().unwrap().to_string()
}

pub async fn legacy(
    sandbox: &Sandbox,
    token: &str,
    method: &str,
    path: &str,
    body: Value,
) -> (u16, Value) {
    let body = (method != "GET").then_some(body);
    let auth = format!("Token {token}");
    let mut headers = vec![("accept", "application/json; version=1")];
    if !token.is_empty() {
        headers.push(("authorization", auth.as_str()));
    }
    common::call(sandbox, method, path, &headers, body).await
}

pub fn statuses(errors: &Value) -> Vec<u64> {
    errors
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_u64().unwrap())
        .collect()
}

/// A path template with every `{param}` filled in (any value: the body is refused first).
pub fn fill(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').unwrap() + open;
        out.push_str("x1");
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}
