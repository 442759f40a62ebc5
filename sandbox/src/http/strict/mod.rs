//! Request bodies held to the spec, for every operation the IR lists: a JSON body must be a
//! value of the operation's body type (its JSON kinds at any depth, `null` only where the
//! spec allows it, required fields present) before a handler sees it. The operation is
//! found by method and the route's path template, so an operation added to the spec is
//! checked with no edit here. A refused body reaches no handler, so it changes nothing.

mod check;
mod ir;

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

pub use check::PathStyle;
use ir::{Interface, Operation, TypeRef};

use super::{BODY_LIMIT, Reject, too_large};

/// An interface as the sandbox serves it.
#[derive(Debug, Clone, Copy)]
pub struct Mount {
    /// Its name in the IR.
    pub interface: &'static str,
    /// What the sandbox's routes put before the IR's paths.
    pub prefix: &'static str,
    pub style: PathStyle,
}

/// v3, under `/v3`; the IR's paths are relative to it.
pub const V3: Mount = Mount {
    interface: "v3",
    prefix: "/v3",
    style: PathStyle::Dotted,
};

/// The legacy interface, whose IR paths already start with `/api`.
pub const LEGACY: Mount = Mount {
    interface: "legacy",
    prefix: "",
    style: PathStyle::Bracketed,
};

/// Middleware of the v3 routes.
pub async fn v3_bodies(req: Request, next: Next) -> Response {
    bodies(V3, true, req, next).await
}

/// Refuses a body that is not of its operation's type; passes anything else on, with a
/// whole-number float rewritten as the integer it is. `may_manage`: whether the caller may
/// call manager-only operations (if not, the handler answers 403 before any body matters).
pub async fn bodies(mount: Mount, may_manage: bool, req: Request, next: Next) -> Response {
    let Some((interface, op)) = operation(mount, &req) else {
        return next.run(req).await;
    };
    let Some(ty) = op.json_body() else {
        return next.run(req).await;
    };
    if op.manager_only && !may_manage {
        return next.run(req).await;
    }
    let (mut parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return too_large();
    };
    let body = match conforming(interface, mount.style, op, ty, &bytes) {
        Err(refused) => return refused.into_response(),
        Ok(None) => Body::from(bytes),
        Ok(Some(rewritten)) => {
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(rewritten.len()));
            Body::from(rewritten)
        }
    };
    next.run(Request::from_parts(parts, body)).await
}

/// The IR's operation for the route this request matched.
fn operation(mount: Mount, req: &Request) -> Option<(&'static Interface, &'static Operation)> {
    let matched = req.extensions().get::<MatchedPath>()?.as_str();
    let path = matched.strip_prefix(mount.prefix).unwrap_or(matched);
    let ir = ir::ir();
    let op = ir.operation(mount.interface, req.method().as_str(), path)?;
    Some((ir.interface(mount.interface)?, op))
}

/// `None` when the body may go on as sent, the rewritten body when a float became an
/// integer, or the refusal.
fn conforming(
    interface: &Interface,
    style: PathStyle,
    op: &Operation,
    ty: &TypeRef,
    bytes: &[u8],
) -> Result<Option<Vec<u8>>, Reject> {
    // Every request body the spec declares is required (the OpenAPI export says so too),
    // even one of any JSON ("send `{}` when nothing is needed").
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Reject::new(
            StatusCode::BAD_REQUEST,
            "malformed JSON: the request body is required",
        ));
    }
    let mut value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Reject::new(StatusCode::BAD_REQUEST, format!("malformed JSON: {e}")))?;
    let outcome = check::check(interface, style, ty, &mut value);
    if !outcome.problems.is_empty() {
        return Err(Reject::new(refusal_status(op), outcome.problems.join("; ")));
    }
    Ok(outcome
        .rewritten
        .then(|| serde_json::to_vec(&value).unwrap_or_default()))
}

/// The status of a well-formed body of the wrong shape: 422 where the operation lists it,
/// else 400 where it lists that. An operation listing neither (the legacy interface
/// documents no error statuses) gets 422, as the sandbox's other legacy refusals.
fn refusal_status(op: &Operation) -> StatusCode {
    if !op.lists(422) && op.lists(400) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    }
}
