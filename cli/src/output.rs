//! What a command prints: JSON (pretty on a terminal, compact otherwise), JSON Lines for
//! every record of a walk, bytes to a file that appears only once whole, and the request
//! a dry run would send.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use inspection_runtime::{AsyncWrite, Error, Preview};
use serde::Serialize;
use serde_json::Value;

use crate::exit::{Class, Failure};

/// How JSON is printed on standard output.
#[derive(Clone, Copy, Debug, Default)]
pub struct Printer {
    pub pretty: bool,
}

impl Printer {
    /// Pretty when standard output is a terminal.
    pub fn for_stdout() -> Printer {
        Printer {
            pretty: std::io::stdout().is_terminal(),
        }
    }

    /// `value` and a line break.
    pub fn print<T: Serialize>(&self, value: &T) -> Result<(), Failure> {
        let text = if self.pretty {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        }
        .map_err(|e| Failure::new(Class::Failure, format!("cannot write the answer: {e}")))?;
        let mut out = std::io::stdout().lock();
        match writeln!(out, "{text}").and_then(|()| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::new(
                Class::Failure,
                format!("cannot write to standard output: {e}"),
            )),
            _ => Ok(()),
        }
    }
}

/// JSON Lines on standard output, buffered.
pub struct Lines {
    out: std::io::BufWriter<std::io::Stdout>,
}

impl Lines {
    pub fn stdout() -> Lines {
        Lines {
            out: std::io::BufWriter::new(std::io::stdout()),
        }
    }

    /// Writes one record; `false` once the reader has gone (a closed pipe).
    pub fn write<T: Serialize>(&mut self, record: &T) -> Result<bool, Failure> {
        let written = serde_json::to_writer(&mut self.out, record)
            .map_err(std::io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"));
        match written {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
            Err(e) => Err(Failure::new(
                Class::Failure,
                format!("cannot write to standard output: {e}"),
            )),
        }
    }

    pub fn flush(&mut self) {
        // A reader that went away is not an error of this command.
        let _ = self.out.flush();
    }
}

/// A writer that keeps the first error it met, so that a download the disk refused (full,
/// read-only) is told apart from one the network broke: the client reports both as the
/// download failing, and only the writer knows which it was.
pub struct Watched<W> {
    inner: W,
    error: Option<(std::io::ErrorKind, String)>,
}

impl<W> Watched<W> {
    pub fn new(inner: W) -> Watched<W> {
        Watched { inner, error: None }
    }

    /// The first error writing met, as a failure naming `path`.
    pub fn failure(&self, path: &Path) -> Option<Failure> {
        let (kind, text) = self.error.as_ref()?;
        Some(Failure::io(
            "write",
            path,
            std::io::Error::new(*kind, text.clone()),
        ))
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    fn keep<T>(&mut self, polled: Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
        if let Poll::Ready(Err(e)) = &polled {
            self.error.get_or_insert_with(|| (e.kind(), e.to_string()));
        }
        polled
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Watched<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.keep(polled)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_flush(cx);
        this.keep(polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.keep(polled)
    }
}

/// Where a binary answer goes: `--output FILE` (written as `FILE.part`, renamed once
/// whole), or standard output when `--output -` or when it is not a terminal.
pub struct Download {
    target: Option<PathBuf>,
    part: Option<PathBuf>,
    writer: Watched<Box<dyn AsyncWrite + Unpin + Send>>,
}

impl Download {
    /// Opens the destination (`--output`: a file, or `-` for standard output) before
    /// anything is sent; refuses to write bytes to a terminal.
    pub async fn open(output: Option<&Path>) -> Result<Download, Failure> {
        match output {
            Some(path) if path != Path::new("-") => {
                let part = part_path(path);
                let file = tokio::fs::File::create(&part)
                    .await
                    .map_err(|e| Failure::io("create", &part, e))?;
                Ok(Download {
                    target: Some(path.to_path_buf()),
                    part: Some(part),
                    writer: Watched::new(Box::new(file)),
                })
            }
            None if std::io::stdout().is_terminal() => Err(Failure::usage(
                "the answer is binary: give --output FILE (or --output - for standard output)",
            )),
            _ => Ok(Download {
                target: None,
                part: None,
                writer: Watched::new(Box::new(tokio::io::stdout())),
            }),
        }
    }

    pub fn writer(&mut self) -> &mut (dyn AsyncWrite + Unpin + Send) {
        &mut self.writer
    }

    /// Flushes, and for a file moves it into place, or removes the partial file when the
    /// download failed.
    pub async fn finish(mut self, written: Result<u64, Error>) -> Result<(), Failure> {
        use tokio::io::AsyncWriteExt;
        let flushed = self.writer.flush().await;
        let refused = |path: &Path| self.writer.failure(path);
        let (Some(target), Some(part)) = (&self.target, &self.part) else {
            let stdout = Path::new("standard output");
            return written
                .map(drop)
                .map_err(|e| refused(stdout).unwrap_or(e.into()));
        };
        if let Err(e) = written {
            let _ = std::fs::remove_file(part);
            return Err(refused(part).unwrap_or(e.into()));
        }
        flushed.map_err(|e| Failure::io("write", part, e))?;
        std::fs::rename(part, target).map_err(|e| Failure::io("create", target, e))
    }
}

/// `FILE.part` beside `FILE`.
pub fn part_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    path.with_file_name(name)
}

/// A dry run's request: `{method, url, headers, body}`, with every sensitive header and
/// each body value at `secret_paths` shown as `<redacted>`.
pub fn print_preview(
    printer: &Printer,
    preview: &Preview,
    secret_paths: &[&str],
) -> Result<(), Failure> {
    printer.print(&preview_json(preview, secret_paths))
}

/// The request a dry run shows, as JSON: method, URL, headers (secrets already masked by
/// the core) and the body with the values at `secret_paths` redacted.
pub fn preview_json(preview: &Preview, secret_paths: &[&str]) -> Value {
    let headers: serde_json::Map<String, Value> = preview
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let body = preview
        .body
        .as_ref()
        .map(|bytes| match serde_json::from_slice::<Value>(bytes) {
            Ok(mut json) => {
                for path in secret_paths {
                    redact(&mut json, path);
                }
                json
            }
            Err(_) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
        });
    serde_json::json!({
        "method": preview.method,
        "url": preview.url,
        "headers": headers,
        "body": body,
    })
}

/// Replaces the value at a dotted path (`user.password`) with `<redacted>`.
fn redact(value: &mut Value, path: &str) {
    let mut at = value;
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        let Some(next) = at.get_mut(key) else {
            return;
        };
        if keys.peek().is_none() {
            *next = Value::String("<redacted>".into());
            return;
        }
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_in_a_body_is_redacted_at_its_path() {
        let mut body = serde_json::json!({"user": {"username": "u", "password": "hunter22"}});
        redact(&mut body, "user.password");
        redact(&mut body, "user.missing.deeper");
        assert_eq!(
            body,
            serde_json::json!({"user": {"username": "u", "password": "<redacted>"}})
        );
    }

    #[test]
    fn a_part_file_sits_beside_its_target() {
        assert_eq!(
            part_path(Path::new("out/a.pdf")),
            PathBuf::from("out/a.pdf.part")
        );
    }
}
