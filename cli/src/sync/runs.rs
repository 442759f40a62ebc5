//! The run history (`_sync_runs`): a row per run, written in the run's own transactions
//! (made as it starts, brought up to date in each page's commit and each list's end,
//! closed with its outcome and exit code), so a run killed at any moment leaves a row that
//! says how far it got and that it never ended. What `sync status` reads back from it:
//! each list's last successful sync and its age.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::state::time_text;
use crate::exit::{Class, Failure};

/// A run's outcome as the row says it: `running` while it runs (and after a kill, until
/// the next run or `sync status` finds no run holding the lock: `killed`), then
/// `succeeded` or `failed`.
pub const RUNNING: &str = "running";
pub const SUCCEEDED: &str = "succeeded";
pub const FAILED: &str = "failed";
pub const KILLED: &str = "killed";

/// One run's row, as this run keeps it while it goes.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// The run's number (one more than the last run's), given as it starts.
    pub run: i64,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub outcome: &'static str,
    pub exit_code: Option<i64>,
    /// The failure's message (never a credential: messages name none).
    pub error: Option<String>,
    pub lists: Vec<ListRun>,
    /// Requests this run sent to the service (retries included), and 429 answers met.
    pub api_requests: u64,
    pub rate_limited: u64,
    pub tool_version: String,
    pub spec_version: String,
    /// The client's counts as the run started.
    counted_from: (u64, u64),
}

/// What a run did to one list, as `_sync_runs.lists` holds it (a JSON array of these).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListRun {
    pub list: String,
    /// Records written (new or updated) by the run.
    pub records: u64,
    /// Records a whole walk no longer found, marked deleted by the run.
    pub marked_deleted: u64,
    /// The newest watermark the list had reached at the run's last commit (RFC 3339).
    pub watermark: Option<String>,
    /// When the run walked the list to its end (none: it did not).
    pub finished_at: Option<String>,
}

impl RunRecord {
    /// A run starting now over `lists`; `counted_from` is the client's (requests, 429s).
    pub fn new(
        tool_version: &str,
        spec_version: &str,
        lists: &[&str],
        counted_from: (u64, u64),
    ) -> RunRecord {
        RunRecord {
            run: 0,
            started_at: Utc::now(),
            ended_at: None,
            outcome: RUNNING,
            exit_code: None,
            error: None,
            lists: lists
                .iter()
                .map(|l| ListRun {
                    list: l.to_string(),
                    ..ListRun::default()
                })
                .collect(),
            api_requests: 0,
            rate_limited: 0,
            tool_version: tool_version.to_string(),
            spec_version: spec_version.to_string(),
            counted_from,
        }
    }

    /// The client's counts now: (requests sent, 429s met) since the run began.
    pub fn count(&mut self, now: (u64, u64)) {
        self.api_requests = now.0.saturating_sub(self.counted_from.0);
        self.rate_limited = now.1.saturating_sub(self.counted_from.1);
    }

    pub fn list_mut(&mut self, list: &str) -> Option<&mut ListRun> {
        self.lists.iter_mut().find(|l| l.list == list)
    }

    /// The run's end: succeeded, or failed with `failure`'s exit code and message.
    pub fn end(&mut self, failure: Option<&Failure>) {
        self.ended_at = Some(Utc::now());
        match failure {
            None => {
                self.outcome = SUCCEEDED;
                self.exit_code = Some(0);
            }
            Some(f) => {
                self.outcome = FAILED;
                self.exit_code = Some(i64::from(f.class.code()));
                self.error = Some(f.message.clone());
            }
        }
    }

    pub fn lists_json(&self) -> String {
        serde_json::to_string(&self.lists).unwrap_or_else(|_| "[]".into())
    }

    /// The row's values in the order of the statement that writes it
    /// ([`super::statements::write_run`]), `now` as its last commit; times as text.
    pub fn values(&self, now: DateTime<Utc>) -> RunValues {
        RunValues {
            run: self.run,
            started_at: time_text(&self.started_at),
            updated_at: time_text(&now),
            ended_at: self.ended_at.as_ref().map(time_text),
            outcome: self.outcome.to_string(),
            exit_code: self.exit_code,
            error: self.error.clone(),
            lists: self.lists_json(),
            api_requests: i64::try_from(self.api_requests).unwrap_or(i64::MAX),
            rate_limited: i64::try_from(self.rate_limited).unwrap_or(i64::MAX),
            tool_version: self.tool_version.clone(),
            spec_version: self.spec_version.clone(),
        }
    }
}

/// A `_sync_runs` row as both databases write and read it (times as RFC 3339 text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunValues {
    pub run: i64,
    pub started_at: String,
    pub updated_at: String,
    pub ended_at: Option<String>,
    pub outcome: String,
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    pub lists: String,
    pub api_requests: i64,
    pub rate_limited: i64,
    pub tool_version: String,
    pub spec_version: String,
}

/// What `sync status` read: what made the database, its runs (newest first), and
/// whether a sync holds its lock now.
pub struct Stored {
    pub shown: String,
    pub schema: Option<String>,
    pub meta: Vec<(String, String)>,
    pub runs: Vec<RunValues>,
    pub held: bool,
}

/// `sync status`'s report.
#[derive(Debug, Serialize)]
pub struct Status {
    pub database: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    pub interface: String,
    pub spec_version: String,
    /// The newest run, whatever its outcome (none before the first).
    pub last_run: Option<LastRun>,
    pub lists: Vec<ListStatus>,
    /// `--max-age` in seconds, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_age_s: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct LastRun {
    pub run: i64,
    /// `killed` for a row left `running` that no sync holds the lock of.
    pub outcome: String,
    pub started_at: String,
    pub ended_at: Option<String>,
    /// Its last commit.
    pub updated_at: String,
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    pub api_requests: i64,
    pub rate_limited: i64,
    pub tool_version: String,
}

/// A list's freshness: the last run that walked it to its end.
#[derive(Debug, Serialize)]
pub struct ListStatus {
    pub list: String,
    /// That run's number, when and what it wrote (none: never synced whole).
    pub last_success: Option<ListSuccess>,
    /// Seconds since then.
    pub age_s: Option<u64>,
    /// Older than `--max-age` (or never synced), when given.
    pub stale: bool,
}

#[derive(Debug, Serialize)]
pub struct ListSuccess {
    pub run: i64,
    pub finished_at: String,
    pub records: u64,
    pub watermark: Option<String>,
}

/// The report of `stored` at `now`, each list held to `max_age`.
pub fn status(stored: &Stored, now: DateTime<Utc>, max_age: Option<Duration>) -> Status {
    let get = |key: &str| {
        stored
            .meta
            .iter()
            .find(|(k, _)| k == key)
            .map_or(String::new(), |(_, v)| v.clone())
    };
    let last_run = stored.runs.first().map(|r| LastRun {
        run: r.run,
        outcome: match r.outcome.as_str() {
            RUNNING if !stored.held => KILLED.to_string(),
            other => other.to_string(),
        },
        started_at: r.started_at.clone(),
        ended_at: r.ended_at.clone(),
        updated_at: r.updated_at.clone(),
        exit_code: r.exit_code,
        error: r.error.clone(),
        api_requests: r.api_requests,
        rate_limited: r.rate_limited,
        tool_version: r.tool_version.clone(),
    });
    Status {
        database: stored.shown.clone(),
        schema: stored.schema.clone(),
        interface: get("interface"),
        spec_version: get("spec_version"),
        last_run,
        lists: freshness(&stored.runs, now, max_age),
        max_age_s: max_age.map(|d| d.as_secs()),
    }
}

/// Each list any run synced, in the order the newest runs name them, with the last run
/// that finished it.
fn freshness(runs: &[RunValues], now: DateTime<Utc>, max_age: Option<Duration>) -> Vec<ListStatus> {
    let mut out: Vec<ListStatus> = Vec::new();
    for run in runs {
        let lists: Vec<ListRun> = serde_json::from_str(&run.lists).unwrap_or_default();
        for l in lists {
            let at = out
                .iter()
                .position(|s| s.list == l.list)
                .unwrap_or_else(|| {
                    out.push(ListStatus {
                        list: l.list.clone(),
                        last_success: None,
                        age_s: None,
                        stale: max_age.is_some(),
                    });
                    out.len() - 1
                });
            let entry = &mut out[at];
            let Some(finished) = l.finished_at.filter(|_| entry.last_success.is_none()) else {
                continue;
            };
            let age = DateTime::parse_from_rfc3339(&finished)
                .map(|t| (now - t.with_timezone(&Utc)).num_seconds().max(0) as u64)
                .ok();
            entry.age_s = age;
            entry.stale = match (max_age, age) {
                (Some(max), Some(age)) => age > max.as_secs(),
                (Some(_), None) => true,
                (None, _) => false,
            };
            entry.last_success = Some(ListSuccess {
                run: run.run,
                finished_at: finished,
                records: l.records,
                watermark: l.watermark,
            });
        }
    }
    out
}

/// The failure `sync status --max-age` ends with when a list is stale (exit 11), naming
/// each such list and its age.
pub fn stale(status: &Status) -> Option<Failure> {
    let max = status.max_age_s?;
    let stale: Vec<String> = status
        .lists
        .iter()
        .filter(|l| l.stale)
        .map(|l| match (&l.last_success, l.age_s) {
            (Some(s), Some(age)) => format!(
                "{} last synced {} ago (run {}, {})",
                l.list,
                age_text(age),
                s.run,
                s.finished_at
            ),
            _ => format!("{} never synced to its end", l.list),
        })
        .collect();
    let none = status.lists.is_empty();
    if stale.is_empty() && !none {
        return None;
    }
    let what = if none {
        "no list has been synced yet".to_string()
    } else {
        stale.join("; ")
    };
    Some(Failure::new(
        Class::Stale,
        format!(
            "{}: {what}, over --max-age {}",
            status.database,
            age_text(max)
        ),
    ))
}

/// `3d 4h`, `2h 5m`, `4m 10s`, `12s`.
pub fn age_text(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3_600 % 24, secs / 60 % 60, secs % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m {s}s"),
        (0, _, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(run: i64, outcome: &str, lists: &str) -> RunValues {
        RunValues {
            run,
            started_at: "2026-12-05T10:00:00.000000Z".into(),
            updated_at: "2026-12-05T10:01:00.000000Z".into(),
            ended_at: None,
            outcome: outcome.into(),
            exit_code: None,
            error: None,
            lists: lists.into(),
            api_requests: 3,
            rate_limited: 0,
            tool_version: "0.2.0".into(),
            spec_version: "0.2.0".into(),
        }
    }

    #[test]
    fn each_list_s_freshness_is_the_last_run_that_finished_it() {
        let runs = vec![
            // Killed part-way through tasks, after units.
            row(
                3,
                RUNNING,
                r#"[{"list":"units","records":2,"marked_deleted":0,"watermark":null,"finished_at":"2026-12-05T11:00:00Z"},{"list":"tasks","records":1,"marked_deleted":0,"watermark":null,"finished_at":null}]"#,
            ),
            row(
                2,
                SUCCEEDED,
                r#"[{"list":"units","records":2,"marked_deleted":0,"watermark":null,"finished_at":"2026-12-05T10:00:00Z"},{"list":"tasks","records":5,"marked_deleted":0,"watermark":"2026-12-01T00:00:00Z","finished_at":"2026-12-05T09:00:00Z"}]"#,
            ),
        ];
        let stored = Stored {
            shown: "fleet.db".into(),
            schema: None,
            meta: vec![("interface".into(), "v3".into())],
            runs,
            held: false,
        };
        let now = DateTime::parse_from_rfc3339("2026-12-05T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let report = status(&stored, now, Some(Duration::from_secs(7_200)));
        assert_eq!(report.last_run.as_ref().unwrap().outcome, KILLED);
        assert_eq!(report.lists[0].list, "units");
        assert_eq!(report.lists[0].age_s, Some(3_600));
        assert!(!report.lists[0].stale);
        let tasks = &report.lists[1];
        assert_eq!(tasks.last_success.as_ref().unwrap().run, 2);
        assert_eq!(tasks.age_s, Some(10_800));
        assert!(tasks.stale);
        let failure = stale(&report).unwrap();
        assert_eq!(failure.class, Class::Stale);
        assert!(
            failure
                .message
                .contains("tasks last synced 3h 0m ago (run 2"),
            "{}",
            failure.message
        );
        assert!(!failure.message.contains("units"), "{}", failure.message);
        let held = Stored {
            held: true,
            ..stored
        };
        let report = status(&held, now, None);
        assert_eq!(report.last_run.unwrap().outcome, RUNNING);
        assert!(report.lists.iter().all(|l| !l.stale));
    }

    #[test]
    fn ages_read_as_their_largest_units() {
        assert_eq!(age_text(12), "12s");
        assert_eq!(age_text(250), "4m 10s");
        assert_eq!(age_text(7_500), "2h 5m");
        assert_eq!(age_text(273_600), "3d 4h");
    }
}
