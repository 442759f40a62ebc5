//! Workflows.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use crate::App;
use crate::http::json as answer;

use super::not_found;

pub(super) async fn get_workflow(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let store = app.legacy.lock().await;
    match store
        .workflows
        .iter()
        .find(|w| w.get("id").and_then(Value::as_str) == Some(id.as_str()))
    {
        Some(w) => answer(StatusCode::OK, w),
        None => not_found("Workflow", &id),
    }
}
