//! Form templates (JSON or PDF) and the forms of a transaction.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use crate::App;
use crate::http::{json as answer, pdf, wants_pdf};

use super::not_found;

pub(super) async fn transaction_form(
    State(app): State<Arc<App>>,
    Path((id, form_id)): Path<(String, String)>,
) -> Response {
    let store = app.legacy.lock().await;
    if store.find("transactions", &id).is_none() {
        return not_found("Transaction", &id);
    }
    answer(
        StatusCode::OK,
        &json!({ "form": { "id": form_id, "transaction_id": id, "fields": {} } }),
    )
}

pub(super) async fn list_form_templates(State(app): State<Arc<App>>) -> Response {
    let store = app.legacy.lock().await;
    answer(
        StatusCode::OK,
        &json!({ "form_templates": store.form_templates }),
    )
}

pub(super) async fn get_form_template(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let store = app.legacy.lock().await;
    let Some(template) = store
        .form_templates
        .iter()
        .find(|t| t.get("id").and_then(Value::as_str) == Some(id.as_str()))
    else {
        return not_found("Form template", &id);
    };
    if wants_pdf(&headers) {
        pdf(crate::pdf::render(&format!("Form template {id}")))
    } else {
        answer(StatusCode::OK, template)
    }
}
