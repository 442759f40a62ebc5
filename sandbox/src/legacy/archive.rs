//! The archive state of a transaction's files, as seed 001 gives it: `active` until the
//! files are six months old (the default), then `archived`: still available, but to be
//! restored on request. How a restore is requested is not shown (the spec has no operation
//! for it), so the sandbox offers one among its controls, `POST
//! /_sandbox/legacy/transactions/{id}/restore`: the transaction reads `restoring` until the
//! restore time has passed on the sandbox clock, then `restored`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value, json};

use crate::App;
use crate::http::{error, json as answer};

use super::not_found;
use super::store::{LegacyStore, stamp, time};

/// Transactions whose files are older than this are archived (the default of six months).
const ARCHIVE_AFTER_DAYS: i64 = 182;

/// How long a restore takes on the sandbox clock unless the request says (`seconds`).
const RESTORE_SECONDS: i64 = 60;

/// A record of collection `name` as it reads now: a transaction with the archive state of
/// its files, any other record as stored.
pub(super) fn read(
    store: &LegacyStore,
    name: &str,
    mut record: Map<String, Value>,
    now: DateTime<Utc>,
) -> Map<String, Value> {
    if name == "transactions" {
        let state = state(store, &record, now);
        record.insert("archive_status".into(), json!(state));
    }
    record
}

fn state(store: &LegacyStore, record: &Map<String, Value>, now: DateTime<Utc>) -> String {
    let id = record.get("id").and_then(Value::as_str).unwrap_or_default();
    if let Some(ready) = store.restores.get(id) {
        return if now >= *ready {
            "restored"
        } else {
            "restoring"
        }
        .into();
    }
    let stored = record.get("archive_status").and_then(Value::as_str);
    let old = record
        .get("created_at")
        .and_then(time)
        .is_some_and(|t| now - t > Duration::days(ARCHIVE_AFTER_DAYS));
    match stored {
        Some("active") | None if old => "archived".into(),
        other => other.unwrap_or("active").into(),
    }
}

/// `POST /_sandbox/legacy/transactions/{id}/restore[?seconds=N]`: restores an archived
/// transaction's files: `restoring` now, `restored` N seconds later on the sandbox clock
/// (60 by default). 202 with the state and when it ends; asked again while restoring, the
/// same; 404 for no such transaction, 409 when its files are not archived.
pub(crate) async fn restore(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let seconds = match q.get("seconds").map(|s| s.parse::<i64>()) {
        None => RESTORE_SECONDS,
        Some(Ok(n)) if (0..=86_400 * 365).contains(&n) => n,
        Some(_) => {
            return error(
                StatusCode::BAD_REQUEST,
                "seconds: must be a number of seconds from 0 to a year",
            );
        }
    };
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
    let Some(record) = store.find("transactions", &id).cloned() else {
        return not_found("Transaction", &id);
    };
    let ready = match state(&store, &record, now).as_str() {
        "archived" => {
            let ready = now + Duration::seconds(seconds);
            store.restores.insert(id.clone(), ready);
            ready
        }
        "restoring" => store.restores[&id],
        other => {
            return error(
                StatusCode::CONFLICT,
                format!(
                    "The files of Transaction {id} are {other}, not archived: there is nothing to restore"
                ),
            );
        }
    };
    answer(
        StatusCode::ACCEPTED,
        &json!({ "id": id, "archive_status": "restoring", "restored_at": stamp(ready) }),
    )
}
