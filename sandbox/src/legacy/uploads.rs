//! Media uploads: upload URLs, multipart start and complete, and the pre-signed URLs the
//! sandbox serves itself.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::App;
use crate::http::{error, json as answer, tri};

use super::store::{Multipart, Target, Upload};
use super::{Caller, Pairs, bodies, parse_body, spec};

/// Media types accepted for multipart uploads (the documented list is cut off after these).
pub(super) const MEDIA_TYPES: &[&str] = &[
    "image/jpeg",
    "image/png",
    "video/mp4",
    "image/heic",
    "image/heif",
    "video/quicktime",
];

pub(super) async fn upload_url(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(file_id): Path<String>,
) -> Response {
    let mut store = app.legacy.lock().await;
    let key = (caller.id.clone(), file_id.clone());
    let existing = store.uploads.get(&key).cloned();
    if existing.as_ref().is_some_and(|u| u.attached) {
        // Part of a completed transaction: no upload URL any more.
        let u = existing.unwrap_or_default();
        return answer(
            StatusCode::OK,
            &json!({ "id": file_id, "type": u.content_type, "size": u.bytes.map(|b| b.len()) }),
        );
    }
    let token = format!("up{}", store.next_id());
    store.presigned.insert(
        token.clone(),
        Target {
            owner: caller.id.clone(),
            file_id: file_id.clone(),
        },
    );
    let upload_url = format!("{}/_uploads/{token}?X-Amz-Expires=900", app.origin);
    match existing {
        Some(u) => answer(
            StatusCode::OK,
            &json!({ "id": file_id, "upload_url": upload_url,
            "type": u.content_type, "size": u.bytes.map(|b| b.len()).unwrap_or(0) }),
        ),
        None => {
            store.uploads.insert(key, Upload::default());
            answer(
                StatusCode::OK,
                &json!({ "id": file_id, "upload_url": upload_url }),
            )
        }
    }
}

pub(super) async fn upload_url_with_nonce(
    state: State<Arc<App>>,
    caller: Extension<Caller>,
    Path((_nonce, file_id)): Path<(String, String)>,
) -> Response {
    upload_url(state, caller, Path(file_id)).await
}

pub(super) async fn multipart_start(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(file_id): Path<String>,
    Query(q): Pairs,
) -> Response {
    let parts = match q.get("part_count").map(|p| p.parse::<u32>()) {
        Some(Ok(n)) if (1..=20).contains(&n) => n,
        _ => {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "part_count: must be between 1 and 20",
            );
        }
    };
    let content_type = q.get("content_type").cloned();
    if let Some(ct) = &content_type
        && !MEDIA_TYPES.contains(&ct.as_str())
    {
        return error(
            StatusCode::BAD_REQUEST,
            format!("content_type: {ct} is not a supported media type"),
        );
    }
    let mut store = app.legacy.lock().await;
    // An unfinished upload of the same file resumes under the same upload id.
    let existing = store
        .multiparts
        .iter()
        .find(|(_, m)| m.owner == caller.id && m.file_id == file_id && m.part_count == parts)
        .map(|(id, _)| id.clone());
    let upload_id = match existing {
        Some(id) => id,
        None => {
            let id = format!("mpu-{}", store.next_id());
            store.multiparts.insert(
                id.clone(),
                Multipart {
                    owner: caller.id.clone(),
                    file_id: file_id.clone(),
                    part_count: parts,
                    content_type,
                    parts: Default::default(),
                },
            );
            id
        }
    };
    let urls: Vec<String> = (1..=parts)
        .map(|n| {
            format!(
                "{}/_uploads/multipart/{upload_id}/{n}?partNumber={n}&uploadId={upload_id}",
                app.origin
            )
        })
        .collect();
    answer(
        StatusCode::OK,
        &json!({ "id": file_id, "upload_id": upload_id,
        "key": format!("users/{}/{file_id}", caller.id), "presigned_urls": urls }),
    )
}

pub(super) async fn multipart_complete(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(file_id): Path<String>,
    bytes: Bytes,
) -> Response {
    tri!(bodies::conforms::<spec::CompleteMultipartUploadRequest>(
        &bytes
    ));
    let body = tri!(parse_body(&bytes));
    let Some(upload_id) = body.get("upload_id").and_then(Value::as_str) else {
        return error(StatusCode::UNPROCESSABLE_ENTITY, "upload_id is required");
    };
    let mut store = app.legacy.lock().await;
    let Some(upload) = store.multiparts.get(upload_id).cloned() else {
        return error(
            StatusCode::NOT_FOUND,
            format!("The upload {upload_id} could not be found"),
        );
    };
    if upload.owner != caller.id || upload.file_id != file_id {
        return error(
            StatusCode::NOT_FOUND,
            format!("The upload {upload_id} could not be found"),
        );
    }
    let listed: Vec<(u64, String)> = body
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            Some((
                p.get("part_number")?.as_u64()?,
                p.get("etag")?.as_str()?.to_string(),
            ))
        })
        .collect();
    if listed.len() != upload.part_count as usize {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("expected {} parts, got {}", upload.part_count, listed.len()),
        );
    }
    let mut assembled = Vec::new();
    for (n, etag) in &listed {
        match upload.parts.get(&(*n as u32)) {
            Some((stored, part)) if stored == etag => assembled.extend_from_slice(part),
            Some(_) => {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("part {n}: the ETag does not match"),
                );
            }
            None => {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("part {n} was not uploaded"),
                );
            }
        }
    }
    store.multiparts.remove(upload_id);
    let size = assembled.len();
    let checksum = etag_of(&assembled);
    store.uploads.insert(
        (caller.id.clone(), file_id.clone()),
        Upload {
            bytes: Some(assembled),
            content_type: upload.content_type,
            attached: false,
        },
    );
    answer(
        StatusCode::OK,
        &json!({ "id": file_id, "location": format!("{}/_media/{file_id}", app.origin),
        "etag": checksum, "filesize": size, "checksum": checksum.trim_matches('"') }),
    )
}

/// A cheap content hash for ETags (FNV-1a); the sandbox needs stability, not security.
pub(super) fn etag_of(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("\"{h:016x}\"")
}

pub(super) fn carries_credentials(headers: &HeaderMap) -> bool {
    headers.contains_key(header::AUTHORIZATION)
        || headers.contains_key("api-key-id")
        || headers.contains_key("api-key-secret")
}

/// The pre-signed upload URL: no token needed (nor wanted).
pub(super) async fn presigned_put(
    State(app): State<Arc<App>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let mut store = app.legacy.lock().await;
    if carries_credentials(&headers) {
        store.presigned_with_credentials += 1;
    }
    let Some(Target { owner, file_id }) = store.presigned.get(&token).cloned() else {
        return error(StatusCode::FORBIDDEN, "This upload URL is not valid");
    };
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let etag = etag_of(&bytes);
    let upload = store.uploads.entry((owner, file_id)).or_default();
    upload.bytes = Some(bytes.to_vec());
    upload.content_type = content_type;
    (StatusCode::OK, [(header::ETAG, etag)]).into_response()
}

pub(super) async fn presigned_part(
    State(app): State<Arc<App>>,
    Path((upload_id, part)): Path<(String, u32)>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let mut store = app.legacy.lock().await;
    if carries_credentials(&headers) {
        store.presigned_with_credentials += 1;
    }
    let Some(upload) = store.multiparts.get_mut(&upload_id) else {
        return error(StatusCode::FORBIDDEN, "This upload URL is not valid");
    };
    if part == 0 || part > upload.part_count {
        return error(
            StatusCode::BAD_REQUEST,
            format!("part {part} is out of range"),
        );
    }
    let etag = etag_of(&bytes);
    upload.parts.insert(part, (etag.clone(), bytes.to_vec()));
    (StatusCode::OK, [(header::ETAG, etag)]).into_response()
}
