//! Transactions: index (also of one asset), show, create with uploaded media, update,
//! delete, and the summary e-mail.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::App;
use crate::http::{Reject, error, json as answer};

use super::lists::list_of;
use super::nested;
use super::records::{delete_record, get_record, index_of, update_record};
use super::store::asset_by_ref;
use super::store::{LegacyStore, stamp};
use super::{Caller, Pairs, not_found, wrapped};

pub(super) async fn list_transactions(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Result<Response, Reject> {
    list_of(&app, &uri, &q, "transactions", |_| true).await
}

pub(super) async fn list_asset_transactions(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Path(id): Path<String>,
    Query(q): Pairs,
) -> Result<Response, Reject> {
    let asset_id = {
        let store = app.legacy.lock().await;
        match asset_by_ref(&store, &id) {
            Some(a) => a.get("id").cloned().unwrap_or(Value::Null),
            None => return Ok(not_found("Asset", &id)),
        }
    };
    list_of(&app, &uri, &q, "transactions", move |t| {
        t.get("asset").and_then(|a| a.get("id")) == Some(&asset_id)
    })
    .await
}

pub(super) async fn get_transaction(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Response {
    get_record(&app, "transactions", "transaction", "Transaction", &id).await
}

/// Creates a transaction; the media it names (signature images, photos by file id) must
/// have been uploaded by the caller, and become part of it.
pub(super) async fn create_transaction(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let input = wrapped(&bytes, "transaction")?;
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
    let (mut files, videos) = match named_media(&input) {
        Ok(named) => named,
        Err(refused) => return Ok(error(StatusCode::UNPROCESSABLE_ENTITY, refused)),
    };
    let photo_count = files.len();
    files.extend(videos.iter().cloned());
    for f in &files {
        let uploaded = store
            .uploads
            .get(&(caller.id.clone(), f.clone()))
            .is_some_and(|u| u.file.is_some());
        if !uploaded {
            return Ok(error(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("media file {f} has not been uploaded"),
            ));
        }
    }
    let mut transaction = input;
    nested::resolve(&store, "transaction", &mut transaction)?;
    // Where the transaction took place: the location given, else the caller's.
    let user = nested::by_caller(&store, &caller.id, &mut transaction)?.summary();
    let id = store.next_id();
    let media = |f: &String| {
        let size = store
            .uploads
            .get(&(caller.id.clone(), f.clone()))
            .and_then(|u| u.file.as_ref().map(|f| f.size));
        json!({ "id": f, "url": format!("{}/_media/{f}", app.origin),
                "byte_size": size, "created_at": stamp(now) })
    };
    let photos: Vec<Value> = files[..photo_count].iter().map(media).collect();
    let video_records: Vec<Value> = videos.iter().map(media).collect();
    for f in &files {
        if let Some(u) = store.uploads.get_mut(&(caller.id.clone(), f.clone())) {
            u.attached = true;
        }
    }
    transaction.insert("id".into(), json!(id));
    transaction.insert("draft".into(), json!(false));
    transaction.insert("archive_status".into(), json!("active"));
    transaction.insert("created_at".into(), json!(stamp(now)));
    transaction.insert("user".into(), user);
    transaction.insert("photos".into(), json!(photos));
    transaction.insert("videos".into(), json!(video_records));
    latest_on_asset(&mut store, &transaction);
    store.collection("transactions").push(transaction.clone());
    Ok(answer(
        StatusCode::CREATED,
        &json!({ "transaction": transaction }),
    ))
}

/// The uploaded files a new transaction names: its signatures' and ident documents'
/// images and its photos (in that order), and its videos; a photo or video that names no
/// file is refused (422).
fn named_media(input: &Map<String, Value>) -> Result<(Vec<String>, Vec<String>), String> {
    let mut files: Vec<String> = Vec::new();
    for list in ["signatures", "ident_docs"] {
        for item in input
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for key in ["image", "front_image", "back_image"] {
                if let Some(f) = item.get(key).and_then(Value::as_str) {
                    files.push(f.to_string());
                }
            }
        }
    }
    // Photos and videos reference uploaded files: by id, or as an object holding the id.
    let mut videos: Vec<String> = Vec::new();
    for (list, into) in [("photos", &mut files), ("videos", &mut videos)] {
        for (i, item) in input
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let Some(f) = item
                .as_str()
                .or_else(|| item.get("id").and_then(Value::as_str))
            else {
                return Err(format!("{list}[{i}]: expected an uploaded file's id"));
            };
            into.push(f.to_string());
        }
    }
    Ok((files, videos))
}

/// The asset of a new transaction now reads as the transaction left it: at its location,
/// checked in or out, with the transaction as its latest (as the assets index shows).
fn latest_on_asset(store: &mut LegacyStore, transaction: &Map<String, Value>) {
    let Some(asset_id) = transaction
        .get("asset")
        .and_then(|a| a.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return;
    };
    let assets = store.collection("assets");
    let Some(asset) = index_of(assets, &asset_id).map(|i| &mut assets[i]) else {
        return;
    };
    let latest: Map<String, Value> = ["id", "check_in", "damage", "draft", "created_at", "user"]
        .into_iter()
        .filter_map(|k| Some((k.to_string(), transaction.get(k)?.clone())))
        .collect();
    if let Some(location) = transaction.get("location") {
        asset.insert("location".into(), location.clone());
    }
    if let Some(check_in) = transaction.get("check_in") {
        asset.insert("check_in".into(), check_in.clone());
    }
    asset.insert("transaction".into(), Value::Object(latest));
}

pub(super) async fn update_transaction(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    update_record(
        &app,
        "transactions",
        "transaction",
        "Transaction",
        &id,
        &bytes,
    )
    .await
}

pub(super) async fn delete_transaction(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Response {
    delete_record(&app, "transactions", "Transaction", &id).await
}

pub(super) async fn summary_email(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let mut store = app.legacy.lock().await;
    if store.find("transactions", &id).is_none() {
        return not_found("Transaction", &id);
    }
    store.summary_emails += 1;
    answer(StatusCode::OK, &json!({}))
}
