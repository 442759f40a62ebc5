//! Locations: index, show, create, update, delete (changes are manager only).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use crate::App;
use crate::http::json as answer;

use super::lists::list_of;
use super::records::{delete_record, get_record, update_record};
use super::store::stamp;
use super::{Pairs, wrapped};
use crate::http::Reject;

pub(super) async fn list_locations(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Result<Response, Reject> {
    list_of(&app, &uri, &q, "locations", |_| true).await
}

pub(super) async fn get_location(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    get_record(&app, "locations", "location", "Location", &id).await
}

pub(super) async fn create_location(
    State(app): State<Arc<App>>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let mut location = wrapped(&bytes, "location")?;
    let mut store = app.legacy.lock().await;
    let id = store.next_id();
    location.insert("id".into(), json!(id));
    location.insert("created_at".into(), json!(stamp(app.clock.now())));
    store.collection("locations").push(location.clone());
    Ok(answer(
        StatusCode::CREATED,
        &json!({ "location": location }),
    ))
}

pub(super) async fn update_location(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    update_record(&app, "locations", "location", "Location", &id, &bytes).await
}

pub(super) async fn delete_location(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Response {
    delete_record(&app, "locations", "Location", &id).await
}
