//! The streamable HTTP transport's check of where a request comes from, as the MCP
//! transport specification requires of a server (DNS rebinding: a page in the user's
//! browser calling a loopback server that acts with the user's credentials). A request
//! without `Origin` (command-line and desktop clients send none) is served; one whose
//! `Origin` is not the server's own loopback origin is refused with 403 and a JSON-RPC
//! error, whatever its method. It knows nothing of the MCP SDK: it wraps the service.

use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use axum::middleware::Next;

/// The origins a request may come from: the server's own on loopback, by every loopback
/// name (`127.0.0.1`, `localhost`, `[::1]`), on its port.
#[derive(Clone, Debug)]
pub struct Origins {
    own: Vec<String>,
}

impl Origins {
    /// The origins of a server listening on loopback port `port`.
    pub fn loopback(port: u16) -> Self {
        Origins {
            own: ["127.0.0.1", "localhost", "[::1]"]
                .iter()
                .map(|host| format!("http://{host}:{port}"))
                .collect(),
        }
    }

    /// Whether a request with this `Origin` header (none: `None`) may be served. `null`
    /// (an opaque origin: a sandboxed page, a file) never may.
    pub fn allows(&self, origin: Option<&HeaderValue>) -> bool {
        let Some(origin) = origin else { return true };
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        self.own.contains(&origin)
    }
}

/// The middleware: the request goes on when its origin is allowed, else a 403.
pub async fn check(origins: Origins, request: Request<Body>, next: Next) -> Response<Body> {
    if origins.allows(request.headers().get(header::ORIGIN)) {
        return next.run(request).await;
    }
    refused()
}

/// 403 with a JSON-RPC error (its `id` null: the request is not read).
fn refused() -> Response<Body> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32000,
            "message": "Forbidden: this server serves requests from its own loopback origin, or with no Origin header, only"
        }
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = StatusCode::FORBIDDEN;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
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
    }
}
