//! Answers that are prepared in the background: a 202 is asked again, with backoff or the
//! service's `Retry-After`, up to the configured number of polls; and downloads copied to
//! a writer once ready.

use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt;
use serde::de::DeserializeOwned;
use tokio::io::AsyncWrite;

use super::BoxStream;
use super::body::{self, CopyError};
use super::{Answer, Core, Failure, Response, describe, read_whole};
use crate::error::{Error, http_cause};
use crate::request::Request;
use crate::retry::retry_after;

impl Core {
    /// Like [`Core::execute`], but a 202 (still preparing) is asked again, with backoff
    /// (or the service's `Retry-After`), up to the configured number of polls. A
    /// `Retry-After` longer than the client's longest wait (`RetryPolicy::max_backoff`)
    /// ends the polling at once with [`Error::NotReady`] naming it.
    pub async fn execute_ready(&self, req: &Request) -> Result<Response, Error> {
        let limit = self.inner.config.max_response_bytes;
        let answer = self.send_ready(req, &|resp| read_whole(resp, limit)).await;
        answer.map(Answer::into_response).map_err(|e| self.scrub(e))
    }

    /// [`Core::execute_ready`], then decodes the JSON answer.
    pub async fn json_ready<T: DeserializeOwned>(&self, req: &Request) -> Result<T, Error> {
        self.decode(&self.execute_ready(req).await?)
    }

    /// [`Core::execute_ready`] with the answer's body copied to `out` as it arrives (a PDF
    /// of any size in bounded memory, not subject to `Config::max_response_bytes`);
    /// returns the number of bytes written. A download that breaks off is not retried:
    /// `out` holds what came.
    pub async fn download<W: AsyncWrite + Unpin + ?Sized>(
        &self,
        req: &Request,
        out: &mut W,
    ) -> Result<u64, Error> {
        // The body is left open by the attempt and copied once the answer is final.
        let answer = self
            .send_ready(req, &|resp| std::future::ready(Ok(resp)))
            .await
            .map_err(|e| self.scrub(e))?;
        body::copy_to(answer.body, out).await.map_err(|e| match e {
            CopyError::Read(e) => self.scrub(Error::Transport {
                method: req.method.to_string(),
                path: req.template.to_string(),
                message: describe(&e),
                source: http_cause(e),
            }),
            CopyError::Write(e) => Error::Transport {
                method: req.method.to_string(),
                path: req.template.to_string(),
                message: format!("cannot write the download: {e}"),
                source: Some(Box::new(e)),
            },
        })
    }

    /// [`Core::download`] as a stream of byte chunks, for handing the body on (to a
    /// response of your own, an upload) without holding it: one chunk in memory at a time.
    /// `req` is taken as the `Result` a builder's `to_request` gives, so a request that
    /// cannot be built fails as the stream's one item.
    pub fn download_stream(&self, req: Result<Request, Error>) -> BoxStream<Bytes> {
        let core = self.clone();
        let start = async move {
            let req = req?;
            let answer = core
                .send_ready(&req, &|resp| std::future::ready(Ok(resp)))
                .await
                .map_err(|e| core.scrub(e))?;
            let (method, path) = (req.method.to_string(), req.template.to_string());
            Ok::<_, Error>(body::chunks(answer.body, move |e| {
                core.scrub(Error::Transport {
                    method: method.clone(),
                    path: path.clone(),
                    message: describe(&e),
                    source: http_cause(e),
                })
            }))
        };
        Box::pin(futures_util::stream::once(start).try_flatten())
    }

    async fn send_ready<B, R: Future<Output = Result<B, Failure>>>(
        &self,
        req: &Request,
        read: &impl Fn(reqwest::Response) -> R,
    ) -> Result<Answer<B>, Error> {
        let config = &self.inner.config;
        let longest = config.retry.max_backoff;
        let mut waited = Duration::ZERO;
        let mut interval = config.poll_interval;
        let mut polls = 0u32;
        loop {
            let answer = self.send(req, read).await?;
            if answer.status != 202 {
                return Ok(answer);
            }
            polls = polls.saturating_add(1);
            let asked = retry_after(&answer.headers);
            let too_long = asked.filter(|a| *a > longest);
            if polls > config.max_polls || too_long.is_some() {
                return Err(Error::NotReady {
                    path: req.describe(),
                    attempts: polls,
                    waited,
                    retry_after: too_long,
                });
            }
            let wait = asked.unwrap_or(interval).min(longest);
            tracing::debug!(
                inspection.event = "pause",
                inspection.operation = req.operation,
                inspection.reason = "poll",
                inspection.wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                "202: not ready yet"
            );
            tokio::time::sleep(wait).await;
            waited = waited.saturating_add(wait);
            interval = interval.saturating_mul(2).min(longest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_send<T: Send>(_: &T) {}

    /// Users spawn these futures on multi-threaded runtimes: the body readers handed to
    /// the retry loop must not make them `!Send`.
    #[test]
    fn the_futures_are_send() {
        let core = Core::new(
            "http://127.0.0.1:9",
            crate::auth::Auth::None,
            crate::Config::default(),
        )
        .unwrap();
        let req = Request::new(reqwest::Method::GET, "/x");
        let mut out: Vec<u8> = Vec::new();
        is_send(&core.execute(&req));
        is_send(&core.execute_ready(&req));
        is_send(&core.download(&req, &mut out));
        is_send(&core.put_presigned_file("http://127.0.0.1:9/u", "/dev/null", None));
        let reader: &[u8] = b"";
        is_send(&core.put_parts_from(&[], reader, 1, None, 1));
    }

    /// A token core without its login could not renew the token on a 401.
    #[test]
    fn a_token_core_is_built_only_with_its_login() {
        let token = crate::auth::TokenAuth::new("authorization", "Token", Vec::new());
        let refused = Core::new(
            "http://127.0.0.1:9",
            crate::auth::Auth::Token(token),
            crate::Config::default(),
        );
        assert!(matches!(refused, Err(Error::Config(m)) if m.contains("Core::logged_in")));
    }
}
