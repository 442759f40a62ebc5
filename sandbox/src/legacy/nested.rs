//! The nested records the public examples show inside transactions and tasks: `asset {id,
//! external_id}`, `location {id, name}`, `user {id, username, first_name, last_name}` and
//! a task's `{id, email, name}` people, made from the ids a request body gives.

use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::http::Reject;

use super::store::{Account, LegacyStore, asset_by_ref};

/// An id as text, whether the JSON holds a string or a number (ids are strings in most
/// examples, a number in one: both are read).
pub(super) fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Whether two ids are the same, compared as text.
pub(super) fn same_id(a: &Value, b: &Value) -> bool {
    id_text(a).is_some_and(|a| Some(a) == id_text(b))
}

/// `{id, name}` of the location with this id.
pub(super) fn location(store: &LegacyStore, id: &str) -> Option<Value> {
    let found = store
        .records
        .get("locations")?
        .iter()
        .find(|l| l.get("id").and_then(Value::as_str) == Some(id))?;
    Some(json!({ "id": found.get("id"), "name": found.get("name") }))
}

/// `{id, external_id}` of the asset with this id or `_<external id>`.
pub(super) fn asset(store: &LegacyStore, reference: &str) -> Option<Value> {
    asset_by_ref(store, reference)
        .map(|a| json!({ "id": a.get("id"), "external_id": a.get("external_id") }))
}

/// The caller's account, for a record the caller makes: its `location` is the caller's
/// unless the body gave one.
pub(super) fn by_caller<'s>(
    store: &'s LegacyStore,
    caller: &str,
    record: &mut Map<String, Value>,
) -> Result<&'s Account, Reject> {
    let account = store
        .accounts
        .iter()
        .find(|a| a.id == caller)
        .ok_or_else(|| Reject::new(StatusCode::UNAUTHORIZED, "The caller's account is gone"))?;
    if !record.contains_key("location") {
        let home = location(store, &account.location_id);
        record.insert("location".into(), home.unwrap_or(Value::Null));
    }
    Ok(account)
}

/// Replaces `asset_id` and `location_id` of a request (`<what>[asset_id]` in messages) by
/// the nested `asset` and `location` records; an id that names no record is a 422 naming
/// the field. `null` removes the nested record.
pub(super) fn resolve(
    store: &LegacyStore,
    what: &str,
    record: &mut Map<String, Value>,
) -> Result<(), Reject> {
    for (field, nested, label) in [
        ("asset_id", "asset", "Asset"),
        ("location_id", "location", "Location"),
    ] {
        let Some(given) = record.remove(field) else {
            continue;
        };
        if given.is_null() {
            record.remove(nested);
            continue;
        }
        let id = id_text(&given).ok_or_else(|| {
            Reject::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("{what}[{field}]: must be an id (a string or a number)"),
            )
        })?;
        let found = match nested {
            "asset" => asset(store, &id),
            _ => location(store, &id),
        };
        let found = found.ok_or_else(|| {
            Reject::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("{what}[{field}]: the {label} {id} could not be found"),
            )
        })?;
        record.insert(nested.into(), found);
    }
    Ok(())
}
