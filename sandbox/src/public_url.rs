//! The address clients use, when it is not the one the sandbox listens on (a reverse proxy,
//! an SSH tunnel, a container's port mapping): every absolute URL in an answer (paging
//! links, share and PDF links, pre-signed upload URLs) must name it, or the second page of
//! every stream fails.
//!
//! `--public-url` fixes it for every request: links are built with it from the start. With
//! `--trust-forwarded-headers`, a request's `Forwarded` (RFC 7239) or `X-Forwarded-Host` /
//! `X-Forwarded-Proto` headers name it per request, and the answer's links are rewritten
//! from the sandbox's own origin to that one. Without the flag those headers are ignored:
//! anyone can send them.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::App;

/// `--public-url`: `http(s)://host[:port][/path]`, no query or fragment; returned without
/// a trailing `/`, as links are built by appending a path to it.
pub fn parse(text: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(text).map_err(|e| format!("`{text}` is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("`{text}` is not an http(s) URL with a host"));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(format!(
            "`{text}` has a query, fragment or user: only scheme, host, port and path"
        ));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// The origin a request names in its forwarding headers, if any: `Forwarded` first (its
/// first element, the one the client-facing proxy added), then `X-Forwarded-Host` and
/// `X-Forwarded-Proto`. `None` when no host is named or it is not a plain host[:port].
pub fn forwarded_origin(headers: &HeaderMap) -> Option<String> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let first = |v: &str| v.split(',').next().unwrap_or("").trim().to_string();
    let (mut host, mut proto) = (None, None);
    if let Some(forwarded) = text("forwarded") {
        for pair in first(forwarded).split(';') {
            let Some((key, value)) = pair.split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"').to_string();
            match key.trim().to_ascii_lowercase().as_str() {
                "host" => host = Some(value),
                "proto" => proto = Some(value),
                _ => {}
            }
        }
    }
    let host = host.or_else(|| text("x-forwarded-host").map(first))?;
    let proto = proto
        .or_else(|| text("x-forwarded-proto").map(first))
        .unwrap_or_else(|| "http".into())
        .to_ascii_lowercase();
    let plain = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c));
    (plain && matches!(proto.as_str(), "http" | "https")).then(|| format!("{proto}://{host}"))
}

/// Rewrites the sandbox's origin in an answer (its text body and `Location`) to the one the
/// request's forwarding headers name, when `--trust-forwarded-headers` is on.
pub async fn rewrite(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let public = app
        .trust_forwarded
        .then(|| forwarded_origin(request.headers()))
        .flatten()
        .filter(|o| *o != app.origin);
    let response = next.run(request).await;
    let Some(public) = public else {
        return response;
    };
    let (mut parts, body) = response.into_parts();
    if let Some(location) = parts.headers.get(header::LOCATION)
        && let Ok(text) = location.to_str()
        && let Ok(value) = HeaderValue::from_str(&text.replace(&app.origin, &public))
    {
        parts.headers.insert(header::LOCATION, value);
    }
    let textual = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json") || t.starts_with("text/"));
    if !textual {
        return Response::from_parts(parts, body);
    }
    // JSON answers are built in memory anyway; the limit only guards the copy.
    let bytes = match axum::body::to_bytes(body, 512 << 20).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let body =
                serde_json::json!({"errors": format!("cannot rewrite the answer's links: {e}")});
            return (
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                axum::Json(body),
            )
                .into_response();
        }
    };
    let text = String::from_utf8_lossy(&bytes).replace(&app.origin, &public);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn forwarding_headers_name_the_origin() {
        let f = |pairs: &[(&str, &str)]| forwarded_origin(&headers(pairs));
        assert_eq!(
            f(&[(
                "forwarded",
                "for=1.2.3.4;proto=https;host=\"gw.example:8443\", host=inner"
            )]),
            Some("https://gw.example:8443".into())
        );
        assert_eq!(
            f(&[
                ("x-forwarded-host", "gw.example, inner"),
                ("x-forwarded-proto", "https")
            ]),
            Some("https://gw.example".into())
        );
        assert_eq!(
            f(&[("x-forwarded-host", "127.0.0.1:9")]),
            Some("http://127.0.0.1:9".into())
        );
        assert_eq!(f(&[("x-forwarded-proto", "https")]), None, "no host");
        assert_eq!(f(&[("x-forwarded-host", "evil.example/path")]), None);
        assert_eq!(
            f(&[("x-forwarded-host", "a"), ("x-forwarded-proto", "ftp")]),
            None
        );
    }

    #[test]
    fn a_public_url_is_scheme_host_port_and_path() {
        assert_eq!(
            parse("https://gw.example/sandbox/").unwrap(),
            "https://gw.example/sandbox"
        );
        assert_eq!(parse("http://127.0.0.1:9").unwrap(), "http://127.0.0.1:9");
        assert!(parse("ftp://x").is_err());
        assert!(parse("https://gw.example/?a=1").is_err());
        assert!(parse("not a url").is_err());
    }
}
