//! Form templates (JSON or PDF) and the forms of a transaction.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use crate::App;
use crate::http::{error, json as answer, pdf, wants_pdf};

use super::not_found;

/// A form of a transaction: the one filled from a form template, named by the template's
/// id (the only forms the sandbox knows); JSON, or a PDF when asked for one. Any other form
/// id is a 404, never a made-up form.
pub(super) async fn transaction_form(
    State(app): State<Arc<App>>,
    Path((id, form_id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let store = app.legacy.lock().await;
    if store.find("transactions", &id).is_none() {
        return not_found("Transaction", &id);
    }
    let Some(template) = template(&store.form_templates, &form_id) else {
        let why = format!("The Form {form_id} of Transaction {id} could not be found");
        return error(StatusCode::NOT_FOUND, why);
    };
    if wants_pdf(&headers) {
        return pdf(crate::pdf::render(&format!(
            "Transaction {id}, form {form_id}"
        )));
    }
    answer(
        StatusCode::OK,
        &json!({ "form": { "id": form_id, "transaction_id": id,
                           "name": template.get("name"), "fields": {} } }),
    )
}

fn template<'s>(templates: &'s [Value], id: &str) -> Option<&'s Value> {
    templates
        .iter()
        .find(|t| t.get("id").and_then(Value::as_str) == Some(id))
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
    let Some(template) = template(&store.form_templates, &id) else {
        return not_found("Form template", &id);
    };
    if wants_pdf(&headers) {
        pdf(crate::pdf::render(&format!("Form template {id}")))
    } else {
        answer(StatusCode::OK, template)
    }
}
