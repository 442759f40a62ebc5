//! The legacy token interface under `/api`: login and tokens, manager-only operations,
//! records with next/prev links and JSON filters, archive status, uploads to pre-signed
//! URLs served by the sandbox itself, multipart uploads, device logs.

mod bodies;
pub mod store;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, OriginalUri, Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{Next, from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value, json};

use crate::App;
use crate::http::{Reject, encode, error, json as answer, json_content, pdf, tri, wants_pdf};
use crate::webhooks::{self, Interface};
use store::{Account, Multipart, Target, Upload, object, stamp};

use inspection_client::legacy as spec;

/// Who is calling, from their token.
#[derive(Debug, Clone)]
struct Caller {
    id: String,
    manager: bool,
}

type Pairs = Query<HashMap<String, String>>;

/// Transactions whose files are older than this are archived (the default of six months).
const ARCHIVE_AFTER_DAYS: i64 = 182;

pub fn router(app: Arc<App>) -> Router<Arc<App>> {
    let open = Router::new()
        .route("/api/users/authenticate", post(authenticate))
        .route("/api/guest_auth/exchange_token", post(exchange_guest_token))
        .layer(from_fn(json_content));
    let authed = Router::new()
        .route("/api/assets", get(list_assets).post(find_or_create_asset))
        .route(
            "/api/assets/{id}",
            get(get_asset)
                .patch(update_asset)
                .put(replace_asset)
                .delete(delete_asset),
        )
        .route(
            "/api/assets/{id}/transactions",
            get(list_asset_transactions),
        )
        .route("/api/devices/{dev_id}/log", post(device_log))
        .route("/api/form_templates", get(list_form_templates))
        .route("/api/form_templates/{id}", get(get_form_template))
        .route("/api/locations", get(list_locations).post(create_location))
        .route(
            "/api/locations/{id}",
            get(get_location)
                .patch(update_location)
                .put(update_location)
                .delete(delete_location),
        )
        .route("/api/tasks", get(list_tasks).post(create_task))
        .route(
            "/api/tasks/{id}",
            get(get_task)
                .patch(update_task)
                .put(update_task)
                .delete(delete_task),
        )
        .route(
            "/api/transactions",
            get(list_transactions).post(create_transaction),
        )
        .route(
            "/api/transactions/{id}",
            get(get_transaction)
                .patch(update_transaction)
                .put(update_transaction)
                .delete(delete_transaction),
        )
        .route(
            "/api/transactions/{id}/forms/{form_id}",
            get(transaction_form),
        )
        .route(
            "/api/transactions/{id}/send_summary_email",
            post(summary_email),
        )
        .route("/api/users/uploads/{file_id}", get(upload_url))
        .route(
            "/api/users/uploads/{nonce}/{file_id}",
            get(upload_url_with_nonce),
        )
        .route(
            "/api/users/multipart_upload_start/{file_id}",
            post(multipart_start),
        )
        .route(
            "/api/users/multipart_upload_complete/{file_id}",
            post(multipart_complete),
        )
        .route("/api/users", get(list_users).post(create_user))
        .route("/api/users/one_time_user", post(create_one_time_user))
        .route(
            "/api/users/{id}",
            get(get_user)
                .patch(update_user)
                .put(update_user)
                .delete(delete_user),
        )
        .route("/api/users/{id}/reset_password", post(reset_password))
        .route("/api/workflows/{id}", get(get_workflow))
        // The token first (401), then the body's content type (415).
        .layer(from_fn(json_content))
        .layer(from_fn_with_state(app, token_auth));
    open.merge(authed)
        .layer(from_fn(version_1))
        .route("/_uploads/{token}", put(presigned_put))
        .route(
            "/_uploads/multipart/{upload_id}/{part}",
            put(presigned_part),
        )
}

/// Every JSON request must select version 1 through `Accept`, as the public docs show.
async fn version_1(req: Request, next: Next) -> Response {
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if accept.contains("application/pdf") || accept.contains("version=1") {
        next.run(req).await
    } else {
        error(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must be `application/json; version=1`",
        )
    }
}

/// `Authorization: Token <jwt>` from a login; 401 otherwise.
async fn token_auth(State(app): State<Arc<App>>, mut req: Request, next: Next) -> Response {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Token "))
        .map(str::to_string);
    let caller = {
        let store = app.legacy.lock().await;
        token.and_then(|t| {
            store.account_by_token(&t).map(|a| Caller {
                id: a.id.clone(),
                manager: a.manager,
            })
        })
    };
    match caller {
        Some(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        None => error(
            StatusCode::UNAUTHORIZED,
            "The authentication token is missing or not valid",
        ),
    }
}

fn manager_only(caller: &Caller) -> Result<(), Reject> {
    if caller.manager {
        Ok(())
    } else {
        Err(Reject::new(
            StatusCode::FORBIDDEN,
            "This operation requires the manager role",
        ))
    }
}

fn parse_body(bytes: &[u8]) -> Result<Map<String, Value>, Reject> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Reject::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the body must be a JSON object",
        )),
        Err(e) => Err(Reject::new(
            StatusCode::BAD_REQUEST,
            format!("malformed JSON: {e}"),
        )),
    }
}

/// The object under `key` of a wrapped body (`{"asset": {...}}`).
fn wrapped(bytes: &[u8], key: &str) -> Result<Map<String, Value>, Reject> {
    match parse_body(bytes)?.remove(key) {
        Some(Value::Object(map)) => Ok(map),
        _ => Err(Reject::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("`{key}` is required"),
        )),
    }
}

// ---------------------------------------------------------------- login

async fn authenticate(State(app): State<Arc<App>>, bytes: Bytes) -> Response {
    tri!(bodies::conforms::<spec::AuthenticateRequest>(&bytes));
    let user = tri!(wrapped(&bytes, "user"));
    let field = |k: &str| {
        user.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let (username, password) = (field("username"), field("password"));
    let mut store = app.legacy.lock().await;
    let Some(account) = store
        .accounts
        .iter()
        .find(|a| a.username == username && a.password == password)
        .cloned()
    else {
        return error(StatusCode::UNAUTHORIZED, "Invalid username or password");
    };
    let token = store.new_token(&account.id);
    let location = store.location();
    answer(
        StatusCode::OK,
        &json!({ "auth_token": token, "user": account.record(&location) }),
    )
}

async fn exchange_guest_token(State(app): State<Arc<App>>, bytes: Bytes) -> Response {
    let body = tri!(parse_body(&bytes));
    if body.get("guest_token").and_then(Value::as_str) != Some("guest-demo") {
        return error(StatusCode::UNAUTHORIZED, "The guest token is not valid");
    }
    let mut store = app.legacy.lock().await;
    let Some(id) = store
        .accounts
        .iter()
        .find(|a| !a.manager)
        .map(|a| a.id.clone())
    else {
        return error(StatusCode::UNAUTHORIZED, "No guest account");
    };
    let token = store.new_token(&id);
    answer(StatusCode::OK, &json!({ "auth_token": token }))
}

// ---------------------------------------------------------------- lists

/// `records` (in id order) as one page of `{<key>: [...], links: {prev, next}}`.
fn links_page(
    app: &App,
    path: &str,
    key: &str,
    records: Vec<Value>,
    q: &HashMap<String, String>,
) -> Response {
    let limit = match q.get("limit").map(|l| l.parse::<usize>()) {
        None => 25,
        Some(Ok(n)) if (1..=50).contains(&n) => n,
        Some(_) => {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "limit: must be from 1 to 50",
            );
        }
    };
    let id = |v: &Value| {
        v.get("id")
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let bound = |name: &str| q.get(name).map(|v| v.parse::<u64>().map_err(|_| ()));
    let page: Vec<Value> = match (bound("after_id"), bound("before_id")) {
        (Some(Err(())), _) | (_, Some(Err(()))) => {
            return error(
                StatusCode::BAD_REQUEST,
                "after_id and before_id are numeric ids",
            );
        }
        (_, Some(Ok(before))) => {
            let earlier: Vec<Value> = records.iter().filter(|r| id(r) < before).cloned().collect();
            earlier[earlier.len().saturating_sub(limit)..].to_vec()
        }
        (Some(Ok(after)), None) => records
            .iter()
            .filter(|r| id(r) > after)
            .take(limit)
            .cloned()
            .collect(),
        (None, None) => records.iter().take(limit).cloned().collect(),
    };
    let filter = q
        .get("filter")
        .map(|f| format!("&filter={}", encode(f)))
        .unwrap_or_default();
    let link =
        |param: &str, at: u64| format!("{}{path}?{param}={at}&limit={limit}{filter}", app.origin);
    let (first, last) = (page.first().map(id), page.last().map(id));
    let prev = first
        .filter(|f| records.iter().any(|r| id(r) < *f))
        .map(|f| link("before_id", f));
    let next = last
        .filter(|l| records.iter().any(|r| id(r) > *l))
        .map(|l| link("after_id", l));
    answer(
        StatusCode::OK,
        &json!({ key: page, "links": { "prev": prev, "next": next } }),
    )
}

/// The JSON `filter` parameter, if any.
fn filter_of(q: &HashMap<String, String>) -> Result<Map<String, Value>, Reject> {
    match q.get("filter") {
        None => Ok(Map::new()),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(Reject::new(
                StatusCode::BAD_REQUEST,
                "filter: must be a JSON object",
            )),
        },
    }
}

fn time(v: &Value) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Whether `record` passes every filter the docs list.
fn matches(record: &Map<String, Value>, filter: &Map<String, Value>) -> bool {
    let at = |path: &[&str]| {
        let mut v = record.get(path[0])?;
        for p in &path[1..] {
            v = v.get(p)?;
        }
        Some(v)
    };
    filter.iter().all(|(key, want)| match key.as_str() {
        "created_at" => {
            let Some(t) = record.get("created_at").and_then(time) else {
                return false;
            };
            match want {
                Value::Array(range) if range.len() == 2 => {
                    range[0].as_str().is_some()
                        && time(&range[0]).is_some_and(|a| t >= a)
                        && time(&range[1]).is_some_and(|b| t <= b)
                }
                other => time(other).is_some_and(|a| t >= a),
            }
        }
        "reference_number" => at(&["asset", "external_id"]) == Some(want),
        "user_id" => at(&["user", "id"]).or(at(&["assignee", "id"])) == Some(want),
        "location_id" => at(&["location", "id"]) == Some(want),
        "extended" => want.as_object().is_some_and(|fields| {
            fields.iter().all(|(dotted, v)| {
                let mut path = vec!["extended"];
                path.extend(dotted.split('.'));
                at(&path) == Some(v)
            })
        }),
        _ => record.get(key).unwrap_or(&Value::Null) == want,
    })
}

/// A transaction as it reads now: files older than six months are archived.
fn with_archive(mut record: Map<String, Value>, now: DateTime<Utc>) -> Value {
    let old = record
        .get("created_at")
        .and_then(time)
        .is_some_and(|t| now - t > Duration::days(ARCHIVE_AFTER_DAYS));
    if old && record.get("archive_status").and_then(Value::as_str) == Some("active") {
        record.insert("archive_status".into(), json!("archived"));
    }
    Value::Object(record)
}

async fn list_of(
    app: &App,
    uri: &OriginalUri,
    q: &HashMap<String, String>,
    name: &'static str,
    scope: impl Fn(&Map<String, Value>) -> bool,
) -> Response {
    let filter = tri!(filter_of(q));
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
    let records: Vec<Value> = store
        .collection(name)
        .iter()
        .filter(|r| scope(r) && matches(r, &filter))
        .map(|r| {
            if name == "transactions" {
                with_archive(r.clone(), now)
            } else {
                Value::Object(r.clone())
            }
        })
        .collect();
    links_page(app, uri.path(), name, records, q)
}

async fn list_assets(State(app): State<Arc<App>>, uri: OriginalUri, Query(q): Pairs) -> Response {
    list_of(&app, &uri, &q, "assets", |_| true).await
}

async fn list_transactions(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Response {
    list_of(&app, &uri, &q, "transactions", |_| true).await
}

async fn list_asset_transactions(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Path(id): Path<String>,
    Query(q): Pairs,
) -> Response {
    let asset_id = {
        let store = app.legacy.lock().await;
        match asset_by_ref(&store, &id) {
            Some(a) => a.get("id").cloned().unwrap_or(Value::Null),
            None => return not_found("Asset", &id),
        }
    };
    list_of(&app, &uri, &q, "transactions", move |t| {
        t.get("asset").and_then(|a| a.get("id")) == Some(&asset_id)
    })
    .await
}

async fn list_locations(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Response {
    list_of(&app, &uri, &q, "locations", |_| true).await
}

async fn list_tasks(State(app): State<Arc<App>>, uri: OriginalUri, Query(q): Pairs) -> Response {
    list_of(&app, &uri, &q, "tasks", |_| true).await
}

// ---------------------------------------------------------------- records

fn not_found(what: &str, id: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("The {what} {id} could not be found"),
    )
}

/// An asset by numeric id or `_<external id>`.
fn asset_by_ref<'s>(
    store: &'s store::LegacyStore,
    reference: &str,
) -> Option<&'s Map<String, Value>> {
    let assets = store.records.get("assets")?;
    match reference.strip_prefix('_') {
        Some(external) => assets
            .iter()
            .find(|a| a.get("external_id").and_then(Value::as_str) == Some(external)),
        None => assets
            .iter()
            .find(|a| a.get("id").and_then(Value::as_str) == Some(reference)),
    }
}

fn index_of(records: &[Map<String, Value>], id: &str) -> Option<usize> {
    records
        .iter()
        .position(|r| r.get("id").and_then(Value::as_str) == Some(id))
}

async fn get_asset(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let store = app.legacy.lock().await;
    match asset_by_ref(&store, &id) {
        Some(a) => answer(StatusCode::OK, &json!({ "asset": a })),
        None => not_found("Asset", &id),
    }
}

/// Finds the asset with this external id, or creates it (201 either way, as documented).
async fn find_or_create_asset(State(app): State<Arc<App>>, bytes: Bytes) -> Response {
    tri!(bodies::conforms::<spec::NewAssetRequest>(&bytes));
    let input = tri!(wrapped(&bytes, "asset"));
    let Some(external) = input
        .get("external_id")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "asset[external_id] is required",
        );
    };
    let mut store = app.legacy.lock().await;
    if let Some(found) = asset_by_ref(&store, &format!("_{external}")) {
        return answer(StatusCode::CREATED, &json!({ "asset": found }));
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
    answer(StatusCode::CREATED, &json!({ "asset": asset }))
}

async fn update_asset(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::AssetUpdateRequest>(&bytes));
    let changes = tri!(wrapped(&bytes, "asset"));
    let mut store = app.legacy.lock().await;
    let Some(real) = asset_by_ref(&store, &id)
        .and_then(|a| a.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return not_found("Asset", &id);
    };
    let assets = store.collection("assets");
    let i = index_of(assets, &real).unwrap_or_default();
    assets[i].extend(changes);
    answer(StatusCode::OK, &json!({ "asset": assets[i] }))
}

async fn replace_asset(state: State<Arc<App>>, path: Path<String>, bytes: Bytes) -> Response {
    update_asset(state, path, bytes).await
}

async fn delete_asset(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    tri!(manager_only(&caller));
    let mut store = app.legacy.lock().await;
    let Some(real) = asset_by_ref(&store, &id)
        .and_then(|a| a.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return not_found("Asset", &id);
    };
    store
        .collection("assets")
        .retain(|a| a.get("id").and_then(Value::as_str) != Some(real.as_str()));
    StatusCode::NO_CONTENT.into_response()
}

/// GET, PATCH/PUT and DELETE of a plain collection record (locations, tasks, transactions).
async fn get_record(
    app: &App,
    name: &'static str,
    singular: &str,
    label: &str,
    id: &str,
) -> Response {
    let now = app.clock.now();
    let store = app.legacy.lock().await;
    match store.find(name, id) {
        Some(r) if name == "transactions" => answer(
            StatusCode::OK,
            &json!({ singular: with_archive(r.clone(), now) }),
        ),
        Some(r) => answer(StatusCode::OK, &json!({ singular: r })),
        None => not_found(label, id),
    }
}

async fn update_record(
    app: &App,
    name: &'static str,
    singular: &str,
    label: &str,
    id: &str,
    bytes: &[u8],
) -> Response {
    let changes = tri!(wrapped(bytes, singular));
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
    let records = store.collection(name);
    let Some(i) = index_of(records, id) else {
        return not_found(label, id);
    };
    records[i].extend(changes);
    records[i].insert("updated_at".into(), json!(stamp(now)));
    let record = records[i].clone();
    let record = if name == "transactions" {
        with_archive(record, now)
    } else {
        Value::Object(record)
    };
    answer(StatusCode::OK, &json!({ singular: record }))
}

async fn delete_record(app: &App, name: &'static str, label: &str, id: &str) -> Response {
    let mut store = app.legacy.lock().await;
    let records = store.collection(name);
    match index_of(records, id) {
        Some(i) => {
            records.remove(i);
            StatusCode::NO_CONTENT.into_response()
        }
        None => not_found(label, id),
    }
}

async fn get_location(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    get_record(&app, "locations", "location", "Location", &id).await
}

async fn create_location(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Response {
    tri!(manager_only(&caller));
    tri!(bodies::conforms::<spec::LocationRequest>(&bytes));
    let mut location = tri!(wrapped(&bytes, "location"));
    let mut store = app.legacy.lock().await;
    let id = store.next_id();
    location.insert("id".into(), json!(id));
    location.insert("created_at".into(), json!(stamp(app.clock.now())));
    store.collection("locations").push(location.clone());
    answer(StatusCode::CREATED, &json!({ "location": location }))
}

async fn update_location(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Response {
    tri!(manager_only(&caller));
    tri!(bodies::conforms::<spec::LocationRequest>(&bytes));
    update_record(&app, "locations", "location", "Location", &id, &bytes).await
}

async fn delete_location(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    tri!(manager_only(&caller));
    delete_record(&app, "locations", "Location", &id).await
}

async fn get_task(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    get_record(&app, "tasks", "task", "Task", &id).await
}

async fn create_task(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::TaskRequest>(&bytes));
    let mut task = tri!(wrapped(&bytes, "task"));
    let hook = tri!(webhooks::take_task_url(&mut task));
    let now = stamp(app.clock.now());
    let mut store = app.legacy.lock().await;
    let id = store.next_id();
    if let Some(Some(url)) = hook {
        store.task_webhooks.insert(id.clone(), url);
    }
    let who = store.accounts.iter().find(|a| a.id == caller.id).map(|a| json!({ "id": a.id, "email": a.username, "name": format!("{} {}", a.first_name, a.last_name) }));
    task.insert("id".into(), json!(id));
    task.insert("status".into(), json!("idle"));
    task.insert("created_at".into(), json!(now));
    task.insert("updated_at".into(), json!(now));
    task.insert("requester".into(), who.clone().unwrap_or(Value::Null));
    task.insert(
        "activities".into(),
        json!([{ "event": "Created Task", "user": who, "created_at": now }]),
    );
    store.collection("tasks").push(task.clone());
    answer(StatusCode::CREATED, &json!({ "task": task }))
}

/// Like `update_record`, plus the task's `webhook_url` and `task.completed` when the
/// status moves to completed/complete from another.
async fn update_task(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::TaskRequest>(&bytes));
    let mut changes = tri!(wrapped(&bytes, "task"));
    let hook = tri!(webhooks::take_task_url(&mut changes));
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
    let records = store.collection("tasks");
    let Some(i) = index_of(records, &id) else {
        return not_found("Task", &id);
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
    answer(StatusCode::OK, &json!({ "task": task }))
}

async fn delete_task(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    delete_record(&app, "tasks", "Task", &id).await
}

async fn get_transaction(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    get_record(&app, "transactions", "transaction", "Transaction", &id).await
}

/// Creates a transaction; the media it names (signature images, photos by file id) must
/// have been uploaded by the caller, and become part of it.
async fn create_transaction(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::NewTransactionRequest>(&bytes));
    let input = tri!(wrapped(&bytes, "transaction"));
    let now = app.clock.now();
    let mut store = app.legacy.lock().await;
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
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("{list}[{i}]: expected an uploaded file's id"),
                );
            };
            into.push(f.to_string());
        }
    }
    let photo_count = files.len();
    files.extend(videos.iter().cloned());
    for f in &files {
        let uploaded = store
            .uploads
            .get(&(caller.id.clone(), f.clone()))
            .is_some_and(|u| u.bytes.is_some());
        if !uploaded {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("media file {f} has not been uploaded"),
            );
        }
    }
    let asset = input
        .get("asset_id")
        .and_then(Value::as_str)
        .and_then(|a| asset_by_ref(&store, a))
        .map(|a| json!({ "id": a.get("id"), "external_id": a.get("external_id") }));
    let user = store
        .accounts
        .iter()
        .find(|a| a.id == caller.id)
        .map(Account::summary);
    let id = store.next_id();
    let media = |f: &String| json!({ "id": f, "url": format!("{}/_media/{f}", app.origin), "created_at": stamp(now) });
    let photos: Vec<Value> = files[..photo_count].iter().map(media).collect();
    let video_records: Vec<Value> = videos.iter().map(media).collect();
    for f in &files {
        if let Some(u) = store.uploads.get_mut(&(caller.id.clone(), f.clone())) {
            u.attached = true;
        }
    }
    let mut transaction = input;
    transaction.insert("id".into(), json!(id));
    transaction.insert("draft".into(), json!(false));
    transaction.insert("archive_status".into(), json!("active"));
    transaction.insert("created_at".into(), json!(stamp(now)));
    transaction.insert("asset".into(), asset.unwrap_or(Value::Null));
    transaction.insert("user".into(), user.unwrap_or(Value::Null));
    transaction.insert("media".into(), json!(photos));
    transaction.insert("videos".into(), json!(video_records));
    store.collection("transactions").push(transaction.clone());
    answer(StatusCode::CREATED, &json!({ "transaction": transaction }))
}

async fn update_transaction(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::TransactionUpdateRequest>(&bytes));
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

async fn delete_transaction(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    delete_record(&app, "transactions", "Transaction", &id).await
}

async fn transaction_form(
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

async fn summary_email(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let mut store = app.legacy.lock().await;
    if store.find("transactions", &id).is_none() {
        return not_found("Transaction", &id);
    }
    store.summary_emails += 1;
    answer(StatusCode::OK, &json!({}))
}

async fn device_log(
    State(app): State<Arc<App>>,
    Path(_dev): Path<String>,
    bytes: Bytes,
) -> Response {
    if bytes.is_empty() {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "the log is empty");
    }
    app.legacy.lock().await.device_logs += 1;
    answer(StatusCode::OK, &json!({}))
}

async fn list_form_templates(State(app): State<Arc<App>>) -> Response {
    let store = app.legacy.lock().await;
    answer(
        StatusCode::OK,
        &json!({ "form_templates": store.form_templates }),
    )
}

async fn get_form_template(
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

async fn get_workflow(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
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

// ---------------------------------------------------------------- users

/// A user by id, `_<external id>` or `self`.
fn account_by_ref<'s>(
    store: &'s store::LegacyStore,
    caller: &Caller,
    reference: &str,
) -> Option<&'s Account> {
    store.accounts.iter().find(|a| match reference {
        "self" => a.id == caller.id,
        r => match r.strip_prefix('_') {
            Some(external) => a.external_id.as_deref() == Some(external),
            None => a.id == r,
        },
    })
}

async fn list_users(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Response {
    tri!(manager_only(&caller));
    let store = app.legacy.lock().await;
    let location = json!({ "id": 89, "name": "Main Office" });
    let records: Vec<Value> = store.accounts.iter().map(|a| a.record(&location)).collect();
    links_page(&app, uri.path(), "users", records, &q)
}

async fn get_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    let store = app.legacy.lock().await;
    let Some(account) = account_by_ref(&store, &caller, &id) else {
        return not_found("User", &id);
    };
    if account.id != caller.id && !caller.manager {
        return error(
            StatusCode::FORBIDDEN,
            "Reading another user requires the manager role",
        );
    }
    answer(
        StatusCode::OK,
        &json!({ "user": account.record(&store.location()) }),
    )
}

async fn create_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Response {
    tri!(manager_only(&caller));
    tri!(bodies::conforms::<spec::NewUserRequest>(&bytes));
    let input = tri!(wrapped(&bytes, "user"));
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let (Some(username), Some(first_name), Some(last_name)) =
        (text("username"), text("first_name"), text("last_name"))
    else {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "user[username], user[first_name] and user[last_name] are required",
        );
    };
    let mut store = app.legacy.lock().await;
    if store.accounts.iter().any(|a| a.username == username) {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("username {username} is taken"),
        );
    }
    let account = Account {
        id: store.next_id(),
        username,
        password: text("password").unwrap_or_default(),
        manager: text("role").as_deref() == Some("manager"),
        first_name,
        last_name,
        external_id: text("external_id"),
    };
    store.accounts.push(account.clone());
    let token = store.new_token(&account.id);
    answer(
        StatusCode::CREATED,
        &json!({ "auth_token": token, "user": account.record(&store.location()) }),
    )
}

async fn create_one_time_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Response {
    tri!(manager_only(&caller));
    tri!(bodies::conforms::<spec::OneTimeUserRequest>(&bytes));
    let input = tri!(wrapped(&bytes, "user"));
    let Some(email) = input.get("email").and_then(Value::as_str) else {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "user[email] is required");
    };
    let mut store = app.legacy.lock().await;
    let id = store.next_id();
    let mut user = json!({ "id": id, "username": email, "email": email, "transaction_limit": input.get("transaction_limit").cloned().unwrap_or(json!(1)) });
    if let Some(phone) = input.get("phone_number") {
        user["phone_number"] = phone.clone();
    }
    answer(
        StatusCode::CREATED,
        &json!({ "user": user, "url": format!("https://launch.example.com/{id}") }),
    )
}

async fn update_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::UserUpdateRequest>(&bytes));
    let input = tri!(wrapped(&bytes, "user"));
    let mut store = app.legacy.lock().await;
    let Some(target) = account_by_ref(&store, &caller, &id).map(|a| a.id.clone()) else {
        return not_found("User", &id);
    };
    if target != caller.id && !caller.manager {
        return error(
            StatusCode::FORBIDDEN,
            "Updating another user requires the manager role",
        );
    }
    let location = store.location();
    let Some(account) = store.accounts.iter_mut().find(|a| a.id == target) else {
        return not_found("User", &id);
    };
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(v) = text("first_name") {
        account.first_name = v;
    }
    if let Some(v) = text("last_name") {
        account.last_name = v;
    }
    if let Some(v) = text("external_id") {
        account.external_id = Some(v);
    }
    answer(
        StatusCode::OK,
        &json!({ "user": account.record(&location) }),
    )
}

async fn delete_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    tri!(manager_only(&caller));
    let mut store = app.legacy.lock().await;
    let Some(target) = account_by_ref(&store, &caller, &id).map(|a| a.id.clone()) else {
        return not_found("User", &id);
    };
    store.accounts.retain(|a| a.id != target);
    store.tokens.retain(|_, account| *account != target);
    StatusCode::NO_CONTENT.into_response()
}

async fn reset_password(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    tri!(manager_only(&caller));
    let store = app.legacy.lock().await;
    if account_by_ref(&store, &caller, &id).is_none() {
        return not_found("User", &id);
    }
    answer(StatusCode::OK, &json!({}))
}

// ---------------------------------------------------------------- uploads

/// Media types accepted for multipart uploads (the documented list is cut off after these).
const MEDIA_TYPES: &[&str] = &[
    "image/jpeg",
    "image/png",
    "video/mp4",
    "image/heic",
    "image/heif",
    "video/quicktime",
];

async fn upload_url(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(file_id): Path<String>,
) -> Response {
    let mut store = app.legacy.lock().await;
    let key = (caller.id.clone(), file_id.clone());
    let existing = store.uploads.get(&key).cloned();
    if existing.as_ref().is_some_and(|u| u.attached) {
        // Part of a completed transaction: no upload URL any more.
        let u = existing.unwrap_or_default();
        return answer(
            StatusCode::OK,
            &json!({ "id": file_id, "type": u.content_type, "size": u.bytes.map(|b| b.len()) }),
        );
    }
    let token = format!("up{}", store.next_id());
    store.presigned.insert(
        token.clone(),
        Target {
            owner: caller.id.clone(),
            file_id: file_id.clone(),
        },
    );
    let upload_url = format!("{}/_uploads/{token}?X-Amz-Expires=900", app.origin);
    match existing {
        Some(u) => answer(
            StatusCode::OK,
            &json!({ "id": file_id, "upload_url": upload_url,
            "type": u.content_type, "size": u.bytes.map(|b| b.len()).unwrap_or(0) }),
        ),
        None => {
            store.uploads.insert(key, Upload::default());
            answer(
                StatusCode::OK,
                &json!({ "id": file_id, "upload_url": upload_url }),
            )
        }
    }
}

async fn upload_url_with_nonce(
    state: State<Arc<App>>,
    caller: Extension<Caller>,
    Path((_nonce, file_id)): Path<(String, String)>,
) -> Response {
    upload_url(state, caller, Path(file_id)).await
}

async fn multipart_start(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(file_id): Path<String>,
    Query(q): Pairs,
) -> Response {
    let parts = match q.get("part_count").map(|p| p.parse::<u32>()) {
        Some(Ok(n)) if (1..=20).contains(&n) => n,
        _ => {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "part_count: must be between 1 and 20",
            );
        }
    };
    let content_type = q.get("content_type").cloned();
    if let Some(ct) = &content_type
        && !MEDIA_TYPES.contains(&ct.as_str())
    {
        return error(
            StatusCode::BAD_REQUEST,
            format!("content_type: {ct} is not a supported media type"),
        );
    }
    let mut store = app.legacy.lock().await;
    // An unfinished upload of the same file resumes under the same upload id.
    let existing = store
        .multiparts
        .iter()
        .find(|(_, m)| m.owner == caller.id && m.file_id == file_id && m.part_count == parts)
        .map(|(id, _)| id.clone());
    let upload_id = match existing {
        Some(id) => id,
        None => {
            let id = format!("mpu-{}", store.next_id());
            store.multiparts.insert(
                id.clone(),
                Multipart {
                    owner: caller.id.clone(),
                    file_id: file_id.clone(),
                    part_count: parts,
                    content_type,
                    parts: Default::default(),
                },
            );
            id
        }
    };
    let urls: Vec<String> = (1..=parts)
        .map(|n| {
            format!(
                "{}/_uploads/multipart/{upload_id}/{n}?partNumber={n}&uploadId={upload_id}",
                app.origin
            )
        })
        .collect();
    answer(
        StatusCode::OK,
        &json!({ "id": file_id, "upload_id": upload_id,
        "key": format!("users/{}/{file_id}", caller.id), "presigned_urls": urls }),
    )
}

async fn multipart_complete(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(file_id): Path<String>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::CompleteMultipartUploadRequest>(
        &bytes
    ));
    let body = tri!(parse_body(&bytes));
    let Some(upload_id) = body.get("upload_id").and_then(Value::as_str) else {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "upload_id is required");
    };
    let mut store = app.legacy.lock().await;
    let Some(upload) = store.multiparts.get(upload_id).cloned() else {
        return error(
            StatusCode::NOT_FOUND,
            format!("The upload {upload_id} could not be found"),
        );
    };
    if upload.owner != caller.id || upload.file_id != file_id {
        return error(
            StatusCode::NOT_FOUND,
            format!("The upload {upload_id} could not be found"),
        );
    }
    let listed: Vec<(u64, String)> = body
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            Some((
                p.get("part_number")?.as_u64()?,
                p.get("etag")?.as_str()?.to_string(),
            ))
        })
        .collect();
    if listed.len() != upload.part_count as usize {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("expected {} parts, got {}", upload.part_count, listed.len()),
        );
    }
    let mut assembled = Vec::new();
    for (n, etag) in &listed {
        match upload.parts.get(&(*n as u32)) {
            Some((stored, part)) if stored == etag => assembled.extend_from_slice(part),
            Some(_) => {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("part {n}: the ETag does not match"),
                );
            }
            None => {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("part {n} was not uploaded"),
                );
            }
        }
    }
    store.multiparts.remove(upload_id);
    let size = assembled.len();
    let checksum = etag_of(&assembled);
    store.uploads.insert(
        (caller.id.clone(), file_id.clone()),
        Upload {
            bytes: Some(assembled),
            content_type: upload.content_type,
            attached: false,
        },
    );
    answer(
        StatusCode::OK,
        &json!({ "id": file_id, "location": format!("{}/_media/{file_id}", app.origin),
        "etag": checksum, "filesize": size, "checksum": checksum.trim_matches('"') }),
    )
}

/// A cheap content hash for ETags (FNV-1a); the sandbox needs stability, not security.
fn etag_of(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("\"{h:016x}\"")
}

fn carries_credentials(headers: &HeaderMap) -> bool {
    headers.contains_key(header::AUTHORIZATION)
        || headers.contains_key("api-key-id")
        || headers.contains_key("api-key-secret")
}

/// The pre-signed upload URL: no token needed (nor wanted).
async fn presigned_put(
    State(app): State<Arc<App>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let mut store = app.legacy.lock().await;
    if carries_credentials(&headers) {
        store.presigned_with_credentials += 1;
    }
    let Some(Target { owner, file_id }) = store.presigned.get(&token).cloned() else {
        return error(StatusCode::FORBIDDEN, "This upload URL is not valid");
    };
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let etag = etag_of(&bytes);
    let upload = store.uploads.entry((owner, file_id)).or_default();
    upload.bytes = Some(bytes.to_vec());
    upload.content_type = content_type;
    (StatusCode::OK, [(header::ETAG, etag)]).into_response()
}

async fn presigned_part(
    State(app): State<Arc<App>>,
    Path((upload_id, part)): Path<(String, u32)>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let mut store = app.legacy.lock().await;
    if carries_credentials(&headers) {
        store.presigned_with_credentials += 1;
    }
    let Some(upload) = store.multiparts.get_mut(&upload_id) else {
        return error(StatusCode::FORBIDDEN, "This upload URL is not valid");
    };
    if part == 0 || part > upload.part_count {
        return error(
            StatusCode::BAD_REQUEST,
            format!("part {part} is out of range"),
        );
    }
    let etag = etag_of(&bytes);
    upload.parts.insert(part, (etag.clone(), bytes.to_vec()));
    (StatusCode::OK, [(header::ETAG, etag)]).into_response()
}

/// Test hooks: everything the legacy tests need to see or change from outside.
impl crate::Sandbox {
    /// Forgets every legacy token, as if they expired: the next call gets a 401.
    pub async fn revoke_legacy_tokens(&self) {
        self.app.legacy.lock().await.tokens.clear();
    }

    /// Tokens handed out and still valid (each login adds one).
    pub async fn legacy_token_count(&self) -> usize {
        self.app.legacy.lock().await.tokens.len()
    }

    /// The bytes of a user's uploaded (or assembled) file.
    pub async fn legacy_file(&self, user_id: &str, file_id: &str) -> Option<Vec<u8>> {
        let store = self.app.legacy.lock().await;
        store
            .uploads
            .get(&(user_id.to_string(), file_id.to_string()))?
            .bytes
            .clone()
    }

    /// Pre-signed requests that arrived carrying a credential.
    pub async fn presigned_with_credentials(&self) -> u64 {
        self.app.legacy.lock().await.presigned_with_credentials
    }

    /// Device logs and summary e-mails received.
    pub async fn legacy_counts(&self) -> (u64, u64) {
        let store = self.app.legacy.lock().await;
        (store.device_logs, store.summary_emails)
    }
}
