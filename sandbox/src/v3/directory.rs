//! Workflows, locations, users (with the list-shaped PATCH answer) and user groups.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use inspection_client::v3::*;

use super::list::{ListQuery, page};
use crate::App;
use crate::http::{Reject, body, error, json};

type Pairs = Query<Vec<(String, String)>>;

pub async fn workflows(
    State(app): State<Arc<App>>,
    OriginalUri(uri): OriginalUri,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    let q = ListQuery::parse(pairs)?;
    let location = q.get("location_id").map(str::to_string);
    let department = q.get("department_name").map(str::to_string);
    let store = app.store().lock().await;
    let matches = |w: &Workflow, key: &str, want: &Option<String>| {
        want.as_deref()
            .is_none_or(|v| w.additional_properties.get(key).and_then(|x| x.as_str()) == Some(v))
    };
    let rows = store
        .workflows
        .iter()
        .filter(|r| {
            matches(&r.record, "location_id", &location)
                && matches(&r.record, "department_name", &department)
        })
        .map(|r| (r.seq, &r.record))
        .collect();
    Ok(page(&app, uri.path(), &q, rows))
}

/// An unfiltered list of one collection of the store.
async fn all<T: serde::Serialize>(
    app: Arc<App>,
    uri: &axum::http::Uri,
    pairs: Vec<(String, String)>,
    rows: impl Fn(&crate::store::Store) -> Vec<(u64, &T)>,
) -> Result<Response, Reject> {
    let q = ListQuery::parse(pairs)?;
    let store = app.store().lock().await;
    Ok(page(&app, uri.path(), &q, rows(&store)))
}

fn rows<T>(records: &[crate::store::Row<T>]) -> Vec<(u64, &T)> {
    records.iter().map(|r| (r.seq, &r.record)).collect()
}

pub async fn locations(
    State(app): State<Arc<App>>,
    OriginalUri(uri): OriginalUri,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    all(app, &uri, pairs, |s| rows(&s.locations)).await
}

pub async fn users(
    State(app): State<Arc<App>>,
    OriginalUri(uri): OriginalUri,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    all(app, &uri, pairs, |s| rows(&s.users)).await
}

pub async fn user_groups(
    State(app): State<Arc<App>>,
    OriginalUri(uri): OriginalUri,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    all(app, &uri, pairs, |s| rows(&s.user_groups)).await
}

/// PATCH /users/{id}: answers with the list shape, as the interface document declares.
pub async fn update_user(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let update: UserUpdate = body(&bytes)?;
    let mut store = app.store().lock().await;
    let Some(user) = store
        .users
        .iter_mut()
        .map(|r| &mut r.record)
        .find(|u| u.id.as_ref().is_some_and(|x| x.as_str() == id))
    else {
        return Ok(error(
            StatusCode::NOT_FOUND,
            format!("The User {id} could not be found"),
        ));
    };
    if update.external_id.is_some() {
        user.external_id = update.external_id;
    }
    if update.first_name.is_some() {
        user.first_name = update.first_name;
    }
    if update.last_name.is_some() {
        user.last_name = update.last_name;
    }
    Ok(json(
        StatusCode::OK,
        &serde_json::json!({ "data": [user], "paging": { "next": null } }),
    ))
}
