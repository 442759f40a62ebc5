//! Credentials: kept out of `Debug`, logs and errors, and sent only to the base URL's origin.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::error::Error;

/// A secret string (an API key secret, a password, a token). `Debug` prints
/// `Secret(<redacted>)`; there is no `Display`.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value` as a secret.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Secret(s)
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Secret(s.to_string())
    }
}

/// A secret already kept as `secrecy::SecretString` (feature `secrecy`).
#[cfg(feature = "secrecy")]
impl From<secrecy::SecretString> for Secret {
    fn from(s: secrecy::SecretString) -> Self {
        Secret(secrecy::ExposeSecret::expose_secret(&s).to_string())
    }
}

#[cfg(all(test, feature = "secrecy"))]
mod secrecy_tests {
    #[test]
    fn a_secrecy_string_is_accepted_and_stays_redacted() {
        let secret: super::Secret = secrecy::SecretString::from("s3cr3t-value").into();
        assert_eq!(secret.expose(), "s3cr3t-value");
        assert!(!format!("{secret:?}").contains("s3cr3t"));
    }
}

/// Whether every client of the service can send `value` in a header as it is: visible
/// ASCII, spaces and tabs. (`HeaderValue` would take other bytes too, which a browser sends
/// as Latin-1 and Python's HTTP client not at all, so no client does.)
fn header_safe(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// The token of a login `answer`, its string member `field`. A token a header cannot carry
/// (anything but visible ASCII, spaces and tabs: a line break, a non-ASCII character) is
/// refused here, when the login answers, rather than when a request would send it. Either
/// failure is a decode error of the answer at `field`, quoting nothing of the token.
pub fn login_token(answer: &serde_json::Value, field: &str) -> Result<Secret, Error> {
    let refused = |message: &str| Error::Decode {
        status: 200,
        path: field.to_string(),
        message: message.to_string(),
    };
    let token = answer
        .get(field)
        .and_then(|t| t.as_str())
        .ok_or_else(|| refused("the login answer carries no token"))?;
    if !header_safe(token) {
        return Err(refused(
            "the token holds characters a header cannot carry (it is not shown)",
        ));
    }
    Ok(Secret::from(token))
}

/// How requests authenticate.
#[derive(Clone)]
pub enum Auth {
    /// No credentials.
    None,
    /// Fixed headers on every request; values marked sensitive stay out of `Debug`.
    Headers(Vec<(HeaderName, HeaderValue)>),
    /// A token from a login, sent as `<header>: <scheme> <token>`, renewed by logging in
    /// again when the service answers 401.
    Token(Arc<TokenAuth>),
}

/// A login that yields a token.
pub type LoginFuture = Pin<Box<dyn Future<Output = Result<Secret, Error>> + Send>>;

/// The current token; the login that renews it is the client core's (`Core::logged_in`).
pub struct TokenAuth {
    header: HeaderName,
    scheme: &'static str,
    /// The token and its generation (bumped at every login).
    current: RwLock<(u64, Option<Secret>)>,
    /// One login at a time; others wait and reuse its token.
    relogin: tokio::sync::Mutex<()>,
    /// What the login sends that must never be shown (the password).
    hidden: Vec<Secret>,
}

impl TokenAuth {
    /// `hidden`: the login's own secrets (its password), scrubbed from errors like the token.
    pub fn new(header: &'static str, scheme: &'static str, hidden: Vec<Secret>) -> Arc<TokenAuth> {
        Arc::new(TokenAuth {
            header: HeaderName::from_static(header),
            scheme,
            current: RwLock::new((0, None)),
            relogin: tokio::sync::Mutex::new(()),
            hidden,
        })
    }

    /// The generation of the token in use.
    pub fn generation(&self) -> u64 {
        self.current.read().unwrap_or_else(|p| p.into_inner()).0
    }

    /// Runs `login` for a new token unless another request already did since generation
    /// `seen`.
    pub async fn renew(&self, seen: u64, login: impl FnOnce() -> LoginFuture) -> Result<(), Error> {
        let _one_at_a_time = self.relogin.lock().await;
        if self.generation() != seen {
            return Ok(());
        }
        let token = login().await?;
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        *current = (current.0 + 1, Some(token));
        Ok(())
    }

    fn apply(&self, headers: &mut HeaderMap) {
        let current = self.current.read().unwrap_or_else(|p| p.into_inner());
        let Some(token) = &current.1 else {
            return;
        };
        let text = format!("{} {}", self.scheme, token.expose());
        if let Ok(mut value) = HeaderValue::from_str(&text) {
            value.set_sensitive(true);
            headers.insert(self.header.clone(), value);
        }
    }
}

impl fmt::Debug for TokenAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenAuth")
            .field("header", &self.header)
            .field("token", &"<redacted>")
            .field("generation", &self.generation())
            .finish()
    }
}

impl Auth {
    /// Builds header credentials; `(name, value, sensitive)`.
    pub fn headers(pairs: &[(&'static str, &str, bool)]) -> Result<Auth, String> {
        let mut out = Vec::with_capacity(pairs.len());
        for (name, value, sensitive) in pairs {
            let name = HeaderName::from_static(name);
            let refused =
                || format!("the `{name}` credential holds characters a header cannot carry");
            if !header_safe(value) {
                return Err(refused());
            }
            let mut value = HeaderValue::from_str(value).map_err(|_| refused())?;
            value.set_sensitive(*sensitive);
            out.push((name, value));
        }
        Ok(Auth::Headers(out))
    }

    /// Every secret these credentials hold now (sensitive header values, the token and
    /// the login's password), for scrubbing what the service echoes back.
    pub(crate) fn secrets(&self) -> Vec<String> {
        match self {
            Auth::None => Vec::new(),
            Auth::Headers(pairs) => pairs
                .iter()
                .filter(|(_, v)| v.is_sensitive())
                .filter_map(|(_, v)| v.to_str().ok().map(str::to_string))
                .collect(),
            Auth::Token(token) => {
                let current = token.current.read().unwrap_or_else(|p| p.into_inner());
                token
                    .hidden
                    .iter()
                    .chain(&current.1)
                    .map(|s| s.expose().to_string())
                    .collect()
            }
        }
    }

    pub(crate) fn apply(&self, headers: &mut HeaderMap) {
        match self {
            Auth::None => {}
            Auth::Headers(pairs) => {
                for (k, v) in pairs {
                    headers.insert(k.clone(), v.clone());
                }
            }
            Auth::Token(token) => token.apply(headers),
        }
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::None => f.write_str("Auth::None"),
            Auth::Token(token) => token.fmt(f),
            Auth::Headers(pairs) => {
                let mut list = f.debug_list();
                for (k, v) in pairs {
                    if v.is_sensitive() {
                        list.entry(&format_args!("{k}: <redacted>"));
                    } else {
                        list.entry(&format_args!("{k}: {v:?}"));
                    }
                }
                list.finish()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_a_header_cannot_carry_is_a_decode_error_that_shows_none_of_it() {
        let token = |t: &str| login_token(&serde_json::json!({"auth_token": t}), "auth_token");
        assert_eq!(token("abc.DEF-1 2").unwrap().expose(), "abc.DEF-1 2");
        for bad in [
            "Zq9\r\nX-Evil: 1",
            "Zq9\u{20ac}x",
            "Zq9\u{fc}x",
            "Zq9\u{7f}",
        ] {
            let err = token(bad).unwrap_err();
            let Error::Decode { path, .. } = &err else {
                panic!("{err:?}")
            };
            assert_eq!(path, "auth_token");
            let shown = format!("{err} {err:?}");
            for part in ["Zq9", "Evil", "\u{20ac}", "\u{fc}", "\\r", "20ac", "8364"] {
                assert!(!shown.contains(part), "{part} in {shown}");
            }
        }
        let missing = login_token(&serde_json::json!({}), "auth_token").unwrap_err();
        assert!(missing.to_string().contains("no token"), "{missing}");
    }

    #[test]
    fn a_header_credential_a_header_cannot_carry_is_a_config_error_naming_the_header() {
        for bad in ["s3cr3t\r\nX-Evil: 1", "s3cr3t-\u{fc}"] {
            let err = Auth::headers(&[("api-key-secret", bad, true)]).unwrap_err();
            assert!(err.contains("`api-key-secret`"), "{err}");
            assert!(!err.contains("s3cr3t") && !err.contains("Evil"), "{err}");
        }
        assert!(Auth::headers(&[("api-key-secret", "s3cr3t", true)]).is_ok());
    }
}
