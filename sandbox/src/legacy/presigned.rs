//! The pre-signed upload URLs the sandbox serves itself, in the storage service's place: a
//! plain PUT of the file, or of one part, without (and never wanting) the token. Bodies are
//! streamed to disk up to 5 GiB (`UPLOAD_LIMIT`), never held in memory.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::App;
use crate::http::{UPLOAD_LIMIT, declared_over, error, too_large_for};

use super::spill::{Refused, Spilled};
use super::store::Target;

fn carries_credentials(headers: &HeaderMap) -> bool {
    headers.contains_key(header::AUTHORIZATION)
        || headers.contains_key("api-key-id")
        || headers.contains_key("api-key-secret")
}

/// Counts a pre-signed request that carries a credential (tests assert none ever does).
async fn note_credentials(app: &App, headers: &HeaderMap) {
    if carries_credentials(headers) {
        app.legacy.lock().await.presigned_with_credentials += 1;
    }
}

/// `body` on disk, or the answer refusing it (`what` names it in the message).
async fn store_body(
    app: &App,
    what: &str,
    headers: &HeaderMap,
    body: Body,
) -> Result<Spilled, Response> {
    if declared_over(headers, UPLOAD_LIMIT) {
        return Err(too_large_for(what, UPLOAD_LIMIT));
    }
    app.spill
        .write(body, UPLOAD_LIMIT)
        .await
        .map_err(|e| match e {
            Refused::TooLarge => too_large_for(what, UPLOAD_LIMIT),
            Refused::Broken => error(StatusCode::BAD_REQUEST, format!("{what} broke off")),
            Refused::Io(e) => error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("{what} could not be stored: {e}"),
            ),
        })
}

fn stored(file: &Spilled) -> Response {
    (StatusCode::OK, [(header::ETAG, file.etag.clone())]).into_response()
}

/// The pre-signed URL of a single-file upload.
pub(super) async fn presigned_put(
    State(app): State<Arc<App>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    note_credentials(&app, &headers).await;
    let target = app.legacy.lock().await.presigned.get(&token).cloned();
    let Some(Target { owner, file_id }) = target else {
        return error(StatusCode::FORBIDDEN, "This upload URL is not valid");
    };
    let file = match store_body(&app, "the upload", &headers, body).await {
        Ok(file) => file,
        Err(refused) => return refused,
    };
    let answer = stored(&file);
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut store = app.legacy.lock().await;
    let upload = store.uploads.entry((owner, file_id)).or_default();
    upload.file = Some(Arc::new(file));
    upload.content_type = content_type;
    answer
}

/// The pre-signed URL of one part of a multipart upload; sending a part again replaces it.
pub(super) async fn presigned_part(
    State(app): State<Arc<App>>,
    Path((upload_id, part)): Path<(String, u32)>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    note_credentials(&app, &headers).await;
    let part_count = app
        .legacy
        .lock()
        .await
        .multiparts
        .get(&upload_id)
        .map(|u| u.part_count);
    let Some(part_count) = part_count else {
        return error(StatusCode::FORBIDDEN, "This upload URL is not valid");
    };
    if part == 0 || part > part_count {
        return error(
            StatusCode::BAD_REQUEST,
            format!("part {part} is out of range"),
        );
    }
    let file = match store_body(&app, &format!("part {part}"), &headers, body).await {
        Ok(file) => file,
        Err(refused) => return refused,
    };
    let answer = stored(&file);
    let mut store = app.legacy.lock().await;
    let Some(upload) = store.multiparts.get_mut(&upload_id) else {
        // Completed or reset while the part was on its way.
        return error(StatusCode::FORBIDDEN, "This upload URL is not valid");
    };
    upload.parts.insert(part, Arc::new(file));
    answer
}
