//! The v3 interface under `/v3`: routes, behind the rate limit, faults and key check.

mod directory;
mod inspections;
mod list;
mod tasks;
mod units;

use std::sync::Arc;

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::get;

use crate::{App, http};

pub use inspections::shared;

pub fn router(app: Arc<App>) -> Router<Arc<App>> {
    Router::new()
        .route("/units", get(units::list).post(units::create))
        .route("/units/{unit_id}", get(units::get).patch(units::patch))
        .route(
            "/units/by_reference_number/{reference_number}",
            get(units::get_by_reference)
                .patch(units::patch_by_reference)
                .put(units::upsert),
        )
        .route(
            "/units/{unit_id}/inspections",
            get(inspections::list_for_unit),
        )
        .route(
            "/units/by_reference_number/{reference_number}/inspections",
            get(inspections::list_for_reference),
        )
        .route("/inspections", get(inspections::list))
        .route("/inspections/{inspection_id}", get(inspections::get))
        .route(
            "/inspections/{inspection_id}/share_url",
            get(inspections::share_url),
        )
        .route("/forms/{form_id}", get(inspections::form))
        .route("/tasks", get(tasks::list).post(tasks::create))
        .route(
            "/tasks/{task_id}",
            get(tasks::get).patch(tasks::patch).delete(tasks::delete),
        )
        .route("/workflows", get(directory::workflows))
        .route("/locations", get(directory::locations))
        .route("/users", get(directory::users))
        .route(
            "/users/{user_id}",
            axum::routing::patch(directory::update_user),
        )
        .route("/user_groups", get(directory::user_groups))
        // Outermost last: the rate limit counts every request, then faults, then keys,
        // then the body's content type, then its shape.
        .layer(from_fn(http::strict::v3_requests))
        .layer(from_fn(http::json_content))
        .layer(from_fn_with_state(app.clone(), http::auth))
        .layer(from_fn_with_state(app.clone(), http::faults))
        .layer(from_fn_with_state(app, http::rate_limit))
}
