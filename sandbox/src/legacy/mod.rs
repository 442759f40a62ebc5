//! The legacy token interface under `/api`: login and tokens, manager-only operations,
//! records with next/prev links and JSON filters, archive status, uploads to pre-signed
//! URLs served by the sandbox itself, multipart uploads, device logs.

pub(crate) mod archive;
mod assets;
mod auth;
mod devices;
mod forms;
mod lists;
mod locations;
mod nested;
mod presigned;
mod records;
pub(crate) mod spill;
pub mod store;
mod tasks;
mod transactions;
mod uploads;
mod users;
mod workflows;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{Next, from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::put;
use serde_json::{Map, Value};

use crate::App;
use crate::http::strict::{self, PathStyle, Probe};
use crate::http::{Reject, error, legacy_rate_limit};
use crate::ir::Ir;
use crate::routes::{self, handlers};

/// Who is calling, from their token.
#[derive(Debug, Clone)]
struct Caller {
    id: String,
    manager: bool,
}

type Pairs = Query<HashMap<String, String>>;

handlers! {
    "authenticate" => auth::authenticate,
    "exchange_guest_token" => auth::exchange_guest_token,
    "list_assets" => assets::list_assets,
    "find_or_create_asset" => assets::find_or_create_asset,
    "get_asset" => assets::get_asset,
    "update_asset" => assets::update_asset,
    "replace_asset" => assets::replace_asset,
    "delete_asset" => assets::delete_asset,
    "list_asset_transactions" => transactions::list_asset_transactions,
    "upload_device_log" => devices::device_log,
    "list_form_templates" => forms::list_form_templates,
    "get_form_template" => forms::get_form_template,
    "list_locations" => locations::list_locations,
    "create_location" => locations::create_location,
    "get_location" => locations::get_location,
    "update_location" => locations::update_location,
    "replace_location" => locations::update_location,
    "delete_location" => locations::delete_location,
    "list_tasks" => tasks::list_tasks,
    "create_task" => tasks::create_task,
    "get_task" => tasks::get_task,
    "update_task" => tasks::update_task,
    "replace_task" => tasks::update_task,
    "delete_task" => tasks::delete_task,
    "list_transactions" => transactions::list_transactions,
    "create_transaction" => transactions::create_transaction,
    "get_transaction" => transactions::get_transaction,
    "update_transaction" => transactions::update_transaction,
    "replace_transaction" => transactions::update_transaction,
    "delete_transaction" => transactions::delete_transaction,
    "get_transaction_form" => forms::transaction_form,
    "send_transaction_summary_email" => transactions::summary_email,
    "get_upload_url" => uploads::upload_url,
    "get_upload_url_with_nonce" => uploads::upload_url_with_nonce,
    "start_multipart_upload" => uploads::multipart_start,
    "complete_multipart_upload" => uploads::multipart_complete,
    "list_users" => users::list_users,
    "create_user" => users::create_user,
    "create_one_time_user" => users::create_one_time_user,
    "get_user" => users::get_user,
    "update_user" => users::update_user,
    "replace_user" => users::update_user,
    "delete_user" => users::delete_user,
    "reset_user_password" => users::reset_password,
    "get_workflow" => workflows::get_workflow,
}

/// The legacy operations of `ir` (their paths start with `/api`), and the pre-signed
/// upload URLs the sandbox serves in the storage service's place.
pub fn router(app: Arc<App>, ir: &Arc<Ir>) -> Router<Arc<App>> {
    let probe = app.clone();
    let probe = Probe(Arc::new(move |extensions, named, id| {
        let app = probe.clone();
        Box::pin(async move { missing(&app, extensions.get::<Caller>(), &named, &id).await })
    }));
    let routes = routes::of(ir, "legacy", PathStyle::Bracketed, handler, probe);
    // The token first (401); each route then checks its body's content type (415), then
    // its request's shape.
    let api = routes.open.merge(
        routes
            .authed
            .layer(from_fn_with_state(app.clone(), token_auth)),
    );
    // Outermost: the rate limit counts every /api request (not the pre-signed uploads,
    // which are the storage service's in the real service).
    api.layer(from_fn(version_1))
        .layer(from_fn_with_state(app, legacy_rate_limit))
        .route("/_uploads/{token}", put(presigned::presigned_put))
        .route(
            "/_uploads/multipart/{upload_id}/{part}",
            put(presigned::presigned_part),
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
            req.extensions_mut()
                .insert(strict::MayManage(caller.manager));
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        None => error(
            StatusCode::UNAUTHORIZED,
            "The authentication token is missing or not valid",
        ),
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

/// A delete's answer: 200, the status the spec lists (its body is not shown; none here).
fn deleted() -> Response {
    StatusCode::OK.into_response()
}

/// The record a write's path names, if the sandbox keeps none by that reference (see
/// [`Probe`]), by the parameter's type.
async fn missing(
    app: &App,
    caller: Option<&Caller>,
    named: &str,
    id: &str,
) -> Option<&'static str> {
    let store = app.legacy.lock().await;
    let (label, found) = match named {
        "AssetRef" => ("Asset", store::asset_by_ref(&store, id).is_some()),
        "LocationId" => ("Location", store.find("locations", id).is_some()),
        "TaskId" => ("Task", store.find("tasks", id).is_some()),
        "TransactionId" => ("Transaction", store.find("transactions", id).is_some()),
        // A file's multipart upload, which only its owner may complete.
        "FileId" => {
            let mut started = store.multiparts.values();
            let found = caller.is_some_and(|c| started.any(|m| m.owner == c.id && m.file_id == id));
            ("upload of file", found)
        }
        "UserPathRef" => {
            let found = caller.is_some_and(|c| users::account_by_ref(&store, c, id).is_some());
            ("User", found)
        }
        _ => return None,
    };
    (!found).then_some(label)
}

fn not_found(what: &str, id: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("The {what} {id} could not be found"),
    )
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
        let file = {
            let store = self.app.legacy.lock().await;
            let key = (user_id.to_string(), file_id.to_string());
            store.uploads.get(&key)?.file.clone()?
        };
        tokio::fs::read(file.path()).await.ok()
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
