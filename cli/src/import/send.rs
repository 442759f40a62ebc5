//! Sending the rows: each row's outcome in the journal, a few requests in flight at the
//! client's pace, and the at-most-once rule for an operation that is not safe to repeat:
//! its request is journalled (on disk) before it goes, and a row whose answer never came
//! (killed, timed out, reset, a 5xx) is looked for (`find.rs`), never sent blindly again.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use inspection_runtime::Error;
use serde_json::Value;

use super::cells::{self, Typed};
use super::check::Checked;
use super::file::{Input, Problem};
use super::journal::{Begin, Entry, Journal, Open, Outcome, Past, State};
use super::progress::Progress;
use super::{Options, Source, Target};
use crate::call::{Kept, Mode, taken};
use crate::exit::{Class, Failure, class_of};
use crate::state::Held;

/// `--dry-run`: each valid row's request, one JSON line each; nothing is sent.
pub async fn dry_run(
    target: &Target,
    input: &Input,
    checked: &Checked,
    source: &dyn Source,
) -> Result<(), Failure> {
    let mut out = crate::output::Lines::stdout();
    for row in input.rows()?.flatten() {
        if checked.invalid.contains_key(&row.line) {
            continue;
        }
        let Ok(typed) = cells::typed(target, row) else {
            continue;
        };
        let (mode, keep) = Mode {
            dry_run: Some(source.core().clone()),
            ..Mode::default()
        }
        .keeping();
        source
            .call(target.operation, typed.args(target), mode)
            .await
            .map_err(Failure::usage)?;
        let request = match taken(&keep) {
            Some(Kept::Preview(request)) => request,
            _ => Value::Null,
        };
        let line = serde_json::json!({"line": typed.line, "key": typed.key, "request": request});
        if !out.write(&line)? {
            break;
        }
    }
    out.flush();
    Ok(())
}

/// A row that may have been applied without its answer, and since when.
pub struct Doubt {
    pub typed: Typed,
    pub since: DateTime<Utc>,
}

/// Counts of a run, for the summary and the exit code.
#[derive(Debug, Default, serde::Serialize)]
pub struct Tally {
    pub created: u64,
    pub updated: u64,
    pub unchanged: u64,
    pub failed: u64,
    pub unknown_outcome: u64,
    /// Done by an earlier, interrupted attempt of this run.
    pub resumed: u64,
    /// Failures that may pass if the import runs again (no answer, 5xx, 429).
    #[serde(skip)]
    pub transient: u64,
}

/// An import under way: the held journal folder, what the journal said, this run.
pub struct Run<'a> {
    pub interface: &'static str,
    pub index: usize,
    pub target: &'static Target,
    pub input: &'a Input,
    pub checked: &'a Checked,
    pub options: &'a Options,
    _held: Held,
    pub journal: Journal,
    pub past: Past,
    pub open: Open,
    pub begin: Begin,
    pub tally: Tally,
    pub progress: Progress,
}

type Sent<'s> = Pin<Box<dyn Future<Output = (Typed, Result<Option<Kept>, String>)> + 's>>;

impl<'a> Run<'a> {
    /// Takes the journal's folder, then goes on with its unfinished run of the same file,
    /// or begins one (refusing to leave another file's run unfinished unless
    /// `--restart`).
    pub fn start(
        interface: &'static str,
        index: usize,
        target: &'static Target,
        input: &'a Input,
        checked: &'a Checked,
        options: &'a Options,
    ) -> Result<Run<'a>, Failure> {
        let dir = options
            .journal
            .clone()
            .unwrap_or_else(|| default_journal(&options.file, interface, target.name));
        let held = Held::take(&dir, "an import")?;
        let (mut journal, mut past) = Journal::open(&dir, interface, target.name)?;
        let same = |b: &Begin| b.size == checked.size && b.hash == checked.hash;
        let open = match past.open.take() {
            Some(open) if !options.restart && same(&open.begin) => open,
            Some(open) if !options.restart => {
                let b = open.begin;
                return Err(Failure::new(
                    Class::Failure,
                    format!(
                        "an import of {} into {} began at {} and did not finish (journal {}), and {} is not that file as it was",
                        b.file, target.name, b.at, journal.path.display(), input.path.display()
                    ),
                )
                .with_hint("run it again on that file to finish it, or add --restart to give it up (its rows in flight then have an unknown outcome)"));
            }
            abandoned => {
                if abandoned.is_some() {
                    journal.append(&Entry::End { at: Utc::now() }, true)?;
                }
                let begin = Begin {
                    file: input.path.display().to_string(),
                    size: checked.size,
                    hash: checked.hash.clone(),
                    at: Utc::now(),
                };
                journal.append(&Entry::Begin(begin.clone()), true)?;
                Open {
                    begin,
                    ..Open::default()
                }
            }
        };
        let begin = open.begin.clone();
        let progress = Progress::new(options.progress, checked.rows, None);
        Ok(Run {
            interface,
            index,
            target,
            input,
            checked,
            options,
            _held: held,
            journal,
            past,
            tally: Tally {
                resumed: open.done.len() as u64,
                ..Tally::default()
            },
            open,
            begin,
            progress,
        })
    }

    /// Sends every row that needs it; gives the rows that may have been applied without
    /// an answer saying so, for the find.
    pub async fn send_rows(&mut self, source: &dyn Source) -> Result<Vec<Doubt>, Failure> {
        self.progress.quota(source.core().config().pacing_limit());
        self.progress.skip(self.open.done.len() as u64);
        let mut doubts = Vec::new();
        self.send_each(source, &mut doubts).await?;
        Ok(doubts)
    }

    /// Ends the run in the journal: every row has its outcome.
    pub fn end(&mut self) -> Result<(), Failure> {
        self.journal.append(&Entry::End { at: Utc::now() }, true)?;
        self.progress.finish();
        Ok(())
    }

    async fn send_each(
        &mut self,
        source: &dyn Source,
        doubts: &mut Vec<Doubt>,
    ) -> Result<(), Failure> {
        let concurrency = self.options.concurrency.max(1);
        let mut flying: FuturesUnordered<Sent<'_>> = FuturesUnordered::new();
        for row in self.input.rows()? {
            let line = match &row {
                Ok(row) => row.line,
                Err(problem) => problem.line,
            };
            if self.open.done.contains_key(&line) {
                continue;
            }
            if let Some(why) = self.checked.invalid.get(&line) {
                let key = row.ok().map(|r| cells::read_row(self.target, r).0.key);
                self.failed(
                    line,
                    key.unwrap_or_default(),
                    None,
                    format!("invalid: {why}"),
                )?;
                continue;
            }
            let typed = match row.map(|r| cells::typed(self.target, r)) {
                Ok(Ok(typed)) => typed,
                // The file changed since it was checked (its hash is checked at the start).
                Ok(Err(problems)) => return Err(changed(&problems[0])),
                Err(problem) => return Err(changed(&problem)),
            };
            let Some(typed) = self.before_sending(typed, doubts)? else {
                continue;
            };
            let durable = !self.target.idempotent;
            self.journal.append(
                &Entry::Sending {
                    line: typed.line,
                    key: typed.key.clone(),
                    hash: typed.hash.clone(),
                },
                durable,
            )?;
            flying.push(send(self.target, typed, source));
            while flying.len() >= concurrency {
                if let Some((typed, kept)) = flying.next().await {
                    self.settle(typed, kept, doubts)?;
                }
            }
        }
        while let Some((typed, kept)) = flying.next().await {
            self.settle(typed, kept, doubts)?;
        }
        Ok(())
    }

    /// What to do with a row before its request: `Some` to send it; otherwise its outcome
    /// is written (unchanged, or already created) or it is looked for.
    fn before_sending(
        &mut self,
        typed: Typed,
        doubts: &mut Vec<Doubt>,
    ) -> Result<Option<Typed>, Failure> {
        if self.open.in_flight.remove(&typed.line).is_some() {
            if self.target.idempotent {
                return Ok(Some(typed));
            }
            doubts.push(Doubt {
                typed,
                since: self.begin.at,
            });
            return Ok(None);
        }
        let last = match self.past.applied.get(&typed.key) {
            Some(last) if !self.options.force => last.clone(),
            _ => return Ok(Some(typed)),
        };
        if let Some(since) = last.unknown_since {
            doubts.push(Doubt { typed, since });
            return Ok(None);
        }
        if last.hash == typed.hash {
            let outcome = self.outcome(&typed, State::Unchanged, last.id);
            self.record(outcome)?;
            return Ok(None);
        }
        if !self.target.idempotent {
            let id = last.id.unwrap_or_default();
            let line = typed.line;
            self.failed(line, typed.key, None, format!(
                "already created (id {id}) by an earlier import with other values; this import only creates, so the change is not sent (--force creates it again)"
            ))?;
            return Ok(None);
        }
        Ok(Some(typed))
    }

    /// A row's answer: its outcome written, or (not safe to repeat, no answer) a doubt.
    pub fn settle(
        &mut self,
        typed: Typed,
        kept: Result<Option<Kept>, String>,
        doubts: &mut Vec<Doubt>,
    ) -> Result<(), Failure> {
        let error = match kept {
            Err(message) => return self.failed(typed.line, typed.key, None, message),
            Ok(Some(Kept::Answer { created, value })) => {
                let state = if created.unwrap_or(self.target.creates) {
                    State::Created
                } else {
                    State::Updated
                };
                let outcome = self.outcome(&typed, state, id_of(&value, self.target.row));
                return self.record(outcome);
            }
            Ok(Some(Kept::Failed(error))) => error,
            Ok(_) => return self.failed(typed.line, typed.key, None, "no answer was kept".into()),
        };
        if !self.target.idempotent && in_doubt(&error) {
            doubts.push(Doubt {
                typed,
                since: self.begin.at,
            });
            return Ok(());
        }
        if matches!(
            class_of(&error),
            Class::Network | Class::Server | Class::RateLimited
        ) {
            self.tally.transient += 1;
        }
        let status = match &error {
            Error::Api(api) => Some(api.status),
            _ => None,
        };
        self.failed(typed.line, typed.key, status, error.to_string())
    }

    pub fn outcome(&self, typed: &Typed, state: State, id: Option<String>) -> Outcome {
        Outcome {
            line: typed.line,
            key: typed.key.clone(),
            outcome: state,
            id,
            status: None,
            error: None,
            hash: typed.hash.clone(),
        }
    }

    fn failed(
        &mut self,
        line: u64,
        key: String,
        status: Option<u16>,
        error: String,
    ) -> Result<(), Failure> {
        self.record(Outcome {
            line,
            key,
            outcome: State::Failed,
            id: None,
            status,
            error: Some(error),
            hash: String::new(),
        })
    }

    /// Writes `outcome` to the journal and counts it.
    pub fn record(&mut self, outcome: Outcome) -> Result<(), Failure> {
        self.journal
            .append(&Entry::Outcome(outcome.clone()), false)?;
        let t = &mut self.tally;
        match outcome.outcome {
            State::Created => t.created += 1,
            State::Updated => t.updated += 1,
            State::Unchanged => t.unchanged += 1,
            State::Failed => t.failed += 1,
            State::Unknown => t.unknown_outcome += 1,
        }
        self.progress.row(outcome.outcome);
        self.past.note(outcome, self.begin.at);
        Ok(())
    }
}

/// A row's request, sent; what it came to kept.
pub fn send<'s>(target: &'static Target, typed: Typed, source: &'s dyn Source) -> Sent<'s> {
    Box::pin(async move {
        let (mode, keep) = Mode::default().keeping();
        let called = source
            .call(target.operation, typed.args(target), mode)
            .await;
        let kept = called.map(|_| taken(&keep));
        (typed, kept)
    })
}

/// Whether a request may have been applied though no answer says so: no answer came
/// (a timeout, a connection cut after sending) or the service failed (5xx).
fn in_doubt(error: &Error) -> bool {
    match error {
        Error::Api(api) => api.status >= 500,
        Error::Transport { .. } | Error::Timeout { .. } => true,
        _ => false,
    }
}

/// The record's id in an answer (`id`, or the wrapped record's).
fn id_of(value: &Value, row: Option<&str>) -> Option<String> {
    let id = value.get("id").or_else(|| value.get(row?)?.get("id"))?;
    crate::export::id_text(id)
}

fn changed(problem: &Problem) -> Failure {
    Failure::new(
        Class::Failure,
        format!("the file changed while it was imported ({problem}); run the import again"),
    )
}

/// The journal's folder by default: beside the file, one per interface and target, so
/// that each night's file of the same target (whatever its name) shares the last
/// applied values.
pub fn default_journal(file: &Path, interface: &str, target: &str) -> PathBuf {
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    dir.join(".inspection-import")
        .join(format!("{interface}-{target}"))
}
