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
            let mut value = HeaderValue::from_str(value).map_err(|_| {
                format!("the `{name}` credential holds characters a header cannot carry")
            })?;
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
