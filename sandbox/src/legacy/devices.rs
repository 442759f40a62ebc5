//! Device debug logs.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use crate::App;
use crate::http::{error, json as answer};

pub(super) async fn device_log(
    State(app): State<Arc<App>>,
    Path(_dev): Path<String>,
    bytes: Bytes,
) -> Response {
    if bytes.is_empty() {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "the log is empty");
    }
    app.legacy.lock().await.device_logs += 1;
    answer(StatusCode::OK, &json!({}))
}
