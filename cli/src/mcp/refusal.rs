//! The answer every check of the HTTP transport refuses a request with: an HTTP status and
//! a JSON-RPC error whose `id` is null (the request was not read as one).

use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};

/// `status` with the JSON-RPC error `code` and `message`.
pub fn refusal(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message}
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
