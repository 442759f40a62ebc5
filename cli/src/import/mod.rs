//! `inspection import <interface> <target> FILE`: one request per row of a CSV or JSON
//! Lines file, every row checked against the documented limits before the first is sent,
//! each row applied once across kills and retries, and every row's outcome written back.
//!
//! The generated crate states what the spec declares (the targets, their columns, the
//! call adapter, each target's find); this module reads the file (`file.rs`, renamed by a
//! mapping file, `mapping.rs`), types its cells (`cells.rs`), checks every row through the
//! generated validators (`check.rs`), keeps the journal (`journal.rs`, on the state
//! module's folder lock), sends (`send.rs`), finds what an unanswered request created
//! (`find.rs`) and writes the results and rejects (`report.rs`).

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};
use inspection_runtime::Core;

pub use inspection_ir::{CellKind, Place};

use crate::call::{Args, Mode, Outcome};
use crate::exit::Failure;

mod cells;
mod check;
pub mod command;
mod file;
mod find;
#[cfg(test)]
mod fuzz;
mod journal;
mod mapping;
mod progress;
mod report;
mod send;

pub use file::Format;
pub use report::ResultsFormat;

/// What an interface's import can feed (the spec's `import`).
pub struct Import {
    pub interface: &'static str,
    pub targets: &'static [Target],
}

/// One kind of row (`units`): the operation it calls and the columns it takes.
pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    pub operation: &'static str,
    /// Sending a row again is safe.
    pub idempotent: bool,
    /// A successful answer means the record was created (a POST), unless the answer
    /// says (an upsert); otherwise it was updated.
    pub creates: bool,
    pub key: &'static [&'static str],
    /// The body's field a row fills, for a body that wraps its record.
    pub row: Option<&'static str>,
    pub columns: &'static [Column],
    /// How a row whose answer never came is found (non-idempotent targets).
    pub find: Option<Find>,
}

/// One column a row may fill.
#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub place: Place,
    pub kind: CellKind,
    pub required: bool,
    /// The exactly-one-of variant it belongs to.
    pub variant: Option<&'static str>,
}

/// Which record field each column is compared with when a row is looked for.
pub struct Find {
    pub matches: &'static [(&'static str, &'static str)],
}

impl Target {
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// A call under way.
pub type Calling<'a> = Pin<Box<dyn Future<Output = Result<Outcome, String>> + 'a>>;

/// What the generated crate gives the import: calls by operation name through the call
/// adapter, and each target's find.
pub trait Source {
    /// Calls the operation `op` with `args` in `mode` (the adapter's `call`).
    fn call(&self, op: &'static str, args: Args, mode: Mode) -> Calling<'_>;
    /// The records of target `target`'s find list created after `since`, page by page.
    fn found(&self, target: usize, since: DateTime<Utc>) -> crate::export::Pages;
    fn core(&self) -> &Core;
}

/// A find asked of a target that has none (a generator bug, reported as a failure).
pub fn no_find(target: usize) -> crate::export::Pages {
    crate::export::refused(inspection_runtime::Error::Config(format!(
        "the import's target {target} has no find"
    )))
}

/// What the command line asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub target: String,
    pub file: PathBuf,
    /// `--format`; by the file's extension otherwise.
    pub format: Option<Format>,
    pub map: Option<PathBuf>,
    /// `--check`: check every row, send nothing.
    pub check: bool,
    /// `--dry-run`: check, then show each row's request.
    pub dry_run: bool,
    pub skip_invalid: bool,
    pub resend_unknown: bool,
    pub force: bool,
    pub restart: bool,
    pub results_format: ResultsFormat,
    /// Where the journal is kept (default beside the file).
    pub journal: Option<PathBuf>,
    pub concurrency: usize,
    pub timeout: Option<Duration>,
    pub progress: crate::export::progress::Style,
}

impl Options {
    /// Whether this run sends requests (and so needs credentials).
    pub fn sends(&self) -> bool {
        !self.check && !self.dry_run
    }
}

/// Runs the import `options` names on `import`'s targets through `source`.
pub async fn run(import: &Import, source: &dyn Source, options: &Options) -> Result<(), Failure> {
    let (index, target) = import
        .targets
        .iter()
        .enumerate()
        .find(|(_, t)| t.name == options.target)
        .ok_or_else(|| {
            let names: Vec<&str> = import.targets.iter().map(|t| t.name).collect();
            Failure::usage(format!(
                "`{}` cannot be imported into {}: name one of {}",
                options.target,
                import.interface,
                names.join(", ")
            ))
        })?;
    let input = file::Input::open(
        &options.file,
        options.format,
        options.map.as_deref(),
        target,
    )?;
    let checked = check::check(target, &input, source).await?;
    if !checked.problems.is_empty() {
        check::report(&checked, options)?;
    }
    if options.check {
        return check::summary(&checked, options);
    }
    if options.dry_run {
        return send::dry_run(target, &input, &checked, source).await;
    }
    let mut run = send::Run::start(import.interface, index, target, &input, &checked, options)?;
    let doubts = run.send_rows(source).await?;
    find::settle(&mut run, source, doubts).await?;
    run.end()?;
    report::write(&mut run)
}
