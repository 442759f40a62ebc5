//! How large a request body may be, and whether one announces more.

use axum::http::{HeaderMap, header};

/// The largest request body read (axum's default, which the `Bytes` extractor applies);
/// a larger one is a 413.
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// Where the sandbox serves the pre-signed upload URLs (the storage service's, in the real
/// one): their bodies are media, streamed to disk rather than read into memory, and may be
/// as large as `UPLOAD_LIMIT`.
pub const UPLOADS: &str = "/_uploads/";

/// The largest upload, and the largest part of a multipart upload: 5 GiB (the public docs:
/// "Maximum part size is 5GB", the storage service's limit).
pub const UPLOAD_LIMIT: u64 = 5 * 1024 * 1024 * 1024;

/// Whether the request announces a body over `BODY_LIMIT` (refused before reading it).
pub fn declared_too_large(headers: &HeaderMap) -> bool {
    declared_over(headers, BODY_LIMIT as u64)
}

/// Whether the request announces a body over `limit` bytes.
pub fn declared_over(headers: &HeaderMap, limit: u64) -> bool {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n > limit)
}
