//! Reading answer bodies in bounded memory: a success body up to the client's limit, an
//! error body's first bytes only, or a download copied to a writer chunk by chunk.

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncWrite, AsyncWriteExt};

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
