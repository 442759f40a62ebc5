//! List query parameters and the paged `{data, paging}` envelope with an opaque cursor.

use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::http::{Reject, encode, json};
use crate::{App, PagingStyle, cursor};

/// Page size when the client sends none (the service's default is not documented).
pub const DEFAULT_PER_PAGE: usize = 20;

pub struct ListQuery {
    pairs: Vec<(String, String)>,
    pub per_page: usize,
    pub after: u64,
}

impl ListQuery {
    /// Reads `page` and `per_page`. A page size over 100 or not an int32 never gets here
    /// (`http::strict` refuses it with 400, from the spec); the interface document states
    /// no minimum, so a size below 1 asks for the default page, as does an empty `page`. A
    /// cursor this sandbox did not hand out is a 400.
    pub fn parse(pairs: Vec<(String, String)>) -> Result<Self, Reject> {
        let mut q = ListQuery {
            pairs,
            per_page: DEFAULT_PER_PAGE,
            after: 0,
        };
        if let Some(n) = q.get("per_page").and_then(|p| p.parse::<usize>().ok()) {
            q.per_page = if n >= 1 { n } else { DEFAULT_PER_PAGE };
        }
        if let Some(c) = q.get("page").filter(|c| !c.is_empty()) {
            q.after = cursor::decode(c).ok_or_else(|| {
                Reject::new(
                    StatusCode::BAD_REQUEST,
                    format!("page: `{c}` is not a valid cursor"),
                )
            })?;
        }
        Ok(q)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// An ISO 8601 date-time filter (`http::strict` refused a malformed one already).
    pub fn date_time(&self, name: &str) -> Result<Option<DateTime<Utc>>, Reject> {
        self.get(name)
            .map(|v| {
                DateTime::parse_from_rfc3339(v)
                    .map(|d| d.with_timezone(&Utc))
                    .map_err(|_| {
                        Reject::new(
                            StatusCode::BAD_REQUEST,
                            format!("{name}: `{v}` is not an ISO 8601 date-time"),
                        )
                    })
            })
            .transpose()
    }

    /// The query for the next page: every parameter but `page`, then the new cursor.
    fn next_query(&self, cursor: &str) -> String {
        let mut parts: Vec<String> = self
            .pairs
            .iter()
            .filter(|(k, _)| k != "page")
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        parts.push(format!("page={}", encode(cursor)));
        parts.join("&")
    }
}

/// `rows` (sequence number and record, in order, already filtered) as one page.
pub fn page<T: Serialize>(app: &App, path: &str, q: &ListQuery, rows: Vec<(u64, T)>) -> Response {
    let mut remaining = rows
        .into_iter()
        .filter(|(seq, _)| *seq > q.after)
        .peekable();
    let mut data = Vec::new();
    let mut last = None;
    while data.len() < q.per_page {
        let Some((seq, record)) = remaining.next() else {
            break;
        };
        last = Some(seq);
        data.push(record);
    }
    let more = remaining.peek().is_some();
    let next_cursor = last.filter(|_| more).map(cursor::encode);
    let mut paging = serde_json::Map::new();
    paging.insert("per_page".into(), serde_json::json!(q.per_page));
    if app.paging != PagingStyle::Cursor {
        let next = next_cursor
            .as_ref()
            .map(|c| format!("{}{path}?{}", app.origin, q.next_query(c)));
        paging.insert("next".into(), serde_json::json!(next));
    }
    // The last page says so: `cursor: null` (where `next` is not given, it is the only
    // sign that a full last page is the last).
    if app.paging != PagingStyle::NextUrl {
        paging.insert("cursor".into(), serde_json::json!(next_cursor));
    }
    json(StatusCode::OK, &Page { data, paging })
}

/// The envelope, written straight out: `json!` would first copy every record into a
/// `Value` (a map per object), the larger part of a page's time.
#[derive(Serialize)]
struct Page<T> {
    data: Vec<T>,
    paging: serde_json::Map<String, serde_json::Value>,
}
