//! Sends requests: pacing, credentials, retries, timeouts, redirects, 202 polling and
//! tracing, once for every generated operation.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION, USER_AGENT};
use reqwest::{Method, Url};
use serde::de::DeserializeOwned;
use tracing::Instrument;

use crate::auth::Auth;
use crate::config::Config;
use crate::error::{ApiError, Error, error_message};
use crate::origin;
use crate::pacing::Pacer;
use crate::request::Request;
use crate::retry::retry_after;
use crate::validate::Validator;

/// An answer with a success status (2xx).
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Response {
    /// Decodes the JSON body; a failure names the JSON path where it happened.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, Error> {
        decode(self.status, &self.body)
    }
}

/// Decodes `body` as `T`, naming the JSON path of a failure.
pub fn decode<T: DeserializeOwned>(status: u16, body: &[u8]) -> Result<T, Error> {
    // The JSON path is tracked only to explain a failure (decoding again): tracking it on
    // every answer costs ~15 % of the decode.
    if let Ok(value) = serde_json::from_slice(body) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let message = crate::model::without_position(&e.inner().to_string());
        Error::Decode {
            status,
            path: through_unions(&e.path().to_string(), &message),
            message,
        }
    })
}

/// The whole JSON path of a failure: serde stops at the first union member it passes
/// through, whose message names the rest (`type `pass_fail`: items[0].label: ...`, one
/// union after another); those steps are joined to the outer path.
fn through_unions(outer: &str, message: &str) -> String {
    let mut path = if outer == "." {
        String::new()
    } else {
        outer.to_string()
    };
    let mut rest = message;
    // Each union member's message starts "<tag> `<value>`: ", then its inner path, if any.
    while let Some(after) = member_prefix(rest) {
        let Some((step, tail)) = after.split_once(": ") else {
            break;
        };
        if step.is_empty()
            || !step
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c))
        {
            break;
        }
        if !path.is_empty() && !step.starts_with('[') {
            path.push('.');
        }
        path.push_str(step);
        rest = tail;
    }
    if path.is_empty() {
        ".".to_string()
    } else {
        path
    }
}

/// What follows a leading "<word> `<value>`: ", if the text starts so.
fn member_prefix(text: &str) -> Option<&str> {
    let (word, after_word) = text.split_once(" `")?;
    if word.is_empty() || !word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let (_, after_value) = after_word.split_once("`: ")?;
    Some(after_value)
}

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
    config: Config,
    pacer: Pacer,
}

/// What to do after a failed attempt.
enum Next {
    Retry(Duration),
    Fail(Error),
}

impl Core {
    /// A core for `base_url`. The URL must be https, or http on a loopback host.
    pub fn new(base_url: &str, auth: Auth, config: Config) -> Result<Core, Error> {
        let base = Url::parse(base_url).map_err(|e| {
            // Quoted only when it cannot hold a credential (`user:password@`).
            let shown = if base_url.contains('@') {
                String::new()
            } else {
                format!(" `{base_url}`")
            };
            Error::Config(format!("the base URL{shown} is not a URL: {e}"))
        })?;
        origin::check_secure(&base, "the base URL").map_err(Error::Config)?;
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
            reqwest::Client::builder()
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
        let pacer = Pacer::new(config.rate_limit);
        Ok(Core {
            inner: Arc::new(Inner {
                http,
                bare,
                base,
                auth,
                config,
                pacer,
            }),
        })
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    pub fn base_url(&self) -> &Url {
        &self.inner.base
    }

    /// Checks `value`'s documented limits, unless validation is turned off.
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
        let max = self.inner.config.retry.max_attempts.max(1);
        let mut attempt = 1;
        let mut renewed = false;
        loop {
            self.inner.pacer.acquire().await;
            let token = match &self.inner.auth {
                Auth::Token(t) if !req.anonymous => Some((t.clone(), t.generation())),
                _ => None,
            };
            let span = tracing::debug_span!(
                "inspection_request",
                method = %req.method,
                path = req.template,
                attempt,
                status = tracing::field::Empty,
            );
            let outcome = self.attempt(req, &url).instrument(span.clone()).await;
            let next = match outcome {
                Ok(resp) => {
                    span.record("status", resp.status);
                    return Ok(resp);
                }
                Err(failure) => {
                    if let Some(status) = failure.status() {
                        span.record("status", status);
                    }
                    // A 401 with a token in use: log in again once, then repeat the request
                    // (it was refused, so it was not applied).
                    if let (Some(401), Some((auth, seen)), false) =
                        (failure.status(), &token, renewed)
                    {
                        tracing::info!(parent: &span, "401 with a token: logging in again");
                        auth.renew(*seen, self).await?;
                        renewed = true;
                        continue;
                    }
                    self.next_step(req, failure, attempt < max, attempt)
                }
            };
            match next {
                Next::Fail(e) => return Err(e),
                Next::Retry(delay) => {
                    tracing::warn!(
                        parent: &span,
                        retry_in_ms = delay.as_millis() as u64,
                        "retrying {}",
                        req.describe()
                    );
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
            }
        }
    }

    /// One attempt: its response, or what failed.
    async fn attempt(&self, req: &Request, url: &Url) -> Result<Response, Failure> {
        let mut headers = HeaderMap::new();
        if !req.anonymous {
            self.inner.auth.apply(&mut headers);
        }
        let accept = req.accept.unwrap_or(self.inner.config.default_accept);
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        if let Ok(ua) = HeaderValue::from_str(&self.inner.config.user_agent) {
            headers.insert(USER_AGENT, ua);
        }
        let mut builder = self
            .inner
            .http
            .request(req.method.clone(), url.clone())
            .headers(headers);
        if let Some(body) = &req.body {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        let resp = builder.send().await.map_err(Failure::Send)?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.bytes().await.map_err(Failure::Body)?;
        tracing::debug!(status, bytes = body.len(), "response");
        if (200..300).contains(&status) {
            return Ok(Response {
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
        Err(Failure::Status(ApiError {
            status,
            message: error_message(&body, self.inner.config.error_message_field),
            retry_after: retry_after(&headers),
            operation: req.describe(),
            hint: req.hint,
        }))
    }

    /// Retry 429 for any method (the service refused it, so it was not applied); 5xx,
    /// timeouts and broken bodies only for idempotent methods; connection failures for
    /// any method (nothing reached the service).
    fn next_step(&self, req: &Request, failure: Failure, may_retry: bool, attempt: u32) -> Next {
        let policy = &self.inner.config.retry;
        let backoff = policy.backoff(attempt);
        let idempotent = req.is_idempotent();
        let (method, path) = (req.method.to_string(), req.template.to_string());
        match failure {
            Failure::Status(api) if api.status == 429 => {
                // A wait longer than the client allows is reported, not cut short: retrying
                // early would only meet another 429.
                if api.retry_after.is_some_and(|r| r > policy.max_backoff) {
                    return Next::Fail(Error::Api(api));
                }
                let wait = api.retry_after.unwrap_or(backoff).min(policy.max_backoff);
                // Every request of this client waits, not only this one.
                self.inner.pacer.pause_for(wait);
                if may_retry {
                    Next::Retry(Duration::ZERO)
                } else {
                    Next::Fail(Error::Api(api))
                }
            }
            Failure::Status(api) if api.status >= 500 && idempotent && may_retry => {
                Next::Retry(backoff)
            }
            Failure::Status(api) => Next::Fail(Error::Api(api)),
            Failure::Redirect(origin) => Next::Fail(Error::ForeignOrigin {
                what: "a redirect",
                origin,
            }),
            Failure::Send(e) if e.is_connect() && may_retry => Next::Retry(backoff),
            Failure::Send(e) | Failure::Body(e) if e.is_timeout() => {
                if idempotent && may_retry {
                    Next::Retry(backoff)
                } else {
                    Next::Fail(Error::Timeout { method, path })
                }
            }
            Failure::Send(e) | Failure::Body(e) => {
                if idempotent && may_retry {
                    Next::Retry(backoff)
                } else {
                    Next::Fail(Error::Transport {
                        method,
                        path,
                        message: describe(&e),
                    })
                }
            }
        }
    }

    /// Like [`Core::execute`], but a 202 (still preparing) is asked again, with backoff
    /// (or the service's `Retry-After`), up to the configured number of polls.
    pub async fn execute_ready(&self, req: &Request) -> Result<Response, Error> {
        let config = &self.inner.config;
        let mut waited = Duration::ZERO;
        let mut interval = config.poll_interval;
        let mut polls = 0;
        loop {
            let resp = self.execute(req).await?;
            if resp.status != 202 {
                return Ok(resp);
            }
            polls += 1;
            if polls > config.max_polls {
                return Err(Error::NotReady {
                    path: req.describe(),
                    attempts: polls,
                    waited,
                });
            }
            let wait = retry_after(&resp.headers)
                .unwrap_or(interval)
                .min(config.retry.max_backoff);
            tracing::debug!(wait_ms = wait.as_millis() as u64, "202: not ready yet");
            tokio::time::sleep(wait).await;
            waited += wait;
            interval = (interval * 2).min(config.retry.max_backoff);
        }
    }

    /// Sends `req` and decodes its JSON answer.
    pub async fn json<T: DeserializeOwned>(&self, req: &Request) -> Result<T, Error> {
        self.execute(req).await?.json()
    }

    /// Fetches a pre-signed URL (a share link, `pdf_share_url`) without any credential,
    /// whatever its origin.
    pub async fn fetch_presigned(&self, url: &str) -> Result<Bytes, Error> {
        let (parsed, shown) = presigned(url)?;
        // Share links are served by the service itself, so they count against its rate
        // limit; uploads (`put_presigned`) go to storage and are not paced.
        self.inner.pacer.acquire().await;
        let span = tracing::debug_span!("inspection_presigned", path = %parsed.path());
        let result = async {
            let resp = self
                .inner
                .bare
                .request(Method::GET, parsed.clone())
                .send()
                .await?;
            let status = resp.status().as_u16();
            let body = resp.bytes().await?;
            Ok::<_, reqwest::Error>((status, body))
        }
        .instrument(span)
        .await;
        match result {
            Ok((status, body)) if (200..300).contains(&status) => Ok(body),
            Ok((status, body)) => Err(Error::Api(ApiError {
                status,
                message: error_message(&body, self.inner.config.error_message_field),
                retry_after: None,
                operation: format!("GET {shown}"),
                hint: None,
            })),
            Err(e) if e.is_timeout() => Err(Error::Timeout {
                method: "GET".into(),
                path: shown,
            }),
            Err(e) => Err(Error::Transport {
                method: "GET".into(),
                path: shown,
                message: describe(&e),
            }),
        }
    }
}

impl Core {
    /// PUTs `body` to a pre-signed URL (an upload URL, a multipart part URL) without any
    /// credential, retrying failures (a PUT of the same bytes is idempotent). Returns the
    /// `ETag` the storage answered, if any.
    pub async fn put_presigned(
        &self,
        url: &str,
        body: Bytes,
        content_type: Option<&str>,
    ) -> Result<Option<String>, Error> {
        let (parsed, shown) = presigned(url)?;
        let policy = &self.inner.config.retry;
        let mut attempt = 1;
        loop {
            let mut request = self.inner.bare.put(parsed.clone()).body(body.clone());
            if let Some(ct) = content_type {
                request = request.header(CONTENT_TYPE, ct);
            }
            let span =
                tracing::debug_span!("inspection_presigned_put", path = %parsed.path(), attempt);
            let result = request.send().instrument(span).await;
            let failure = match result {
                Ok(resp) if resp.status().is_success() => {
                    let etag = resp
                        .headers()
                        .get(reqwest::header::ETAG)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string);
                    return Ok(etag);
                }
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let body = resp.bytes().await.unwrap_or_default();
                    let api = ApiError {
                        status,
                        message: error_message(&body, self.inner.config.error_message_field),
                        retry_after: None,
                        operation: format!("PUT {shown}"),
                        hint: None,
                    };
                    if status < 500 && status != 429 {
                        return Err(Error::Api(api));
                    }
                    Error::Api(api)
                }
                Err(e) => Error::Transport {
                    method: "PUT".into(),
                    path: shown.clone(),
                    message: describe(&e),
                },
            };
            if attempt >= policy.max_attempts {
                return Err(failure);
            }
            tokio::time::sleep(policy.backoff(attempt)).await;
            attempt += 1;
        }
    }

    /// PUTs each part to its pre-signed URL, at most `concurrency` at a time, and returns
    /// `(part number, ETag)` in part order (part numbers start at 1).
    pub async fn put_parts(
        &self,
        urls: &[String],
        parts: Vec<Bytes>,
        content_type: Option<&str>,
        concurrency: usize,
    ) -> Result<Vec<(u32, String)>, Error> {
        use futures_util::{StreamExt, TryStreamExt};
        if urls.len() != parts.len() {
            return Err(Error::Config(format!(
                "{} parts for {} upload URLs",
                parts.len(),
                urls.len()
            )));
        }
        let uploads = urls
            .iter()
            .zip(parts)
            .enumerate()
            .map(|(i, (url, part))| async move {
                let number = i as u32 + 1;
                let etag = self.put_presigned(url, part, content_type).await?;
                let etag = etag.ok_or_else(|| Error::Decode {
                    status: 200,
                    path: format!("part {number}: ETag header"),
                    message: "the storage answered without an ETag".into(),
                })?;
                Ok::<_, Error>((number, etag))
            });
        let mut done: Vec<(u32, String)> = futures_util::stream::iter(uploads)
            .buffer_unordered(concurrency.max(1))
            .try_collect()
            .await?;
        done.sort_by_key(|(n, _)| *n);
        Ok(done)
    }
}

enum Failure {
    Send(reqwest::Error),
    Body(reqwest::Error),
    Status(ApiError),
    Redirect(String),
}

impl Failure {
    fn status(&self) -> Option<u16> {
        match self {
            Failure::Status(api) => Some(api.status),
            _ => None,
        }
    }
}

/// A pre-signed URL, checked (https, or http on loopback), and how errors show it: origin
/// and path, never the query, which holds the signature.
fn presigned(url: &str) -> Result<(Url, String), Error> {
    let parsed = Url::parse(url)
        .map_err(|e| Error::Config(format!("not a URL ({e}): a pre-signed link was expected")))?;
    origin::check_secure(&parsed, "a pre-signed URL").map_err(Error::Config)?;
    let shown = format!("{}{}", origin::origin(&parsed), parsed.path());
    Ok((parsed, shown))
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

#[cfg(test)]
mod path_tests {
    use super::through_unions;

    #[test]
    fn union_steps_join_the_outer_path() {
        let message = "object `checklist`: data[0]: type `pass_fail`: items[0].label: invalid type: integer `5`, expected a string";
        assert_eq!(
            through_unions("data[0].results[0]", message),
            "data[0].results[0].data[0].items[0].label"
        );
        assert_eq!(
            through_unions(".", "type `inspection.created`: data: invalid type: string"),
            "data"
        );
        assert_eq!(through_unions(".", "type `x`: missing field `id`"), ".");
        assert_eq!(through_unions("a.b", "invalid type: null"), "a.b");
    }
}
