//! The webhook test controls under `/_sandbox/`: register and drop listeners, emit a raw
//! event, and create an inspection as the mobile app would (which sends
//! `inspection.created`).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{Header, Interface};
use crate::App;
use crate::http::{Reject, error, json as answer};

/// `POST /_sandbox/webhooks`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Registration {
    interface: Interface,
    url: String,
    header: Option<HeaderField>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderField {
    name: String,
    value: String,
}

/// `POST /_sandbox/webhooks/emit`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Emit {
    interface: Interface,
    /// Any JSON value, delivered unchanged.
    event: Value,
}

pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/_sandbox/webhooks", post(register).delete(unregister))
        .route("/_sandbox/webhooks/emit", post(emit))
        .route("/_sandbox/v3/inspections", post(new_inspection))
    // No auth, no recording: these are test controls like the others under /_sandbox/.
}

/// The body as `T`, or a 400 showing the expected shape.
fn read<T: DeserializeOwned>(bytes: &[u8], shape: &str) -> Result<T, Reject> {
    serde_json::from_slice(bytes)
        .map_err(|e| Reject::new(StatusCode::BAD_REQUEST, format!("expected {shape}: {e}")))
}

/// `POST /_sandbox/webhooks`: adds a listener for one interface; answers `{"listeners": N}`.
async fn register(State(app): State<Arc<App>>, bytes: Bytes) -> Result<Response, Reject> {
    let r: Registration = read(
        &bytes,
        r#"{"interface": "v3" | "legacy", "url": "http://127.0.0.1:PORT/...", "header": {"name", "value"}} (header optional)"#,
    )?;
    let header = match r.header.map(|h| Header::new(&h.name, &h.value)).transpose() {
        Ok(h) => h,
        Err(e) => return Ok(error(StatusCode::BAD_REQUEST, format!("header: {e}"))),
    };
    match app.webhooks.register(r.interface, &r.url, header) {
        Ok(n) => Ok(answer(StatusCode::OK, &json!({ "listeners": n }))),
        Err(e) => Ok(error(StatusCode::BAD_REQUEST, e)),
    }
}

/// `DELETE /_sandbox/webhooks`: drops every registered listener (`--webhook` ones stay).
async fn unregister(State(app): State<Arc<App>>) -> Response {
    app.webhooks.unregister_all();
    StatusCode::NO_CONTENT.into_response()
}

/// `POST /_sandbox/webhooks/emit`: delivers `event` unchanged to the interface's listeners.
async fn emit(State(app): State<Arc<App>>, bytes: Bytes) -> Result<Response, Reject> {
    let e: Emit = read(
        &bytes,
        r#"{"interface": "v3" | "legacy", "event": <any JSON value>}"#,
    )?;
    let n = app.webhooks.emit(e.interface, &e.event);
    Ok(answer(StatusCode::OK, &json!({ "listeners": n })))
}

/// `POST /_sandbox/v3/inspections`: a new inspection like `ins_demo_full`, a fresh id,
/// created now; answers it (201) and sends `inspection.created` to the v3 listeners.
async fn new_inspection(State(app): State<Arc<App>>) -> Response {
    let now = app.clock.now();
    let mut store = app.store().lock().await;
    let id = store.new_id("ins");
    let inspection = crate::demo::full_inspection(&id, now, &app.origin);
    // Delivered and answered as `get_inspection` answers it (the event's documented
    // `data`): with a link to its PDF signed now; the stored record keeps none.
    let answered = app.storage.linked(&inspection, now);
    store.push_inspection(inspection);
    let data = serde_json::to_value(&answered).unwrap_or(Value::Null);
    // Enqueued under the store lock, so listeners see events in the order they happened.
    app.webhooks
        .publish(Interface::V3, "inspection.created", data, now, None);
    drop(store);
    answer(StatusCode::CREATED, &answered)
}
