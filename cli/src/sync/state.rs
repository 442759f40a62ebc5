//! Where each list's sync stands, kept in the database itself (`_sync_state`) and written
//! in the same transaction as the page of rows it describes: a run killed at any moment
//! finds the state of the last page it committed, never one ahead of or behind the rows.

use chrono::{DateTime, Utc};
use inspection_runtime::Resume;

use crate::exit::{Class, Failure};

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

fn parse_time(text: Option<String>, what: &str) -> Result<Option<DateTime<Utc>>, String> {
    text.map(|t| {
        DateTime::parse_from_rfc3339(&t)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| format!("the sync state's {what} `{t}` is not a time: {e}"))
    })
    .transpose()
}

fn parse_resume(text: Option<String>) -> Result<Option<Resume>, String> {
    text.map(|t| {
        t.parse::<Resume>()
            .map_err(|e| format!("the sync state's resume point: {e}"))
    })
    .transpose()
}

/// A `_sync_state` row as either database gives it, in the table's column order.
pub struct Row {
    pub pass: i64,
    pub in_pass: i64,
    pub whole: i64,
    pub since: Option<String>,
    pub resume: Option<String>,
    pub watermark: Option<String>,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
}

impl Row {
    /// The list's place, or (a row this tool would not have written: edited by hand, or
    /// damaged) a refusal naming the database `shown` and the way out. Never trusted
    /// half-way.
    pub fn read(self, shown: &str) -> Result<ListState, Failure> {
        let refuse = |e: String| damaged(shown, &e);
        let flag = |value: i64, what: &str| match value {
            0 | 1 => Ok(value == 1),
            _ => Err(refuse(format!(
                "the sync state's {what} is {value}, not 0 or 1"
            ))),
        };
        if self.pass < 0 {
            return Err(refuse(format!("the sync state's pass is {}", self.pass)));
        }
        Ok(ListState {
            pass: self.pass,
            in_pass: flag(self.in_pass, "in_pass")?,
            whole: flag(self.whole, "whole")?,
            since: parse_time(self.since, "since").map_err(refuse)?,
            resume: parse_resume(self.resume).map_err(refuse)?,
            watermark: parse_time(self.watermark, "watermark").map_err(refuse)?,
            started_at: parse_time(self.started_at, "start").map_err(refuse)?,
            finished_at: parse_time(self.finished_at, "end").map_err(refuse)?,
        })
    }
}

/// The tool's own tables in the database `shown` do not read: refused, with the way out.
pub fn damaged(shown: &str, what: &str) -> Failure {
    Failure::new(Class::Database, format!("{shown}: {what}")).with_hint(
        "`--rebuild` starts the sync over: this tool's tables are made anew from the service's records (tables of your own are left)",
    )
}
