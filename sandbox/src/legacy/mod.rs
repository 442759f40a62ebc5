//! The legacy token interface under `/api`: login and tokens, manager-only operations,
//! records with next/prev links and JSON filters, archive status, uploads to pre-signed
//! URLs served by the sandbox itself, multipart uploads, device logs.

pub(crate) mod archive;
mod assets;
mod auth;
mod bodies;
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
use axum::routing::{get, post, put};
use serde_json::{Map, Value};

use crate::App;
use crate::http::{Reject, error, json_content, legacy_rate_limit, strict};

use inspection_client::legacy as spec;

/// Who is calling, from their token.
#[derive(Debug, Clone)]
struct Caller {
    id: String,
    manager: bool,
}

type Pairs = Query<HashMap<String, String>>;

pub fn router(app: Arc<App>) -> Router<Arc<App>> {
    let open = Router::new()
        .route("/api/users/authenticate", post(auth::authenticate))
        .route(
            "/api/guest_auth/exchange_token",
            post(auth::exchange_guest_token),
        )
        .layer(from_fn(strict_requests))
        .layer(from_fn(json_content));
    let authed = Router::new()
        .route(
            "/api/assets",
            get(assets::list_assets).post(assets::find_or_create_asset),
        )
        .route(
            "/api/assets/{id}",
            get(assets::get_asset)
                .patch(assets::update_asset)
                .put(assets::replace_asset)
                .delete(assets::delete_asset),
        )
        .route(
            "/api/assets/{id}/transactions",
            get(transactions::list_asset_transactions),
        )
        .route("/api/form_templates", get(forms::list_form_templates))
        .route("/api/form_templates/{id}", get(forms::get_form_template))
        .route(
            "/api/locations",
            get(locations::list_locations).post(locations::create_location),
        )
        .route(
            "/api/locations/{id}",
            get(locations::get_location)
                .patch(locations::update_location)
                .put(locations::update_location)
                .delete(locations::delete_location),
        )
        .route(
            "/api/tasks",
            get(tasks::list_tasks).post(tasks::create_task),
        )
        .route(
            "/api/tasks/{id}",
            get(tasks::get_task)
                .patch(tasks::update_task)
                .put(tasks::update_task)
                .delete(tasks::delete_task),
        )
        .route(
            "/api/transactions",
            get(transactions::list_transactions).post(transactions::create_transaction),
        )
        .route(
            "/api/transactions/{id}",
            get(transactions::get_transaction)
                .patch(transactions::update_transaction)
                .put(transactions::update_transaction)
                .delete(transactions::delete_transaction),
        )
        .route(
            "/api/transactions/{id}/forms/{form_id}",
            get(forms::transaction_form),
        )
        .route(
            "/api/transactions/{id}/send_summary_email",
            post(transactions::summary_email),
        )
        .route("/api/users/uploads/{file_id}", get(uploads::upload_url))
        .route(
            "/api/users/uploads/{nonce}/{file_id}",
            get(uploads::upload_url_with_nonce),
        )
        .route(
            "/api/users/multipart_upload_start/{file_id}",
            post(uploads::multipart_start),
        )
        .route(
            "/api/users/multipart_upload_complete/{file_id}",
            post(uploads::multipart_complete),
        )
        .route(
            "/api/users",
            get(users::list_users).post(users::create_user),
        )
        .route(
            "/api/users/one_time_user",
            post(users::create_one_time_user),
        )
        .route(
            "/api/users/{id}",
            get(users::get_user)
                .patch(users::update_user)
                .put(users::update_user)
                .delete(users::delete_user),
        )
        .route(
            "/api/users/{id}/reset_password",
            post(users::reset_password),
        )
        .route("/api/workflows/{id}", get(workflows::get_workflow))
        // The token first (401), then the body's content type (415), then its shape.
        .layer(from_fn(strict_requests))
        .layer(from_fn(json_content))
        // A device log's format is not shown: it is taken as sent, whatever its type
        // (held to the spec only in being there at all).
        .merge(
            Router::new()
                .route("/api/devices/{dev_id}/log", post(devices::device_log))
                .layer(from_fn(strict_requests)),
        )
        .layer(from_fn_with_state(app.clone(), token_auth));
    // Outermost: the rate limit counts every /api request (not the pre-signed uploads,
    // which are the storage service's in the real service).
    open.merge(authed)
        .layer(from_fn(version_1))
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
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        None => error(
            StatusCode::UNAUTHORIZED,
            "The authentication token is missing or not valid",
        ),
    }
}

/// Bodies held to the spec (`http::strict`); a plain user calling a manager-only
/// operation is refused by its handler (403) whatever the body.
async fn strict_requests(req: Request, next: Next) -> Response {
    let may_manage = req.extensions().get::<Caller>().is_none_or(|c| c.manager);
    strict::requests(strict::LEGACY, may_manage, req, next).await
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

/// A delete's answer: 200, the status the spec lists (its body is not shown; none here).
fn deleted() -> Response {
    StatusCode::OK.into_response()
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
