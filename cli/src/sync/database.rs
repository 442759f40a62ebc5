//! The database a sync writes to, SQLite or PostgreSQL as the `DATABASE` argument says
//! (each behind its cargo feature): the same few calls, each one transaction.

use chrono::Utc;

#[cfg(feature = "postgres")]
use super::postgres;
pub use super::rows::Page;
use super::schema::{List, Schema};
#[cfg(feature = "sqlite")]
use super::sqlite;
use super::state::ListState;
use super::target::Target;
use super::{meta, unsupported};
use crate::exit::Failure;

/// The database a sync writes to.
pub enum Database {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlite::Sqlite),
    #[cfg(feature = "postgres")]
    Postgres(postgres::Postgres),
}

pub(super) async fn open(
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
    pub(super) async fn state(&self, list: &str) -> Result<ListState, Failure> {
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => db.state(list),
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
            Database::Sqlite(db) => db.save_state(list, state),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.save_state(list, state).await,
        }
    }

    /// Writes a page's records, the paths of their documents saved for it, and the
    /// list's state, in one transaction.
    pub(super) async fn commit_page(
        &mut self,
        schema: &Schema,
        list: &List,
        page: &Page<'_>,
        state: &ListState,
    ) -> Result<(), Failure> {
        let now = Utc::now();
        match self {
            #[cfg(feature = "sqlite")]
            Database::Sqlite(db) => db.commit_page(schema, list, page, state, now),
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.commit_page(schema, list, page, state, now).await,
        }
    }

    pub(super) async fn finish_pass(
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
