//! Where each list's sync stands, kept in the database itself (`_sync_state`) and written
//! in the same transaction as the page of rows it describes: a run killed at any moment
//! finds the state of the last page it committed, never one ahead of or behind the rows.

use chrono::{DateTime, Utc};
use inspection_runtime::Resume;

/// One list's place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListState {
    /// The run (a pass over the list) last started; rows carry it in `_pass`.
    pub pass: i64,
    /// A pass is under way: `resume` is where it goes on (none: from its first page).
    pub in_pass: bool,
    /// The pass walks the whole list (a record it does not see is marked deleted at its
    /// end), rather than only what its filter lists after `since`.
    pub whole: bool,
    pub since: Option<DateTime<Utc>>,
    pub resume: Option<Resume>,
    /// The newest watermark of any record written.
    pub watermark: Option<DateTime<Utc>>,
    pub started_at: Option<DateTime<Utc>>,
    /// When the last pass ended.
    pub finished_at: Option<DateTime<Utc>>,
}

/// Times as they are stored in the state table (RFC 3339, UTC).
pub fn time_text(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

pub fn parse_time(text: Option<String>, what: &str) -> Result<Option<DateTime<Utc>>, String> {
    text.map(|t| {
        DateTime::parse_from_rfc3339(&t)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| format!("the sync state's {what} `{t}` is not a time: {e}"))
    })
    .transpose()
}

pub fn parse_resume(text: Option<String>) -> Result<Option<Resume>, String> {
    text.map(|t| {
        t.parse::<Resume>()
            .map_err(|e| format!("the sync state's resume point: {e}"))
    })
    .transpose()
}
