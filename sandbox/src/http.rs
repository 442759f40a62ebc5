//! What every route shares, by job: answers and refusals (`answer`), the limits on
//! request bodies (`limits`), the middlewares around routes (`guards`: framework errors,
//! JSON bodies, auth, rate limits, faults), query text (`query_text`), and the strict
//! layer that holds each request to its operation (`strict`). Paging lives in `cursor.rs`
//! and each interface's list handlers.

mod answer;
mod guards;
mod limits;
mod query_text;
pub mod strict;

pub use answer::{Reject, body, error, json, pdf, too_large, too_large_for, wants_pdf};
pub use guards::{
    SYNTHETIC, auth, faults, framework_errors, inject_fault, json_content, legacy_rate_limit,
    rate_limit,
};
pub use limits::{BODY_LIMIT, UPLOAD_LIMIT, UPLOADS, declared_over, declared_too_large};
pub use query_text::encode;
