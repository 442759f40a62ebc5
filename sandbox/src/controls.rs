//! Test controls under `/_sandbox/`, plain HTTP so a test in any language can use them:
//! canned answers that take the place of the real handlers, a record of every request
//! received, a reset to the start-up state, the clock, legacy tokens and the counters.
//! `tests/conformance/README.md` documents each endpoint for scenario runners.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::http::{BODY_LIMIT, UPLOADS, declared_too_large, error, json, too_large};
use crate::{App, lock};

/// Where the controls live; requests under it are neither scripted nor recorded.
const PREFIX: &str = "/_sandbox/";

/// Requests kept in the record, the oldest dropped first, so a sandbox left running for
/// development does not grow without end.
const RECORD_LIMIT: usize = 1_000;

/// One canned answer, as posted to `/_sandbox/script`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Canned {
    /// `GET`, `POST`, ... (any case).
    method: String,
    /// The exact path as sent (percent-encoded, prefix included, query excluded), or a
    /// prefix of it followed by `*`.
    path: String,
    #[serde(default = "ok")]
    status: u16,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// A JSON body (sent as `application/json` unless `headers` names a content type).
    body: Option<Value>,
    /// A text body, sent as is (as `text/plain` unless `headers` names a content type).
    body_text: Option<String>,
    /// How many matching requests this answer serves.
    #[serde(default = "once")]
    times: u32,
    /// Waits this long before answering (for client timeouts).
    #[serde(default)]
    delay_ms: u64,
}

fn ok() -> u16 {
    200
}

fn once() -> u32 {
    1
}

impl Canned {
    fn matches(&self, method: &Method, path: &str) -> bool {
        let path_ok = match self.path.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => path == self.path,
        };
        path_ok && self.method.eq_ignore_ascii_case(method.as_str())
    }

    /// The answer, `{origin}` replaced in its headers and body.
    fn respond(&self, origin: &str) -> Response {
        let fill = |text: &str| text.replace("{origin}", origin);
        let (body, default_type) = match (&self.body, &self.body_text) {
            (Some(value), _) => (fill(&value.to_string()), Some("application/json")),
            (None, Some(text)) => (fill(text), Some("text/plain")),
            (None, None) => (String::new(), None),
        };
        let mut response = Response::new(Body::from(body));
        *response.status_mut() = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        let headers = response.headers_mut();
        if let Some(content_type) = default_type {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        }
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::try_from(name.as_str()),
                HeaderValue::try_from(fill(value)),
            ) {
                headers.insert(name, value);
            }
        }
        response
    }
}

/// One request as it arrived, for `GET /_sandbox/requests`.
#[derive(Debug, Clone, Serialize)]
pub struct Recorded {
    method: String,
    /// As sent: percent-encoded, without the query.
    path: String,
    /// The raw query string (without `?`), empty when there was none.
    query: String,
    /// The query as decoded `[name, value]` pairs, in order.
    query_pairs: Vec<(String, String)>,
    /// Lowercase names; repeated headers joined with `, `.
    headers: BTreeMap<String, String>,
    /// The body as UTF-8 text (invalid bytes replaced), empty when there was none.
    body: String,
    /// Milliseconds since the sandbox started (or was last reset) when the request arrived.
    received_ms: f64,
    /// The status answered; 0 while the answer is still being prepared.
    status: u16,
    /// Whether a canned answer served it.
    scripted: bool,
    #[serde(skip)]
    id: u64,
}

/// Canned answers still to give and requests received.
#[derive(Debug)]
pub struct Controls {
    script: Mutex<Vec<Canned>>,
    recorded: Mutex<VecDeque<Recorded>>,
    next_id: Mutex<u64>,
    started: Mutex<Instant>,
}

impl Default for Controls {
    fn default() -> Self {
        Controls {
            script: Mutex::default(),
            recorded: Mutex::default(),
            next_id: Mutex::default(),
            started: Mutex::new(Instant::now()),
        }
    }
}

impl Controls {
    /// Forgets canned answers and recorded requests; times count from now.
    pub fn reset(&self) {
        lock(&self.script).clear();
        lock(&self.recorded).clear();
        *lock(&self.started) = Instant::now();
    }

    /// The first canned answer matching, one use of it consumed.
    fn take(&self, method: &Method, path: &str) -> Option<Canned> {
        let mut script = lock(&self.script);
        let index = script.iter().position(|c| c.matches(method, path))?;
        let canned = script[index].clone();
        script[index].times -= 1;
        if script[index].times == 0 {
            script.remove(index);
        }
        Some(canned)
    }

    fn record(&self, mut request: Recorded) -> u64 {
        let id = {
            let mut next = lock(&self.next_id);
            *next += 1;
            *next
        };
        request.id = id;
        request.received_ms = lock(&self.started).elapsed().as_secs_f64() * 1000.0;
        let mut recorded = lock(&self.recorded);
        if recorded.len() == RECORD_LIMIT {
            recorded.pop_front();
        }
        recorded.push_back(request);
        id
    }

    fn body_seen(&self, id: u64, body: String) {
        if let Some(r) = lock(&self.recorded).iter_mut().rev().find(|r| r.id == id) {
            r.body = body;
        }
    }

    fn answered(&self, id: u64, status: StatusCode, scripted: bool) {
        if let Some(r) = lock(&self.recorded).iter_mut().rev().find(|r| r.id == id) {
            r.status = status.as_u16();
            r.scripted = scripted;
        }
    }
}

/// Records every request outside `/_sandbox/`, then answers it from the script when a
/// canned answer matches (before auth, the rate limit and faults), else as usual.
pub async fn record_and_script(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    if path.starts_with(PREFIX) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    // An upload streams on to its handler, and the record keeps its first bytes; any other
    // body is read here: too large or broken off, it is recorded (without it) and refused.
    let upload = path.starts_with(UPLOADS);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (bytes, refused, body) = if upload {
        (Bytes::new(), None, tee(body, seen.clone()))
    } else {
        match read_body(&parts.headers, body).await {
            Ok(bytes) => (bytes.clone(), None, Body::from(bytes)),
            Err(refused) => (Bytes::new(), Some(refused), Body::empty()),
        }
    };
    let query = parts.uri.query().unwrap_or("").to_string();
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in &parts.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_string())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let id = app.controls.record(Recorded {
        method: parts.method.to_string(),
        path: path.clone(),
        query_pairs: decode_query(&query),
        query,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
        received_ms: 0.0,
        status: 0,
        scripted: false,
        id: 0,
    });
    if let Some(refused) = refused {
        app.controls.answered(id, refused.status(), false);
        return refused;
    }
    if let Some(canned) = app.controls.take(&parts.method, &path) {
        if canned.delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(canned.delay_ms)).await;
        }
        let mut response = canned.respond(&app.origin);
        app.controls.answered(id, response.status(), true);
        let canned = axum::http::HeaderValue::from_static("canned");
        response
            .headers_mut()
            .insert(crate::http::SYNTHETIC, canned);
        return response;
    }
    let response = next.run(Request::from_parts(parts, body)).await;
    app.controls.answered(id, response.status(), false);
    if upload {
        let seen = String::from_utf8_lossy(&lock(&seen)).into_owned();
        app.controls.body_seen(id, seen);
    }
    response
}

/// How much of an upload's body the record keeps.
const RECORDED_UPLOAD: usize = 64 * 1024;

/// `body` as it is, its first `RECORDED_UPLOAD` bytes copied to `seen` as they pass.
fn tee(body: Body, seen: Arc<Mutex<Vec<u8>>>) -> Body {
    let stream = body.into_data_stream().map(move |chunk| {
        if let Ok(chunk) = &chunk {
            let mut seen = lock(&seen);
            let room = RECORDED_UPLOAD.saturating_sub(seen.len());
            seen.extend_from_slice(&chunk[..room.min(chunk.len())]);
        }
        chunk
    });
    Body::from_stream(stream)
}

/// The whole body, at most `BODY_LIMIT` bytes of it: a larger one is a 413, answered as
/// soon as its `Content-Length` (or the bytes read) pass the limit, so it is never held in
/// memory; a body that breaks off is a 400.
async fn read_body(headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    if declared_too_large(headers) {
        return Err(too_large());
    }
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
            ));
        };
        if bytes.len() + chunk.len() > BODY_LIMIT {
            return Err(too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(bytes))
}

/// `application/x-www-form-urlencoded` pairs.
fn decode_query(query: &str) -> Vec<(String, String)> {
    Query::<Vec<(String, String)>>::try_from_uri(&format!("/?{query}").parse().unwrap_or_default())
        .map(|q| q.0)
        .unwrap_or_default()
}

/// The `/_sandbox/` routes.
pub fn router() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/_sandbox/script",
            post(add_script).get(pending).delete(drop_script),
        )
        .route(
            "/_sandbox/requests",
            axum::routing::get(requests).delete(clear_requests),
        )
        .route("/_sandbox/reset", post(reset))
        .route("/_sandbox/legacy/revoke_tokens", post(revoke_tokens))
        .route(
            "/_sandbox/legacy/transactions/{id}/restore",
            post(crate::legacy::archive::restore),
        )
        .route("/_sandbox/stats", axum::routing::get(stats))
        .route("/_sandbox/advance", post(advance))
        .route("/_sandbox/links", post(crate::storage::control))
        .route(
            "/_sandbox/v3/units/{id}",
            axum::routing::delete(remove_unit),
        )
        .route(
            "/_sandbox/v3/inspections/{id}/results/{position}",
            axum::routing::delete(remove_result),
        )
}

/// `DELETE /_sandbox/v3/units/{id}`: the unit is no longer listed (v3 has no operation
/// that removes one; a sync's whole walk must notice).
async fn remove_unit(
    State(app): State<Arc<App>>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let mut store = app.store().lock().await;
    let before = store.units.len();
    store.units.retain(|r| r.record.id.as_str() != id);
    if store.units.len() == before {
        return error(StatusCode::NOT_FOUND, format!("no unit `{id}`"));
    }
    StatusCode::NO_CONTENT.into_response()
}

/// `DELETE /_sandbox/v3/inspections/{id}/results/{position}`: the inspection loses that
/// result (from 0) and its `updated_at` becomes now, as when an inspection is edited after
/// it was uploaded: a sync reading it again within its lookback must leave no row of the
/// result behind.
async fn remove_result(
    State(app): State<Arc<App>>,
    axum::extract::Path((id, position)): axum::extract::Path<(String, usize)>,
) -> Response {
    let now = app.clock.now();
    let mut store = app.store().lock().await;
    let Some(row) = store
        .inspections
        .iter_mut()
        .find(|r| r.record.id.as_str() == id)
    else {
        return error(StatusCode::NOT_FOUND, format!("no inspection `{id}`"));
    };
    if position >= row.record.results.len() {
        let n = row.record.results.len();
        return error(
            StatusCode::NOT_FOUND,
            format!("the inspection `{id}` has {n} results"),
        );
    }
    row.record.results.remove(position);
    row.record.updated_at = Some(now);
    StatusCode::NO_CONTENT.into_response()
}

/// `POST /_sandbox/script`: appends canned answers (a JSON list, or one object).
async fn add_script(State(app): State<Arc<App>>, bytes: Bytes) -> Response {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<Canned>),
        One(Canned),
    }
    let canned = match serde_json::from_slice::<OneOrMany>(&bytes) {
        Ok(OneOrMany::Many(list)) => list,
        Ok(OneOrMany::One(one)) => vec![one],
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!(
                    "a script is a list of {{method, path, status, headers, body | body_text, times, delay_ms}}: {e}"
                ),
            );
        }
    };
    for (i, c) in canned.iter().enumerate() {
        let problem = if c.body.is_some() && c.body_text.is_some() {
            Some("give `body` or `body_text`, not both")
        } else if c.times == 0 {
            Some("`times` must be at least 1")
        } else if StatusCode::from_u16(c.status).is_err() {
            Some("`status` must be from 100 to 999")
        } else {
            None
        };
        if let Some(problem) = problem {
            return error(StatusCode::BAD_REQUEST, format!("answer {i}: {problem}"));
        }
    }
    let mut script = lock(&app.controls.script);
    script.extend(canned);
    json(
        StatusCode::OK,
        &serde_json::json!({ "pending": script.iter().map(|c| c.times).sum::<u32>() }),
    )
}

/// `GET /_sandbox/script`: how many canned answers are left to give.
async fn pending(State(app): State<Arc<App>>) -> Response {
    let script = lock(&app.controls.script);
    json(
        StatusCode::OK,
        &serde_json::json!({ "pending": script.iter().map(|c| c.times).sum::<u32>() }),
    )
}

/// `DELETE /_sandbox/script`: drops every canned answer not given yet.
async fn drop_script(State(app): State<Arc<App>>) -> Response {
    lock(&app.controls.script).clear();
    StatusCode::NO_CONTENT.into_response()
}

/// `GET /_sandbox/requests`: every request received since the last clear (the latest
/// 1,000 at most).
async fn requests(State(app): State<Arc<App>>) -> Response {
    let recorded = lock(&app.controls.recorded).clone();
    json(StatusCode::OK, &recorded)
}

/// `DELETE /_sandbox/requests`: forgets the requests received so far.
async fn clear_requests(State(app): State<Arc<App>>) -> Response {
    lock(&app.controls.recorded).clear();
    StatusCode::NO_CONTENT.into_response()
}

/// `POST /_sandbox/reset`: back to the state at start-up.
async fn reset(State(app): State<Arc<App>>) -> Response {
    app.reset().await;
    StatusCode::NO_CONTENT.into_response()
}

/// `POST /_sandbox/legacy/revoke_tokens`: every legacy token stops working, as if it
/// had expired; the next call with one gets a 401.
async fn revoke_tokens(State(app): State<Arc<App>>) -> Response {
    app.legacy.lock().await.tokens.clear();
    StatusCode::NO_CONTENT.into_response()
}

/// `GET /_sandbox/stats`: the counters.
async fn stats(State(app): State<Arc<App>>) -> Response {
    json(StatusCode::OK, &crate::read_stats(&app).await)
}

/// `POST /_sandbox/advance?seconds=N`: moves the clock forward.
async fn advance(State(app): State<Arc<App>>, Query(q): Query<HashMap<String, i64>>) -> Response {
    // At most a century either way, so the clock never overflows.
    let seconds = q
        .get("seconds")
        .copied()
        .unwrap_or(0)
        .clamp(-3_155_760_000, 3_155_760_000);
    app.clock.advance(chrono::Duration::seconds(seconds));
    json(
        StatusCode::OK,
        &serde_json::json!({ "now": app.clock.now() }),
    )
}
