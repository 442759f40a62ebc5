//! `inspection sync`: an interface's lists into the user's database, in the tables the
//! spec gives (`generated/sql`), kept current run after run, exactly once.
//!
//! Exactly once by construction: each page's rows (a record's row upserted by its id, its
//! elements' rows replaced whole) and the list's state (where the pass goes on, the
//! newest watermark) commit in one transaction of the same database. A run killed at any
//! moment leaves the database as of its last commit, and the next run goes on from the
//! state that commit wrote. The generated crate says which lists an interface syncs and
//! how each stays current ([`Source`], [`schema`]); nothing here knows a record.

#[cfg(feature = "postgres")]
pub mod certificate;
pub mod command;
pub mod database;
pub mod deadline;
pub mod documents;
#[cfg(feature = "postgres")]
pub mod libpq;
pub mod meta;
pub mod migrate;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod rows;
pub mod runs;
pub mod schema;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod state;
pub mod statements;
pub mod status;
pub mod target;
pub mod tenants;
#[cfg(feature = "postgres")]
pub mod tls;
pub mod walk;

use std::time::Duration;

use chrono::{DateTime, Utc};
use inspection_runtime::{Core, Resume};
use serde::Serialize;

use crate::exit::Failure;
use crate::export::Pages;
use crate::export::progress::{self, Progress};
use schema::{List, Schema};
use target::Target;

/// What an interface syncs, as the spec's `sync` says.
pub trait Source {
    /// The lists, their tables and the statements that make them.
    fn schema(&self) -> &'static Schema;
    /// The pages of the schema's list `list` from `resume` (or the first), of records
    /// after `since` when given, `page_size` records a page (the largest when `None`).
    fn pages(
        &self,
        list: usize,
        since: Option<DateTime<Utc>>,
        resume: Option<Resume>,
        page_size: Option<u32>,
    ) -> Pages;
    /// The client's pace, `(requests, window)`, for the progress line.
    fn quota(&self) -> Option<(u32, Duration)>;
    /// The client's core: it counts the requests sent to the service.
    fn core(&self) -> &Core;
    /// The export's source, which answers each record's document, when a synced list's
    /// records have one (`--documents`).
    fn documents(&self) -> Option<&dyn crate::export::Source>;
}

/// What to sync, where.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    /// `--schema`: the PostgreSQL schema of the tool's tables (made when missing); the
    /// session's current schema when none.
    pub schema: Option<String>,
    /// `--only`: these lists (by table or list name); every list when empty.
    pub only: Vec<String>,
    /// How far before its watermark a list that sees only new records is read again.
    pub lookback: Duration,
    /// Walk every list whole, marking the records no longer listed.
    pub reconcile: bool,
    /// Drop the tool's tables and sync everything again.
    pub rebuild: bool,
    /// `--db-timeout`: the longest wait for one answer of the database (a statement's, a
    /// commit's) or for a lock another process holds on a SQLite file.
    pub db_timeout: Duration,
    pub page_size: Option<u32>,
    pub progress: progress::Style,
    /// Walks resumed in this run after a page could not be fetched, before giving up.
    pub max_restarts: u32,
    /// `--documents DIR`: each record's document saved there, its path in the row.
    pub documents: Option<std::path::PathBuf>,
    /// Where those documents come from, and how links are fetched (the export's flags).
    pub links: crate::export::documents::LinkOptions,
    /// The tool's version, for the run's row in `_sync_runs`.
    pub tool_version: &'static str,
    /// The tenant this sync is for, in `sync --tenants`.
    pub label: Option<progress::Label>,
}

/// The default `--lookback`: a week of inspections read again each run.
pub const LOOKBACK: Duration = Duration::from_secs(7 * 24 * 3600);

/// What a finished sync did.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub database: String,
    /// The PostgreSQL schema the tables are in (none for SQLite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Whether this run made the tables.
    pub created: bool,
    /// This run's number in `_sync_runs`.
    pub run: i64,
    /// What this run's migration added to tables a former spec made (tables, columns).
    pub migrated: Vec<String>,
    pub lists: Vec<ListSummary>,
    /// Requests this run sent to the service.
    pub api_requests: u64,
    /// 429 answers the service gave this run (each waited out and retried, unless the
    /// run failed on it): a steady count says the quota is shared or `--rate-limit` is
    /// over it.
    pub rate_limited: u64,
    /// Documents saved by this run (`--documents`), by the way they came.
    pub documents: crate::export::progress::ByPath,
    /// 429 answers from the documents' links' host.
    pub link_rate_limited: u64,
}

/// What a sync did to one list.
#[derive(Debug, Serialize)]
pub struct ListSummary {
    pub list: &'static str,
    pub table: &'static str,
    /// Records written (new or updated) by this run.
    pub records: u64,
    /// Records a whole walk no longer found, marked deleted by this run.
    pub marked_deleted: u64,
    /// Whether this run walked the whole list, or what its filter listed after `since`.
    pub whole: bool,
    pub since: Option<DateTime<Utc>>,
    pub watermark: Option<DateTime<Utc>>,
}

/// Runs (or resumes) the sync described by `options` from `source`.
pub async fn run(source: &dyn Source, options: &Options) -> Result<Summary, Failure> {
    let schema = source.schema();
    let lists = selected(schema, &options.only)?;
    let documents = match (&options.documents, source.documents()) {
        (Some(dir), Some(export)) => Some(documents::Documents::open(
            dir,
            export,
            options.links.clone(),
        )?),
        (Some(_), None) => {
            return Err(Failure::usage(format!(
                "--documents: no list of the {} sync has documents",
                schema.interface
            )));
        }
        (None, _) => None,
    };
    let namespace = options.schema.as_deref();
    let opened = database::open(
        &options.target,
        schema,
        namespace,
        options.rebuild,
        options.db_timeout,
    );
    let (mut db, made) = opened.await?;
    let in_schema = db.schema().map(str::to_string);
    // Every list's state read before the first write: a damaged row refuses the run while
    // the database is as it was, not after the lists before it have moved on.
    for (_, list) in &lists {
        db.state(list.list).await?;
    }
    let requests_before = source.core().requests_sent();
    let record = start_run(&mut db, source, options, &lists).await?;
    let progress = Progress::new(options.progress, (0, 0), source.quota(), requests_before)
        .for_tool("synced")
        .for_tenant(options.label.as_ref());
    let mut run = walk::Run {
        source,
        options,
        db,
        progress,
        documents,
        record,
    };
    let mut summaries = Vec::new();
    let mut outcome = Ok(());
    for (index, list) in lists {
        match run.sync_list(index, list).await {
            Ok(summary) => summaries.push(summary),
            Err(failure) => {
                outcome = Err(failure);
                break;
            }
        }
    }
    let outcome = end_run(&mut run, outcome).await;
    // A failure with a way of its own (damaged state) keeps it.
    outcome.map_err(|f| match f.hint {
        Some(_) => f,
        None => f.with_hint(
            "run the same command again: it goes on from the last page the database holds",
        ),
    })?;
    Ok(Summary {
        database: options.target.to_string(),
        schema: in_schema,
        created: made == meta::Made::Now,
        run: run.record.run,
        migrated: match made {
            meta::Made::Migrated(added) => added,
            _ => Vec::new(),
        },
        lists: summaries,
        api_requests: source.core().requests_sent() - requests_before,
        rate_limited: run.record.rate_limited,
        documents: run.progress.documents,
        link_rate_limited: run.documents.map_or(0, |d| d.link_rate_limited),
    })
}

/// The run's row, started in the database (its number given).
async fn start_run(
    db: &mut database::Database,
    source: &dyn Source,
    options: &Options,
    lists: &[(usize, &List)],
) -> Result<runs::RunRecord, Failure> {
    let names: Vec<&str> = lists.iter().map(|(_, l)| l.list).collect();
    let core = source.core();
    let counted_from = (core.requests_sent(), core.rate_limited());
    let spec = source.schema().spec_version;
    let mut record = runs::RunRecord::new(options.tool_version, spec, &names, counted_from);
    db.start_run(&mut record).await?;
    Ok(record)
}

/// Closes the run's row with `outcome`: a failure to write it fails a run that succeeded,
/// and is left unsaid after one that failed (the database may be what failed; the row
/// then stays `running`, which the next run marks killed).
async fn end_run(run: &mut walk::Run<'_>, outcome: Result<(), Failure>) -> Result<(), Failure> {
    run.progress.finish(outcome.is_ok());
    let core = run.source.core();
    run.record
        .count((core.requests_sent(), core.rate_limited()));
    run.record.end(outcome.as_ref().err());
    let written = run.db.write_run(&run.record).await;
    outcome.and(written)
}

/// What can be refused before connecting: `--only` naming no list, a database this
/// build cannot write to.
pub fn preflight(schema: &Schema, options: &Options) -> Result<(), Failure> {
    selected(schema, &options.only)?;
    match &options.target {
        Target::Sqlite(path) if options.schema.is_some() => Err(Failure::usage(format!(
            "--schema: {} is a SQLite file, which has no schemas (a SQLite database holds \
             one sync: give each its own file); --schema is PostgreSQL's",
            path.display()
        ))),
        #[cfg(feature = "sqlite")]
        Target::Sqlite(_) => Ok(()),
        #[cfg(feature = "postgres")]
        Target::Postgres(_) => Ok(()),
        #[allow(unreachable_patterns)] // Both features on: every database is built in.
        other => Err(unsupported(other)),
    }
}

pub(crate) fn unsupported(target: &Target) -> Failure {
    Failure::usage(format!(
        "{target}: this build of the tool has no {0} support (cargo feature `{0}`)",
        target.kind()
    ))
}

/// The lists `--only` names (a table's or a list's name), in the schema's order.
fn selected<'s>(schema: &'s Schema, only: &[String]) -> Result<Vec<(usize, &'s List)>, Failure> {
    let table = |l: &List| schema.tables[l.table].name;
    for name in only {
        if !schema
            .lists
            .iter()
            .any(|l| l.list == name || table(l) == name)
        {
            let known: Vec<&str> = schema.lists.iter().map(table).collect();
            return Err(Failure::usage(format!(
                "--only: `{name}` is no list of the {} sync (its lists: {})",
                schema.interface,
                known.join(", ")
            )));
        }
    }
    Ok(schema
        .lists
        .iter()
        .enumerate()
        .filter(|(_, l)| only.is_empty() || only.iter().any(|n| n == l.list || n == table(l)))
        .collect())
}

/// The pages of a list the schema does not have (a generator bug, said as such).
pub fn no_list(list: usize) -> Pages {
    crate::export::refused(inspection_runtime::Error::Config(format!(
        "the sync has no list {list}"
    )))
}
