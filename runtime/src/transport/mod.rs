//! Sends requests: pacing, credentials, retries, timeouts, redirects and tracing, once for
//! every generated operation. Bodies are read in bounded memory (`body`), 202 answers
//! polled (`poll`), pre-signed URLs fetched without credentials (`presigned`), and JSON
//! decoded with the path of a failure (`decode`).

mod body;
mod decode;
mod poll;
mod presigned;

pub use decode::{Response, decode};

pub use presigned::Fetched;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION, USER_AGENT};
use serde::de::DeserializeOwned;
use tracing::Instrument;

use body::ReadError;

use crate::auth::{Auth, LoginFuture, TokenAuth};
use crate::config::Config;
use crate::error::{ApiError, Error, http_cause};
use crate::origin;
use crate::pacing::Pacer;
use crate::request::Request;
use crate::validate::Validator;

/// Whether a status is a success (2xx): the one place the transport decides it.
pub(crate) fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// A stream of results, boxed so that callers can name it and call `try_next` on it
/// (a walk's pages, a download's chunks).
pub type BoxStream<T> =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<T, Error>> + Send>>;

/// The shared core of a generated client. Cloning is cheap, and clones share the
/// connection pool and the pacing state.
#[derive(Clone, Debug)]
pub struct Core {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Carries credentials; follows redirects only within the base URL's origin.
    http: reqwest::Client,
    /// Never carries credentials: for pre-signed URLs.
    bare: reqwest::Client,
    base: Url,
    auth: Auth,
    /// How a token is renewed, for `Auth::Token`.
    login: Option<Login>,
    config: Config,
    /// This client's own, or one it shares with others ([`Config::share_pacing`]).
    pacer: Arc<Pacer>,
    /// This client's place in its pacer's queue: one request of it waits there at a time.
    turn: crate::pacing::ClientTurn,
    /// Requests this client (and its clones) sent, and 429 answers it met: its own
    /// counts, even when its pacer is shared.
    sent: AtomicU64,
    rate_limited: AtomicU64,
}

/// Logs in (with the credentials it captured) through the client's own core, so logins are
/// paced and retried like every other request, and returns the new token.
pub type LoginFn = Arc<dyn Fn(Core) -> LoginFuture + Send + Sync>;

struct Login(LoginFn);

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Login(..)")
    }
}

/// A request as it would go on the wire ([`Core::preview`]), secrets redacted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Preview {
    /// The HTTP method.
    pub method: String,
    /// The full URL, query included.
    pub url: String,
    /// Every header in the order sent; sensitive values read `<redacted>`.
    pub headers: Vec<(String, String)>,
    /// The body as it would be sent, not redacted (it may hold a password).
    pub body: Option<Vec<u8>>,
}

/// A success answer, its body as the attempt's reader made it: read whole, or left open
/// for a download.
struct Answer<B> {
    status: u16,
    headers: HeaderMap,
    body: B,
}

/// What to do after a failed attempt.
enum Next {
    Retry(Duration, Retry),
    Fail(Error),
}

/// Why an attempt is sent again, for the `inspection.retry` event.
struct Retry {
    /// `status`, `timeout` or `connection`.
    reason: &'static str,
    status: Option<u16>,
    /// How long until the next attempt (a 429's wait is the pacer's pause).
    wait: Duration,
    /// Whether the wait is the service's `Retry-After`.
    retry_after: bool,
}

/// Whole milliseconds, for trace fields.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Core {
    /// A core for `base_url`. The URL must be https, or http on a loopback host. A token
    /// needs its login beside it: [`Core::logged_in`].
    pub fn new(base_url: &str, auth: Auth, config: Config) -> Result<Core, Error> {
        if matches!(auth, Auth::Token(_)) {
            return Err(Error::Config(
                "a token needs the login that renews it: use Core::logged_in".into(),
            ));
        }
        Core::build(base_url, auth, None, config)
    }

    /// A core whose requests carry `token`, which `login` gets now and again whenever the
    /// service answers 401.
    #[doc(hidden)]
    pub async fn logged_in(
        base_url: &str,
        token: Arc<TokenAuth>,
        login: LoginFn,
        config: Config,
    ) -> Result<Core, Error> {
        let auth = Auth::Token(token.clone());
        let core = Core::build(base_url, auth, Some(Login(login)), config)?;
        core.log_in(&token, token.generation()).await?;
        Ok(core)
    }

    /// Logs in for `token` unless another request already did since generation `seen`.
    async fn log_in(&self, token: &TokenAuth, seen: u64) -> Result<(), Error> {
        // Only `logged_in` builds a core with a token, and it always gives the login.
        let Some(Login(login)) = &self.inner.login else {
            return Err(Error::Config("a token without a login to renew it".into()));
        };
        token.renew(seen, || login(self.clone())).await
    }

    fn build(
        base_url: &str,
        auth: Auth,
        login: Option<Login>,
        config: Config,
    ) -> Result<Core, Error> {
        let base = Url::parse(base_url).map_err(|e| {
            // Quoted only when it cannot hold a credential (`user:password@`).
            let shown = if base_url.contains('@') {
                String::new()
            } else {
                format!(" `{base_url}`")
            };
            Error::Config(format!("the base URL{shown} is not a URL: {e}"))
        })?;
        origin::check_secure(&base, "the base URL", &config.plain_http_hosts)
            .map_err(Error::Config)?;
        let policy_base = base.clone();
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 5 {
                attempt.error("too many redirects")
            } else if origin::same_origin(attempt.url(), &policy_base) {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let build = |policy| {
            let builder = reqwest::Client::builder();
            let builder = match &config.http {
                Some(setup) => setup.apply(builder),
                None => builder,
            };
            builder
                .redirect(policy)
                // reqwest would send the previous URL, query and all, to a redirect's
                // target: from a pre-signed URL that is its signature.
                .referer(false)
                .timeout(config.timeout)
                .connect_timeout(config.connect_timeout)
                .build()
                .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))
        };
        let http = build(policy)?;
        let bare = build(reqwest::redirect::Policy::limited(5))?;
        let pacer = match &config.shared_pacing {
            Some(shared) => shared.pacer(base.as_str(), config.pacing_limit()),
            None => Arc::new(Pacer::new(config.pacing_limit())),
        };
        Ok(Core {
            inner: Arc::new(Inner {
                http,
                bare,
                base,
                auth,
                login,
                config,
                pacer,
                turn: Default::default(),
                sent: AtomicU64::new(0),
                rate_limited: AtomicU64::new(0),
            }),
        })
    }

    /// The settings this client was built with.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The base URL every request's path is joined to.
    pub fn base_url(&self) -> &Url {
        &self.inner.base
    }

    /// Requests this client (and its clones) has sent to the service so far, retries
    /// included: for a progress display's request pace.
    pub fn requests_sent(&self) -> u64 {
        self.inner.sent.load(Ordering::Relaxed)
    }

    /// The 429 answers this client (and its clones) has met so far, each one whether it
    /// was retried or not: for a run's record of how often the quota was hit.
    pub fn rate_limited(&self) -> u64 {
        self.inner.rate_limited.load(Ordering::Relaxed)
    }

    /// Waits for this client's turn under its pacer, and counts the request as sent;
    /// returns how long the pace held it (see [`Pacer::acquire`]).
    async fn paced(&self) -> Duration {
        let waited = self.inner.pacer.acquire_in_turn(&self.inner.turn).await;
        self.inner.sent.fetch_add(1, Ordering::Relaxed);
        waited
    }

    /// Checks `value`'s documented limits, unless validation is turned off.
    #[doc(hidden)]
    pub fn validate(&self, check: impl FnOnce(&mut Validator)) -> Result<(), Error> {
        if !self.inner.config.validate_requests {
            return Ok(());
        }
        let mut v = Validator::new();
        check(&mut v);
        v.finish().map_err(Error::Validation)
    }

    /// Sends `req` until it succeeds or fails for good; a 202 is a success here.
    pub async fn execute(&self, req: &Request) -> Result<Response, Error> {
        let limit = self.inner.config.max_response_bytes;
        let answer = self.send(req, &|resp| read_whole(resp, limit)).await;
        answer.map(Answer::into_response).map_err(|e| self.scrub(e))
    }

    /// Sends `req` and decodes its JSON answer.
    pub async fn json<T: DeserializeOwned>(&self, req: &Request) -> Result<T, Error> {
        self.decode(&self.execute(req).await?)
    }

    /// Decodes a response's JSON body; like [`Response::json`], with the client's secrets
    /// scrubbed from the error (a decode error may quote a value the service echoed).
    pub fn decode<T: DeserializeOwned>(&self, resp: &Response) -> Result<T, Error> {
        resp.json().map_err(|e| self.scrub(e))
    }

    /// `error` with every secret of the client's credentials (key secret, token,
    /// password) replaced, wherever the service may have echoed it into the text.
    pub fn scrub(&self, error: Error) -> Error {
        let secrets = self.inner.auth.secrets();
        if secrets.is_empty() {
            return error;
        }
        error.scrubbed(&secrets)
    }

    /// The headers an attempt at `req` sends: the request's extra headers, then the
    /// credentials, `Accept`, `User-Agent` and the body's `Content-Type`, which replace
    /// any extra header of the same name.
    fn headers(&self, req: &Request) -> HeaderMap {
        let mut headers = req.options.headers.clone();
        for name in [CONTENT_TYPE, reqwest::header::AUTHORIZATION] {
            headers.remove(name);
        }
        if !req.anonymous {
            self.inner.auth.apply(&mut headers);
        }
        let accept = req.accept.unwrap_or(self.inner.config.accept());
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        if let Ok(ua) = HeaderValue::from_str(&self.inner.config.user_agent) {
            headers.insert(USER_AGENT, ua);
        }
        if req.body.is_some() {
            let media = req.content_type.as_deref().unwrap_or("application/json");
            if let Ok(media) = HeaderValue::from_str(media) {
                headers.insert(CONTENT_TYPE, media);
            }
        }
        headers
    }

    /// What `req` would put on the wire, for a dry run; nothing is sent. Every sensitive
    /// header value (the key secret, a token) reads `<redacted>`.
    pub fn preview(&self, req: &Request) -> Preview {
        let headers = self
            .headers(req)
            .iter()
            .map(|(name, value)| {
                let value = if value.is_sensitive() {
                    "<redacted>".to_string()
                } else {
                    String::from_utf8_lossy(value.as_bytes()).into_owned()
                };
                (name.as_str().to_string(), value)
            })
            .collect();
        Preview {
            method: req.method.to_string(),
            url: req.url(&self.inner.base).to_string(),
            headers,
            body: req.body.clone(),
        }
    }

    /// Sends `req` until it succeeds or fails for good; `read` makes the success body.
    async fn send<B, R: Future<Output = Result<B, Failure>>>(
        &self,
        req: &Request,
        read: &impl Fn(reqwest::Response) -> R,
    ) -> Result<Answer<B>, Error> {
        if let Some(bad) = req.unsendable_segment() {
            return Err(Error::Validation(crate::Violations(vec![
                crate::Violation {
                    path: req.template.to_string(),
                    message: format!(
                        "the path value {bad:?} cannot be sent as one segment (it would reach another endpoint)"
                    ),
                },
            ])));
        }
        let url = req.url(&self.inner.base);
        if req.absolute.is_some() && !origin::same_origin(&url, &self.inner.base) {
            return Err(Error::ForeignOrigin {
                what: "a link",
                origin: origin::origin(&url),
            });
        }
        let call = tracing::debug_span!(
            "inspection.call",
            otel.name = req.operation,
            inspection.operation = req.operation,
            http.request.method = %req.method,
            url.template = req.template,
        );
        let result = self
            .attempts(req, &url, read)
            .instrument(call.clone())
            .await;
        if let Err(e) = &result {
            tracing::debug!(
                parent: &call,
                inspection.event = "error",
                inspection.operation = req.operation,
                error.type = e.kind(),
                http.response.status_code = e.status(),
                "{} failed",
                req.describe()
            );
        }
        result
    }

    /// The attempts of one call (inside its span): paced, each in a span of its own, retried
    /// as the policy says, and repeated once after a token's re-login.
    async fn attempts<B, R: Future<Output = Result<B, Failure>>>(
        &self,
        req: &Request,
        url: &Url,
        read: &impl Fn(reqwest::Response) -> R,
    ) -> Result<Answer<B>, Error> {
        let max = self.retry_policy(req).max_attempts.max(1);
        let (host, port) = (url.host_str().unwrap_or(""), url.port_or_known_default());
        // `attempt` counts against the retry budget; `sent` numbers the attempts in traces,
        // where the repeat after a re-login is one more.
        let (mut attempt, mut sent) = (1, 0u32);
        let mut renewed = false;
        loop {
            let paced = self.paced().await;
            if !paced.is_zero() {
                tracing::debug!(
                    inspection.event = "pause",
                    inspection.operation = req.operation,
                    inspection.reason = "rate_limit",
                    inspection.wait_ms = millis(paced),
                    "waited for the client's rate limit"
                );
            }
            sent += 1;
            let token = match &self.inner.auth {
                Auth::Token(t) if !req.anonymous => Some((t.clone(), t.generation())),
                _ => None,
            };
            let span = attempt_span(req, sent, host, port);
            let started = std::time::Instant::now();
            let outcome = self.attempt(req, url, read).instrument(span.clone()).await;
            let status = match &outcome {
                Ok(answer) => Some((answer.status, &answer.headers)),
                Err(Failure::Status(api)) => Some((api.status, &api.headers)),
                Err(_) => None,
            };
            if let Some((status, headers)) = status {
                answered(&span, req, sent, (status, headers), started.elapsed());
            }
            let next = match outcome {
                Ok(answer) => return Ok(answer),
                Err(failure) => {
                    span.record("otel.status_code", "error");
                    span.record("error.type", failure.error_type());
                    // A 401 with a token in use: log in again once, then repeat the request
                    // (it was refused, so it was not applied).
                    if let (Some(401), Some((auth, seen)), false) =
                        (failure.status(), &token, renewed)
                    {
                        tracing::info!(parent: &span, "401 with a token: logging in again");
                        self.log_in(auth, *seen).await?;
                        renewed = true;
                        continue;
                    }
                    self.next_step(req, failure, attempt < max, attempt)
                }
            };
            match next {
                Next::Fail(e) => return Err(e),
                Next::Retry(delay, why) => {
                    tracing::warn!(
                        parent: &span,
                        inspection.event = "retry",
                        inspection.operation = req.operation,
                        inspection.attempt = sent,
                        inspection.reason = why.reason,
                        http.response.status_code = why.status,
                        inspection.wait_ms = millis(why.wait),
                        inspection.retry_after = why.retry_after,
                        "retrying {} ({}) in {} ms",
                        req.describe(),
                        why.reason,
                        millis(why.wait)
                    );
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
            }
        }
    }

    /// One attempt: its response, or what failed.
    async fn attempt<B, R: Future<Output = Result<B, Failure>>>(
        &self,
        req: &Request,
        url: &Url,
        read: &impl Fn(reqwest::Response) -> R,
    ) -> Result<Answer<B>, Failure> {
        let mut builder = self
            .inner
            .http
            .request(req.method.clone(), url.clone())
            .headers(self.headers(req));
        if let Some(timeout) = req.options.timeout {
            builder = builder.timeout(timeout);
        }
        if let Some(body) = &req.body {
            builder = builder.body(body.clone());
        }
        let resp = builder.send().await.map_err(Failure::Send)?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let config = &self.inner.config;
        if is_success(status) {
            let body = read(resp).await?;
            tracing::debug!(status, "response");
            return Ok(Answer {
                status,
                headers,
                body,
            });
        }
        if (300..400).contains(&status) {
            let target = headers
                .get(LOCATION)
                .and_then(|l| l.to_str().ok())
                .and_then(|l| url.join(l).ok())
                .map(|u| origin::origin(&u))
                .unwrap_or_else(|| "unknown".to_string());
            return Err(Failure::Redirect(target));
        }
        // Only the start of an error body is read: its message is all that is kept.
        let body = body::read_prefix(resp, config.max_error_bytes).await;
        tracing::debug!(status, bytes = body.len(), "error response");
        let mut api = ApiError::from_answer(
            status,
            req.describe(),
            headers,
            &body,
            config.message_field(),
        );
        api.hint = req.hint;
        Err(Failure::Status(Box::new(api)))
    }

    /// The request's own retry policy, else the client's.
    fn retry_policy<'a>(&'a self, req: &'a Request) -> &'a crate::RetryPolicy {
        req.options
            .retry
            .as_ref()
            .unwrap_or(&self.inner.config.retry)
    }

    /// Retry 429 for any method (the service refused it, so it was not applied); 5xx,
    /// timeouts and broken bodies only for idempotent methods; connection failures for
    /// any method (nothing reached the service).
    fn next_step(&self, req: &Request, failure: Failure, may_retry: bool, attempt: u32) -> Next {
        let policy = self.retry_policy(req);
        let backoff = policy.backoff(attempt);
        let idempotent = req.is_idempotent();
        let (method, path) = (req.method.to_string(), req.template.to_string());
        let retry = |reason, status| Retry {
            reason,
            status,
            wait: backoff,
            retry_after: false,
        };
        match failure {
            Failure::Status(api) if api.status == 429 => {
                self.inner.rate_limited.fetch_add(1, Ordering::Relaxed);
                // A wait longer than the client allows is reported, not cut short: retrying
                // early would only meet another 429.
                if api.retry_after.is_some_and(|r| r > policy.max_backoff) {
                    return Next::Fail(Error::Api(api));
                }
                let wait = api.retry_after.unwrap_or(backoff).min(policy.max_backoff);
                // Every request of this client waits, not only this one.
                self.inner.pacer.pause_for(wait);
                if may_retry {
                    let why = Retry {
                        reason: "status",
                        status: Some(429),
                        wait,
                        retry_after: api.retry_after.is_some(),
                    };
                    Next::Retry(Duration::ZERO, why)
                } else {
                    Next::Fail(Error::Api(api))
                }
            }
            Failure::Status(api) if api.status >= 500 && idempotent && may_retry => {
                Next::Retry(backoff, retry("status", Some(api.status)))
            }
            Failure::Status(api) => Next::Fail(Error::Api(api)),
            Failure::TooLarge => Next::Fail(Error::TooLarge {
                operation: req.describe(),
                limit: self.inner.config.max_response_bytes,
            }),
            Failure::Redirect(origin) => Next::Fail(Error::ForeignOrigin {
                what: "a redirect",
                origin,
            }),
            Failure::Send(e) if e.is_connect() && may_retry => {
                Next::Retry(backoff, retry("connection", None))
            }
            Failure::Send(e) | Failure::Body(e) if e.is_timeout() => {
                if idempotent && may_retry {
                    Next::Retry(backoff, retry("timeout", None))
                } else {
                    Next::Fail(Error::Timeout {
                        method,
                        path,
                        source: http_cause(e),
                    })
                }
            }
            Failure::Send(e) | Failure::Body(e) => {
                if idempotent && may_retry {
                    Next::Retry(backoff, retry("connection", None))
                } else {
                    Next::Fail(Error::Transport {
                        method,
                        path,
                        message: describe(&e),
                        source: http_cause(e),
                    })
                }
            }
        }
    }
}

/// Reads a success body whole within `limit` (`Config::max_response_bytes`), inside the
/// attempt, so a body that breaks off is retried like any failed attempt.
async fn read_whole(resp: reqwest::Response, limit: u64) -> Result<Bytes, Failure> {
    body::read_limited(resp, limit).await.map_err(|e| match e {
        ReadError::TooLarge => Failure::TooLarge,
        ReadError::Broken(e) => Failure::Body(e),
    })
}

impl Answer<Bytes> {
    fn into_response(self) -> Response {
        Response {
            status: self.status,
            headers: self.headers,
            body: self.body,
        }
    }
}

/// Why one attempt failed.
enum Failure {
    Send(reqwest::Error),
    Body(reqwest::Error),
    /// The success body passed `Config::max_response_bytes`.
    TooLarge,
    Status(Box<ApiError>),
    Redirect(String),
}

impl Failure {
    fn status(&self) -> Option<u16> {
        match self {
            Failure::Status(api) => Some(api.status),
            _ => None,
        }
    }

    /// OpenTelemetry's `error.type` of a failed attempt: the status code, or what broke.
    fn error_type(&self) -> String {
        match self {
            Failure::Status(api) => api.status.to_string(),
            Failure::Send(e) | Failure::Body(e) if e.is_timeout() => "timeout".into(),
            Failure::Send(_) | Failure::Body(_) => "transport".into(),
            Failure::TooLarge => "too_large".into(),
            Failure::Redirect(_) => "foreign_origin".into(),
        }
    }
}

/// The error and its causes, without the URL (whose query may carry a signature).
fn describe(e: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = source {
        parts.push(s.to_string());
        source = s.source();
    }
    let head = if e.is_connect() {
        "cannot connect"
    } else if e.is_body() || e.is_decode() {
        "the response body could not be read"
    } else {
        "the request failed"
    };
    if parts.is_empty() {
        head.to_string()
    } else {
        format!("{head}: {}", parts.join(": "))
    }
}

/// The span of one attempt of `req` (the `sent`-th), with OpenTelemetry's names.
fn attempt_span(req: &Request, sent: u32, host: &str, port: Option<u16>) -> tracing::Span {
    let span = tracing::debug_span!(
        "inspection.attempt",
        otel.name = %format_args!("{} {}", req.method, req.template),
        otel.kind = "client",
        otel.status_code = tracing::field::Empty,
        inspection.operation = req.operation,
        inspection.attempt = sent,
        http.request.method = %req.method,
        url.template = req.template,
        server.address = host,
        server.port = port.map(i64::from),
        http.request.resend_count = tracing::field::Empty,
        http.response.status_code = tracing::field::Empty,
        error.type = tracing::field::Empty,
    );
    if sent > 1 {
        // OpenTelemetry integers are i64; an unsigned one reaches its bridge as text.
        span.record("http.request.resend_count", i64::from(sent - 1));
    }
    span
}

/// An attempt's answer on its span: the status, and the `response` event.
fn answered(
    span: &tracing::Span,
    req: &Request,
    sent: u32,
    (status, headers): (u16, &HeaderMap),
    took: Duration,
) {
    span.record("http.response.status_code", i64::from(status));
    tracing::debug!(
        parent: span,
        inspection.event = "response",
        inspection.operation = req.operation,
        inspection.attempt = sent,
        http.response.status_code = status,
        inspection.duration_ms = millis(took),
        inspection.request_id = headers.get("x-request-id").and_then(|v| v.to_str().ok()),
        "answered"
    );
}
