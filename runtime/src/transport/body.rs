//! Reading answer bodies in bounded memory: a success body up to the client's limit, an
//! error body's first bytes only, or a download copied to a writer chunk by chunk.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use http_body::{Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

/// Why a body could not be read whole.
pub(super) enum ReadError {
    /// Larger than the limit: refused by its `Content-Length`, or as soon as the bytes read
    /// pass the limit, so no more than the limit is ever held.
    TooLarge,
    Broken(reqwest::Error),
}

pub(super) async fn read_limited(
    mut resp: reqwest::Response,
    limit: u64,
) -> Result<Bytes, ReadError> {
    let announced = resp.content_length();
    if announced.is_some_and(|n| n > limit) {
        return Err(ReadError::TooLarge);
    }
    // Never trust a length for the allocation beyond what the limit allows.
    let capacity = announced.unwrap_or(0).min(limit).min(1 << 20);
    let mut buf = BytesMut::with_capacity(capacity as usize);
    while let Some(chunk) = resp.chunk().await.map_err(ReadError::Broken)? {
        if (buf.len() as u64).saturating_add(chunk.len() as u64) > limit {
            return Err(ReadError::TooLarge);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// The first `limit` bytes of an error body, enough for its message; the rest is never
/// read (the connection is closed instead of drained).
pub(super) async fn read_prefix(mut resp: reqwest::Response, limit: usize) -> Bytes {
    let mut buf = BytesMut::new();
    while buf.len() < limit {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let take = chunk.len().min(limit - buf.len());
                buf.extend_from_slice(&chunk[..take]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    buf.freeze()
}

/// Why a copy to a writer stopped.
pub(super) enum CopyError {
    Read(reqwest::Error),
    Write(std::io::Error),
}

/// Copies the body to `out` as it arrives, one chunk in memory at a time; the number of
/// bytes written.
pub(super) async fn copy_to<W: AsyncWrite + Unpin + ?Sized>(
    mut resp: reqwest::Response,
    out: &mut W,
) -> Result<u64, CopyError> {
    let mut written = 0u64;
    while let Some(chunk) = resp.chunk().await.map_err(CopyError::Read)? {
        out.write_all(&chunk).await.map_err(CopyError::Write)?;
        written += chunk.len() as u64;
    }
    out.flush().await.map_err(CopyError::Write)?;
    Ok(written)
}

/// The body as a stream of its chunks, as they arrive; a read failure becomes `fail(e)`
/// and ends the stream.
pub(super) fn chunks<E>(
    resp: reqwest::Response,
    fail: impl Fn(reqwest::Error) -> E + Send + 'static,
) -> impl Stream<Item = Result<Bytes, E>> + Send + 'static {
    futures_util::stream::try_unfold((resp, fail), |(mut resp, fail)| async move {
        match resp.chunk().await {
            Ok(Some(chunk)) => Ok(Some((chunk, (resp, fail)))),
            Ok(None) => Ok(None),
            Err(e) => Err(fail(e)),
        }
    })
}

/// Up to `size` bytes of `reader`: fewer only at its end (empty once it has ended).
pub(super) async fn read_part<R: AsyncRead + Unpin>(
    reader: &mut R,
    size: usize,
) -> std::io::Result<Bytes> {
    let mut part = BytesMut::with_capacity(size.min(8 << 20));
    while part.len() < size {
        let want = (size - part.len()).min(64 << 10);
        if (&mut *reader).take(want as u64).read_buf(&mut part).await? == 0 {
            break;
        }
    }
    Ok(part.freeze())
}

/// A request body read from `reader` as it is sent, 64 KiB at a time, of exactly `length`
/// bytes (announced as `Content-Length`: pre-signed storage URLs refuse chunked uploads).
pub(super) struct ReaderBody<R> {
    reader: R,
    remaining: u64,
    chunk: Box<[u8]>,
}

impl<R> ReaderBody<R> {
    pub(super) fn new(reader: R, length: u64) -> Self {
        ReaderBody {
            reader,
            remaining: length,
            chunk: vec![0; 64 << 10].into_boxed_slice(),
        }
    }
}

impl<R: AsyncRead + Unpin> http_body::Body for ReaderBody<R> {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.remaining == 0 {
            return Poll::Ready(None);
        }
        let want = usize::try_from(this.remaining)
            .unwrap_or(usize::MAX)
            .min(this.chunk.len());
        let mut buf = ReadBuf::new(&mut this.chunk[..want]);
        ready!(Pin::new(&mut this.reader).poll_read(cx, &mut buf))?;
        let filled = buf.filled();
        if filled.is_empty() {
            // The file shrank after its length was taken: the announced length would lie.
            return Poll::Ready(Some(Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("the file ended {} bytes early", this.remaining),
            ))));
        }
        this.remaining -= filled.len() as u64;
        Poll::Ready(Some(Ok(Frame::data(Bytes::copy_from_slice(filled)))))
    }

    fn is_end_stream(&self) -> bool {
        self.remaining == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}
