//! What several sandbox test files share: plain HTTP calls with reqwest.
#![allow(dead_code)] // Each test file uses its own share of these.

use serde_json::Value;

use sandbox::Sandbox;

/// Plain HTTP to the sandbox (`path` may carry a query): the whole response. `body`: its
/// content type and text.
pub async fn send(
    sandbox: &Sandbox,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<(&str, String)>,
) -> reqwest::Response {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("http://{}{path}", sandbox.addr);
    let mut request = client.request(method.parse().unwrap(), url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some((content_type, text)) = body {
        request = request.header("content-type", content_type).body(text);
    }
    request.send().await.unwrap()
}

/// Plain HTTP to the sandbox with a JSON body; answers the status and the JSON body (null
/// when empty or not JSON).
/// The headers of the key a default sandbox accepts.
pub const DEMO_KEYS: [(&str, &str); 2] = [
    ("api-key-id", "demo-key"),
    ("api-key-secret", "demo-secret"),
];

/// `GET /v3{path}` with the demo key: the status and the JSON answer.
pub async fn v3_get(sandbox: &Sandbox, path: &str) -> (u16, Value) {
    call(sandbox, "GET", &format!("/v3{path}"), &DEMO_KEYS, None).await
}

pub async fn call(
    sandbox: &Sandbox,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, Value) {
    let body = body.map(|b| ("application/json", b.to_string()));
    read(send(sandbox, method, path, headers, body).await).await
}

/// A response's status and JSON body (null when empty or not JSON).
pub async fn read(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}
pub mod legacy;
