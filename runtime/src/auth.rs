//! Credentials: kept out of `Debug`, logs and errors, and sent only to the base URL's origin.

use std::fmt;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

/// A secret string (an API key secret, a password, a token). `Debug` prints
/// `Secret(<redacted>)`; there is no `Display`.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
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

/// How requests authenticate.
#[derive(Clone)]
pub enum Auth {
    /// No credentials.
    None,
    /// Fixed headers on every request; values marked sensitive stay out of `Debug`.
    Headers(Vec<(HeaderName, HeaderValue)>),
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

    pub(crate) fn apply(&self, headers: &mut HeaderMap) {
        if let Auth::Headers(pairs) = self {
            for (k, v) in pairs {
                headers.insert(k.clone(), v.clone());
            }
        }
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::None => f.write_str("Auth::None"),
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
