//! Rows that may have been applied without an answer saying so (a request in flight when
//! a run was killed, a timeout, a connection cut, a 5xx, for an operation that is not
//! safe to repeat): looked for among the records the target's find lists since the run
//! began, matched on the columns the spec names; a row found is created with the id
//! found, a row not found is of unknown outcome, sent again only with
//! `--resend-unknown`.

use chrono::TimeDelta;
use futures_util::StreamExt;
use serde_json::Value;

use super::cells::Typed;
use super::journal::State;
use super::send::{Doubt, Run, send};
use super::{Find, Source};
use crate::exit::Failure;

/// How much earlier than the run's beginning the find looks, for a service clock that is
/// behind this machine's.
const CLOCK_SKEW: TimeDelta = TimeDelta::minutes(10);

/// Settles every doubt: found, sent again (`--resend-unknown`), or of unknown outcome.
pub async fn settle(
    run: &mut Run<'_>,
    source: &dyn Source,
    mut doubts: Vec<Doubt>,
) -> Result<(), Failure> {
    if doubts.is_empty() {
        return Ok(());
    }
    if let Some(find) = &run.target.find {
        let since = doubts.iter().map(|d| d.since).min().unwrap_or(run.begin.at) - CLOCK_SKEW;
        let mut pages = source.found(run.index, since);
        while let Some(page) = pages.next().await {
            // A find that fails leaves the rows in flight: the next run looks again.
            let (records, _) = page.map_err(Failure::from)?;
            for record in &records {
                if let Some(at) = doubts.iter().position(|d| matches(find, &d.typed, record)) {
                    let doubt = doubts.swap_remove(at);
                    let id = record.get("id").and_then(crate::export::id_text);
                    let outcome = run.outcome(&doubt.typed, State::Created, id);
                    run.record(outcome)?;
                }
            }
            if doubts.is_empty() {
                return Ok(());
            }
        }
    }
    doubts.sort_by_key(|d| d.typed.line);
    for doubt in doubts {
        if run.options.resend_unknown {
            let (typed, kept) = send(run.target, doubt.typed, source).await;
            let mut again = Vec::new();
            run.settle(typed, kept, &mut again)?;
            if let Some(doubt) = again.pop() {
                unknown(run, doubt.typed)?;
            }
        } else {
            unknown(run, doubt.typed)?;
        }
    }
    Ok(())
}

fn unknown(run: &mut Run<'_>, typed: Typed) -> Result<(), Failure> {
    let mut outcome = run.outcome(&typed, State::Unknown, None);
    outcome.error = Some(
        "its request may have been applied: no answer came and no record matches it; \
         --resend-unknown sends it again"
            .into(),
    );
    run.record(outcome)
}

/// Whether `record` is what `typed` would have created: every column the row fills and
/// the find compares equals the record's field.
fn matches(find: &Find, typed: &Typed, record: &Value) -> bool {
    find.matches
        .iter()
        .all(|(column, path)| match typed.value(column) {
            None => true,
            Some(want) => {
                let got = path.split('.').try_fold(record, |v, name| v.get(name));
                got.is_some_and(|got| same(want, got))
            }
        })
}

/// Equal as JSON, as the same instant (a date is its midnight UTC), or as the same text.
fn same(want: &Value, got: &Value) -> bool {
    if want == got {
        return true;
    }
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let (want, got) = (text(want), text(got));
    match (instant(&want), instant(&got)) {
        (Some(a), Some(b)) => a == b,
        _ => want == got,
    }
}

fn instant(text: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(t.to_utc());
    }
    let date = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_the_same_as_its_midnight_and_text_as_its_number() {
        let v = |s: &str| Value::from(s);
        assert!(same(&v("2026-12-01"), &v("2026-12-01T00:00:00Z")));
        assert!(same(
            &v("2026-12-01T08:00:00+01:00"),
            &v("2026-12-01T07:00:00.000Z")
        ));
        assert!(!same(&v("2026-12-01"), &v("2026-12-02T00:00:00Z")));
        assert!(same(&Value::from(42), &v("42")));
        assert!(!same(&v("Fix brakes"), &v("Fix Brakes")));
    }
}
