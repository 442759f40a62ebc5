//! Inspections (lists with filters, JSON or PDF), share URLs, and form PDFs.

use std::sync::Arc;

use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::SubsecRound;
use inspection_client::v3::*;

use super::list::{ListQuery, page};
use super::units::not_found as unit_not_found;
use crate::http::{Reject, error, json, pdf, wants_pdf};
use crate::store::Share;
use crate::{App, pdf as render};

type Pairs = Query<Vec<(String, String)>>;

/// Which unit's inspections, if any.
enum Scope {
    All,
    UnitId(String),
    Reference(String),
}

pub async fn list(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    list_in(app, uri, pairs, Scope::All).await
}

pub async fn list_for_unit(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Path(id): Path<String>,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    list_in(app, uri, pairs, Scope::UnitId(id)).await
}

pub async fn list_for_reference(
    State(app): State<Arc<App>>,
    uri: OriginalUri,
    Path(reference): Path<String>,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    list_in(app, uri, pairs, Scope::Reference(reference)).await
}

async fn list_in(
    app: Arc<App>,
    OriginalUri(uri): OriginalUri,
    pairs: Vec<(String, String)>,
    scope: Scope,
) -> Result<Response, Reject> {
    let filters = (|| {
        let q = ListQuery::parse(pairs)?;
        let after = q.date_time("created_after")?;
        let before = q.date_time("created_before")?;
        let ty = q.get("type").map(str::to_string);
        let department = q.get("department_name").map(str::to_string);
        Ok::<_, Reject>((q, after, before, ty, department))
    })();
    let (q, after, before, ty, department) = filters?;
    let mut store = app.store().lock().await;
    let unit_id = match &scope {
        Scope::All => None,
        Scope::UnitId(id) => match store.unit_by_id(id) {
            Some(u) => Some(u.id.clone()),
            None => return Ok(unit_not_found(id)),
        },
        Scope::Reference(r) => match store.unit_by_reference(r) {
            Some(u) => Some(u.id.clone()),
            None => return Ok(unit_not_found(r)),
        },
    };
    let rows = store
        .inspections
        .iter()
        .filter(|r| {
            let i = &r.record;
            unit_id
                .as_ref()
                .is_none_or(|id| i.unit.as_ref().and_then(|u| u.id.as_ref()) == Some(id))
                && after.is_none_or(|t| i.created_at.is_some_and(|c| c >= t))
                && before.is_none_or(|t| i.created_at.is_some_and(|c| c < t))
                && ty
                    .as_deref()
                    .is_none_or(|t| i.r#type.as_ref().map(InspectionType::as_str) == Some(t))
                && department.as_deref().is_none_or(|d| {
                    i.department.as_ref().and_then(|x| x.name.as_deref()) == Some(d)
                })
        })
        .map(|r| (r.seq, Linked(&r.record, &app)))
        .collect();
    Ok(page(&app, uri.path(), &q, rows))
}

/// An inspection as the API answers it: with `pdf_share_url`, a link to its PDF on the
/// storage origin signed at the moment of the answer (written only for the records a page
/// holds; the stored record keeps no link).
struct Linked<'a>(&'a Inspection, &'a App);

impl serde::Serialize for Linked<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Linked(record, app) = self;
        app.storage
            .linked(record, app.clock.now())
            .serialize(serializer)
    }
}

/// JSON, or with `Accept: application/pdf` a PDF that answers 202 while it "renders".
pub async fn get(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let mut store = app.store().lock().await;
    let Some(found) = store
        .inspections
        .iter()
        .find(|r| r.record.id.as_str() == id)
    else {
        return error(
            StatusCode::NOT_FOUND,
            format!("The Inspection {id} could not be found"),
        );
    };
    if !wants_pdf(&headers) {
        return json(StatusCode::OK, &Linked(&found.record, &app));
    }
    let title = format!("Inspection {id}");
    if store.renders.ready(&format!("inspection:{id}")) {
        pdf(render::render(&title))
    } else {
        StatusCode::ACCEPTED.into_response()
    }
}

/// A pre-signed link to the inspection's PDF, valid for 48 hours.
pub async fn share_url(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let mut store = app.store().lock().await;
    if !store.inspections.iter().any(|r| r.record.id.as_str() == id) {
        return error(
            StatusCode::NOT_FOUND,
            format!("The Inspection {id} could not be found"),
        );
    }
    let token = format!(
        "{}{:x}",
        store.new_id("shr"),
        app.clock.now().timestamp_millis()
    );
    // To the second, as a link's expiry is given: every answer's text the same length.
    let expires_at = app.clock.now().trunc_subsecs(0) + chrono::Duration::hours(48);
    store.shares.insert(
        token.clone(),
        Share {
            inspection: InspectionId::new(id),
            expires_at,
        },
    );
    let mut share = ShareUrl::new(format!("{}/shared/{token}", app.origin));
    share.expires_at = Some(expires_at);
    json(StatusCode::OK, &share)
}

/// The pre-signed download: no keys needed, refused once expired.
pub async fn shared(State(app): State<Arc<App>>, Path(token): Path<String>) -> Response {
    // A link carries no key: it may be any company's.
    let share = app.find_in_any(|store| store.shares.get(&token).cloned());
    match share.await.as_ref() {
        None => error(StatusCode::NOT_FOUND, "This link does not exist"),
        Some(share) if app.clock.now() >= share.expires_at => {
            error(StatusCode::FORBIDDEN, "This link has expired")
        }
        Some(share) => pdf(render::render(&format!("Inspection {}", share.inspection))),
    }
}

pub async fn form(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let mut store = app.store().lock().await;
    if !store.forms.contains(&id) {
        return error(
            StatusCode::NOT_FOUND,
            format!("The Form {id} could not be found"),
        );
    }
    if store.renders.ready(&format!("form:{id}")) {
        pdf(render::render(&format!("Form {id}")))
    } else {
        StatusCode::ACCEPTED.into_response()
    }
}
