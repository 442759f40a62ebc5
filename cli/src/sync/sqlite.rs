//! The sync into SQLite (the embedded default; the library is built in, nothing to
//! install): one connection, in WAL mode with every commit synced, each page of records
//! and its list's state in one transaction. The file is locked for the run (`flock` on
//! the database file, apart from SQLite's own locks), so a second sync is refused while
//! readers still read. Each transaction takes SQLite's write lock as it begins
//! (`BEGIN IMMEDIATE`), waiting up to `--db-timeout` while another process (not a sync)
//! holds it; a transaction that began reading would be refused at once instead.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params_from_iter};

use super::deadline::{self, Wait};
use super::meta::{self, Made};
use super::migrate;
use super::rows::{Cell, Checkpoint, Page, Record};
use super::runs::{RunRecord, RunValues, Stored};
use super::schema::{Dialect, Schema};
use super::state::{self, ListState};
use super::statements::{self, SQLITE, Statements};
use crate::exit::{Class, Failure};

pub struct Sqlite {
    conn: Connection,
    path: PathBuf,
    /// How long a transaction waits for the write lock another process holds.
    lock_wait: Duration,
    statements: Vec<Statements>,
    /// Held until the connection is closed (dropped after it: fields drop in order).
    _lock: File,
}

impl Sqlite {
    /// Opens (or creates) the database at `path` for `schema`: its tables made on the
    /// first run, checked to be this interface's on later ones; another process's lock
    /// waited for up to `lock_wait`.
    pub fn open(
        path: &Path,
        schema: &'static Schema,
        rebuild: bool,
        lock_wait: Duration,
    ) -> Result<(Sqlite, Made), Failure> {
        if let Some(dir) = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
        {
            let missing = format!("its folder {} does not exist", dir.display());
            return Err(Failure::new(
                Class::Database,
                format!("the database {}: {missing}", path.display()),
            ));
        }
        let lock =
            crate::state::lock_file(path, path, "a sync", false).map_err(|f| match f.class {
                Class::Busy => f,
                _ => Failure::new(Class::Database, f.message),
            })?;
        let conn = Connection::open(path).map_err(|e| failure(path, lock_wait, e))?;
        let mut db = Sqlite {
            conn,
            path: path.to_path_buf(),
            lock_wait,
            statements: Statements::all(schema, &SQLITE),
            _lock: lock,
        };
        // SQLite counts the wait in milliseconds of a C int (24 days at most).
        let most = Duration::from_millis(i32::MAX as u64);
        db.conn
            .busy_timeout(lock_wait.min(most))
            .and_then(|()| {
                db.conn.execute_batch(
                    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                     PRAGMA foreign_keys = ON;",
                )
            })
            .map_err(|e| db.failed(e))?;
        if rebuild {
            db.drop_own(schema)?;
        }
        let made = db.prepare(schema)?;
        Ok((db, made))
    }

    /// Makes the tables in an empty database, or reads what made this one.
    fn prepare(&mut self, schema: &'static Schema) -> Result<Made, Failure> {
        let tables = self.table_names()?;
        if !tables.iter().any(|t| t == statements::META) {
            meta::refuse_foreign(&self.path, &tables, "a new database")?;
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| failure(&self.path, self.lock_wait, e))?;
            let entries = meta::entries(schema);
            tx.execute_batch(schema.create_all(Dialect::Sqlite))
                .and_then(|()| {
                    for create in statements::create_own(&SQLITE) {
                        tx.execute(&create, [])?;
                    }
                    write_meta(&tx, &entries)?;
                    tx.commit()
                })
                .map_err(|e| failure(&self.path, self.lock_wait, e))?;
            return Ok(Made::Now);
        }
        let stored = self.read_meta()?;
        meta::check(&self.path, schema, &stored, &tables)?;
        let mut added = Vec::new();
        if let Some(from) = meta::older_format(&stored) {
            self.raise_format()?;
            added.push(meta::raised(from));
        }
        let shown = self.path.display().to_string();
        match migrate::plan(&shown, schema, &stored)? {
            Some(plan) => {
                self.migrate(schema, &plan)?;
                added.extend(plan.describe(schema));
            }
            None if meta::other_version(schema, &stored) => {
                let entries = meta::entries(schema);
                self.in_transaction(|tx| write_meta(tx, &entries))?;
            }
            None => {}
        }
        Ok(if added.is_empty() {
            Made::Before
        } else {
            Made::Migrated(added)
        })
    }

    /// `f` in a transaction that holds the write lock from its start, committed.
    fn in_transaction(
        &mut self,
        f: impl FnOnce(&rusqlite::Transaction) -> rusqlite::Result<()>,
    ) -> Result<(), Failure> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        f(&tx)
            .and_then(|()| tx.commit())
            .map_err(|e| failure(&self.path, self.lock_wait, e))
    }

    /// Raises the tool's own tables to this format (the run history made): one
    /// transaction.
    fn raise_format(&mut self) -> Result<(), Failure> {
        let entries = meta::format_entries();
        self.in_transaction(|tx| {
            tx.execute(&statements::create_runs(&SQLITE), [])?;
            write_meta(tx, &entries)
        })
    }

    /// Starts `run`'s row: rows of runs that never ended marked killed (this run holds
    /// the lock), its number given, its row written; one transaction.
    pub fn start_run(&mut self, run: &mut RunRecord) -> Result<(), Failure> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        let started = (|| {
            tx.execute(&statements::mark_killed(&SQLITE), [])?;
            run.run = tx.query_row(&statements::next_run(&SQLITE), [], |r| r.get(0))?;
            write_run(&tx, &run.values(Utc::now()))?;
            tx.commit()
        })();
        started.map_err(|e| failure(&self.path, self.lock_wait, e))
    }

    /// Writes the run's row (its end), in a transaction of its own.
    pub fn write_run(&mut self, run: &RunValues) -> Result<(), Failure> {
        self.in_transaction(|tx| write_run(tx, run))
    }

    /// Makes the plan's tables and columns and fills them from each record's stored JSON,
    /// then records this tool's spec: one transaction.
    fn migrate(&mut self, schema: &Schema, plan: &migrate::Plan) -> Result<(), Failure> {
        let entries = meta::entries(schema);
        let now = Sql::Text(state::time_text(&Utc::now()));
        let (path, lock_wait) = (self.path.clone(), self.lock_wait);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failure(&path, lock_wait, e))?;
        let sql = |e: rusqlite::Error| failure(&path, lock_wait, e);
        for statement in plan.statements(schema, Dialect::Sqlite, &SQLITE) {
            tx.execute_batch(&statement).map_err(sql)?;
        }
        for list in schema
            .lists
            .iter()
            .filter(|l| plan.touches(schema, l.table))
        {
            let select = statements::records_after(&schema.tables[list.table], 500, &SQLITE);
            let mut after = String::new();
            loop {
                let batch: Vec<(String, String)> = tx
                    .prepare_cached(&select)
                    .and_then(|mut stmt| {
                        stmt.query_map([&after], |r| Ok((r.get(0)?, r.get(1)?)))?
                            .collect()
                    })
                    .map_err(sql)?;
                let Some((last, _)) = batch.last() else { break };
                after = last.clone();
                for (_, json) in &batch {
                    let record =
                        migrate::stored_record(schema, list, json, &path.display().to_string())?;
                    refill(&tx, schema, &self.statements, plan, &record, &now).map_err(sql)?;
                }
            }
        }
        write_meta(&tx, &entries).map_err(sql)?;
        tx.commit().map_err(sql)
    }

    /// `--rebuild`: drops the tables this tool made (by the names it recorded, and its
    /// own), leaving any other table alone; one transaction.
    fn drop_own(&mut self, schema: &Schema) -> Result<(), Failure> {
        let tables = self.table_names()?;
        if !tables.iter().any(|t| t == statements::META) {
            return Ok(());
        }
        let mut names = meta::recorded_tables(&self.read_meta()?);
        names.extend(schema.tables.iter().map(|t| t.name.to_string()));
        names.extend([statements::META, statements::STATE, statements::RUNS].map(String::from));
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        tx.execute_batch("PRAGMA defer_foreign_keys = ON")
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        for name in names.iter().rev().filter(|n| tables.contains(n)) {
            tx.execute(
                &format!("DROP TABLE IF EXISTS {}", statements::quoted(name)),
                [],
            )
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        }
        tx.commit()
            .map_err(|e| failure(&self.path, self.lock_wait, e))
    }

    fn table_names(&self) -> Result<Vec<String>, Failure> {
        self.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
            |row| row.get(0),
        )
    }

    fn read_meta(&self) -> Result<Vec<(String, String)>, Failure> {
        self.query(&statements::read_meta(&SQLITE), |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
    }

    /// Every row `sql` answers, each as `read` makes it.
    fn query<T>(
        &self,
        sql: &str,
        read: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, Failure> {
        let run = || {
            let mut stmt = self.conn.prepare(sql)?;
            stmt.query_map([], read)?.collect::<Result<Vec<T>, _>>()
        };
        run().map_err(|e| self.failed(e))
    }

    /// The list's place (a new list's: no pass yet).
    pub fn state(&self, list: &str) -> Result<ListState, Failure> {
        let row = self
            .conn
            .query_row(&statements::read_state(&SQLITE), [list], |r| {
                Ok(state::Row {
                    pass: r.get(0)?,
                    in_pass: r.get(1)?,
                    whole: r.get(2)?,
                    since: r.get(3)?,
                    resume: r.get(4)?,
                    watermark: r.get(5)?,
                    started_at: r.get(6)?,
                    finished_at: r.get(7)?,
                })
            })
            .optional()
            .map_err(|e| self.failed(e))?;
        row.map_or(Ok(ListState::default()), |row| {
            row.read(&self.path.display().to_string())
        })
    }

    /// Writes `records` (each record's rows replaced whole) and the list's new `state`,
    /// in one transaction.
    pub fn commit_page(&mut self, at: &Checkpoint<'_>, page: &Page<'_>) -> Result<(), Failure> {
        let (schema, list, state, run, now) = (at.schema, at.list, &at.state, &at.run, at.now);
        let records = page.records;
        let family = schema.family(list.table);
        let synced_at = Sql::Text(state::time_text(&now));
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        let exists = statements::exists(&schema.tables[list.table], &SQLITE);
        let written = (|| {
            for record in records {
                // A record stored before has its elements' rows replaced whole; a new one
                // has none to remove (the first sync writes nothing but new records).
                let stored = tx.prepare_cached(&exists)?.exists([&record.id])?;
                for &t in family.iter().skip(1).rev().filter(|_| stored) {
                    tx.prepare_cached(&self.statements[t].remove)?
                        .execute([&record.id])?;
                }
                for row in &record.rows {
                    let mut values: Vec<Sql> = row.cells.iter().map(value).collect();
                    values.push(synced_at.clone());
                    if row.table == list.table {
                        values.push(Sql::Integer(state.pass));
                    }
                    tx.prepare_cached(&self.statements[row.table].write)?
                        .execute(params_from_iter(values))?;
                }
            }
            if !page.documents.is_empty() {
                let set = statements::set_document(&schema.tables[list.table], &SQLITE);
                for (id, path) in page.documents {
                    tx.prepare_cached(&set)?.execute([path, id])?;
                }
            }
            write_state(&tx, list.list, state)?;
            write_run(&tx, run)?;
            Ok::<(), rusqlite::Error>(())
        })();
        written
            .and_then(|()| tx.commit())
            .map_err(|e| failure(&self.path, self.lock_wait, e))
    }

    /// Writes the list's `state` alone (a pass starting), in a transaction of its own.
    pub fn save_state(&mut self, list: &str, state: &ListState) -> Result<(), Failure> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        write_state(&tx, list, state)
            .and_then(|()| tx.commit())
            .map_err(|e| failure(&self.path, self.lock_wait, e))
    }

    /// Ends the pass: a whole walk marks the records it did not see (returning how many),
    /// and the state says the pass is over; one transaction.
    pub fn finish_pass(&mut self, at: &Checkpoint<'_>) -> Result<u64, Failure> {
        let (schema, list, state, run, now) = (at.schema, at.list, &at.state, &at.run, at.now);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        let done = (|| {
            let marked = if state.whole {
                let table = &schema.tables[list.table];
                tx.execute(
                    &statements::mark_deleted(table, &SQLITE),
                    rusqlite::params![state::time_text(&now), state.pass],
                )?
            } else {
                0
            };
            write_state(&tx, list.list, state)?;
            write_run(&tx, run)?;
            Ok::<u64, rusqlite::Error>(marked as u64)
        })();
        let marked = done.map_err(|e| failure(&self.path, self.lock_wait, e))?;
        tx.commit()
            .map_err(|e| failure(&self.path, self.lock_wait, e))?;
        Ok(marked)
    }

    fn failed(&self, e: rusqlite::Error) -> Failure {
        failure(&self.path, self.lock_wait, e)
    }
}

fn write_meta(tx: &rusqlite::Transaction, entries: &[(&str, String)]) -> rusqlite::Result<()> {
    for (key, value) in entries {
        tx.execute(&statements::write_meta(&SQLITE), [key, value.as_str()])?;
    }
    Ok(())
}

/// A stored record's rows in a table the migration made (inserted) or with columns it
/// added (those set).
fn refill(
    tx: &rusqlite::Transaction,
    schema: &Schema,
    statements: &[Statements],
    plan: &migrate::Plan,
    record: &Record,
    now: &Sql,
) -> rusqlite::Result<()> {
    for write in plan.refill(schema, record) {
        match write {
            migrate::Refill::Insert(table, cells) => {
                let mut values: Vec<Sql> = cells.iter().map(value).collect();
                values.push(now.clone());
                tx.prepare_cached(&statements[table].write)?
                    .execute(params_from_iter(values))?;
            }
            migrate::Refill::Update(table, cells) => {
                let sql = statements::update_columns(
                    &schema.tables[table],
                    &plan.columns_of(table),
                    &SQLITE,
                );
                let values: Vec<Sql> = cells.iter().map(value).collect();
                tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
            }
        }
    }
    Ok(())
}

fn write_run(tx: &rusqlite::Transaction, r: &RunValues) -> rusqlite::Result<()> {
    tx.prepare_cached(&statements::write_run(&SQLITE))?
        .execute(rusqlite::params![
            r.run,
            r.started_at,
            r.updated_at,
            r.ended_at,
            r.outcome,
            r.exit_code,
            r.error,
            r.lists,
            r.api_requests,
            r.rate_limited,
            r.tool_version,
            r.spec_version,
        ])?;
    Ok(())
}

fn write_state(tx: &rusqlite::Transaction, list: &str, s: &ListState) -> rusqlite::Result<()> {
    let time = |t: &Option<DateTime<Utc>>| t.as_ref().map(state::time_text);
    tx.prepare_cached(&statements::write_state(&SQLITE))?
        .execute(rusqlite::params![
            list,
            s.pass,
            i64::from(s.in_pass),
            i64::from(s.whole),
            time(&s.since),
            s.resume.as_ref().map(ToString::to_string),
            time(&s.watermark),
            time(&s.started_at),
            time(&s.finished_at),
        ])?;
    Ok(())
}

fn value(cell: &Cell) -> Sql {
    match cell {
        Cell::Null => Sql::Null,
        Cell::Text(s) | Cell::Json(s) => Sql::Text(s.clone()),
        Cell::Int(n) => Sql::Integer(*n),
        Cell::Real(x) => Sql::Real(*x),
        Cell::Bool(b) => Sql::Integer(i64::from(*b)),
        Cell::Time(t) => Sql::Text(state::time_text(t)),
    }
}

/// The database's failure, naming its file ("disk I/O error"); a full disk, a read-only
/// file, or a lock another process held past `lock_wait` says so in plain words. A
/// transaction cut short by any is rolled back whole, so the same command goes on from
/// the last page the database holds (the run's hint).
fn failure(path: &Path, lock_wait: Duration, e: rusqlite::Error) -> Failure {
    let shown = path.display();
    let plain = match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy) => {
            let detail = e.to_string();
            let shown = shown.to_string();
            return deadline::expired(&shown, Wait::Lock, lock_wait, Some(&detail));
        }
        Some(rusqlite::ErrorCode::DiskFull) => "no space left on the disk",
        Some(rusqlite::ErrorCode::ReadOnly) => "the file or its folder is read-only",
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
            return Failure::new(
                Class::Database,
                format!("the database {shown} is damaged (cut short or overwritten: {e})"),
            )
            .with_hint("restore it from a backup, or sync into a new database file");
        }
        _ => return Failure::new(Class::Database, format!("the database {shown}: {e}")),
    };
    Failure::new(
        Class::Database,
        format!("the database {shown}: {plain} ({e})"),
    )
}

/// What `sync status` reads of the SQLite file at `path`, opened read-only (never made):
/// what made it, its runs, and whether a sync holds it now (its lock tried, shared, for an
/// instant).
pub fn read_status(path: &Path) -> Result<Stored, Failure> {
    let shown = path.display().to_string();
    if !path.is_file() {
        return Err(Failure::new(
            Class::Database,
            format!("the database {shown} does not exist (or is not a file)"),
        ));
    }
    let wait = Duration::from_secs(5);
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| failure(path, wait, e))?;
    conn.busy_timeout(wait)
        .map_err(|e| failure(path, wait, e))?;
    let rows = |sql: &str| -> Result<Vec<Vec<rusqlite::types::Value>>, Failure> {
        let run = || {
            let mut stmt = conn.prepare(sql)?;
            let width = stmt.column_count();
            stmt.query_map([], |r| (0..width).map(|n| r.get(n)).collect())?
                .collect::<Result<Vec<_>, _>>()
        };
        run().map_err(|e| failure(path, wait, e))
    };
    let tables = rows("SELECT name FROM sqlite_master WHERE type = 'table'")?;
    let has = |name: &str| tables.iter().any(|t| t[0] == Sql::Text(name.into()));
    if !has(statements::META) {
        return Err(Failure::new(
            Class::Database,
            format!("the database {shown} holds no sync of this tool (no `_sync_meta`)"),
        ));
    }
    let meta = rows(&statements::read_meta(&SQLITE))?
        .into_iter()
        .map(|r| {
            (
                text(&r[0]).unwrap_or_default(),
                text(&r[1]).unwrap_or_default(),
            )
        })
        .collect();
    let runs = match has(statements::RUNS) {
        true => rows(&statements::read_runs(&SQLITE))?,
        false => Vec::new(),
    };
    let held = File::open(path)
        .map(|f| matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)))
        .unwrap_or(false);
    Ok(Stored {
        shown,
        schema: None,
        meta,
        runs: runs.iter().map(|r| run_values(r)).collect(),
        held,
    })
}

fn text(v: &Sql) -> Option<String> {
    match v {
        Sql::Text(t) => Some(t.clone()),
        _ => None,
    }
}

fn int(v: &Sql) -> Option<i64> {
    match v {
        Sql::Integer(n) => Some(*n),
        _ => None,
    }
}

/// A `_sync_runs` row as read (a column that is not of its type reads empty).
fn run_values(r: &[Sql]) -> RunValues {
    RunValues {
        run: int(&r[0]).unwrap_or(0),
        started_at: text(&r[1]).unwrap_or_default(),
        updated_at: text(&r[2]).unwrap_or_default(),
        ended_at: text(&r[3]),
        outcome: text(&r[4]).unwrap_or_default(),
        exit_code: int(&r[5]),
        error: text(&r[6]),
        lists: text(&r[7]).unwrap_or_default(),
        api_requests: int(&r[8]).unwrap_or(0),
        rate_limited: int(&r[9]).unwrap_or(0),
        tool_version: text(&r[10]).unwrap_or_default(),
        spec_version: text(&r[11]).unwrap_or_default(),
    }
}
