//! Uploaded media on disk, never whole in memory: each upload or part is streamed to a file
//! of its own (with its size and a running digest for the ETag), in a directory of the
//! system's temp dir that lives as long as the sandbox. A file goes when the last record
//! referring to it does (a reset, a replaced part, an assembled upload's parts).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Body;
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Bytes read from or written to disk at a time when assembling parts.
const CHUNK: usize = 64 * 1024;

/// The sandbox's upload directory; removed with everything in it when dropped.
#[derive(Debug)]
pub struct SpillDir {
    path: PathBuf,
    next: AtomicU64,
}

/// Sandboxes started by this process so far, so each gets a directory of its own.
static STARTED: AtomicU64 = AtomicU64::new(0);

impl SpillDir {
    /// The directory is made with the first upload (a sandbox that gets none leaves
    /// nothing behind, even when it is killed).
    pub fn new() -> SpillDir {
        let n = STARTED.fetch_add(1, Ordering::Relaxed);
        let name = format!("inspection-sandbox-{}-{n}", std::process::id());
        SpillDir {
            path: std::env::temp_dir().join(name),
            next: AtomicU64::new(0),
        }
    }

    /// A new file's guard and the file, created empty.
    async fn new_file(&self) -> std::io::Result<(Spilled, tokio::fs::File)> {
        tokio::fs::create_dir_all(&self.path).await?;
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let spilled = Spilled::at(self.path.join(n.to_string()));
        let file = tokio::fs::File::create(&spilled.path).await?;
        Ok((spilled, file))
    }

    /// Streams `body` to a new file, refusing it once it passes `limit` bytes.
    pub async fn write(&self, body: Body, limit: u64) -> Result<Spilled, Refused> {
        let (mut spilled, mut file) = self.new_file().await?;
        let mut digest = Digest::default();
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|_| Refused::Broken)?;
            spilled.size += chunk.len() as u64;
            if spilled.size > limit {
                return Err(Refused::TooLarge);
            }
            digest.update(&chunk);
            file.write_all(&chunk).await?;
        }
        file.flush().await?;
        spilled.etag = digest.etag();
        Ok(spilled)
    }

    /// One file holding `parts` one after the other, read and written a chunk at a time.
    pub async fn concat(&self, parts: &[Arc<Spilled>]) -> std::io::Result<Spilled> {
        let (mut joined, mut out) = self.new_file().await?;
        let mut digest = Digest::default();
        let mut buffer = vec![0; CHUNK];
        for part in parts {
            let mut input = tokio::fs::File::open(&part.path).await?;
            loop {
                let n = input.read(&mut buffer).await?;
                if n == 0 {
                    break;
                }
                digest.update(&buffer[..n]);
                out.write_all(&buffer[..n]).await?;
                joined.size += n as u64;
            }
        }
        out.flush().await?;
        joined.etag = digest.etag();
        Ok(joined)
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Why a body was not stored.
#[derive(Debug)]
pub enum Refused {
    /// Larger than the limit (its file is gone already).
    TooLarge,
    /// The body broke off.
    Broken,
    /// The disk said no.
    Io(std::io::Error),
}

impl From<std::io::Error> for Refused {
    fn from(e: std::io::Error) -> Self {
        Refused::Io(e)
    }
}

/// A stored body: its file (removed when this is dropped), size and ETag.
#[derive(Debug)]
pub struct Spilled {
    path: PathBuf,
    pub size: u64,
    /// The quoted ETag, FNV-1a of the bytes.
    pub etag: String,
}

impl Spilled {
    fn at(path: PathBuf) -> Spilled {
        Spilled {
            path,
            size: 0,
            etag: String::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Spilled {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// FNV-1a, 64 bits, fed a chunk at a time: a cheap content hash for ETags (the sandbox
/// needs stability, not security).
#[derive(Debug, Clone, Copy)]
struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    fn update(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
    }

    fn etag(self) -> String {
        format!("\"{:016x}\"", self.0)
    }
}
