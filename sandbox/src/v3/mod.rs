//! The v3 interface under `/v3`: routes, behind the rate limit, faults and key check.

mod directory;
mod inspections;
mod list;
mod tasks;
mod units;

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;

use crate::http::strict::{PathStyle, Probe};
use crate::ir::Ir;
use crate::routes::{self, handlers};
use crate::{App, http};

pub use inspections::shared;

handlers! {
    "list_units" => units::list,
    "create_unit" => units::create,
    "get_unit" => units::get,
    "update_unit" => units::patch,
    "get_unit_by_reference_number" => units::get_by_reference,
    "update_unit_by_reference_number" => units::patch_by_reference,
    "upsert_unit_by_reference_number" => units::upsert,
    "list_unit_inspections" => inspections::list_for_unit,
    "list_unit_inspections_by_reference_number" => inspections::list_for_reference,
    "list_inspections" => inspections::list,
    "get_inspection" => inspections::get,
    "get_inspection_share_url" => inspections::share_url,
    "get_form" => inspections::form,
    "list_tasks" => tasks::list,
    "create_task" => tasks::create,
    "get_task" => tasks::get,
    "update_task" => tasks::patch,
    "delete_task" => tasks::delete,
    "list_workflows" => directory::workflows,
    "list_locations" => directory::locations,
    "list_users" => directory::users,
    "update_user" => directory::update_user,
    "list_user_groups" => directory::user_groups,
}

/// The v3 operations of `ir`, at their paths (relative to `/v3`).
pub fn router(app: Arc<App>, ir: &Arc<Ir>) -> Router<Arc<App>> {
    let probe = app.clone();
    let probe = Probe(Arc::new(move |_, named, id| {
        let app = probe.clone();
        Box::pin(async move { missing(&app, &named, &id).await })
    }));
    let routes = routes::of(ir, "v3", PathStyle::Dotted, handler, probe);
    // Outermost last: the rate limit counts every request, then faults, then keys; each
    // route then checks its body's content type and its request's shape.
    routes
        .open
        .merge(
            routes
                .authed
                .layer(from_fn_with_state(app.clone(), http::auth)),
        )
        .layer(from_fn_with_state(app.clone(), http::faults))
        .layer(from_fn_with_state(app, http::rate_limit))
}

/// The record a write's path names, if the sandbox keeps none by that id (see
/// [`Probe`]): by the parameter's type, or a unit's reference number.
async fn missing(app: &App, named: &str, id: &str) -> Option<&'static str> {
    let store = app.store().lock().await;
    let (label, found) = match named {
        "UnitId" => (
            "Unit",
            store.units.iter().any(|r| r.record.id.as_str() == id),
        ),
        "reference_number" => (
            "Unit",
            (store.units.iter()).any(|r| r.record.reference_number.as_deref() == Some(id)),
        ),
        "TaskId" => (
            "Task",
            store.tasks.iter().any(|r| r.record.task.id.as_str() == id),
        ),
        "UserId" => (
            "User",
            (store.users.iter()).any(|r| r.record.id.as_ref().is_some_and(|u| u.as_str() == id)),
        ),
        _ => return None,
    };
    (!found).then_some(label)
}
