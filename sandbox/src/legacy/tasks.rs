//! Tasks: index, show, create, update (with `task.completed` webhooks), delete.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::App;
use crate::http::{Reject, json as answer};
use crate::webhooks::{self, Interface};

use super::lists::list_of;
use super::nested;
use super::records::{delete_record, get_record, index_of};
use super::store::{LegacyStore, person, stamp};
use super::{Caller, Pairs, not_found, wrapped};

pub(super) async fn list_tasks(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Result<Response, Reject> {
    list_of(&app, &uri, &q, "tasks", |_| true).await
}

pub(super) async fn get_task(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    get_record(&app, "tasks", "task", "Task", &id).await
}

pub(super) async fn create_task(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let mut task = wrapped(&bytes, "task")?;
    let hook = webhooks::take_task_url(&mut task)?;
    let now = stamp(app.clock.now());
    let mut store = app.legacy.lock().await;
    resolve(&store, &mut task)?;
    // As the tasks index shows them: the caller requested it, and it is assigned to the
    // caller and at the caller's location unless the body says otherwise.
    let who = person(nested::by_caller(&store, &caller.id, &mut task)?);
    task.entry("assignee").or_insert_with(|| who.clone());
    task.entry("high_priority").or_insert(json!(false));
    let id = store.next_id();
    if let Some(Some(url)) = hook {
        store.task_webhooks.insert(id.clone(), url);
    }
    task.insert("id".into(), json!(id));
    task.insert("status".into(), json!("idle"));
    task.insert("created_at".into(), json!(now));
    task.insert("updated_at".into(), json!(now));
    task.insert("requester".into(), who.clone());
    task.insert(
        "activities".into(),
        json!([{ "event": "Created Task", "user": who, "created_at": now }]),
    );
    store.collection("tasks").push(task.clone());
    Ok(answer(StatusCode::CREATED, &json!({ "task": task })))
}

/// Like `update_record`, plus the task's `webhook_url` and `task.completed` when the
/// status moves to completed/complete from another.
pub(super) async fn update_task(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let mut changes = wrapped(&bytes, "task")?;
    let hook = webhooks::take_task_url(&mut changes)?;
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
    if store.find("tasks", &id).is_none() {
        return Ok(not_found("Task", &id));
    }
    resolve(&store, &mut changes)?;
    let records = store.collection("tasks");
    let Some(i) = index_of(records, &id) else {
        return Ok(not_found("Task", &id));
    };
    let status =
        |r: &Map<String, Value>| r.get("status").and_then(Value::as_str).map(str::to_string);
    let was_done = webhooks::is_done(status(&records[i]).as_deref());
    records[i].extend(changes);
    records[i].insert("updated_at".into(), json!(stamp(now)));
    let task = records[i].clone();
    match hook {
        Some(Some(url)) => {
            store.task_webhooks.insert(id.clone(), url);
        }
        Some(None) => {
            store.task_webhooks.remove(&id);
        }
        None => {}
    }
    if !was_done && webhooks::is_done(status(&task).as_deref()) {
        // Enqueued under the store lock, so listeners get events in the order they happened.
        let url = store.task_webhooks.get(&id).map(String::as_str);
        let data = Value::Object(task.clone());
        app.webhooks
            .publish(Interface::Legacy, "task.completed", data, now, url);
    }
    Ok(answer(StatusCode::OK, &json!({ "task": task })))
}

/// The nested `asset`, `location` and `assignee` of a task from the ids a body gives
/// (`asset_id`, `location_id`, `assignee_id`); an id naming nothing is a 422 naming it.
fn resolve(store: &LegacyStore, task: &mut Map<String, Value>) -> Result<(), Reject> {
    nested::resolve(store, "task", task)?;
    let Some(given) = task.remove("assignee_id") else {
        return Ok(());
    };
    let id = nested::id_text(&given).unwrap_or_default();
    let account = store.accounts.iter().find(|a| a.id == id).ok_or_else(|| {
        Reject::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("task[assignee_id]: the User {given} could not be found"),
        )
    })?;
    task.insert("assignee".into(), person(account));
    Ok(())
}

pub(super) async fn delete_task(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    delete_record(&app, "tasks", "Task", &id).await
}
