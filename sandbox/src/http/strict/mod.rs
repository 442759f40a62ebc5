//! Requests held to the spec, for every operation the IR lists, before a handler sees
//! them: an operation marked manager-only is refused (403) to a caller without the role;
//! each query parameter the operation declares must be of its type and within its
//! documented limits (a JSON-encoded one is walked like a body), required ones present;
//! a record the path names must exist (404, asked of the interface's [`Probe`]: a service
//! answers a missing record whatever the body holds); a JSON body must be a value of the operation's body type (its JSON kinds at any depth,
//! `null` only where the spec allows it, required fields present). The route table
//! (`routes`), read from the IR too, hands each route its operation, so an operation
//! added to the spec is checked with no edit here. A refused request reaches no
//! handler, so it changes nothing.

mod check;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Query, RawPathParams, Request, State};
use axum::http::{Extensions, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

pub use check::PathStyle;

use super::{BODY_LIMIT, Reject, too_large};
use crate::ir::{Interface, Ir, Operation, TypeRef};

/// The operation a route serves, as the route table hands it to the checks.
#[derive(Debug, Clone)]
pub struct Served {
    pub ir: Arc<Ir>,
    /// Indexes into the IR's interfaces and that interface's operations.
    pub interface: usize,
    pub operation: usize,
    pub style: PathStyle,
    pub probe: Option<Probe>,
}

/// What a path parameter names, for [`Probe`]: its type's name in the IR (`UnitId`,
/// `AssetRef`), or the parameter's own name when its type is a builtin
/// (`reference_number`).
pub type Named = String;

/// An interface's answer to "does the record this path parameter names exist?", given the
/// request's extensions (who is calling, for `self`): `Some(label)` when it does not
/// (`Unit`, answered `The Unit <id> could not be found`), `None` when it does or the
/// parameter names no record the interface keeps.
#[derive(Clone)]
pub struct Probe(
    #[allow(clippy::type_complexity)]
    pub  Arc<
        dyn Fn(
                Extensions,
                Named,
                String,
            ) -> Pin<Box<dyn Future<Output = Option<&'static str>> + Send>>
            + Send
            + Sync,
    >,
);

impl fmt::Debug for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Probe")
    }
}

impl Served {
    fn parts(&self) -> (&Interface, &Operation) {
        let interface = &self.ir.interfaces[self.interface];
        (interface, &interface.operations[self.operation])
    }
}

/// Whether the caller may call manager-only operations, set by an interface with roles
/// (if not, an operation the spec marks manager-only answers 403 before the request's
/// shape matters). Absent: yes.
#[derive(Debug, Clone, Copy)]
pub struct MayManage(pub bool);

/// Refuses a manager-only operation to a caller without the role (403), then a query that
/// is not of its operation's types (400, the spec's rule for both interfaces), then a
/// write to a record that does not exist (404), then a body that is not of its type;
/// passes anything else on, with a whole-number float in the body rewritten as the
/// integer it is.
pub async fn requests(
    State(served): State<Served>,
    path: RawPathParams,
    req: Request,
    next: Next,
) -> Response {
    let (interface, op) = served.parts();
    let may_manage = req.extensions().get::<MayManage>().is_none_or(|m| m.0);
    if op.manager_only && !may_manage {
        return Reject::new(
            StatusCode::FORBIDDEN,
            "This operation requires the manager role",
        )
        .into_response();
    }
    if let Err(refused) = query(interface, served.style, op, req.uri()) {
        return refused.into_response();
    }
    if let Some(missing) = missing(&served, &path, req.extensions()).await {
        return missing;
    }
    if let Some(body) = &op.body
        && no_body(req.headers())
    {
        if body.optional {
            return next.run(req).await;
        }
        return Reject::new(StatusCode::BAD_REQUEST, "the request body is required")
            .into_response();
    }
    let Some(ty) = op.json_body() else {
        return next.run(req).await;
    };
    let (mut parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return too_large();
    };
    let body = match conforming(interface, served.style, op, ty, &bytes) {
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

/// The 404 of a write whose path names a record that does not exist, asked before its
/// body is looked at. Reads need no probe (nothing is checked before their handler looks
/// the record up), nor does a write that may create its record (one that answers 201).
async fn missing(
    served: &Served,
    path: &RawPathParams,
    extensions: &Extensions,
) -> Option<Response> {
    let (interface, op) = served.parts();
    let probe = served.probe.as_ref()?;
    if op.body.is_none() || op.responses.iter().any(|r| r.status == 201) {
        return None;
    }
    for (name, value) in path.iter() {
        let param = op.path_params.iter().find(|p| p.name == name)?;
        let named = match &param.ty {
            TypeRef::Named(id) => interface.ty(*id).name.clone(),
            _ => param.name.clone(),
        };
        if let Some(label) = (probe.0)(extensions.clone(), named, value.to_string()).await {
            let why = format!("The {label} {value} could not be found");
            return Some(super::error(StatusCode::NOT_FOUND, why));
        }
    }
    None
}

/// Why the strict layer would refuse this request (its query, or its body), for the drift
/// watch, which asks it of a request the real service accepted; `None` when it conforms.
pub fn refusal(
    interface: &Interface,
    op: &Operation,
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
    body: &[u8],
) -> Option<String> {
    let style = PathStyle::Dotted;
    if let Err(refused) = query(interface, style, op, uri) {
        return Some(refused.1);
    }
    let ty = op.json_body()?;
    if no_body(headers) && body.is_empty() {
        let optional = op.body.as_ref().is_some_and(|b| b.optional);
        return (!optional).then(|| "the request body is required".to_string());
    }
    conforming(interface, style, op, ty, body)
        .err()
        .map(|refused| refused.1)
}

/// Whether a request came with no body at all: nothing says what or how long it is. An
/// empty body with a content type is a body (an empty device log, say).
fn no_body(headers: &axum::http::HeaderMap) -> bool {
    let empty = headers
        .get(header::CONTENT_LENGTH)
        .is_none_or(|n| n.as_bytes() == b"0");
    empty
        && !headers.contains_key(header::CONTENT_TYPE)
        && !headers.contains_key(header::TRANSFER_ENCODING)
}

/// Every declared query parameter the request carries, held to its type and limits;
/// parameters the spec does not declare are not looked at (new optional ones may come).
fn query(
    interface: &Interface,
    style: PathStyle,
    op: &Operation,
    uri: &axum::http::Uri,
) -> Result<(), Reject> {
    let bad = |why: String| Reject::new(StatusCode::BAD_REQUEST, why);
    let pairs: Vec<(String, String)> = Query::try_from_uri(uri)
        .map_err(|e| bad(format!("malformed query string: {e}")))?
        .0;
    let mut problems = Vec::new();
    for param in &op.query {
        let mut given = pairs.iter().filter(|(k, _)| *k == param.name).peekable();
        if param.required && given.peek().is_none() {
            problems.push(format!("{}: is required", param.name));
        }
        for (_, text) in given {
            problems.extend(check::query(interface, style, param, text));
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(bad(problems.join("; "))),
    }
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
    // A request body the spec declares is required unless it says `optional` (the OpenAPI
    // export says which), even one of any JSON; a body sent must be JSON.
    if bytes.iter().all(u8::is_ascii_whitespace) {
        if op.body.as_ref().is_some_and(|b| b.optional) {
            return Ok(None);
        }
        return Err(Reject::new(
            StatusCode::BAD_REQUEST,
            "malformed JSON: the request body is required",
        ));
    }
    let mut value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Reject::new(StatusCode::BAD_REQUEST, format!("malformed JSON: {e}")))?;
    let outcome = check::check(interface, style, ty, &mut value);
    if !outcome.problems.is_empty() {
        let status = refusal_status(interface, op);
        return Err(Reject::new(status, outcome.problems.join("; ")));
    }
    Ok(outcome
        .rewritten
        .then(|| serde_json::to_vec(&value).unwrap_or_default()))
}

/// The status of a well-formed body of the wrong shape: 422 where the operation (or its
/// interface) lists it, else 400, which both interfaces list for every operation.
fn refusal_status(interface: &Interface, op: &Operation) -> StatusCode {
    if interface.lists(op, 422) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::BAD_REQUEST
    }
}
