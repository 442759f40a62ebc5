//! The streamable HTTP transport's optional bearer token (`--token-file`): every request
//! must carry `Authorization: Bearer <token>`, compared in constant time; one without it,
//! or with another, is answered 401 with `WWW-Authenticate: Bearer` and a JSON-RPC error.
//! The token is never printed. It knows nothing of the MCP SDK: it wraps the service.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use axum::middleware::Next;

/// The token a request must carry; its Debug shows nothing of it.
#[derive(Clone)]
pub struct Token(Arc<Vec<u8>>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl Token {
    pub fn new(text: &str) -> Self {
        Token(Arc::new(text.as_bytes().to_vec()))
    }

    /// Whether the `Authorization` header carries this token as a bearer token. Every
    /// byte is compared whatever differs first, so the time taken tells nothing of a
    /// guess.
    pub fn admits(&self, authorization: Option<&HeaderValue>) -> bool {
        let Some(given) = authorization
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
        else {
            return false;
        };
        let (given, wanted) = (given.trim().as_bytes(), self.0.as_slice());
        let mut differs = given.len() ^ wanted.len();
        for (i, w) in wanted.iter().enumerate() {
            differs |= usize::from(given.get(i).copied().unwrap_or(0) ^ w);
        }
        differs == 0
    }
}

/// The middleware: the request goes on when it carries the token, else a 401.
pub async fn check(token: Token, request: Request<Body>, next: Next) -> Response<Body> {
    if token.admits(request.headers().get(header::AUTHORIZATION)) {
        return next.run(request).await;
    }
    let mut response = super::refusal::refusal(
        StatusCode::UNAUTHORIZED,
        -32001,
        "Unauthorized: send the server's token as `Authorization: Bearer <token>`",
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_is_admitted_and_never_shown() {
        let token = Token::new("s3cret-token");
        let header = |v: &str| HeaderValue::from_str(v).unwrap();
        assert!(token.admits(Some(&header("Bearer s3cret-token"))));
        assert!(!token.admits(None));
        assert!(!token.admits(Some(&header("Bearer s3cret-toke"))));
        assert!(!token.admits(Some(&header("Bearer s3cret-token2"))));
        assert!(!token.admits(Some(&header("Basic s3cret-token"))));
        assert!(!token.admits(Some(&header("s3cret-token"))));
        assert!(!format!("{token:?}").contains("s3cret"));
    }
}
