//! GET, PATCH/PUT and DELETE of a plain collection record (locations, tasks, transactions).

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::App;
use crate::http::json as answer;

use super::archive;
use super::nested;
use super::store::stamp;
use super::{deleted, not_found, wrapped};
use crate::http::Reject;

pub(super) fn index_of(records: &[Map<String, Value>], id: &str) -> Option<usize> {
    records
        .iter()
        .position(|r| r.get("id").and_then(Value::as_str) == Some(id))
}

/// GET, PATCH/PUT and DELETE of a plain collection record (locations, tasks, transactions).
pub(super) async fn get_record(
    app: &App,
    name: &'static str,
    singular: &str,
    label: &str,
    id: &str,
) -> Response {
    let now = app.clock.now();
    let store = app.legacy.lock().await;
    match store.find(name, id) {
        Some(r) => {
            let record = archive::read(&store, name, r.clone(), now);
            answer(StatusCode::OK, &json!({ singular: record }))
        }
        None => not_found(label, id),
    }
}

pub(super) async fn update_record(
    app: &App,
    name: &'static str,
    singular: &str,
    label: &str,
    id: &str,
    bytes: &[u8],
) -> Result<Response, Reject> {
    let mut changes = wrapped(bytes, singular)?;
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
    if store.find(name, id).is_none() {
        return Ok(not_found(label, id));
    }
    if name == "transactions" {
        nested::resolve(&store, singular, &mut changes)?;
    }
    let records = store.collection(name);
    let Some(i) = index_of(records, id) else {
        return Ok(not_found(label, id));
    };
    records[i].extend(changes);
    records[i].insert("updated_at".into(), json!(stamp(now)));
    let record = records[i].clone();
    let record = archive::read(&store, name, record, now);
    Ok(answer(StatusCode::OK, &json!({ singular: record })))
}

pub(super) async fn delete_record(
    app: &App,
    name: &'static str,
    label: &str,
    id: &str,
) -> Response {
    let mut store = app.legacy.lock().await;
    let records = store.collection(name);
    match index_of(records, id) {
        Some(i) => {
            records.remove(i);
            deleted()
        }
        None => not_found(label, id),
    }
}
