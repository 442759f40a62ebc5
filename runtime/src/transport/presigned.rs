//! Pre-signed URLs (share links, PDF links, upload URLs): fetched and written without any
//! credential, whatever their origin, and shown in errors and spans without their query,
//! which holds the signature.

use std::path::Path;

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, Url};
use tokio::io::{AsyncRead, AsyncWrite};
use tracing::Instrument;

use super::BoxStream;
use super::body::{self, CopyError, ReadError, ReaderBody};
use super::{Core, describe, is_success};
use crate::error::{ApiError, Error, http_cause};
use crate::origin;
use crate::pacing::Pacer;

/// What [`Core::fetch_presigned_paced_to`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetched {
    /// The bytes written.
    pub bytes: u64,
    /// The answer's `Content-Type`, when it had one, for the caller to check.
    pub content_type: Option<String>,
    /// 429 answers waited out before it (the link's host limiting its rate).
    pub rate_limited: u32,
}

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
        body::copy_to(resp, out)
            .await
            .map_err(|e| self.copy_failed(shown, e))
    }

    /// A download that broke: reading the answer (scrubbed) or writing it out.
    fn copy_failed(&self, shown: String, e: CopyError) -> Error {
        match e {
            CopyError::Read(e) => self.scrub(transport_error("GET", shown, e)),
            CopyError::Write(e) => Error::Transport {
                method: "GET".into(),
                path: shown,
                message: format!("cannot write the download: {e}"),
                source: Some(Box::new(e)),
            },
        }
    }

    /// Fetches a pre-signed URL to `out` with no credential, on `pacer` (a pace of the
    /// link's host, not the service's quota). A 429 is waited out (its `Retry-After`, or the
    /// retry policy's backoff; a wait longer than the policy's longest backoff is not),
    /// up to the policy's attempts; any other failure is returned at once, so a caller
    /// with another way to the same bytes takes it instead of retrying a dead link.
    pub async fn fetch_presigned_paced_to<W: AsyncWrite + Unpin + ?Sized>(
        &self,
        url: &str,
        out: &mut W,
        pacer: &Pacer,
    ) -> Result<Fetched, Error> {
        let (parsed, shown) = presigned(url, &self.inner.config.plain_http_hosts)?;
        let policy = &self.inner.config.retry;
        let mut attempt = 1;
        let resp = loop {
            pacer.acquire().await;
            let api = match self.get_once(&parsed, &shown, attempt).await? {
                Ok(resp) => break resp,
                Err(api) => api,
            };
            let wait = api.retry_after.unwrap_or_else(|| policy.backoff(attempt));
            if api.status != 429 || attempt >= policy.max_attempts || wait > policy.max_backoff {
                return Err(self.scrub(api.into()));
            }
            pacer.pause_for(wait);
            attempt += 1;
        };
        let rate_limited = attempt - 1;
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let bytes = body::copy_to(resp, out)
            .await
            .map_err(|e| self.copy_failed(shown, e))?;
        Ok(Fetched {
            bytes,
            content_type,
            rate_limited,
        })
    }

    /// A success answer of a pre-signed GET, its body still open; how errors show the URL.
    async fn open_presigned(&self, url: &str) -> Result<(reqwest::Response, String), Error> {
        let (parsed, shown) = presigned(url, &self.inner.config.plain_http_hosts)?;
        // Share links are served by the service itself, so they count against its rate
        // limit; uploads (`put_presigned`) go to storage and are not paced.
        self.paced().await;
        match self.get_once(&parsed, &shown, 1).await? {
            Ok(resp) => Ok((resp, shown)),
            Err(api) => Err(self.scrub(api.into())),
        }
    }

    /// One GET of a pre-signed URL with no credential (its pace already waited for): the
    /// answer when it is a success (its body still open), else the refusal it was; a
    /// transport failure is the error.
    async fn get_once(
        &self,
        parsed: &Url,
        shown: &str,
        attempt: u32,
    ) -> Result<Result<reqwest::Response, ApiError>, Error> {
        let span = tracing::debug_span!("inspection_presigned", path = %parsed.path(), attempt);
        let sent = self
            .inner
            .bare
            .request(Method::GET, parsed.clone())
            .send()
            .instrument(span)
            .await;
        let resp = sent.map_err(|e| self.scrub(transport_error("GET", shown.to_string(), e)))?;
        let status = resp.status().as_u16();
        if is_success(status) {
            return Ok(Ok(resp));
        }
        let headers = resp.headers().clone();
        let body = body::read_prefix(resp, self.inner.config.max_error_bytes).await;
        let field = self.inner.config.message_field();
        let operation = format!("GET {shown}");
        Ok(Err(ApiError::from_answer(
            status, operation, headers, &body, field,
        )))
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
        self.put_retried(parsed, shown, content_type, None, || {
            std::future::ready(Ok(reqwest::Body::from(body.clone())))
        })
        .await
    }

    /// [`Core::put_presigned`] of the file at `path`, read as it is sent (64 KiB in
    /// memory, whatever the file's size) and read again from its start for a retry.
    pub async fn put_presigned_file(
        &self,
        url: &str,
        path: impl AsRef<Path>,
        content_type: Option<&str>,
    ) -> Result<Option<String>, Error> {
        let path = path.as_ref();
        let (parsed, shown) = presigned(url, &self.inner.config.plain_http_hosts)?;
        let unreadable = |e: std::io::Error| Error::Transport {
            method: "PUT".into(),
            path: shown.clone(),
            message: format!("cannot read {}: {e}", path.display()),
            source: Some(Box::new(e)),
        };
        let length = tokio::fs::metadata(path).await.map_err(unreadable)?.len();
        let open = || async move {
            let file = tokio::fs::File::open(path).await.map_err(unreadable)?;
            Ok(reqwest::Body::wrap(ReaderBody::new(file, length)))
        };
        self.put_retried(parsed, shown.clone(), content_type, Some(length), open)
            .await
    }

    /// One PUT to a pre-signed URL, retried on 429, 5xx and transport failures with a
    /// fresh body from `body` each time; the `ETag` of the success.
    async fn put_retried<F: Future<Output = Result<reqwest::Body, Error>>>(
        &self,
        parsed: Url,
        shown: String,
        content_type: Option<&str>,
        length: Option<u64>,
        body: impl Fn() -> F,
    ) -> Result<Option<String>, Error> {
        let policy = &self.inner.config.retry;
        let mut attempt = 1;
        loop {
            let mut request = self.inner.bare.put(parsed.clone()).body(body().await?);
            if let Some(length) = length {
                request = request.header(reqwest::header::CONTENT_LENGTH, length);
            }
            if let Some(ct) = content_type {
                request = request.header(CONTENT_TYPE, ct);
            }
            let span =
                tracing::debug_span!("inspection_presigned_put", path = %parsed.path(), attempt);
            let result = request.send().instrument(span).await;
            let failure = match result {
                Ok(resp) if is_success(resp.status().as_u16()) => {
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
            .map(|(i, (url, part))| self.put_part(i, url, part, content_type));
        let mut done: Vec<(u32, String)> = futures_util::stream::iter(uploads)
            .buffer_unordered(concurrency.max(1))
            .try_collect()
            .await?;
        done.sort_by_key(|(n, _)| *n);
        Ok(done)
    }

    /// [`Core::put_parts`] with the parts read from `reader`, `part_size` bytes each (the
    /// last may be shorter): one part per URL, at most `concurrency` parts in memory and
    /// in flight at a time, whatever the total size. The reader must hold exactly as many
    /// parts as there are URLs.
    pub async fn put_parts_from<R: AsyncRead + Unpin + Send>(
        &self,
        urls: &[String],
        reader: R,
        part_size: usize,
        content_type: Option<&str>,
        concurrency: usize,
    ) -> Result<Vec<(u32, String)>, Error> {
        use futures_util::{StreamExt, TryStreamExt};
        if part_size == 0 {
            return Err(Error::Config("a part size of 0 bytes".into()));
        }
        let unreadable = |e: std::io::Error| Error::Transport {
            method: "PUT".into(),
            path: "multipart upload".into(),
            message: format!("cannot read the next part: {e}"),
            source: Some(Box::new(e)),
        };
        // Parts are read only when a slot is free, so memory stays at `concurrency` parts.
        let parts = futures_util::stream::try_unfold(
            (reader, 0usize),
            |(mut reader, i)| async move {
                let part = body::read_part(&mut reader, part_size)
                    .await
                    .map_err(unreadable)?;
                match (part.is_empty(), urls.get(i)) {
                    (true, None) => Ok(None),
                    (true, Some(_)) => Err(Error::Config(format!(
                        "the reader ended after {i} parts of {part_size} bytes; {} upload URLs",
                        urls.len()
                    ))),
                    (false, None) => Err(Error::Config(format!(
                        "the reader holds more than {i} parts of {part_size} bytes, one per upload URL"
                    ))),
                    (false, Some(url)) => Ok(Some(((i, url, part), (reader, i + 1)))),
                }
            },
        );
        let mut done: Vec<(u32, String)> = parts
            .map_ok(|(i, url, part)| self.put_part(i, url, part, content_type))
            .try_buffer_unordered(concurrency.max(1))
            .boxed()
            .try_collect()
            .await?;
        done.sort_by_key(|(n, _)| *n);
        Ok(done)
    }

    /// Part `index` (0-based) of a multipart upload: its number (1-based) and `ETag`.
    async fn put_part(
        &self,
        index: usize,
        url: &str,
        part: Bytes,
        content_type: Option<&str>,
    ) -> Result<(u32, String), Error> {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let etag = self.put_presigned(url, part, content_type).await?;
        let etag = etag.ok_or_else(|| Error::Decode {
            status: 200,
            path: format!("part {number}: ETag header"),
            message: "the storage answered without an ETag".into(),
        })?;
        Ok((number, etag))
    }

    /// [`Core::fetch_presigned`] as a stream of byte chunks, one in memory at a time,
    /// whatever the body's size.
    pub fn fetch_presigned_stream(&self, url: &str) -> BoxStream<Bytes> {
        use futures_util::TryStreamExt;
        let core = self.clone();
        let url = url.to_string();
        let start = async move {
            let (resp, shown) = core.open_presigned(&url).await?;
            Ok::<_, Error>(body::chunks(resp, move |e| {
                core.scrub(transport_error("GET", shown.clone(), e))
            }))
        };
        Box::pin(futures_util::stream::once(start).try_flatten())
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
