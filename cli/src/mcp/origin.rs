//! The streamable HTTP transport's check of where a request comes from, as the MCP
//! transport specification requires of a server (DNS rebinding: a page in the user's
//! browser calling a loopback server that acts with the user's credentials). A request
//! without `Origin` (command-line and desktop clients send none) is served; one whose
//! `Origin` is not the server's own loopback origin is refused with 403 and a JSON-RPC
//! error, whatever its method, unless `--allow-origin` names it: such a page gets the CORS
//! answers a browser needs (its preflights answered here). It knows nothing of the MCP
//! SDK: it wraps the service.

use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode, header};
use axum::middleware::Next;

/// The origins a request may come from: the server's own on loopback, by every loopback
/// name (`127.0.0.1`, `localhost`, `[::1]`), on its port.
#[derive(Clone, Debug)]
pub struct Origins {
    own: Vec<String>,
    /// Pages allowed besides (`--allow-origin`, as `command` normalized them).
    allowed: Vec<String>,
}

/// What a page may send a server it is allowed to call: the MCP transport's headers.
const ALLOW_HEADERS: &str =
    "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID";

impl Origins {
    /// The origins of a server listening on loopback port `port`.
    pub fn loopback(port: u16) -> Self {
        Origins {
            own: ["127.0.0.1", "localhost", "[::1]"]
                .iter()
                .map(|host| format!("http://{host}:{port}"))
                .collect(),
            allowed: Vec::new(),
        }
    }

    /// These and the pages `allowed` (normalized origins).
    pub fn with_allowed(mut self, allowed: Vec<String>) -> Self {
        self.allowed = allowed;
        self
    }

    /// Whether a request with this `Origin` header (none: `None`) may be served. `null`
    /// (an opaque origin: a sandboxed page, a file) never may.
    pub fn allows(&self, origin: Option<&HeaderValue>) -> bool {
        let Some(origin) = origin else { return true };
        self.own.contains(&text(origin)) || self.is_allowed_page(origin)
    }

    /// Whether `origin` is a page `--allow-origin` named (which gets CORS answers).
    fn is_allowed_page(&self, origin: &HeaderValue) -> bool {
        self.allowed.contains(&text(origin))
    }
}

fn text(origin: &HeaderValue) -> String {
    origin
        .to_str()
        .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
        .unwrap_or_default()
}

/// The middleware: the request goes on when its origin is allowed, else a 403.
pub async fn check(origins: Origins, request: Request<Body>, next: Next) -> Response<Body> {
    let origin = request.headers().get(header::ORIGIN).cloned();
    if !origins.allows(origin.as_ref()) {
        return super::refusal::refusal(
            StatusCode::FORBIDDEN,
            -32000,
            "Forbidden: this server serves requests from its own loopback origin, or with no Origin header, only",
        );
    }
    let Some(page) = origin.filter(|o| origins.is_allowed_page(o)) else {
        return next.run(request).await;
    };
    if request.method() == Method::OPTIONS {
        return preflight(page);
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, page);
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("Mcp-Session-Id"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    response
}

/// The answer to an allowed page's preflight: what it may send.
fn preflight(page: HeaderValue) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, page);
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(ALLOW_HEADERS),
    );
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("Mcp-Session-Id"),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_servers_own_loopback_origins_or_none_are_allowed() {
        let origins = Origins::loopback(8123);
        let allows = |v: &str| origins.allows(Some(&HeaderValue::from_str(v).unwrap()));
        assert!(origins.allows(None));
        assert!(allows("http://127.0.0.1:8123"));
        assert!(allows("http://localhost:8123"));
        assert!(allows("http://[::1]:8123"));
        assert!(allows("HTTP://LOCALHOST:8123/"));
        assert!(!allows("http://evil.example"));
        assert!(!allows("http://127.0.0.1:9999"));
        assert!(!allows("https://127.0.0.1:8123"));
        assert!(!allows("http://127.0.0.1.evil.example:8123"));
        assert!(!allows("null"));
        assert!(!allows(""));
        let pages = origins.with_allowed(vec!["https://app.example".into()]);
        let page = HeaderValue::from_static("https://APP.example/");
        assert!(pages.allows(Some(&page)) && pages.is_allowed_page(&page));
        assert!(!pages.allows(Some(&HeaderValue::from_static("https://app.example.evil"))));
    }
}
