//! Device debug logs.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use crate::App;
use crate::http::json as answer;

/// Takes any bytes, none included: the log's format and its rules are not documented
/// (service-facts B15), so the sandbox refuses nothing a device could send.
pub(super) async fn device_log(
    State(app): State<Arc<App>>,
    Path(_dev): Path<String>,
    _log: Bytes,
) -> Response {
    app.legacy.lock().await.device_logs += 1;
    answer(StatusCode::OK, &json!({}))
}
