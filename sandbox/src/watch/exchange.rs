//! One exchange through the watch: the request passed on, the answer passed back, and
//! both held to the operation they match.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

// A request is held whole (to be checked), up to the forwarding proxy's limit.
use crate::forward::{HOP_BY_HOP, MAX_REQUEST};
use crate::http::{SYNTHETIC, strict};
use crate::ir::{Auth, Element, Interface, Operation, OperationPaging, TypeRef, position_key};
use crate::lock;

use super::answer::{self, Found, ROOT};
use super::report::{Departure, Kind};
use super::routes::{self, Matched};
use super::{MAX_CHECKED, Shared};

/// What the checks and the record need of an exchange.
struct Seen {
    sequence: u64,
    method: String,
    path: String,
    query: Option<String>,
    uri: axum::http::Uri,
    request_headers: HeaderMap,
    request_body: Bytes,
    status: u16,
    headers: HeaderMap,
}

pub async fn run(state: Arc<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(request_body) = axum::body::to_bytes(body, MAX_REQUEST).await else {
        let why = "watch: the request body is over 64 MiB";
        return (StatusCode::PAYLOAD_TOO_LARGE, why).into_response();
    };
    let answer = match send(&state, &parts, request_body.clone()).await {
        Ok(answer) => answer,
        Err(failed) => return failed,
    };
    let seen = Seen {
        sequence: state.next_sequence(),
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().map(str::to_string),
        uri: parts.uri.clone(),
        request_headers: parts.headers,
        request_body,
        status: answer.status().as_u16(),
        headers: answer.headers().clone(),
    };
    let mut response = Response::builder().status(seen.status);
    for (name, value) in &seen.headers {
        if !HOP_BY_HOP.contains(name) {
            response = response.header(name, value);
        }
    }
    let plan = Plan::of(&state, &seen);
    if state.options.enforce && plan.reads_body() {
        let bytes = match read_whole(answer).await {
            Ok(bytes) => bytes,
            Err(e) => {
                state.upstream_failed(broke_off(&e));
                let why = format!(
                    "watch: the upstream's answer broke off: {}",
                    e.without_url()
                );
                return (StatusCode::BAD_GATEWAY, why).into_response();
            }
        };
        let found = finish(&state, &seen, &plan, Some(&bytes));
        if let Some(first) = found.first() {
            return enforced(first);
        }
        return response
            .body(Body::from(bytes))
            .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response());
    }
    // Checked on its head alone (nothing to read): now, before it passes, when enforcing
    // or when there is no body (which is never polled); else once it has passed, with the
    // body the record keeps.
    let bodiless = answer.content_length() == Some(0) || seen.method == "HEAD";
    let watch = state.clone();
    let after = match state.options.enforce || bodiless {
        true => {
            if let Some(first) = finish(&state, &seen, &plan, None).first() {
                return enforced(first);
            }
            None
        }
        false => Some((state, seen, plan)),
    };
    let stream = tee(answer, watch, after);
    response
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

/// The request passed on to the upstream as it came (but for hop-by-hop headers); an
/// upstream that does not answer gets the caller the watch's own 504 or 502, saying so.
async fn send(
    state: &Shared,
    parts: &axum::http::request::Parts,
    body: Bytes,
) -> Result<reqwest::Response, Response> {
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("{}{path_and_query}", state.options.upstream);
    let mut out = state.http.request(parts.method.clone(), url).body(body);
    for (name, value) in &parts.headers {
        let own = name == header::HOST || name == header::CONTENT_LENGTH;
        if !HOP_BY_HOP.contains(name) && !own && name != header::ACCEPT_ENCODING {
            out = out.header(name, value);
        }
    }
    match out.send().await {
        Ok(a) => Ok(a),
        Err(e) if e.is_timeout() => {
            state.upstream_failed("timed out before its answer");
            let silent = state.options.timeout.as_secs_f64();
            let why = format!("watch: the upstream sent no answer within {silent} s");
            Err((StatusCode::GATEWAY_TIMEOUT, why).into_response())
        }
        Err(e) => {
            state.upstream_failed("no answer");
            let why = format!("watch: the upstream did not answer: {}", e.without_url());
            Err((StatusCode::BAD_GATEWAY, why).into_response())
        }
    }
}

/// What to check of an exchange, decided from its head.
struct Plan {
    /// The operation matched, by interface and index.
    matched: Option<(usize, usize)>,
    /// Findings of the head: status, headers, media type, the request, the route.
    head: Vec<Found>,
    /// The type the body is held to, when it is JSON to read.
    body: Option<TypeRef>,
    /// Why the answer is passed on unchecked, when it is.
    unchecked: Option<String>,
}

impl Plan {
    fn of(state: &Shared, seen: &Seen) -> Plan {
        let mut plan = Plan {
            matched: None,
            head: Vec::new(),
            body: None,
            unchecked: None,
        };
        if let Some(kind) = seen.headers.get(SYNTHETIC) {
            let kind = String::from_utf8_lossy(kind.as_bytes());
            plan.unchecked = Some(format!("the sandbox's own ({kind})"));
            return plan;
        }
        let Some(Matched {
            interface,
            operation,
        }) = routes::operation(&state.ir, &seen.method, &seen.path)
        else {
            // Without credentials, a pre-signed URL (a share link, an upload): the spec
            // describes those by the fields that hold them, not as operations.
            if !has_credentials(&state.ir, &seen.request_headers) {
                plan.unchecked = Some("no operation and no credentials (a pre-signed URL)".into());
            } else if crate::ir::is_success(seen.status) {
                plan.head.push(unknown_route(seen));
            }
            return plan;
        };
        plan.matched = index_of(&state.ir, interface, operation);
        plan.head = head(state, interface, operation, seen);
        let media = media_type(&seen.headers);
        let encoded = seen
            .headers
            .get(header::CONTENT_ENCODING)
            .is_some_and(|e| e.as_bytes() != b"identity");
        let json = crate::ir::is_json_media(&media);
        let expected = expected_body(interface, operation, seen.status);
        match (json, expected) {
            (true, Some(_)) if encoded => plan.unchecked = Some("compressed".into()),
            (true, Some(ty)) => plan.body = Some(ty),
            _ => {}
        }
        plan
    }

    fn reads_body(&self) -> bool {
        self.body.is_some()
    }
}

/// The status listed, the header promised, the media type declared, and a request the
/// spec refuses that the service took.
fn head(state: &Shared, interface: &Interface, op: &Operation, seen: &Seen) -> Vec<Found> {
    let mut found = Vec::new();
    let at_op = |kind: Kind, path: &str, detail: String| Found {
        kind,
        element: position_key(&Element::Operation(&op.name)),
        position: interface.position(&Element::Operation(&op.name)),
        path: path.to_string(),
        detail,
    };
    let status = seen.status;
    let rate_limit = interface.rate_limit.as_ref();
    let listed = op.responses.iter().any(|r| r.status == status)
        || interface.lists(op, status)
        || rate_limit.is_some_and(|r| r.status == status)
        || (status == 202 && op.answer.polls);
    if !listed {
        let detail = format!("{status} is not listed for {} or its interface", op.name);
        found.push(at_op(Kind::UnlistedStatus, "status", detail));
    }
    if let Some(limit) = rate_limit
        && status == limit.status
        && let Some(name) = &limit.retry_after_header
        && !seen.headers.contains_key(name.as_str())
    {
        let detail = format!("a {status} without `{name}`, which the clients wait on");
        found.push(at_op(Kind::MissingHeader, name, detail));
    }
    if crate::ir::is_success(status) {
        let media = media_type(&seen.headers);
        let declared: Vec<&str> = op
            .responses
            .iter()
            .filter(|r| r.status == status && r.body.is_some())
            .map(|r| r.content_type.as_str())
            .collect();
        if !declared.is_empty() && !declared.contains(&media.as_str()) {
            let detail = format!("`{media}` where the spec has {}", declared.join(" or "));
            found.push(at_op(Kind::WrongContentType, "content-type", detail));
        }
        let refused = strict::refusal(
            interface,
            op,
            &seen.uri,
            &seen.request_headers,
            &seen.request_body,
        );
        if let Some(why) = refused {
            // The refusal may quote the request: never a secret of it.
            let why = state
                .secrets
                .scrub(&why, &seen.request_headers, &seen.request_body);
            let detail = format!("the service took a request the spec refuses: {why}");
            found.push(at_op(Kind::RequestAccepted, "request", detail));
        }
    }
    found
}

/// Whether a request carries any interface's credentials (its key headers, or the token's).
/// Whether the exchange is an interface's login, as the IR names it (`token_login`): its
/// body holds the password, whatever its path.
fn is_login(ir: &crate::ir::Ir, method: &str, path: &str) -> bool {
    routes::operation(ir, method, path).is_some_and(|m| {
        m.interface
            .token_login()
            .is_ok_and(|login| std::ptr::eq(login.op, m.operation))
    })
}

fn has_credentials(ir: &crate::ir::Ir, headers: &HeaderMap) -> bool {
    ir.interfaces.iter().any(|i| match &i.auth {
        Auth::ApiKeyHeaders { headers: keys, .. } => {
            keys.iter().any(|k| headers.contains_key(k.name.as_str()))
        }
        Auth::TokenLogin { header, .. } => headers.contains_key(header.as_str()),
    })
}

fn unknown_route(seen: &Seen) -> Found {
    Found {
        kind: Kind::UnknownRoute,
        element: format!("route {} {}", seen.method, seen.path),
        position: None,
        path: "request".into(),
        detail: format!(
            "{} {} matches no operation of the spec",
            seen.method, seen.path
        ),
    }
}

/// The type of a JSON answer with this status: the operation's for a success, the
/// interface's error body for an error.
fn expected_body(interface: &Interface, op: &Operation, status: u16) -> Option<TypeRef> {
    if crate::ir::is_success(status) {
        op.responses
            .iter()
            .filter(|r| r.status == status)
            .find_map(|r| r.body.clone())
    } else if status >= 400 {
        interface.error_body.clone()
    } else {
        None
    }
}

/// The departures of a body from `ty`; a page is its envelope around the records.
fn body_findings(interface: &Interface, op: &Operation, ty: &TypeRef, value: &Value) -> Vec<Found> {
    let TypeRef::Page(item) = ty else {
        return answer::walk(interface, ty, value);
    };
    match &op.paging {
        Some(OperationPaging::Links { envelope, .. }) => {
            answer::walk(interface, &TypeRef::Named(*envelope), value)
        }
        _ => {
            let Some((items, paging, paging_type)) = interface.cursor_envelope() else {
                return answer::walk(interface, &TypeRef::Array(item.clone()), value);
            };
            let mut found = Vec::new();
            let list = TypeRef::Array(item.clone());
            for (key, ty) in [(items, list), (paging, TypeRef::Named(paging_type))] {
                match value.get(key) {
                    Some(v) => {
                        found.extend(answer::walk(interface, &ty, v).into_iter().map(|mut f| {
                            f.path = if f.path == "body" {
                                key.to_string()
                            } else if f.path.starts_with('[') {
                                format!("{key}{}", f.path)
                            } else {
                                format!("{key}.{}", f.path)
                            };
                            f
                        }))
                    }
                    None => found.push(Found {
                        kind: Kind::MissingField,
                        element: ROOT.into(),
                        position: None,
                        path: key.to_string(),
                        detail: format!("the page has no `{key}`"),
                    }),
                }
            }
            found
        }
    }
}

/// Checks the body (when read) and reports every finding of the exchange; answers them.
fn finish(state: &Shared, seen: &Seen, plan: &Plan, body: Option<&[u8]>) -> Vec<Found> {
    let mut found = plan.head.clone();
    let matched = plan.matched.map(|(i, o)| {
        (
            &state.ir.interfaces[i],
            &state.ir.interfaces[i].operations[o],
        )
    });
    if let (Some((interface, op)), Some(ty), Some(bytes)) = (matched, &plan.body, body) {
        if bytes.len() >= MAX_CHECKED {
            note_unchecked(state, "over the size checked");
        } else {
            match serde_json::from_slice::<Value>(bytes) {
                Ok(value) => found.extend(body_findings(interface, op, ty, &value)),
                Err(e) => found.push(Found {
                    kind: Kind::WrongContentType,
                    element: position_key(&Element::Operation(&op.name)),
                    position: interface.position(&Element::Operation(&op.name)),
                    path: "body".into(),
                    detail: format!("the body is not JSON: {e}"),
                }),
            }
        }
    }
    if let Some(why) = &plan.unchecked {
        note_unchecked(state, why);
    }
    // A departure of the whole answer is the operation's.
    for f in &mut found {
        if f.element == ROOT
            && let Some((interface, op)) = matched
        {
            f.element = position_key(&Element::Operation(&op.name));
            f.position = interface.position(&Element::Operation(&op.name));
        }
    }
    report(state, seen, matched, &found);
    if let Some((sequence, record)) = seen_record(state, seen, body) {
        super::record::write(state, sequence, &record);
    }
    found
}

fn note_unchecked(state: &Shared, why: &str) {
    *lock(&state.report)
        .unchecked
        .entry(why.to_string())
        .or_default() += 1;
}

fn report(state: &Shared, seen: &Seen, matched: Option<(&Interface, &Operation)>, found: &[Found]) {
    let request = state
        .secrets
        .path_and_query(&seen.path, seen.query.as_deref());
    let mut report = lock(&state.report);
    report.exchanges += 1;
    for f in found {
        let departure = Departure {
            kind: f.kind,
            class: f.kind.class(),
            edit: f.kind.edit(),
            interface: matched.map_or_else(String::new, |(i, _)| i.name.clone()),
            operation: matched.map(|(_, op)| op.name.clone()),
            element: f.element.clone(),
            position: f.position.clone(),
            detail: f.detail.clone(),
            example: json!({
                "request": format!("{} {request}", seen.method),
                "status": seen.status,
                "at": f.path,
            }),
            count: 1,
        };
        if report.add(departure.clone()) && state.options.json_lines {
            println!("{}", serde_json::to_string(&departure).unwrap_or_default());
        }
    }
}

/// The exchange as `--record` writes it, redacted.
fn seen_record(state: &Shared, seen: &Seen, body: Option<&[u8]>) -> Option<(u64, Value)> {
    state.options.record.as_ref()?;
    let secrets = &state.secrets;
    let shown = |bytes: &[u8], headers: &HeaderMap| -> Value {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) if media_type(headers).contains("json") => secrets.json(&v),
            _ if bytes.is_empty() => Value::Null,
            _ => json!({ "bytes": bytes.len(), "content_type": media_type(headers) }),
        }
    };
    let request_body = match is_login(&state.ir, &seen.method, &seen.path) {
        // A login body is the password's: never written, whatever its shape.
        true => json!(super::redact::REDACTED),
        false => shown(&seen.request_body, &seen.request_headers),
    };
    let record = json!({
        "method": seen.method,
        "path": secrets.path_and_query(&seen.path, seen.query.as_deref()),
        "request": {"headers": secrets.headers(&seen.request_headers), "body": request_body},
        "status": seen.status,
        "response": {
            "headers": secrets.headers(&seen.headers),
            "body": body.map_or(Value::Null, |b| shown(b, &seen.headers)),
        },
    });
    Some((seen.sequence, record))
}

fn enforced(first: &Found) -> Response {
    let position = first.position.as_deref().unwrap_or("no position");
    let why = format!(
        "drift watch: {} at {} ({position}): {}",
        serde_json::to_value(first.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        first.element,
        first.detail
    );
    crate::http::error(StatusCode::BAD_GATEWAY, why)
}

fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn index_of(ir: &crate::ir::Ir, interface: &Interface, op: &Operation) -> Option<(usize, usize)> {
    let i = ir
        .interfaces
        .iter()
        .position(|x| x.name == interface.name)?;
    let o = interface
        .operations
        .iter()
        .position(|x| x.name == op.name)?;
    Some((i, o))
}

async fn read_whole(mut answer: reqwest::Response) -> Result<Bytes, reqwest::Error> {
    let mut out = Vec::new();
    while let Some(chunk) = answer.chunk().await? {
        out.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(out))
}

/// How an answer's body failed, as the report counts it.
fn broke_off(e: &reqwest::Error) -> &'static str {
    match e.is_timeout() {
        true => "timed out within its answer",
        false => "broke off within its answer",
    }
}

/// Checks an answer whose bytes have all been handed on, on a thread of its own: the last
/// chunk goes to the caller as the check begins, not once it is done (the check of a page
/// of 100 inspections took 1 ms, all of it added to the caller's wait). The check is
/// counted as under way from here, so a reader of the report waits for it. At most
/// `CHECKS_AT_ONCE` run at a time: past that, an answer's last chunk waits for a slot, as
/// it waited for its own check before. `room` is the share of `KEPT_BUDGET` the body
/// holds, given back once it is checked.
async fn check_after((state, seen, plan): (Arc<Shared>, Seen, Plan), kept: Kept) {
    let Ok(slot) = state.check_slots.clone().acquire_owned().await else {
        return; // never closed
    };
    let ticket = state.checks.begin();
    tokio::task::spawn_blocking(move || {
        finish(&state, &seen, &plan, Some(&kept.bytes));
        drop((ticket, slot, kept));
    });
}

/// The copy of an answer's body kept for its check or its record, and the room it takes
/// of the bytes all answers may keep at once.
#[derive(Default)]
struct Kept {
    bytes: Vec<u8>,
    room: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Kept {
    /// Keeps `chunk` when the room allows; `false` (and nothing kept) when the answers
    /// passing at once hold all of it.
    fn keep(&mut self, watch: &Shared, chunk: &[u8]) -> bool {
        let kib = u32::try_from(chunk.len().div_ceil(1024)).unwrap_or(u32::MAX);
        let Ok(room) = watch.kept_room.clone().try_acquire_many_owned(kib) else {
            *self = Kept::default();
            return false;
        };
        match &mut self.room {
            Some(held) => held.merge(room),
            None => self.room = Some(room),
        }
        self.bytes.extend_from_slice(chunk);
        true
    }
}

/// An answer on its way: the upstream's body, what is kept of it, and its checks to come.
struct Tee {
    watch: Arc<Shared>,
    answer: Option<reqwest::Response>,
    kept: Kept,
    keeping: bool,
    total: u64,
    after: Option<(Arc<Shared>, Seen, Plan)>,
}

/// The answer's chunks as they come, a copy of the first [`MAX_CHECKED`] bytes kept when
/// the body is to be checked or recorded (within the room all answers share, past which an
/// answer passes unchecked and is counted so); the checks (`after`) run once the last
/// chunk has passed. A broken-off answer breaks off for the caller too, and is not
/// checked.
fn tee(
    answer: reqwest::Response,
    watch: Arc<Shared>,
    after: Option<(Arc<Shared>, Seen, Plan)>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    let keeping = after
        .as_ref()
        .is_some_and(|(state, _, plan)| plan.reads_body() || state.options.record.is_some());
    // A body of known length is not polled past its last byte: it ends there.
    let length = answer.content_length();
    let start = Tee {
        watch,
        answer: Some(answer),
        kept: Kept::default(),
        keeping,
        total: 0,
        after,
    };
    futures_util::stream::unfold(start, move |mut tee| async move {
        let mut answer = tee.answer.take()?;
        match answer.chunk().await {
            Ok(Some(chunk)) => {
                if tee.keeping
                    && tee.kept.bytes.len() < MAX_CHECKED
                    && !tee.kept.keep(&tee.watch, &chunk)
                {
                    tee.keeping = false;
                    if let Some((_, _, plan)) = &mut tee.after {
                        plan.body = None;
                        plan.unchecked = Some(OVER_ROOM.into());
                    }
                }
                tee.total += chunk.len() as u64;
                if length == Some(tee.total)
                    && let Some(after) = tee.after.take()
                {
                    check_after(after, std::mem::take(&mut tee.kept)).await;
                }
                tee.answer = Some(answer);
                Some((Ok(chunk), tee))
            }
            Ok(None) => {
                if let Some(after) = tee.after.take() {
                    check_after(after, std::mem::take(&mut tee.kept)).await;
                }
                None
            }
            Err(e) => {
                tee.watch.upstream_failed(broke_off(&e));
                tee.after = None;
                Some((Err(std::io::Error::other(e.without_url())), tee))
            }
        }
    })
}

/// Why an answer passed unchecked when the answers passing at once kept all the room.
const OVER_ROOM: &str = "the answers passing at once held all the bytes kept for checks";

#[cfg(test)]
mod tests {
    /// The login is the IR's login operation, not any path that ends like it.
    #[test]
    fn a_login_is_the_irs_login_operation() {
        let ir = crate::ir::embedded();
        assert!(super::is_login(&ir, "POST", "/api/users/authenticate"));
        assert!(!super::is_login(&ir, "GET", "/api/assets"));
        assert!(!super::is_login(&ir, "POST", "/v3/units"));
        assert!(!super::is_login(&ir, "POST", "/elsewhere/authenticate"));
    }
}
