//! The one error type of the client.

use std::fmt;
use std::time::Duration;

use crate::validate::Violations;

/// The error underneath a transport failure or a timeout, for `source()` chains.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// `e` as a [`Cause`]; an HTTP error without its URL.
pub(crate) fn http_cause(e: reqwest::Error) -> Option<Cause> {
    Some(Box::new(e.without_url()))
}

/// Everything that can go wrong with a call. Never carries a credential: secrets live only
/// in request headers, which no variant holds, and URLs are shown without their query.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The service answered with an error status (boxed: it holds the headers and body,
    /// and every `Result` of the client stays small).
    Api(Box<ApiError>),
    /// The request broke a documented limit; nothing was sent.
    Validation(Violations),
    /// The connection failed, or the body could not be read.
    Transport {
        /// The HTTP method of the call.
        method: String,
        /// The path template of the call, or a pre-signed URL without its query.
        path: String,
        /// What broke, in words.
        message: String,
        /// The underlying error (an HTTP error has its URL removed: a pre-signed URL's
        /// query is a credential).
        source: Option<Cause>,
    },
    /// No answer within the configured timeout.
    Timeout {
        /// The HTTP method of the call.
        method: String,
        /// The path template of the call, or a pre-signed URL without its query.
        path: String,
        /// The underlying error, if any (an HTTP error has its URL removed).
        source: Option<Cause>,
    },
    /// A response body (status 0: a webhook delivery) did not match the expected type.
    Decode {
        /// The HTTP status of the answer; 0 for a webhook delivery.
        status: u16,
        /// The JSON path of the failure, e.g. `data[3].results[1].data[0].value`.
        path: String,
        /// What did not match the expected type.
        message: String,
    },
    /// The service kept answering 202 (still preparing) past the polling limit, or asked
    /// (`Retry-After`) to wait longer than the client's longest wait.
    NotReady {
        /// The call that kept answering 202 (method and path template).
        path: String,
        /// Requests made.
        attempts: u32,
        /// Time spent waiting between the attempts.
        waited: Duration,
        /// The wait the service asked for, when it was beyond `RetryPolicy::max_backoff`.
        retry_after: Option<Duration>,
    },
    /// A response body was larger than `Config::max_response_bytes`; no more than that
    /// was read.
    TooLarge {
        /// The call (method and path template, or a pre-signed URL without its query).
        operation: String,
        /// The limit it went over, in bytes.
        limit: u64,
    },
    /// A page of a walk could not be fetched; the walk can start again at that page with
    /// the list builder's `resume(..)`, so nothing is fetched twice.
    Interrupted {
        /// Where to start again.
        resume: Resume,
        /// What went wrong fetching the page.
        source: Box<Error>,
    },
    /// A next-page link or a redirect pointed at another origin; it was not followed, so
    /// no credential left for it.
    ForeignOrigin {
        /// What was refused: `a link`, `a next-page link` or `a redirect`.
        what: &'static str,
        /// The other origin (scheme, host and port), never a path or query.
        origin: String,
    },
    /// Paging did not advance: the service returned a next page it had already given,
    /// more empty pages in a row than `Config::max_empty_pages`, or a full page with
    /// neither a way on nor a sign that it is the last.
    PagingStalled {
        /// The call of the page where the walk stopped (method and path template).
        path: String,
        /// Why the walk stopped.
        reason: String,
    },
    /// The client was configured wrongly (e.g. a plain-http base URL that is not loopback).
    Config(String),
    /// A webhook delivery's authentication header is missing or wrong.
    Webhook(String),
}

// Display and source by hand rather than by thiserror's derive: its proc macro (and syn)
// was in the build of every application using the client, for this one enum.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(api) => api.fmt(f),
            Error::Validation(violations) => write!(f, "invalid request: {violations}"),
            Error::Transport {
                method,
                path,
                message,
                ..
            } => write!(f, "transport error on {method} {path}: {message}"),
            Error::Timeout { method, path, .. } => write!(f, "{method} {path} timed out"),
            Error::Decode {
                status,
                path,
                message,
            } => write!(
                f,
                "cannot decode the {status} response at `{path}`: {message}"
            ),
            Error::NotReady {
                path,
                attempts,
                waited,
                retry_after,
            } => write!(
                f,
                "{path} was still not ready after {attempts} attempts ({waited:?}){}",
                asked_too_long(*retry_after)
            ),
            Error::TooLarge { operation, limit } => write!(
                f,
                "the answer to {operation} is larger than the client's limit of {limit} bytes \
                 (Config::max_response_bytes; downloads can be streamed instead)"
            ),
            Error::Interrupted { resume, source } => {
                write!(f, "{source} (the walk can resume at this page: {resume})")
            }
            Error::ForeignOrigin { what, origin } => {
                write!(f, "refused to follow {what} to another origin ({origin})")
            }
            Error::PagingStalled { path, reason } => {
                write!(f, "paging did not advance at {path}: {reason}")
            }
            Error::Config(message) => write!(f, "configuration error: {message}"),
            Error::Webhook(message) => write!(f, "webhook delivery refused: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Shown as the API error itself, so its cause is the API error's.
            Error::Api(api) => api.source(),
            Error::Transport { source, .. } | Error::Timeout { source, .. } => {
                source.as_deref().map(|e| e as _)
            }
            Error::Interrupted { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

impl Error {
    /// What kind of failure this is, in one word: `api`, `validation`, `transport`,
    /// `timeout`, `decode`, `not_ready`, `too_large`, `foreign_origin`, `paging_stalled`,
    /// `config` or `webhook` (an interrupted walk: its cause's). Traces name it as
    /// `error.type`; metrics can count by it.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Api(_) => "api",
            Error::Validation(_) => "validation",
            Error::Transport { .. } => "transport",
            Error::Timeout { .. } => "timeout",
            Error::Decode { .. } => "decode",
            Error::NotReady { .. } => "not_ready",
            Error::TooLarge { .. } => "too_large",
            Error::Interrupted { source, .. } => source.kind(),
            Error::ForeignOrigin { .. } => "foreign_origin",
            Error::PagingStalled { .. } => "paging_stalled",
            Error::Config(_) => "config",
            Error::Webhook(_) => "webhook",
        }
    }

    /// The HTTP status, for API errors.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(e) => Some(e.status),
            Error::Decode { status, .. } => Some(*status),
            Error::Interrupted { source, .. } => source.status(),
            _ => None,
        }
    }

    /// Where a walk that failed part-way can start again (see [`Error::Interrupted`]).
    pub fn resume(&self) -> Option<&Resume> {
        match self {
            Error::Interrupted { resume, .. } => Some(resume),
            _ => None,
        }
    }

    /// The error with each of `secrets` replaced in every text it holds (the service may
    /// echo a credential into an error body). Secrets shorter than four characters are
    /// left alone: replacing them would garble ordinary words, and reveal little.
    pub(crate) fn scrubbed(self, secrets: &[String]) -> Error {
        let s = |text: String| scrub(text, secrets);
        match self {
            Error::Api(api) => Error::Api(Box::new(api.scrubbed(secrets))),
            Error::Transport {
                method,
                path,
                message,
                source,
            } => Error::Transport {
                method,
                path: s(path),
                message: s(message),
                source,
            },
            Error::Decode {
                status,
                path,
                message,
            } => Error::Decode {
                status,
                path: s(path),
                message: s(message),
            },
            Error::Config(message) => Error::Config(s(message)),
            Error::PagingStalled { path, reason } => Error::PagingStalled {
                path: s(path),
                reason,
            },
            Error::Interrupted { resume, source } => Error::Interrupted {
                resume,
                source: Box::new(source.scrubbed(secrets)),
            },
            other => other,
        }
    }
}

/// `text` with every occurrence of each secret (four characters or more) replaced.
pub(crate) fn scrub(mut text: String, secrets: &[String]) -> String {
    for secret in secrets.iter().filter(|s| s.chars().count() >= 4) {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), "<redacted>");
        }
    }
    text
}

fn asked_too_long(retry_after: Option<Duration>) -> String {
    match retry_after {
        Some(d) => format!(
            "; the service asked to wait {} s more, longer than the client waits (RetryPolicy::max_backoff)",
            d.as_secs()
        ),
        None => String::new(),
    }
}

/// An error status from the service: its status, message, headers and body (the first
/// `Config::max_error_bytes` of it), with every configured secret replaced by
/// `<redacted>`, so that it can be logged and acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiError {
    /// The HTTP status the service answered (e.g. 404, 429, 503).
    pub status: u16,
    /// The service's message (`{"errors": "..."}`), if the body carried one.
    pub message: Option<String>,
    /// When to try again, from `Retry-After` (429).
    pub retry_after: Option<Duration>,
    /// The method and path template of the call, for context.
    pub operation: String,
    /// What a 403 most likely means for this operation.
    pub hint: Option<&'static str>,
    /// The response headers (without `Set-Cookie`).
    pub headers: reqwest::header::HeaderMap,
    /// The start of the body as text (invalid UTF-8 replaced), at most
    /// `Config::max_error_bytes` of it.
    pub body: String,
    /// The request id the service (or a proxy before it) gave, from the first of
    /// `X-Request-Id`, `Request-Id`, `X-Amzn-RequestId`, `X-Correlation-Id`.
    pub request_id: Option<String>,
}

/// Headers that commonly carry a request id, in the order they are looked for.
const REQUEST_ID_HEADERS: [&str; 4] = [
    "x-request-id",
    "request-id",
    "x-amzn-requestid",
    "x-correlation-id",
];

impl ApiError {
    /// The error for an answer with `status`, `headers` and (the start of) `body`, whose
    /// message is the body's `message_field`.
    pub(crate) fn from_answer(
        status: u16,
        operation: String,
        mut headers: reqwest::header::HeaderMap,
        body: &[u8],
        message_field: &str,
    ) -> ApiError {
        headers.remove(reqwest::header::SET_COOKIE);
        let request_id = REQUEST_ID_HEADERS
            .iter()
            .find_map(|name| headers.get(*name)?.to_str().ok())
            .map(str::to_string);
        ApiError {
            status,
            message: error_message(body, message_field),
            retry_after: crate::retry::retry_after(&headers),
            operation,
            hint: None,
            body: String::from_utf8_lossy(body).into_owned(),
            request_id,
            headers,
        }
    }

    /// The same, with `secrets` replaced in every text it holds.
    fn scrubbed(mut self, secrets: &[String]) -> ApiError {
        let s = |text: String| scrub(text, secrets);
        self.message = self.message.map(s);
        self.body = s(self.body);
        self.request_id = self.request_id.map(s);
        for value in self.headers.values_mut() {
            if let Ok(text) = value.to_str()
                && let clean = s(text.to_string())
                && clean != text
                && let Ok(clean) = reqwest::header::HeaderValue::from_str(&clean)
            {
                *value = clean;
            }
        }
        self
    }
}

impl From<ApiError> for Error {
    fn from(api: ApiError) -> Error {
        Error::Api(Box::new(api))
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} answered {}", self.operation, self.status)?;
        if let Some(m) = &self.message {
            write!(f, ": {m}")?;
        }
        if let (403, Some(h)) = (self.status, self.hint) {
            write!(f, " ({h})")?;
        }
        if let Some(r) = self.retry_after {
            write!(f, " (retry after {} s)", r.as_secs())?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

/// Reads the message of an error body. The documented form is `{"<field>": "message"}`;
/// an array or object there is rendered as JSON text, an empty or non-JSON body gives
/// its text (or nothing), so no service answer breaks error reporting.
pub(crate) fn error_message(body: &[u8], field: &str) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(map)) => match map.get(field) {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| i.to_string())
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            Some(serde_json::Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        },
        Ok(serde_json::Value::String(s)) => Some(s),
        _ => Some(text.chars().take(500).collect()),
    }
}

/// Where a walk can start again: the cursor or the link of the page it could not fetch.
/// Its text form (`cursor:<cursor>`, `link:<url>`) can be stored and parsed back, to
/// resume in another process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Resume {
    /// A cursor, sent as the list's page parameter.
    Cursor(String),
    /// A next-page link, absolute, on the base URL's origin.
    Link(String),
}

impl std::fmt::Display for Resume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Resume::Cursor(c) => write!(f, "cursor:{c}"),
            Resume::Link(l) => write!(f, "link:{l}"),
        }
    }
}

impl std::str::FromStr for Resume {
    type Err = Error;

    fn from_str(text: &str) -> Result<Resume, Error> {
        if let Some(c) = text.strip_prefix("cursor:") {
            Ok(Resume::Cursor(c.to_string()))
        } else if let Some(l) = text.strip_prefix("link:") {
            Ok(Resume::Link(l.to_string()))
        } else {
            Err(Error::Config(format!(
                "`{}` is not a resume point (`cursor:...` or `link:...`)",
                text.chars().take(40).collect::<String>()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Case = (Error, &'static str, Option<&'static str>);

    /// Errors before or without an answer: validation, transport, timeout.
    fn sending_errors() -> Vec<Case> {
        let (method, path) = ("GET".to_string(), "/units/{unit_id}".to_string());
        let cause = || -> Option<Cause> { Some("connection reset".into()) };
        vec![
            (
                Error::Validation(Violations(vec![crate::validate::Violation {
                    path: "name".into(),
                    message: "is empty".into(),
                }])),
                "invalid request: name: is empty",
                None,
            ),
            (
                Error::Transport {
                    method: method.clone(),
                    path: path.clone(),
                    message: "reset".into(),
                    source: cause(),
                },
                "transport error on GET /units/{unit_id}: reset",
                Some("connection reset"),
            ),
            (
                Error::Timeout {
                    method,
                    path: path.clone(),
                    source: None,
                },
                "GET /units/{unit_id} timed out",
                None,
            ),
        ]
    }

    /// Errors about an answer, a walk, a redirect, the configuration, a webhook.
    fn answer_errors() -> Vec<Case> {
        let path = "/units/{unit_id}".to_string();
        let config = || Error::Config("no base URL".into());
        vec![
            (
                Error::Decode {
                    status: 200,
                    path: "data[3].id".into(),
                    message: "invalid type".into(),
                },
                "cannot decode the 200 response at `data[3].id`: invalid type",
                None,
            ),
            (
                Error::NotReady {
                    path: path.clone(),
                    attempts: 3,
                    waited: Duration::from_secs(2),
                    retry_after: Some(Duration::from_secs(90)),
                },
                "/units/{unit_id} was still not ready after 3 attempts (2s); the service asked \
                 to wait 90 s more, longer than the client waits (RetryPolicy::max_backoff)",
                None,
            ),
            (
                Error::TooLarge {
                    operation: path.clone(),
                    limit: 10,
                },
                "the answer to /units/{unit_id} is larger than the client's limit of 10 bytes \
                 (Config::max_response_bytes; downloads can be streamed instead)",
                None,
            ),
            (
                Error::Interrupted {
                    resume: Resume::Cursor("c2".into()),
                    source: Box::new(config()),
                },
                "configuration error: no base URL (the walk can resume at this page: cursor:c2)",
                Some("configuration error: no base URL"),
            ),
            (
                Error::ForeignOrigin {
                    what: "a redirect",
                    origin: "https://other.example".into(),
                },
                "refused to follow a redirect to another origin (https://other.example)",
                None,
            ),
            (
                Error::PagingStalled {
                    path,
                    reason: "the same page again".into(),
                },
                "paging did not advance at /units/{unit_id}: the same page again",
                None,
            ),
            (config(), "configuration error: no base URL", None),
            (
                Error::Webhook("bad signature".into()),
                "webhook delivery refused: bad signature",
                None,
            ),
        ]
    }

    #[test]
    fn every_error_has_its_message_and_its_cause() {
        use std::error::Error as _;
        for (error, message, source) in sending_errors().into_iter().chain(answer_errors()) {
            assert_eq!(error.to_string(), message, "the message of {error:?}");
            let cause = error.source().map(|e| e.to_string());
            assert_eq!(cause.as_deref(), source, "the cause of {error:?}");
        }
    }

    #[test]
    fn error_bodies_are_read_tolerantly() {
        let m = |b: &str| error_message(b.as_bytes(), "errors");
        assert_eq!(
            m(r#"{"errors":"The Unit A-001 could not be found"}"#).as_deref(),
            Some("The Unit A-001 could not be found")
        );
        assert_eq!(m(r#"{"errors":["a","b"]}"#).as_deref(), Some("a; b"));
        assert_eq!(
            m(r#"{"errors":{"vin":"bad"}}"#).as_deref(),
            Some(r#"{"vin":"bad"}"#)
        );
        assert_eq!(m(""), None);
        assert_eq!(m(r#"{"other":1}"#), None);
        assert_eq!(m("<html>oops</html>").as_deref(), Some("<html>oops</html>"));
    }
}
