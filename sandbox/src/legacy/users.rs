//! Users: index, show by id, `_<external id>` or `self`, create, one-time users,
//! update, delete, password reset.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::App;
use crate::http::{Reject, error, json as answer};

use super::lists::links_page;
use super::nested;
use super::store::{self, Account, OneTime};
use super::{Caller, Pairs, deleted, not_found, wrapped};

/// A user by id, `_<external id>` or `self`.
pub(super) fn account_by_ref<'s>(
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

pub(super) async fn list_users(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(q): Pairs,
) -> Response {
    let store = app.legacy.lock().await;
    let location = json!({ "id": 89, "name": "Main Office" });
    let records: Vec<Value> = store.accounts.iter().map(|a| a.record(&location)).collect();
    links_page(&app, uri.path(), "users", records, &q)
}

pub(super) async fn get_user(
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
        &json!({ "user": account.record(&store.location_of(account)) }),
    )
}

pub(super) async fn create_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let input = wrapped(&bytes, "user")?;
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let (Some(username), Some(first_name), Some(last_name)) =
        (text("username"), text("first_name"), text("last_name"))
    else {
        return Ok(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "user[username], user[first_name] and user[last_name] are required",
        ));
    };
    let mut store = app.legacy.lock().await;
    let location_id = match input.get("location_id") {
        Some(given) => location_id(&store, given)?,
        None => account_by_ref(&store, &caller, "self")
            .map(|a| a.location_id.clone())
            .unwrap_or_default(),
    };
    if store.accounts.iter().any(|a| a.username == username) {
        return Ok(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("username {username} is taken"),
        ));
    }
    let account = Account {
        id: store.next_id(),
        username,
        password: text("password").unwrap_or_default(),
        manager: text("role").as_deref() == Some("manager"),
        first_name,
        last_name,
        external_id: text("external_id"),
        location_id,
        one_time: None,
    };
    store.accounts.push(account.clone());
    let token = store.new_token(&account.id);
    let location = store.location_of(&account);
    Ok(answer(
        StatusCode::CREATED,
        &json!({ "auth_token": token, "user": account.record(&location) }),
    ))
}

/// The `user[location_id]` given, if it names a location (a 422 naming the field if not).
fn location_id(store: &store::LegacyStore, given: &Value) -> Result<String, Reject> {
    let refuse = |why: String| Reject::new(StatusCode::UNPROCESSABLE_ENTITY, why);
    let id = nested::id_text(given)
        .ok_or_else(|| refuse("user[location_id]: must be an id".to_string()))?;
    match nested::location(store, &id) {
        Some(_) => Ok(id),
        None => Err(refuse(format!(
            "user[location_id]: the Location {id} could not be found"
        ))),
    }
}

/// Creates a one-time user, or updates the one with this e-mail address (the public docs:
/// "Creates (or updates)"): never a second user for the same address. `user[email]` and
/// `user[location_id]` are required; the phone number is answered only when sent.
pub(super) async fn create_one_time_user(
    State(app): State<Arc<App>>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let input = wrapped(&bytes, "user")?;
    let given = |k: &str| input.get(k).filter(|v| !v.is_null());
    let Some(email) = given("email")
        .and_then(Value::as_str)
        .filter(|e| !e.is_empty())
    else {
        return Ok(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "user[email] is required",
        ));
    };
    let Some(location) = given("location_id") else {
        return Ok(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "user[location_id] is required",
        ));
    };
    let mut store = app.legacy.lock().await;
    let location_id = location_id(&store, location)?;
    let found = store
        .accounts
        .iter()
        .position(|a| a.username.eq_ignore_ascii_case(email));
    let index = match found {
        Some(i) if store.accounts[i].one_time.is_none() => {
            return Ok(error(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("user[email]: {email} is a full user's, not a one-time user's"),
            ));
        }
        Some(i) => i,
        None => {
            let account = one_time_account(store.next_id(), email, location_id.clone());
            store.accounts.push(account);
            store.accounts.len() - 1
        }
    };
    let account = &mut store.accounts[index];
    account.location_id = location_id;
    if let Some(v) = given("external_id").and_then(Value::as_str) {
        account.external_id = Some(v.to_string());
    }
    let Some(one_time) = account.one_time.as_mut() else {
        return Ok(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "not a one-time user",
        ));
    };
    if let Some(phone) = given("phone_number") {
        one_time.phone_number = Some(phone.clone());
    }
    if let Some(limit) = given("transaction_limit") {
        one_time.transaction_limit = limit.clone();
    }
    let id = account.id.clone();
    let mut user = json!({ "id": id, "username": account.username, "email": account.username,
                           "transaction_limit": one_time.transaction_limit });
    if let Some(phone) = given("phone_number") {
        user["phone_number"] = phone.clone();
    }
    Ok(answer(
        StatusCode::CREATED,
        &json!({ "user": user, "url": format!("https://launch.example.com/{id}") }),
    ))
}
/// A new one-time user's account: its e-mail address its username, no password, one
/// transaction allowed until told otherwise.
fn one_time_account(id: String, email: &str, location_id: String) -> Account {
    Account {
        id,
        username: email.to_string(),
        password: String::new(),
        manager: false,
        first_name: String::new(),
        last_name: String::new(),
        external_id: None,
        location_id,
        one_time: Some(OneTime {
            phone_number: None,
            transaction_limit: json!(1),
        }),
    }
}

pub(super) async fn update_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let input = wrapped(&bytes, "user")?;
    let mut store = app.legacy.lock().await;
    let Some(target) = account_by_ref(&store, &caller, &id).map(|a| a.id.clone()) else {
        return Ok(not_found("User", &id));
    };
    if target != caller.id && !caller.manager {
        return Ok(error(
            StatusCode::FORBIDDEN,
            "Updating another user requires the manager role",
        ));
    }
    let Some(account) = store.accounts.iter_mut().find(|a| a.id == target) else {
        return Ok(not_found("User", &id));
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
    let account = account.clone();
    let location = store.location_of(&account);
    Ok(answer(
        StatusCode::OK,
        &json!({ "user": account.record(&location) }),
    ))
}

pub(super) async fn delete_user(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    let mut store = app.legacy.lock().await;
    let Some(target) = account_by_ref(&store, &caller, &id).map(|a| a.id.clone()) else {
        return not_found("User", &id);
    };
    store.accounts.retain(|a| a.id != target);
    store.tokens.retain(|_, account| *account != target);
    deleted()
}

pub(super) async fn reset_password(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Response {
    let store = app.legacy.lock().await;
    if account_by_ref(&store, &caller, &id).is_none() {
        return not_found("User", &id);
    }
    answer(StatusCode::OK, &json!({}))
}
