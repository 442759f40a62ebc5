//! The streamable HTTP transport's reading of a POST body before the SDK sees it: at most
//! [`MAX_BODY`] bytes, counted as they arrive (a chunked body too), else 413; a body that
//! is not JSON is a JSON-RPC parse error with 400; a batch (a JSON array) is refused with
//! 400 unless the session speaks 2025-03-26, the one protocol version that had batches.
//! It knows nothing of the MCP SDK: it wraps the service.

use axum::body::Body;
use axum::http::{Method, Request, Response, StatusCode};
use axum::middleware::Next;
use futures_util::StreamExt;

use super::refusal::refusal as error;

/// The largest request body read, in bytes.
pub const MAX_BODY: usize = 4 << 20;

/// The protocol version whose requests may come as a JSON-RPC batch.
const BATCHES: &str = "2025-03-26";

/// The middleware: a POST's body read and checked, then handed on whole.
pub async fn check(request: Request<Body>, next: Next) -> Response<Body> {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let mut read = Vec::new();
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            return error(
                StatusCode::BAD_REQUEST,
                -32700,
                "the request body broke off",
            );
        };
        if read.len() + chunk.len() > MAX_BODY {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32600,
                "the request body is over 4 MiB",
            );
        }
        read.extend_from_slice(&chunk);
    }
    let parsed: Result<serde_json::Value, _> = serde_json::from_slice(&read);
    match parsed {
        Err(e) => {
            let message = format!("Parse error: the body is not JSON ({e})");
            return error(StatusCode::BAD_REQUEST, -32700, &message);
        }
        Ok(serde_json::Value::Array(_)) => {
            let version = parts.headers.get("mcp-protocol-version");
            if version.and_then(|v| v.to_str().ok()) != Some(BATCHES) {
                return error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "Invalid request: a batch of requests is not part of this protocol version (only 2025-03-26 has them)",
                );
            }
        }
        Ok(_) => {}
    }
    next.run(Request::from_parts(parts, Body::from(read))).await
}
