//! Pre-signed URLs (share links, PDF links, upload URLs): fetched and written without any
//! credential, whatever their origin, and shown in errors and spans without their query,
//! which holds the signature.

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, Url};
use tokio::io::AsyncWrite;
use tracing::Instrument;

use super::body::{self, CopyError, ReadError};
use super::{Core, describe};
use crate::error::{ApiError, Error, http_cause};
use crate::origin;

impl Core {
    /// Fetches a pre-signed URL (a share link, `pdf_share_url`) without any credential,
    /// whatever its origin; a body over `Config::max_response_bytes` is refused (use
    /// [`Core::fetch_presigned_to`] for large files).
    pub async fn fetch_presigned(&self, url: &str) -> Result<Bytes, Error> {
        let (resp, shown) = self.open_presigned(url).await?;
        body::read_limited(resp, self.inner.config.max_response_bytes)
            .await
            .map_err(|e| match e {
                ReadError::TooLarge => Error::TooLarge {
                    operation: format!("GET {shown}"),
                    limit: self.inner.config.max_response_bytes,
                },
                ReadError::Broken(e) => transport_error("GET", shown, e),
            })
            .map_err(|e| self.scrub(e))
    }

    /// Fetches a pre-signed URL like [`Core::fetch_presigned`], copying the body to `out`
    /// as it arrives, in bounded memory whatever its size; returns the bytes written.
    pub async fn fetch_presigned_to<W: AsyncWrite + Unpin + ?Sized>(
        &self,
        url: &str,
        out: &mut W,
    ) -> Result<u64, Error> {
        let (resp, shown) = self.open_presigned(url).await?;
        body::copy_to(resp, out).await.map_err(|e| match e {
            CopyError::Read(e) => self.scrub(transport_error("GET", shown, e)),
            CopyError::Write(e) => Error::Transport {
                method: "GET".into(),
                path: shown,
                message: format!("cannot write the download: {e}"),
                source: Some(Box::new(e)),
            },
        })
    }

    /// A success answer of a pre-signed GET, its body still open; how errors show the URL.
    async fn open_presigned(&self, url: &str) -> Result<(reqwest::Response, String), Error> {
        let (parsed, shown) = presigned(url, &self.inner.config.plain_http_hosts)?;
        // Share links are served by the service itself, so they count against its rate
        // limit; uploads (`put_presigned`) go to storage and are not paced.
        self.inner.pacer.acquire().await;
        let span = tracing::debug_span!("inspection_presigned", path = %parsed.path());
        let result = self
            .inner
            .bare
            .request(Method::GET, parsed)
            .send()
            .instrument(span)
            .await;
        let resp = match result {
            Ok(resp) => resp,
            Err(e) => return Err(self.scrub(transport_error("GET", shown, e))),
        };
        let status = resp.status().as_u16();
        if (200..300).contains(&status) {
            return Ok((resp, shown));
        }
        let headers = resp.headers().clone();
        let body = body::read_prefix(resp, self.inner.config.max_error_bytes).await;
        let field = self.inner.config.message_field();
        let api = ApiError::from_answer(status, format!("GET {shown}"), headers, &body, field);
        Err(self.scrub(api.into()))
    }

    /// PUTs `body` to a pre-signed URL (an upload URL, a multipart part URL) without any
    /// credential, retrying failures (a PUT of the same bytes is idempotent). Returns the
    /// `ETag` the storage answered, if any.
    pub async fn put_presigned(
        &self,
        url: &str,
        body: Bytes,
        content_type: Option<&str>,
    ) -> Result<Option<String>, Error> {
        let (parsed, shown) = presigned(url, &self.inner.config.plain_http_hosts)?;
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
                    let headers = resp.headers().clone();
                    let body = body::read_prefix(resp, self.inner.config.max_error_bytes).await;
                    let field = self.inner.config.message_field();
                    let operation = format!("PUT {shown}");
                    let api = Error::from(ApiError::from_answer(
                        status, operation, headers, &body, field,
                    ));
                    if status < 500 && status != 429 {
                        return Err(self.scrub(api));
                    }
                    api
                }
                Err(e) => transport_error("PUT", shown.clone(), e),
            };
            if attempt >= policy.max_attempts {
                return Err(self.scrub(failure));
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
                let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
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

/// A failed pre-signed transfer: a timeout, or what broke (never the URL's query).
fn transport_error(method: &str, shown: String, e: reqwest::Error) -> Error {
    if e.is_timeout() {
        return Error::Timeout {
            method: method.into(),
            path: shown,
            source: http_cause(e),
        };
    }
    Error::Transport {
        method: method.into(),
        path: shown,
        message: describe(&e),
        source: http_cause(e),
    }
}

/// A pre-signed URL, checked (https, or http on loopback or a host the config names), and
/// how errors show it: origin and path, never the query, which holds the signature.
fn presigned(url: &str, plain_http_hosts: &[String]) -> Result<(Url, String), Error> {
    let parsed = Url::parse(url)
        .map_err(|e| Error::Config(format!("not a URL ({e}): a pre-signed link was expected")))?;
    origin::check_secure(&parsed, "a pre-signed URL", plain_http_hosts).map_err(Error::Config)?;
    let shown = format!("{}{}", origin::origin(&parsed), parsed.path());
    Ok((parsed, shown))
}
