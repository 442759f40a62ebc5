//! Login (`POST /api/users/authenticate`) and the guest-token exchange.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::App;
use crate::http::{Reject, error, json as answer};

use super::{parse_body, wrapped};

pub(super) async fn authenticate(
    State(app): State<Arc<App>>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let user = wrapped(&bytes, "user")?;
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
        .find(|a| a.one_time.is_none() && a.username == username && a.password == password)
        .cloned()
    else {
        return Ok(error(
            StatusCode::UNAUTHORIZED,
            "Invalid username or password",
        ));
    };
    let token = store.new_token(&account.id);
    let location = store.location_of(&account);
    Ok(answer(
        StatusCode::OK,
        &json!({ "auth_token": token, "user": account.record(&location) }),
    ))
}

pub(super) async fn exchange_guest_token(
    State(app): State<Arc<App>>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let body = parse_body(&bytes)?;
    if body.get("guest_token").and_then(Value::as_str) != Some("guest-demo") {
        return Ok(error(
            StatusCode::UNAUTHORIZED,
            "The guest token is not valid",
        ));
    }
    let mut store = app.legacy.lock().await;
    let Some(id) = store
        .accounts
        .iter()
        .find(|a| !a.manager)
        .map(|a| a.id.clone())
    else {
        return Ok(error(StatusCode::UNAUTHORIZED, "No guest account"));
    };
    let token = store.new_token(&id);
    Ok(answer(StatusCode::OK, &json!({ "auth_token": token })))
}
