//! What several sandbox test files share: plain HTTP calls with reqwest.

use serde_json::Value;

use sandbox::Sandbox;

/// Plain HTTP to the sandbox (`path` may carry a query): the whole response.
pub async fn send(
    sandbox: &Sandbox,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> reqwest::Response {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("http://{}{path}", sandbox.addr);
    let mut request = client.request(method.parse().unwrap(), url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    request.send().await.unwrap()
}

/// Plain HTTP to the sandbox; answers the status and the JSON body (null when empty or not
/// JSON).
pub async fn call(
    sandbox: &Sandbox,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, Value) {
    let response = send(sandbox, method, path, headers, body).await;
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, body)
}
