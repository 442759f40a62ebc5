//! Media uploads: upload URLs, multipart start and complete (the pre-signed URLs
//! themselves are in `presigned`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::App;
use crate::http::{Reject, UPLOADS, error, json as answer};

use super::spill::Spilled;
use super::store::{Multipart, Target, Upload};
use super::{Caller, Pairs, parse_body};

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
            &json!({ "id": file_id, "type": u.content_type, "size": u.file.map(|f| f.size) }),
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
    let upload_url = format!("{}{UPLOADS}{token}?X-Amz-Expires=900", app.origin);
    match existing {
        Some(u) => answer(
            StatusCode::OK,
            &json!({ "id": file_id, "upload_url": upload_url,
            "type": u.content_type, "size": u.file.map(|f| f.size).unwrap_or(0) }),
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
    // Present and from 1 to 20: `http::strict` refused anything else (400), from the spec.
    let parts = match q.get("part_count").map(|p| p.parse::<u32>()) {
        Some(Ok(n)) if (1..=20).contains(&n) => n,
        _ => return error(StatusCode::BAD_REQUEST, "part_count: must be from 1 to 20"),
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
                "{}{UPLOADS}multipart/{upload_id}/{n}?partNumber={n}&uploadId={upload_id}",
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

/// Completes a multipart upload: the parts listed, in order, become the file (assembled on
/// disk, a chunk at a time, without holding the store while it is written).
pub(super) async fn multipart_complete(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(file_id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let body = parse_body(&bytes)?;
    let Some(upload_id) = body.get("upload_id").and_then(Value::as_str) else {
        return Ok(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "upload_id is required",
        ));
    };
    let missing = || {
        error(
            StatusCode::NOT_FOUND,
            format!("The upload {upload_id} could not be found"),
        )
    };
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
    let (parts, content_type) = {
        let store = app.legacy.lock().await;
        match store.multiparts.get(upload_id) {
            Some(u) if u.owner == caller.id && u.file_id == file_id => (
                listed_parts(u, &listed, app.legacy_min_part_size)?,
                u.content_type.clone(),
            ),
            _ => return Ok(missing()),
        }
    };
    let file = match app.spill.concat(&parts).await {
        Ok(file) => file,
        Err(e) => {
            let why = format!("the parts could not be assembled: {e}");
            return Ok(error(StatusCode::INTERNAL_SERVER_ERROR, why));
        }
    };
    let mut store = app.legacy.lock().await;
    // Completed by another request meanwhile, or the sandbox was reset.
    if store.multiparts.remove(upload_id).is_none() {
        return Ok(missing());
    }
    let (size, etag) = (file.size, file.etag.clone());
    store.uploads.insert(
        (caller.id.clone(), file_id.clone()),
        Upload {
            file: Some(Arc::new(file)),
            content_type,
            attached: false,
        },
    );
    Ok(answer(
        StatusCode::OK,
        &json!({ "id": file_id, "location": format!("{}/_media/{file_id}", app.origin),
        "etag": etag, "filesize": size, "checksum": etag.trim_matches('"') }),
    ))
}

/// The uploaded parts `listed` names, in order, if they make the whole upload: every part
/// once, in ascending order, with its ETag, and each but the last at least `min_size`
/// bytes (the public docs: "Each part must be at least 5MB in size (except the last
/// part)"). A 422 naming the part otherwise.
fn listed_parts(
    upload: &Multipart,
    listed: &[(u64, String)],
    min_size: u64,
) -> Result<Vec<Arc<Spilled>>, Reject> {
    let refuse = |why: String| Reject::new(StatusCode::UNPROCESSABLE_ENTITY, why);
    let count = u64::from(upload.part_count);
    if listed.len() as u64 != count {
        return Err(refuse(format!(
            "parts: expected {count} parts, got {}",
            listed.len()
        )));
    }
    let mut parts = Vec::new();
    for (i, (n, etag)) in listed.iter().enumerate() {
        if *n != i as u64 + 1 {
            return Err(refuse(format!(
                "parts[{i}]: part {n} is out of place: list parts 1 to {count}, each once, in order"
            )));
        }
        let Some(part) = upload.parts.get(&(*n as u32)) else {
            return Err(refuse(format!("part {n} was not uploaded")));
        };
        if part.etag != *etag {
            return Err(refuse(format!("part {n}: the ETag does not match")));
        }
        if *n < count && part.size < min_size {
            return Err(refuse(format!(
                "part {n} is {} bytes: every part but the last must be at least {min_size} bytes",
                part.size
            )));
        }
        parts.push(part.clone());
    }
    Ok(parts)
}
