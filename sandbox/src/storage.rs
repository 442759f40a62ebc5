//! The storage origin: pre-signed links to inspections' PDFs, served from a listener of its
//! own as the service serves them from object storage. A link is signed when an answer
//! carries it (`pdf_share_url`), lives 48 hours under the sandbox's clock, and needs no
//! key; nothing is stored per link, so a walk of any size leaves the sandbox's memory as
//! it was. Faults draw from a plan of their own, so link traffic leaves the API's fault
//! sequence unchanged; a control makes links fail or expire.

use std::hash::BuildHasher;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use inspection_client::v3::Inspection;
use serde::Deserialize;

use crate::App;
use crate::faults::{FaultPlan, Faults};

/// How long a link lives from the answer that carried it.
pub const LIFETIME: chrono::TimeDelta = chrono::TimeDelta::hours(48);

/// What the storage origin does with links (`POST /_sandbox/links`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinkMode {
    /// Served as the service serves them.
    #[default]
    Ok,
    /// Links issued from now on expired already (403 when fetched).
    Expired,
    /// Every link answers 403.
    Forbidden,
    /// Every link answers 404.
    Missing,
    /// Every link answers 200 with an HTML sign-in page.
    Html,
    /// Every link answers 200 with its full `Content-Length` and half its bytes.
    Truncated,
    /// Every link answers 200 `application/pdf` with a body that is not a PDF.
    NotPdf,
}

impl LinkMode {
    pub const ALL: [(&'static str, LinkMode); 7] = [
        ("ok", LinkMode::Ok),
        ("expired", LinkMode::Expired),
        ("forbidden", LinkMode::Forbidden),
        ("missing", LinkMode::Missing),
        ("html", LinkMode::Html),
        ("truncated", LinkMode::Truncated),
        ("not_pdf", LinkMode::NotPdf),
    ];

    pub fn parse(text: &str) -> Option<LinkMode> {
        LinkMode::ALL
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, mode)| *mode)
    }
}

/// The storage origin's state: its signing key, mode, faults and counters.
#[derive(Debug)]
pub struct Storage {
    /// The origin links name, `http://127.0.0.1:PORT`.
    pub origin: String,
    /// A keyed hash made per sandbox (SipHash with random keys): links cannot be made up
    /// or altered in a test, though it is not a cryptographic signature.
    key: std::collections::hash_map::RandomState,
    mode: Mutex<LinkMode>,
    faults: FaultPlan,
    pub requests: AtomicU64,
    pub with_credentials: AtomicU64,
    pub faulted: AtomicU64,
}

impl Storage {
    /// `faults` are the sandbox's: the same rates, drawn from the next seed.
    pub fn new(origin: String, faults: &Faults) -> Storage {
        let faults = Faults {
            seed: faults.seed.wrapping_add(1),
            ..faults.clone()
        };
        Storage {
            origin,
            key: std::collections::hash_map::RandomState::new(),
            mode: Mutex::new(LinkMode::Ok),
            faults: FaultPlan::new(faults),
            requests: AtomicU64::new(0),
            with_credentials: AtomicU64::new(0),
            faulted: AtomicU64::new(0),
        }
    }

    pub fn set_mode(&self, mode: LinkMode) {
        *crate::lock(&self.mode) = mode;
    }

    fn mode(&self) -> LinkMode {
        *crate::lock(&self.mode)
    }

    /// Back to links served as the service serves them, counters at zero.
    pub fn reset(&self) {
        self.set_mode(LinkMode::Ok);
        self.faults.reset();
        for counter in [&self.requests, &self.with_credentials, &self.faulted] {
            counter.store(0, Ordering::Relaxed);
        }
    }

    /// A link to the PDF of inspection `id`, signed now: it expires [`LIFETIME`] after
    /// `now` (before it, under [`LinkMode::Expired`]).
    pub fn link(&self, id: &str, now: DateTime<Utc>) -> String {
        let expires = match self.mode() {
            LinkMode::Expired => now - chrono::TimeDelta::hours(1),
            _ => now + LIFETIME,
        }
        .timestamp();
        format!(
            "{}/inspections/{}.pdf?expires={expires}&signature={}",
            self.origin,
            encode(id),
            self.sign(id, expires)
        )
    }

    /// `record` as the API answers it: with `pdf_share_url` signed at `now`. The stored
    /// record keeps no link, so every answer (and every webhook delivery) carries a fresh
    /// one and nothing is stored per link.
    pub fn linked(&self, record: &Inspection, now: DateTime<Utc>) -> Inspection {
        let mut linked = record.clone();
        linked.pdf_share_url = Some(self.link(record.id.as_str(), now));
        linked
    }

    fn sign(&self, id: &str, expires: i64) -> String {
        format!("{:016x}", self.key.hash_one((id, expires)))
    }
}

/// Letters, digits, `-`, `_`, `.` and `~` as they are; every other byte percent-encoded.
fn encode(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `POST /_sandbox/links` `{"mode": "ok" | "expired" | ...}` (on the main listener, beside
/// the other controls): what the storage origin does with links from now on.
pub async fn control(State(app): State<Arc<App>>, bytes: Bytes) -> Response {
    #[derive(Deserialize)]
    struct Control {
        mode: String,
    }
    let mode = serde_json::from_slice::<Control>(&bytes)
        .ok()
        .and_then(|c| LinkMode::parse(&c.mode));
    let Some(mode) = mode else {
        let names: Vec<&str> = LinkMode::ALL.iter().map(|(name, _)| *name).collect();
        return crate::http::error(
            StatusCode::BAD_REQUEST,
            format!(
                "a links control is {{\"mode\": ...}}, one of {}",
                names.join(", ")
            ),
        );
    };
    app.storage.set_mode(mode);
    StatusCode::NO_CONTENT.into_response()
}

/// The storage listener's routes, every request counted and faults injected first.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/inspections/{file}", get(pdf))
        .fallback(|| async { no_such_key() })
        .layer(from_fn_with_state(app.clone(), faults))
        .layer(from_fn_with_state(app.clone(), count))
        .with_state(app)
}

/// Counts each request, and those that carried a credential (which a link never needs).
async fn count(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let storage = &app.storage;
    storage.requests.fetch_add(1, Ordering::Relaxed);
    let credentials = ["api-key-id", "api-key-secret", "authorization", "cookie"];
    if credentials.iter().any(|h| req.headers().contains_key(*h)) {
        storage.with_credentials.fetch_add(1, Ordering::Relaxed);
    }
    next.run(req).await
}

async fn faults(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    crate::http::inject_fault(&app.storage.faults, &app.storage.faulted, req, next).await
}

#[derive(Deserialize)]
struct Signed {
    expires: Option<String>,
    signature: Option<String>,
}

/// `GET /inspections/{id}.pdf?expires=..&signature=..` (and `HEAD`): the PDF, as the API's
/// PDF form renders it, while the link lives; refused as object storage refuses otherwise.
/// A path or query that does not parse is refused in the same XML (a 400), not in the
/// framework's plain text.
async fn pdf(
    State(app): State<Arc<App>>,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<Signed>, QueryRejection>,
) -> Response {
    let mode = app.storage.mode();
    match mode {
        LinkMode::Forbidden => {
            return refusal(StatusCode::FORBIDDEN, "AccessDenied", "Access Denied");
        }
        LinkMode::Missing => return no_such_key(),
        LinkMode::Html => return html(),
        LinkMode::Ok | LinkMode::Expired | LinkMode::Truncated | LinkMode::NotPdf => {}
    }
    let (Ok(Path(file)), Ok(Query(signed))) = (path, query) else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "InvalidArgument",
            "The request's path or query string could not be read",
        );
    };
    let Some(id) = file.strip_suffix(".pdf") else {
        return no_such_key();
    };
    if let Some(refusal) = refused(&app, id, signed) {
        return refusal;
    }
    // Links carry no key: the inspection may be any company's.
    let exists = app
        .find_in_any(|store| {
            (store.inspections.iter())
                .any(|r| r.record.id.as_str() == id)
                .then_some(())
        })
        .await;
    if exists.is_none() {
        return no_such_key();
    }
    let bytes = crate::pdf::render(&format!("Inspection {id}"));
    match mode {
        LinkMode::Truncated => truncated(bytes),
        LinkMode::NotPdf => document(b"this is not a PDF document\n".to_vec()),
        _ => document(bytes),
    }
}

/// The refusal, unless the link's signature is the one made for (`id`, `expires`) and
/// `expires` is still ahead of the sandbox's clock.
fn refused(app: &App, id: &str, signed: Signed) -> Option<Response> {
    let expires = signed
        .expires
        .as_deref()
        .and_then(|e| e.parse::<i64>().ok());
    let (Some(expires), Some(signature)) = (expires, signed.signature) else {
        return Some(refusal(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Query-string authentication requires expires and signature",
        ));
    };
    if signature != app.storage.sign(id, expires) {
        return Some(refusal(
            StatusCode::FORBIDDEN,
            "SignatureDoesNotMatch",
            "The request signature does not match",
        ));
    }
    if expires <= app.clock.now().timestamp() {
        return Some(refusal(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Request has expired",
        ));
    }
    None
}

fn no_such_key() -> Response {
    refusal(StatusCode::NOT_FOUND, "NoSuchKey", "No such object")
}

fn document(bytes: Vec<u8>) -> Response {
    let mut resp = Body::from(bytes).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/pdf"),
    );
    resp
}

/// The full length announced, half the bytes sent, then the connection broken.
fn truncated(bytes: Vec<u8>) -> Response {
    let length = bytes.len();
    let half = bytes::Bytes::from(bytes).slice(..length / 2);
    // The break comes a moment after the half, so the head and the half reach the client
    // first, as when a connection drops mid-download.
    let broken = async {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "cut short",
        ))
    };
    let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(half)])
        .chain(futures_util::stream::once(broken));
    let mut resp = Body::from_stream(chunks).into_response();
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/pdf"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    resp
}

/// What a link that lands on a sign-in page answers.
fn html() -> Response {
    let mut resp =
        Body::from("<!doctype html><title>Sign in</title><form>Sign in to continue</form>\n")
            .into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    resp
}

/// An object storage's refusal: its code and message, as XML.
fn refusal(status: StatusCode, code: &str, message: &str) -> Response {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message></Error>\n"
    );
    let mut resp = (status, body).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_signed_for_its_id_and_expiry_and_modes_read_by_name() {
        let storage = Storage::new("http://127.0.0.1:1".into(), &Faults::default());
        let now = "2026-01-01T00:00:00Z".parse().unwrap();
        let link = storage.link("ins 1/a", now);
        let expires = (now + LIFETIME).timestamp();
        assert!(
            link.starts_with(&format!(
                "http://127.0.0.1:1/inspections/ins%201%2Fa.pdf?expires={expires}&signature="
            )),
            "{link}"
        );
        assert_ne!(storage.sign("a", expires), storage.sign("b", expires));
        assert_ne!(storage.sign("a", expires), storage.sign("a", expires + 1));
        let other = Storage::new("http://127.0.0.1:1".into(), &Faults::default());
        assert_ne!(
            storage.sign("a", expires),
            other.sign("a", expires),
            "a key per sandbox"
        );
        assert_eq!(LinkMode::parse("not_pdf"), Some(LinkMode::NotPdf));
        assert_eq!(LinkMode::parse("gone"), None);
        storage.set_mode(LinkMode::Expired);
        assert!(storage.link("a", now).contains(&format!(
            "expires={}",
            (now - chrono::TimeDelta::hours(1)).timestamp()
        )));
    }
}
