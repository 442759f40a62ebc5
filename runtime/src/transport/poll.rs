//! Answers that are prepared in the background: a 202 is asked again, with backoff or the
//! service's `Retry-After`, up to the configured number of polls; and downloads copied to
//! a writer once ready.

use std::time::Duration;

use serde::de::DeserializeOwned;
use tokio::io::AsyncWrite;

use super::body::{self, Body, CopyError};
use super::{Answer, Core, Read, Response, describe};
use crate::error::Error;
use crate::request::Request;
use crate::retry::retry_after;

impl Core {
    /// Like [`Core::execute`], but a 202 (still preparing) is asked again, with backoff
    /// (or the service's `Retry-After`), up to the configured number of polls. A
    /// `Retry-After` longer than the client's longest wait (`RetryPolicy::max_backoff`)
    /// ends the polling at once with [`Error::NotReady`] naming it.
    pub async fn execute_ready(&self, req: &Request) -> Result<Response, Error> {
        let answer = self.send_ready(req, Read::Whole).await;
        self.buffered(answer).await.map_err(|e| self.scrub(e))
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
        let answer = self
            .send_ready(req, Read::Open)
            .await
            .map_err(|e| self.scrub(e))?;
        let method = req.method.to_string();
        let path = req.template.to_string();
        match answer.body {
            Body::Read(bytes) => {
                tokio::io::AsyncWriteExt::write_all(out, &bytes)
                    .await
                    .map_err(|e| write_error(method, path, e))?;
                Ok(bytes.len() as u64)
            }
            Body::Open(resp) => body::copy_to(resp, out).await.map_err(|e| match e {
                CopyError::Read(e) => self.scrub(Error::Transport {
                    method,
                    path,
                    message: describe(&e),
                }),
                CopyError::Write(e) => write_error(method, path, e),
            }),
        }
    }

    async fn send_ready(&self, req: &Request, read: Read) -> Result<Answer, Error> {
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
                wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                "202: not ready yet"
            );
            tokio::time::sleep(wait).await;
            waited = waited.saturating_add(wait);
            interval = interval.saturating_mul(2).min(longest);
        }
    }
}

fn write_error(method: String, path: String, e: std::io::Error) -> Error {
    Error::Transport {
        method,
        path,
        message: format!("cannot write the download: {e}"),
    }
}
