//! Assets: index, show by id or `_<external id>`, find-or-create, update, delete.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::App;
use crate::http::{Reject, error, json as answer};

use super::lists::list_of;
use super::records::index_of;
use super::store::{self, asset_by_ref, object, stamp};
use super::{Pairs, deleted, not_found, wrapped};

pub(super) async fn list_assets(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Result<Response, Reject> {
    list_of(&app, &uri, &q, "assets", |_| true).await
}

/// The numeric id of the asset a path names (by id or `_<external id>`).
fn asset_id(store: &store::LegacyStore, reference: &str) -> Option<String> {
    let asset = asset_by_ref(store, reference)?;
    asset.get("id").and_then(Value::as_str).map(str::to_string)
}

pub(super) async fn get_asset(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let store = app.legacy.lock().await;
    match asset_by_ref(&store, &id) {
        Some(a) => answer(StatusCode::OK, &json!({ "asset": a })),
        None => not_found("Asset", &id),
    }
}

/// Finds the asset with this external id, or creates it (201 either way, as documented).
pub(super) async fn find_or_create_asset(
    State(app): State<Arc<App>>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let input = wrapped(&bytes, "asset")?;
    let Some(external) = input
        .get("external_id")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return Ok(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "asset[external_id] is required",
        ));
    };
    let mut store = app.legacy.lock().await;
    if let Some(found) = asset_by_ref(&store, &format!("_{external}")) {
        return Ok(answer(StatusCode::CREATED, &json!({ "asset": found })));
    }
    let id = store.next_id();
    let mut asset = object(
        json!({ "id": id, "external_id": external, "notations": {}, "photos": [],
        "videos": [], "signatures": [], "damages": [], "created_at": stamp(app.clock.now()) }),
    );
    asset.insert(
        "extended".into(),
        input.get("extended").cloned().unwrap_or(json!({})),
    );
    store.collection("assets").push(asset.clone());
    Ok(answer(StatusCode::CREATED, &json!({ "asset": asset })))
}

pub(super) async fn update_asset(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let changes = wrapped(&bytes, "asset")?;
    let mut store = app.legacy.lock().await;
    let Some(real) = asset_id(&store, &id) else {
        return Ok(not_found("Asset", &id));
    };
    let assets = store.collection("assets");
    let i = index_of(assets, &real).unwrap_or_default();
    assets[i].extend(changes);
    Ok(answer(StatusCode::OK, &json!({ "asset": assets[i] })))
}

pub(super) async fn replace_asset(
    state: State<Arc<App>>,
    path: Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    update_asset(state, path, bytes).await
}

pub(super) async fn delete_asset(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let mut store = app.legacy.lock().await;
    let Some(real) = asset_id(&store, &id) else {
        return not_found("Asset", &id);
    };
    store
        .collection("assets")
        .retain(|a| a.get("id").and_then(Value::as_str) != Some(real.as_str()));
    deleted()
}
