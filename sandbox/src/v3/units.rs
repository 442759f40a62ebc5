//! Units: list, create (409 on a duplicate), get, patch, and by reference number, upsert.

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

pub fn not_found(what: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("The Unit {what} could not be found"),
    )
}

pub async fn list(
    State(app): State<Arc<App>>,
    OriginalUri(uri): OriginalUri,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    let q = ListQuery::parse(pairs)?;
    let (reference, serial) = (q.get("referenceNumber"), q.get("serialNumber"));
    let store = app.store().lock().await;
    let rows = store
        .units
        .iter()
        .filter(|r| reference.is_none_or(|x| r.record.reference_number.as_deref() == Some(x)))
        .filter(|r| serial.is_none_or(|x| r.record.serial_number.as_deref() == Some(x)))
        .map(|r| (r.seq, &r.record))
        .collect();
    Ok(page(&app, uri.path(), &q, rows))
}

pub async fn create(State(app): State<Arc<App>>, bytes: Bytes) -> Result<Response, Reject> {
    let new: NewUnit = body(&bytes)?;
    let mut store = app.store().lock().await;
    store.unit_posts += 1;
    if store.unit_by_reference(&new.reference_number).is_some() {
        return Ok(error(
            StatusCode::CONFLICT,
            format!("The Unit {} already exists", new.reference_number),
        ));
    }
    // The same body read as the attributes it shares with an update.
    let attributes: UnitAttributes = body(&bytes)?;
    let mut unit = fresh(&mut store, new.reference_number, app.clock.now());
    apply(&mut unit, attributes, true);
    store.units_created += 1;
    store.push_unit(unit.clone());
    Ok(json(StatusCode::CREATED, &unit))
}

pub async fn get(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.store().lock().await.unit_by_id(&id) {
        Some(unit) => json(StatusCode::OK, unit),
        None => not_found(&id),
    }
}

pub async fn get_by_reference(
    State(app): State<Arc<App>>,
    Path(reference): Path<String>,
) -> Response {
    match app.store().lock().await.unit_by_reference(&reference) {
        Some(unit) => json(StatusCode::OK, unit),
        None => not_found(&reference),
    }
}

pub async fn patch(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let changes: UnitPatch = body(&bytes)?;
    let mut store = app.store().lock().await;
    // A missing unit is a 404 before its reference number is looked at (the strict layer
    // already answered it; this keeps the handler's order the service's).
    if store.unit_by_id(&id).is_none() {
        return Ok(not_found(&id));
    }
    if let Some(reference) = &changes.reference_number {
        let taken = store.units.iter().any(|r| {
            r.record.reference_number.as_ref() == Some(reference) && r.record.id.as_str() != id
        });
        // 409 is listed only for creating a unit; an update lists 400 and 422.
        if taken {
            return Ok(error(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("reference_number: the Unit {reference} already exists"),
            ));
        }
    }
    let now = app.clock.now();
    let Some(unit) = store.unit_by_id(&id) else {
        return Ok(not_found(&id));
    };
    if let Some(r) = changes.reference_number {
        unit.reference_number = Some(r);
    }
    // The patch's other fields are the attributes an update by reference number takes.
    let attributes: UnitAttributes = body(&bytes)?;
    apply(unit, attributes, false);
    unit.updated_at = Some(now);
    Ok(json(StatusCode::OK, unit))
}

pub async fn patch_by_reference(
    State(app): State<Arc<App>>,
    Path(reference): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let changes: UnitAttributes = body(&bytes)?;
    let now = app.clock.now();
    let mut store = app.store().lock().await;
    let Some(unit) = store.unit_by_reference(&reference) else {
        return Ok(not_found(&reference));
    };
    apply(unit, changes, false);
    unit.updated_at = Some(now);
    Ok(json(StatusCode::OK, unit))
}

/// PUT: replaces an existing unit's attributes (200) or creates the unit (201).
pub async fn upsert(
    State(app): State<Arc<App>>,
    Path(reference): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let attributes: UnitAttributes = body(&bytes)?;
    let now = app.clock.now();
    let mut store = app.store().lock().await;
    if let Some(unit) = store.unit_by_reference(&reference) {
        apply(unit, attributes, true);
        unit.updated_at = Some(now);
        return Ok(json(StatusCode::OK, unit));
    }
    if reference.chars().count() > 255 {
        return Ok(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "reference_number: must be at most 255 characters",
        ));
    }
    let mut unit = fresh(&mut store, reference, now);
    apply(&mut unit, attributes, true);
    store.push_unit(unit.clone());
    Ok(json(StatusCode::CREATED, &unit))
}

/// A unit with a new id and `reference`, created and updated `now`, no attributes yet.
fn fresh(
    store: &mut crate::store::Store,
    reference: String,
    now: chrono::DateTime<chrono::Utc>,
) -> Unit {
    let mut unit = Unit::new(UnitId::new(store.new_id("unt")));
    unit.object = Some("unit".into());
    unit.reference_number = Some(reference);
    unit.created_at = Some(now);
    unit.updated_at = Some(now);
    unit
}

/// Sets the given attributes; `replace` also clears the ones not given.
fn apply(unit: &mut Unit, a: UnitAttributes, replace: bool) {
    fn set<T>(slot: &mut Option<T>, value: Option<T>, replace: bool) {
        if value.is_some() || replace {
            *slot = value;
        }
    }
    set(&mut unit.make, a.make, replace);
    set(&mut unit.model, a.model, replace);
    set(&mut unit.year, a.year, replace);
    set(&mut unit.vin, a.vin, replace);
    set(&mut unit.serial_number, a.serial_number, replace);
    set(&mut unit.hours, a.hours, replace);
    set(&mut unit.odometer, a.odometer.map(i64::from), replace);
    if let Some(data) = a.extended_data {
        unit.extended_data = data;
    } else if replace {
        unit.extended_data.clear();
    }
}
