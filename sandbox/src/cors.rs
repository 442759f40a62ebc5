//! `--cors-origin ORIGIN`: lets a page served from ORIGIN call the sandbox from a browser
//! (the TypeScript client's browser tests). Off by default: without the flag nothing here
//! runs and an `OPTIONS` request is routed like any other.
//!
//! With it, outside everything else (so preflights are neither recorded, scripted, rate
//! limited nor checked for keys):
//! * a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an
//!   allowed origin, to any path, is answered `204` allowing the methods the interfaces use
//!   and the request headers the clients send (each interface's credential headers and fixed
//!   headers, from the IR, and `content-type` and `accept`); from another origin, `403`
//!   with the reason, and no CORS header;
//! * every other answer to a request from an allowed origin names that origin and exposes
//!   the answer headers the clients read (`Retry-After` as each interface's spec names it,
//!   `x-request-id`, `etag`, `location`, `content-type`, `content-length`).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::ir::{Auth, Ir};

/// The answer headers the clients read besides the `Retry-After` each spec names.
const READ_HEADERS: [&str; 5] = [
    "x-request-id",
    "etag",
    "location",
    "content-type",
    "content-length",
];

/// The request headers every client may send besides those the IR names.
const SENT_HEADERS: [&str; 2] = ["content-type", "accept"];

/// How long a browser may keep a preflight's answer, in seconds.
const MAX_AGE: &str = "600";

/// `--cors-origin`: `http(s)://host[:port]`, as a browser sends it in `Origin` (lowercase,
/// no default port, no path).
pub fn parse(text: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(text).map_err(|e| format!("`{text}` is not an origin: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("`{text}` is not an http(s) origin with a host"));
    }
    if url.path() != "/"
        || url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
        || text.ends_with('/')
    {
        return Err(format!(
            "`{text}` is not an origin: scheme, host and port only (`http://127.0.0.1:5173`)"
        ));
    }
    Ok(url.origin().ascii_serialization())
}

/// What the layer answers with, computed once from the origins and the IR.
#[derive(Debug)]
pub struct Cors {
    origins: Vec<String>,
    allow_methods: HeaderValue,
    allow_headers: HeaderValue,
    expose_headers: HeaderValue,
}

impl Cors {
    /// The CORS answers for `origins` (each as [`parse`] gives it), and the headers the
    /// interfaces of `ir` send and read.
    pub fn new(origins: Vec<String>, ir: &Ir) -> Cors {
        let mut sent: Vec<String> = SENT_HEADERS.iter().map(|h| h.to_string()).collect();
        let mut read: Vec<String> = READ_HEADERS.iter().map(|h| h.to_string()).collect();
        let mut methods = Vec::new();
        for interface in &ir.interfaces {
            match &interface.auth {
                Auth::ApiKeyHeaders { headers, .. } => {
                    sent.extend(headers.iter().map(|h| h.name.clone()));
                }
                Auth::TokenLogin { header, .. } => sent.push(header.clone()),
            }
            sent.extend(interface.headers.iter().map(|h| h.name.clone()));
            if let Some(name) = interface
                .rate_limit
                .as_ref()
                .and_then(|r| r.retry_after_header.clone())
            {
                read.push(name);
            }
            methods.extend(interface.operations.iter().map(|o| o.method.as_str()));
        }
        let list = |mut names: Vec<String>| {
            names.iter_mut().for_each(|n| n.make_ascii_lowercase());
            names.sort();
            names.dedup();
            HeaderValue::from_str(&names.join(", ")).expect("header names are ASCII")
        };
        let mut method_list: Vec<&str> = methods;
        method_list.sort();
        method_list.dedup();
        Cors {
            origins,
            allow_methods: HeaderValue::from_str(&method_list.join(", "))
                .expect("methods are ASCII"),
            allow_headers: list(sent),
            expose_headers: list(read),
        }
    }

    /// The request's `Origin` when it is one of the allowed ones.
    fn allowed(&self, headers: &HeaderMap) -> Option<HeaderValue> {
        let origin = headers.get(header::ORIGIN)?;
        let text = origin.to_str().ok()?;
        self.origins
            .iter()
            .any(|o| o == text)
            .then(|| origin.clone())
    }
}

/// The layer: preflights answered here, other answers to allowed origins marked.
pub async fn answer(State(cors): State<Arc<Cors>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let allowed = cors.allowed(headers);
    let preflight = request.method() == Method::OPTIONS
        && headers.contains_key(header::ORIGIN)
        && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if preflight {
        let Some(origin) = allowed else {
            let origin = headers
                .get(header::ORIGIN)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .unwrap_or_default();
            return crate::http::error(
                StatusCode::FORBIDDEN,
                format!(
                    "origin `{origin}` is not allowed: the sandbox answers cross-origin \
                     requests from {} only (--cors-origin)",
                    cors.origins.join(", ")
                ),
            );
        };
        let mut answer = StatusCode::NO_CONTENT.into_response();
        let h = answer.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            cors.allow_methods.clone(),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            cors.allow_headers.clone(),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(MAX_AGE),
        );
        h.insert(header::VARY, vary_preflight());
        return answer;
    }
    let mut answer = next.run(request).await;
    let h = answer.headers_mut();
    h.append(header::VARY, HeaderValue::from_static("origin"));
    if let Some(origin) = allowed {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            cors.expose_headers.clone(),
        );
    }
    answer
}

fn vary_preflight() -> HeaderValue {
    let names: [HeaderName; 3] = [
        header::ORIGIN,
        header::ACCESS_CONTROL_REQUEST_METHOD,
        header::ACCESS_CONTROL_REQUEST_HEADERS,
    ];
    let text: Vec<&str> = names.iter().map(HeaderName::as_str).collect();
    HeaderValue::from_str(&text.join(", ")).expect("header names are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_scheme_host_and_port_only() {
        assert_eq!(
            parse("http://127.0.0.1:5173").unwrap(),
            "http://127.0.0.1:5173"
        );
        assert_eq!(parse("HTTP://LocalHost:80").unwrap(), "http://localhost");
        assert_eq!(
            parse("https://app.example.test").unwrap(),
            "https://app.example.test"
        );
        for bad in [
            "127.0.0.1:5173",
            "ftp://host",
            "http://host/",
            "http://host/app",
            "http://host?x=1",
            "http://user@host",
            "*",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_lists_come_from_the_spec() {
        let cors = Cors::new(vec!["http://127.0.0.1:1".into()], &crate::ir::embedded());
        let allowed = cors.allow_headers.to_str().unwrap();
        assert_eq!(
            allowed,
            "accept, api-key-id, api-key-secret, authorization, content-type"
        );
        let exposed = cors.expose_headers.to_str().unwrap();
        assert_eq!(
            exposed,
            "content-length, content-type, etag, location, retry-after, x-request-id"
        );
        assert_eq!(
            cors.allow_methods.to_str().unwrap(),
            "DELETE, GET, PATCH, POST, PUT"
        );
    }
}
