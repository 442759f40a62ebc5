//! The middlewares around routes: the framework's own errors as `{"errors": ...}`, JSON
//! request bodies, v3 auth, the rate limits, injected faults.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::{Body, HttpBody};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::answer::{error, too_large};
use super::limits::{BODY_LIMIT, UPLOADS, declared_too_large};
use super::query_text::check_query;
use crate::App;
use crate::faults::{Fault, FaultPlan};
use crate::rate::RateLimiter;

/// Around every route except canned answers: a query that is not valid UTF-8 once
/// percent-decoded is a 400 (axum's `Query` would decode it lossily and filter on U+FFFD),
/// a body announced over the limit a 413 at once (the `Bytes` extractor would wait for
/// the body to pass the limit), and every error the framework answers itself (a `Path`
/// or `Query` that does not parse, a body over the limit, 405, ...) gets the
/// `{"errors": ...}` body every other error has, with the same status.
pub async fn framework_errors(req: Request, next: Next) -> Response {
    if let Some(query) = req.uri().query()
        && let Err(why) = check_query(query)
    {
        return error(StatusCode::BAD_REQUEST, why);
    }
    // An upload's own handler checks its larger limit.
    if !req.uri().path().starts_with(UPLOADS) && declared_too_large(req.headers()) {
        return too_large();
    }
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let response = next.run(req).await;
    if response.status().as_u16() < 400 || is_json(response.headers()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    // Only an answer already whole in memory, as the framework's are; a streamed one (a
    // fault cutting a body) passes unchanged.
    if HttpBody::size_hint(&body).exact().is_none() {
        return Response::from_parts(parts, body);
    }
    let text = axum::body::to_bytes(body, BODY_LIMIT)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let message = if text.trim().is_empty() {
        let reason = parts.status.canonical_reason().unwrap_or("Error");
        format!("{reason}: {method} {path}")
    } else {
        text.into_owned()
    };
    let mut rewritten = error(parts.status, message);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rewritten.headers_mut().append(name, value.clone());
        }
    }
    rewritten
}

/// Whether the headers announce a JSON body.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(crate::ir::is_json_media)
}

/// A request body on an API route must be declared JSON, as the clients send it (the
/// sandbox reads bodies as bytes, so without this check it accepted any content type).
/// 415 otherwise; an empty body needs no content type.
pub async fn json_content(req: Request, next: Next) -> Response {
    let empty = HttpBody::size_hint(req.body()).exact() == Some(0);
    if empty || is_json(req.headers()) {
        return next.run(req).await;
    }
    let sent = match req.headers().get(header::CONTENT_TYPE) {
        Some(v) => format!("`{}`", String::from_utf8_lossy(v.as_bytes())),
        None => "none".to_string(),
    };
    error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        format!(
            "the request body must be JSON, with `Content-Type: application/json` (got {sent})"
        ),
    )
}

/// 401 unless the request carries a known key id and its secret.
pub async fn auth(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let verdict = {
        let get = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
        match (get("api-key-id"), get("api-key-secret")) {
            (Some(id), Some(secret)) => app
                .company_of(id, secret)
                .ok_or("The API key id or secret is not valid"),
            _ => Err("The api-key-id and api-key-secret headers are required"),
        }
    };
    match verdict {
        // The handler reads and writes the data of the company the key is for.
        Ok(company) => crate::company::within(company, next.run(req)).await,
        Err(why) => error(StatusCode::UNAUTHORIZED, why),
    }
}

/// The documented v3 rate limit per client address: 429 with `Retry-After` beyond it.
pub async fn rate_limit(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    app.stats.requests.fetch_add(1, Ordering::Relaxed);
    match refused(&app.limiter, &req) {
        None => next.run(req).await,
        Some(resp) => {
            app.stats.rate_limited.fetch_add(1, Ordering::Relaxed);
            resp
        }
    }
}

/// The legacy `/api` rate limit per client address, a budget of its own (`--legacy-rate-limit`):
/// 429 with `Retry-After` beyond it, as on v3.
pub async fn legacy_rate_limit(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    match refused(&app.legacy_limiter, &req) {
        None => next.run(req).await,
        Some(resp) => {
            app.stats
                .legacy_rate_limited
                .fetch_add(1, Ordering::Relaxed);
            resp
        }
    }
}

/// The 429 for a request `limiter` does not let through (it counts the ones it does).
fn refused(limiter: &RateLimiter, req: &Request) -> Option<Response> {
    let ip = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
        .unwrap_or(std::net::IpAddr::from([127, 0, 0, 1]));
    let wait = limiter.check(ip).err()?;
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut resp = error(StatusCode::TOO_MANY_REQUESTS, "Rate limit exceeded");
    resp.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
    Some(resp)
}

/// Injects the configured faults.
pub async fn faults(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    inject_fault(&app.faults, &app.stats.faults, req, next).await
}

/// Answers `req` with the next fault `plan` draws, if any, counting it in `faulted`: an
/// error, a 429, a slow answer, or the answer cut off (reset before its body, or half-way).
pub async fn inject_fault(
    plan: &FaultPlan,
    faulted: &AtomicU64,
    req: Request,
    next: Next,
) -> Response {
    let Some((fault, slow_for)) = plan.draw() else {
        return next.run(req).await;
    };
    faulted.fetch_add(1, Ordering::Relaxed);
    let mut resp = match fault {
        Fault::ServerError(code) => error(
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "Injected fault",
        ),
        Fault::TooManyRequests => {
            let mut resp = error(StatusCode::TOO_MANY_REQUESTS, "Injected rate limit");
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            resp
        }
        Fault::Slow => {
            tokio::time::sleep(slow_for).await;
            next.run(req).await
        }
        // The request is applied, then its answer is cut: the client cannot know whether
        // it took effect (which is why it must not retry a POST then).
        Fault::Reset | Fault::Truncate => {
            let resp = next.run(req).await;
            let (parts, body) = resp.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default();
            let keep = if fault == Fault::Reset {
                0
            } else {
                bytes.len() / 2
            };
            let sent = bytes.slice(..keep);
            let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = vec![
                Ok(sent),
                Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "injected fault",
                )),
            ];
            let mut resp =
                Response::from_parts(parts, Body::from_stream(futures_util::stream::iter(chunks)));
            resp.headers_mut().insert(
                header::CONTENT_LENGTH,
                HeaderValue::from(bytes.len().max(1)),
            );
            resp
        }
    };
    // Marked, so that a drift watch in front knows it for the sandbox's own doing.
    if fault != Fault::Slow {
        resp.headers_mut()
            .insert(SYNTHETIC, HeaderValue::from_static("fault"));
    }
    resp
}

/// The header marking an answer the sandbox made up (an injected fault, a canned answer),
/// which a drift watch passes on unchecked: it is not the service's.
pub const SYNTHETIC: &str = "x-sandbox-synthetic";
