//! Answers every route gives: `{"errors": ...}` refusals, JSON, PDFs, a body read and
//! checked, 413s.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::limits::BODY_LIMIT;

/// A refused request: its status and the message of its `{"errors": ...}` body. Small,
/// so helpers can return it in a `Result`.
#[derive(Debug)]
pub struct Reject(pub StatusCode, pub String);

impl Reject {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Reject(status, message.into())
    }
}

impl IntoResponse for Reject {
    fn into_response(self) -> Response {
        error(self.0, self.1)
    }
}

/// `{"errors": message}` with `status`.
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let body = serde_json::json!({ "errors": message.into() });
    (status, axum::Json(body)).into_response()
}

pub fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => (status, [(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot encode: {e}"),
        ),
    }
}

pub fn pdf(bytes: Vec<u8>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/pdf")],
        bytes,
    )
        .into_response()
}

/// Reads a JSON body as `T` and checks its documented limits: malformed JSON is a 400,
/// a value of the wrong shape or a broken limit a 422. (`strict` has already held the
/// body to the spec's types; what is left here is formats, such as a date, and limits.)
pub fn body<T: DeserializeOwned + inspection_client::runtime::Validate>(
    bytes: &[u8],
) -> Result<T, Reject> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = e.inner();
        if inner.is_syntax() || inner.is_eof() {
            Reject::new(StatusCode::BAD_REQUEST, format!("malformed JSON: {inner}"))
        } else {
            let path = e.path().to_string();
            Reject::new(StatusCode::UNPROCESSABLE_ENTITY, format!("{path}: {inner}"))
        }
    })?;
    value
        .validate()
        .map_err(|v| Reject::new(StatusCode::UNPROCESSABLE_ENTITY, v.to_string()))?;
    Ok(value)
}

/// 413, for a body over `BODY_LIMIT`.
pub fn too_large() -> Response {
    too_large_for("the request body", BODY_LIMIT as u64)
}

/// 413, for `what` over `limit` bytes.
pub fn too_large_for(what: &str, limit: u64) -> Response {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("{what} is larger than the limit of {limit} bytes"),
    )
}

/// Whether the client asked for a PDF.
pub fn wants_pdf(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/pdf"))
}
