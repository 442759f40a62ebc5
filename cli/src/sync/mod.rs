//! `inspection sync`: an interface's lists into the user's database, in the tables the
//! spec gives (`generated/sql`), kept current run after run, exactly once.
//!
//! Exactly once by construction: each page's rows (a record's row upserted by its id, its
//! elements' rows replaced whole) and the list's state (where the pass goes on, the
//! newest watermark) commit in one transaction of the same database. A run killed at any
//! moment leaves the database as of its last commit, and the next run goes on from the
//! state that commit wrote. The generated crate says which lists an interface syncs and
//! how each stays current ([`Source`], [`schema`]); nothing here knows a record.

pub mod command;
pub mod meta;
pub mod migrate;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod rows;
pub mod schema;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod state;
pub mod statements;
pub mod target;

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use inspection_runtime::{Core, Resume};
use serde::Serialize;

use crate::exit::{Class, Failure};
use crate::export::Pages;
use crate::export::progress::{self, Progress};
use schema::{Current, List, Schema};
use state::ListState;
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
}

/// What to sync, where.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    /// `--only`: these lists (by table or list name); every list when empty.
    pub only: Vec<String>,
    /// How far before its watermark a list that sees only new records is read again.
    pub lookback: Duration,
    /// Walk every list whole, marking the records no longer listed.
    pub reconcile: bool,
    /// Drop the tool's tables and sync everything again.
    pub rebuild: bool,
    pub page_size: Option<u32>,
    pub progress: progress::Style,
    /// Walks resumed in this run after a page could not be fetched, before giving up.
    pub max_restarts: u32,
}

/// The default `--lookback`: a week of inspections read again each run.
pub const LOOKBACK: Duration = Duration::from_secs(7 * 24 * 3600);

/// What a finished sync did.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub database: String,
    /// Whether this run made the tables.
    pub created: bool,
    /// What this run's migration added to tables a former spec made (tables, columns).
    pub migrated: Vec<String>,
    pub lists: Vec<ListSummary>,
    /// Requests this run sent to the service.
    pub api_requests: u64,
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
    let (mut db, made) = open(&options.target, schema, options.rebuild).await?;
    let requests_before = source.core().requests_sent();
    let mut progress = Progress::new(options.progress, (0, 0), source.quota(), requests_before);
    let mut summaries = Vec::new();
    let mut outcome = Ok(());
    for (index, list) in lists {
        match sync_list(source, options, &mut db, index, list, &mut progress).await {
            Ok(summary) => summaries.push(summary),
            Err(failure) => {
                outcome = Err(failure);
                break;
            }
        }
    }
    progress.finish(outcome.is_ok());
    outcome.map_err(|f| {
        f.with_hint("run the same command again: it goes on from the last page the database holds")
    })?;
    Ok(Summary {
        database: options.target.to_string(),
        created: made == meta::Made::Now,
        migrated: match made {
            meta::Made::Migrated(added) => added,
            _ => Vec::new(),
        },
        lists: summaries,
        api_requests: source.core().requests_sent() - requests_before,
    })
}

/// What can be refused before connecting: `--only` naming no list, a database this
/// build cannot write to.
pub fn preflight(schema: &Schema, options: &Options) -> Result<(), Failure> {
    selected(schema, &options.only)?;
    match &options.target {
        #[cfg(feature = "sqlite")]
        Target::Sqlite(_) => Ok(()),
        #[cfg(feature = "postgres")]
        Target::Postgres(_) => Ok(()),
        #[allow(unreachable_patterns)] // Both features on: every database is built in.
        other => Err(unsupported(other)),
    }
}

fn unsupported(target: &Target) -> Failure {
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

/// The database a sync writes to.
pub enum Database {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlite::Sqlite),
    #[cfg(feature = "postgres")]
    Postgres(postgres::Postgres),
}

async fn open(
    target: &Target,
    schema: &'static Schema,
    rebuild: bool,
) -> Result<(Database, meta::Made), Failure> {
    match target {
        #[cfg(feature = "sqlite")]
        Target::Sqlite(path) => {
            let (db, made) = sqlite::Sqlite::open(path, schema, rebuild)?;
            Ok((Database::Sqlite(db), made))
        }
        #[cfg(feature = "postgres")]
        Target::Postgres(url) => {
            let (db, made) = postgres::Postgres::open(url, schema, rebuild).await?;
            Ok((Database::Postgres(db), made))
        }
        #[allow(unreachable_patterns)] // Both features on: every database is built in.
        other => Err(unsupported(other)),
    }
}

impl Database {
    async fn state(&self, list: &str) -> Result<ListState, Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => db.state(list),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.state(list).await,
        }
    }

    async fn save_state(&mut self, list: &str, state: &ListState) -> Result<(), Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => db.save_state(list, state),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.save_state(list, state).await,
        }
    }

    async fn commit_page(
        &mut self,
        schema: &Schema,
        list: &List,
        records: &[rows::Record],
        state: &ListState,
    ) -> Result<(), Failure> {
        let now = Utc::now();
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => db.commit_page(schema, list, records, state, now),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.commit_page(schema, list, records, state, now).await,
        }
    }

    async fn finish_pass(
        &mut self,
        schema: &Schema,
        list: &List,
        state: &ListState,
    ) -> Result<u64, Failure> {
        let now = Utc::now();
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => db.finish_pass(schema, list, state, now),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.finish_pass(schema, list, state, now).await,
        }
    }
}

/// One list: the pass under way finished, or a new one walked; with `--reconcile`, a
/// whole walk after a resumed pass that was not one.
async fn sync_list(
    source: &dyn Source,
    options: &Options,
    db: &mut Database,
    index: usize,
    list: &'static List,
    progress: &mut Progress,
) -> Result<ListSummary, Failure> {
    let schema = source.schema();
    let mut summary = ListSummary {
        list: list.list,
        table: schema.tables[list.table].name,
        records: 0,
        marked_deleted: 0,
        whole: false,
        since: None,
        watermark: None,
    };
    loop {
        let mut state = db.state(list.list).await?;
        let resumed = state.in_pass;
        if !resumed {
            start_pass(&mut state, list, options);
            db.save_state(list.list, &state).await?;
        }
        summary.whole |= state.whole;
        summary.since = state.since;
        let mut restarts = 0;
        loop {
            match walk(
                source,
                db,
                index,
                list,
                &mut state,
                options.page_size,
                progress,
            )
            .await
            {
                Ok(written) => {
                    summary.records += written;
                    break;
                }
                Err((written, failure))
                    if restarts < options.max_restarts && failure.is_transient() =>
                {
                    summary.records += written;
                    restarts += 1;
                    tokio::time::sleep(Duration::from_secs(1 << restarts.min(5))).await;
                    state = db.state(list.list).await?;
                }
                Err((_, failure)) => return Err(failure),
            }
        }
        state.in_pass = false;
        state.resume = None;
        state.finished_at = Some(Utc::now());
        summary.marked_deleted += db.finish_pass(schema, list, &state).await?;
        summary.watermark = state.watermark;
        if !(resumed && options.reconcile && !state.whole) {
            return Ok(summary);
        }
    }
}

/// A new pass: the whole list (a list without a filter, the first run, `--reconcile`),
/// or what the filter lists after the watermark, less the lookback for a list whose
/// filter sees only new records, less a second for one that sees changes (a record
/// written in the watermark's second is read again: the upsert makes that harmless).
fn start_pass(state: &mut ListState, list: &List, options: &Options) {
    state.pass += 1;
    state.in_pass = true;
    state.resume = None;
    state.started_at = Some(Utc::now());
    let back = match list.current {
        Current::Walk => None,
        Current::Filter { changes: true, .. } => Some(Duration::from_secs(1)),
        Current::Filter { changes: false, .. } => Some(options.lookback),
    };
    let since = match (back, state.watermark) {
        (Some(back), Some(mark)) if !options.reconcile => chrono::Duration::from_std(back)
            .ok()
            .and_then(|b| mark.checked_sub_signed(b)),
        _ => None,
    };
    state.whole = since.is_none();
    state.since = since;
}

/// Walks the pass under way from its state to its end, committing page by page; the
/// records written, or those and why it stopped.
async fn walk(
    source: &dyn Source,
    db: &mut Database,
    index: usize,
    list: &List,
    state: &mut ListState,
    page_size: Option<u32>,
    progress: &mut Progress,
) -> Result<u64, (u64, Failure)> {
    let schema = source.schema();
    let mut pages = source.pages(index, state.since, state.resume.clone(), page_size);
    let mut written = 0;
    while let Some(page) = pages.next().await {
        let (page, next) = page.map_err(|e| (written, Failure::from(e)))?;
        progress.received(page.len() as u64, source.core().requests_sent());
        let records = page
            .iter()
            .map(|value| rows::record(schema, list, value))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| (written, Failure::new(Class::Failure, e)))?;
        for r in &records {
            state.watermark = state.watermark.max(r.watermark);
        }
        state.resume = next.clone();
        db.commit_page(schema, list, &records, state)
            .await
            .map_err(|f| (written, f))?;
        written += records.len() as u64;
        progress.page(records.len() as u64);
        if next.is_none() {
            break;
        }
    }
    Ok(written)
}

/// The pages of a list the schema does not have (a generator bug, said as such).
pub fn no_list(list: usize) -> Pages {
    let error = inspection_runtime::Error::Config(format!("the sync has no list {list}"));
    Box::pin(futures_util::stream::once(async move { Err(error) }))
}
