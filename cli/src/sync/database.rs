//! The database a sync writes to, SQLite or PostgreSQL as the `DATABASE` argument says
//! (each behind its cargo feature): the same few calls, each one transaction.

use chrono::Utc;

#[cfg(feature = "postgres")]
use super::postgres;
pub use super::rows::Page;
use super::rows::{Checkpoint, Record};
use super::runs::{RunRecord, RunValues};
use super::schema::Schema;
#[cfg(feature = "sqlite")]
use super::sqlite;
use super::state::ListState;
use super::target::Target;
use super::{meta, unsupported};
use crate::exit::Failure;

/// The database a sync writes to.
pub enum Database {
    /// Shared with the blocking thread each page's commit runs on, so that the next page
    /// is fetched meanwhile.
    #[cfg(feature = "sqlite")]
    Sqlite(std::sync::Arc<std::sync::Mutex<sqlite::Sqlite>>),
    #[cfg(feature = "postgres")]
    Postgres(Box<postgres::Postgres>),
}

/// The database `target` names, its tables made or checked (in PostgreSQL, in the schema
/// `namespace` names, else the session's current one).
pub(super) async fn open(
    target: &Target,
    schema: &'static Schema,
    namespace: Option<&str>,
    rebuild: bool,
    bound: std::time::Duration,
) -> Result<(Database, meta::Made), Failure> {
    // SQLite has no schemas: `preflight` refused `--schema` for it.
    #[cfg(not(feature = "postgres"))]
    let _ = namespace;
    match target {
        #[cfg(feature = "sqlite")]
        Target::Sqlite(path) => {
            let (db, made) = sqlite::Sqlite::open(path, schema, rebuild, bound)?;
            let db = std::sync::Arc::new(std::sync::Mutex::new(db));
            Ok((Database::Sqlite(db), made))
        }
        #[cfg(feature = "postgres")]
        Target::Postgres(url) => {
            let opened = postgres::Postgres::open(url, schema, namespace, rebuild, bound);
            let (db, made) = opened.await?;
            Ok((Database::Postgres(Box::new(db)), made))
        }
        #[allow(unreachable_patterns)] // Both features on: every database is built in.
        other => Err(unsupported(other)),
    }
}

/// A page's records and its documents' paths, owned (a commit may run on another thread).
pub struct Owned {
    pub records: Vec<Record>,
    pub documents: Vec<(String, String)>,
}

impl Owned {
    /// The page as the databases' commits take it.
    fn borrowed(&self) -> Page<'_> {
        Page {
            records: &self.records,
            documents: &self.documents,
        }
    }
}

/// The SQLite database (a commit that panicked left nothing half-done: its transaction
/// rolled back, so the lock's poison is cleared).
#[cfg(feature = "sqlite")]
fn locked(db: &std::sync::Mutex<sqlite::Sqlite>) -> std::sync::MutexGuard<'_, sqlite::Sqlite> {
    db.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Database {
    /// The PostgreSQL schema the tables are in (none in SQLite).
    pub(super) fn schema(&self) -> Option<&str> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(_) => None,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => Some(&db.schema),
        }
    }

    pub(super) async fn state(&self, list: &str) -> Result<ListState, Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => locked(db).state(list),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.state(list).await,
        }
    }

    pub(super) async fn save_state(
        &mut self,
        list: &str,
        state: &ListState,
    ) -> Result<(), Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => locked(db).save_state(list, state),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.save_state(list, state).await,
        }
    }

    /// Writes a page's records, the paths of their documents saved for it, and the
    /// list's state, in one transaction (SQLite's on a blocking thread: the run's next
    /// page is fetched meanwhile).
    pub(super) async fn commit_page(
        &mut self,
        at: Checkpoint<'static>,
        page: Owned,
    ) -> Result<(), Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => {
                let db = db.clone();
                let commit = tokio::task::spawn_blocking(move || {
                    locked(&db).commit_page(&at, &page.borrowed())
                });
                commit.await.map_err(|e| {
                    Failure::new(
                        crate::exit::Class::Failure,
                        format!("the page's commit stopped: {e}"),
                    )
                })?
            }
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.commit_page(&at, &page.borrowed()).await,
        }
    }

    pub(super) async fn finish_pass(&mut self, at: Checkpoint<'_>) -> Result<u64, Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => locked(db).finish_pass(&at),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.finish_pass(&at).await,
        }
    }

    /// Starts the run's row (its number given; rows of runs that never ended marked
    /// killed), in a transaction of its own.
    pub(super) async fn start_run(&mut self, run: &mut RunRecord) -> Result<(), Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => locked(db).start_run(run),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.start_run(run).await,
        }
    }

    /// Writes the run's row as it stands (its end).
    pub(super) async fn write_run(&mut self, run: &RunRecord) -> Result<(), Failure> {
        let run: RunValues = run.values(Utc::now());
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => locked(db).write_run(&run),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.write_run(&run).await,
        }
    }
}
