//! `inspection sync status DATABASE [--schema NAME] [--max-age DURATION]`: each list's last
//! successful sync and its age, read from the run history (`_sync_runs`) without writing
//! anything; with `--max-age`, a list older than that (or never synced) ends the command
//! with exit 11 (stale), apart from a database that cannot be read (exit 10).

use std::path::Path;

use chrono::Utc;
use clap::ArgMatches;

use super::command::{bound, schema_name};
use super::meta;
#[cfg(feature = "postgres")]
use super::postgres;
use super::runs;
#[cfg(feature = "sqlite")]
use super::sqlite;
use super::target::Target;
use crate::exit::{Class, Failure};

/// Reads the database `m` names and prints its report; the failure `--max-age` asks for.
pub async fn run(m: &ArgMatches) -> Result<(), Failure> {
    let database = m
        .get_one::<String>("database")
        .ok_or_else(|| Failure::usage("sync status: name a database"))?;
    let target = Target::parse(database).map_err(|e| Failure::usage(format!("DATABASE: {e}")))?;
    let max_age = m
        .get_one::<String>("max-age")
        .map(|t| bound(t).map_err(|e| Failure::usage(format!("--max-age: {e}"))))
        .transpose()?;
    let wait = super::command::db_timeout(m)?;
    let schema = m
        .get_one::<String>("schema")
        .map(|name| schema_name(name).map_err(|e| Failure::usage(format!("--schema: {e}"))))
        .transpose()?;
    let stored = read(&target, schema.as_deref(), wait).await?;
    let format = meta::check_made(Path::new(&stored.shown), &stored.meta)?;
    if format < 2 {
        return Err(Failure::new(
            Class::Database,
            format!(
                "{}: it was made by an older version of this tool (format {format}), which kept \
                 no run history; the next sync with this version raises it to format {} and \
                 records its runs",
                stored.shown,
                meta::FORMAT
            ),
        ));
    }
    let report = runs::status(&stored, Utc::now(), max_age);
    crate::output::Printer::for_stdout().print(&report)?;
    match runs::stale(&report) {
        Some(failure) => Err(failure),
        None => Ok(()),
    }
}

async fn read(
    target: &Target,
    schema: Option<&str>,
    wait: std::time::Duration,
) -> Result<runs::Stored, Failure> {
    #[cfg(not(feature = "postgres"))]
    let _ = wait;
    match target {
        Target::Sqlite(path) if schema.is_some() => Err(Failure::usage(format!(
            "--schema: {} is a SQLite file, which has no schemas; --schema is PostgreSQL's",
            path.display()
        ))),
        #[cfg(feature = "sqlite")]
        Target::Sqlite(path) => sqlite::read_status(path),
        #[cfg(feature = "postgres")]
        Target::Postgres(url) => postgres::read_status(url, schema, wait).await,
        #[allow(unreachable_patterns)] // Both features on: every database is built in.
        other => Err(super::unsupported(other)),
    }
}
