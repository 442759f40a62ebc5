//! The sync into PostgreSQL (cargo feature `postgres`), for a team sharing the data:
//! tokio-postgres, one connection, each page of records and its list's state in one
//! transaction, the page's statements pipelined (sent together, answered in order). A
//! session advisory lock keeps a second sync out while one runs (released with the
//! connection, so by a killed run too). The password comes from the URL, `PGPASSWORD`
//! or the password file (`PGPASSFILE`, `~/.pgpass`), and is never shown.

use std::error::Error;
use std::path::PathBuf;

use bytes::{BufMut, BytesMut};
use chrono::{DateTime, NaiveDate, Utc};
use futures_util::future::try_join_all;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, Config, NoTls, Statement};

use super::meta::{self, Made};
use super::migrate;
use super::rows::{Cell, Page};
use super::schema::{Dialect, List, Schema};
use super::state::{self, ListState};
use super::statements::{self, Statements};
use super::target::Target;
use crate::exit::{Class, Failure};

/// The advisory lock a sync holds ("inspsync" as a number).
const LOCK_KEY: i64 = 0x696e_7370_7379_6e63;

pub struct Postgres {
    client: Client,
    /// The URL as shown (no password), for messages.
    shown: String,
    /// Each table's statements (write, remove), prepared.
    prepared: Vec<(Statement, Statement)>,
    write_state: Statement,
}

/// A connection whose tables are not ready yet.
struct Connected {
    client: Client,
    shown: String,
}

impl Postgres {
    /// Connects to `url`, takes the sync's lock, and makes the tables in an empty schema
    /// or checks what made them.
    pub async fn open(
        url: &str,
        schema: &'static Schema,
        rebuild: bool,
    ) -> Result<(Postgres, Made), Failure> {
        let shown = Target::Postgres(url.to_string()).to_string();
        let config = config(url, &shown)?;
        let (client, connection) = config
            .connect(NoTls)
            .await
            .map_err(|e| failure(&shown, e))?;
        tokio::spawn(async move {
            // The connection's errors come back through the client's calls.
            let _ = connection.await;
        });
        let locked: bool = client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&LOCK_KEY])
            .await
            .map_err(|e| failure(&shown, e))?
            .get(0);
        if !locked {
            return Err(Failure::new(
                Class::Busy,
                format!(
                    "{shown} is held by a sync that is still running (PostgreSQL advisory lock \
                     {LOCK_KEY}); wait for it to end, or stop it and run this again to resume"
                ),
            ));
        }
        let mut db = Connected { client, shown };
        if rebuild {
            db.drop_own(schema).await?;
        }
        let made = db.prepare(schema).await?;
        let prepared = try_join_all(Statements::all(schema).into_iter().map(|s| {
            let client = &db.client;
            async move {
                let write = client.prepare(&s.write).await?;
                let remove = client.prepare(&s.remove).await?;
                Ok::<_, tokio_postgres::Error>((write, remove))
            }
        }))
        .await
        .map_err(|e| db.failed(e))?;
        let write_state = db
            .client
            .prepare(statements::WRITE_STATE)
            .await
            .map_err(|e| db.failed(e))?;
        let Connected { client, shown } = db;
        let db = Postgres {
            client,
            shown,
            prepared,
            write_state,
        };
        Ok((db, made))
    }

    pub async fn state(&self, list: &str) -> Result<ListState, Failure> {
        let row = self
            .client
            .query_opt(statements::READ_STATE, &[&list])
            .await
            .map_err(|e| self.failed(e))?;
        let Some(r) = row else {
            return Ok(ListState::default());
        };
        let row = state::Row {
            pass: r.get(0),
            in_pass: r.get(1),
            whole: r.get(2),
            since: r.get(3),
            resume: r.get(4),
            watermark: r.get(5),
            started_at: r.get(6),
            finished_at: r.get(7),
        };
        row.read(&self.shown)
    }

    /// Writes `records` and the list's `state` in one transaction, the statements sent
    /// together.
    pub async fn commit_page(
        &mut self,
        schema: &Schema,
        list: &List,
        page: &Page<'_>,
        state: &ListState,
        now: DateTime<Utc>,
    ) -> Result<(), Failure> {
        let records = page.records;
        let family = schema.family(list.table);
        let synced_at = Cell::Time(now);
        let pass = Cell::Int(state.pass);
        let mut calls: Vec<(&Statement, Vec<PgCell>)> = Vec::new();
        for record in records {
            for &t in family.iter().skip(1).rev() {
                calls.push((&self.prepared[t].1, vec![PgCell::Text(&record.id)]));
            }
            for row in &record.rows {
                let mut params: Vec<PgCell> = row.cells.iter().map(PgCell::Cell).collect();
                params.push(PgCell::Cell(&synced_at));
                if row.table == list.table {
                    params.push(PgCell::Cell(&pass));
                }
                calls.push((&self.prepared[row.table].0, params));
            }
        }
        let set_document = statements::set_document(&schema.tables[list.table]);
        let documents: Vec<[PgCell; 2]> = page
            .documents
            .iter()
            .map(|(id, path)| [PgCell::Text(path), PgCell::Text(id)])
            .collect();
        let state_params = state_params(list.list, state);
        let tx = self
            .client
            .transaction()
            .await
            .map_err(|e| failure(&self.shown, e))?;
        let sent = try_join_all(calls.iter().map(|(statement, params)| {
            let params: Vec<&(dyn ToSql + Sync)> =
                params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
            let tx = &tx;
            async move { tx.execute(*statement, &params).await }
        }));
        let written = async {
            sent.await?;
            for params in &documents {
                let params: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
                tx.execute(&set_document, &params).await?;
            }
            let params: Vec<&(dyn ToSql + Sync)> = state_params
                .iter()
                .map(|p| p as &(dyn ToSql + Sync))
                .collect();
            tx.execute(&self.write_state, &params).await?;
            Ok::<(), tokio_postgres::Error>(())
        };
        written.await.map_err(|e| failure(&self.shown, e))?;
        tx.commit().await.map_err(|e| failure(&self.shown, e))
    }

    pub async fn save_state(&mut self, list: &str, state: &ListState) -> Result<(), Failure> {
        let params = state_params(list, state);
        let params: Vec<&(dyn ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        self.client
            .execute(&self.write_state, &params)
            .await
            .map(drop)
            .map_err(|e| self.failed(e))
    }

    pub async fn finish_pass(
        &mut self,
        schema: &Schema,
        list: &List,
        state: &ListState,
        now: DateTime<Utc>,
    ) -> Result<u64, Failure> {
        let params = state_params(list.list, state);
        let tx = self
            .client
            .transaction()
            .await
            .map_err(|e| failure(&self.shown, e))?;
        let done = async {
            let marked = if state.whole {
                let sql = statements::mark_deleted(&schema.tables[list.table]);
                tx.execute(&sql, &[&now, &state.pass]).await?
            } else {
                0
            };
            let params: Vec<&(dyn ToSql + Sync)> =
                params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
            tx.execute(&self.write_state, &params).await?;
            Ok::<u64, tokio_postgres::Error>(marked)
        };
        let marked = done.await.map_err(|e| failure(&self.shown, e))?;
        tx.commit().await.map_err(|e| failure(&self.shown, e))?;
        Ok(marked)
    }

    fn failed(&self, e: tokio_postgres::Error) -> Failure {
        failure(&self.shown, e)
    }
}

impl Connected {
    async fn prepare(&mut self, schema: &'static Schema) -> Result<Made, Failure> {
        let tables = self.table_names().await?;
        if !tables.iter().any(|t| t == statements::META) {
            meta::refuse_foreign(&PathBuf::from(&self.shown), &tables)?;
            let entries = meta::entries(schema);
            let shown = self.shown.clone();
            let tx = self
                .client
                .transaction()
                .await
                .map_err(|e| failure(&shown, e))?;
            let made = async {
                tx.batch_execute(schema.create_all(Dialect::Postgres))
                    .await?;
                for create in statements::CREATE_OWN {
                    tx.batch_execute(create).await?;
                }
                write_meta(&tx, &entries).await?;
                tx.commit().await
            };
            made.await.map_err(|e| failure(&shown, e))?;
            return Ok(Made::Now);
        }
        let stored = self.read_meta().await?;
        meta::check(&PathBuf::from(&self.shown), schema, &stored, &tables)?;
        match migrate::plan(&self.shown, schema, &stored)? {
            Some(plan) => {
                self.migrate(schema, &plan).await?;
                Ok(Made::Migrated(plan.describe(schema)))
            }
            None if meta::other_version(schema, &stored) => {
                let entries = meta::entries(schema);
                write_meta(&self.client, &entries)
                    .await
                    .map_err(|e| self.failed(e))?;
                Ok(Made::Before)
            }
            None => Ok(Made::Before),
        }
    }

    async fn read_meta(&self) -> Result<Vec<(String, String)>, Failure> {
        let rows = self
            .client
            .query(statements::READ_META, &[])
            .await
            .map_err(|e| self.failed(e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Makes the plan's tables and columns and fills them from each record's stored JSON,
    /// then records this tool's spec: one transaction.
    async fn migrate(&mut self, schema: &Schema, plan: &migrate::Plan) -> Result<(), Failure> {
        let entries = meta::entries(schema);
        let now = Cell::Time(Utc::now());
        let shown = self.shown.clone();
        let tx = self
            .client
            .transaction()
            .await
            .map_err(|e| failure(&shown, e))?;
        let sql = |e: tokio_postgres::Error| failure(&shown, e);
        for statement in plan.statements(schema, Dialect::Postgres) {
            tx.batch_execute(&statement).await.map_err(sql)?;
        }
        let all = Statements::all(schema);
        for list in schema
            .lists
            .iter()
            .filter(|l| plan.touches(schema, l.table))
        {
            let select = statements::records_after(&schema.tables[list.table], 500);
            let mut after = String::new();
            loop {
                let rows = tx.query(&select, &[&after]).await.map_err(sql)?;
                let Some(last) = rows.last() else { break };
                after = last.get(0);
                for row in &rows {
                    let json: String = row.get(1);
                    let record = migrate::stored_record(schema, list, &json, &shown)?;
                    for write in plan.refill(schema, &record) {
                        let (sql_text, cells) = match write {
                            migrate::Refill::Insert(t, mut cells) => {
                                cells.push(now.clone());
                                (all[t].write.clone(), cells)
                            }
                            migrate::Refill::Update(t, cells) => (
                                statements::update_columns(&schema.tables[t], &plan.columns_of(t)),
                                cells,
                            ),
                        };
                        let params: Vec<PgCell> = cells.iter().map(PgCell::Cell).collect();
                        let params: Vec<&(dyn ToSql + Sync)> =
                            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
                        tx.execute(&sql_text, &params).await.map_err(sql)?;
                    }
                }
            }
        }
        write_meta(&tx, &entries).await.map_err(sql)?;
        tx.commit().await.map_err(sql)
    }

    async fn table_names(&self) -> Result<Vec<String>, Failure> {
        let rows = self
            .client
            .query(
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
                 ORDER BY 1",
                &[],
            )
            .await
            .map_err(|e| self.failed(e))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// `--rebuild`: drops the tables this tool made, leaving any other alone.
    async fn drop_own(&mut self, schema: &Schema) -> Result<(), Failure> {
        let tables = self.table_names().await?;
        if !tables.iter().any(|t| t == statements::META) {
            return Ok(());
        }
        let rows = self
            .client
            .query(statements::READ_META, &[])
            .await
            .map_err(|e| self.failed(e))?;
        let stored: Vec<(String, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        let mut names = meta::recorded_tables(&stored);
        names.extend(schema.tables.iter().map(|t| t.name.to_string()));
        names.extend([statements::META.to_string(), statements::STATE.to_string()]);
        let drops: Vec<String> = names
            .iter()
            .filter(|n| tables.contains(n))
            .map(|n| format!("DROP TABLE IF EXISTS {} CASCADE;", statements::quoted(n)))
            .collect();
        let tx = self
            .client
            .transaction()
            .await
            .map_err(|e| failure(&self.shown, e))?;
        tx.batch_execute(&drops.concat())
            .await
            .map_err(|e| failure(&self.shown, e))?;
        tx.commit().await.map_err(|e| failure(&self.shown, e))
    }

    fn failed(&self, e: tokio_postgres::Error) -> Failure {
        failure(&self.shown, e)
    }
}

async fn write_meta(
    client: &impl tokio_postgres::GenericClient,
    entries: &[(&str, String)],
) -> Result<(), tokio_postgres::Error> {
    for (key, value) in entries {
        client
            .execute(statements::WRITE_META, &[key, value])
            .await?;
    }
    Ok(())
}

/// The state's row as parameters, in `WRITE_STATE`'s order.
fn state_params(list: &str, s: &ListState) -> Vec<PgCell<'static>> {
    let time = |t: &Option<DateTime<Utc>>| t.as_ref().map(state::time_text);
    vec![
        PgCell::Owned(Some(list.to_string())),
        PgCell::Int(s.pass),
        PgCell::Int(i64::from(s.in_pass)),
        PgCell::Int(i64::from(s.whole)),
        PgCell::Owned(time(&s.since)),
        PgCell::Owned(s.resume.as_ref().map(ToString::to_string)),
        PgCell::Owned(time(&s.watermark)),
        PgCell::Owned(time(&s.started_at)),
        PgCell::Owned(time(&s.finished_at)),
    ]
}

/// A value as the column it is written to takes it: a date's text as a `date`, JSON
/// text as `jsonb`, an integer as `integer` or `bigint`. A value the column cannot hold
/// (a date that is not one, an integer past `integer`'s range) is null; the row's JSON
/// keeps it.
#[derive(Debug)]
enum PgCell<'a> {
    Cell(&'a Cell),
    Text(&'a str),
    Owned(Option<String>),
    Int(i64),
}

impl ToSql for PgCell<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self {
            PgCell::Text(s) => s.to_sql(ty, out),
            PgCell::Owned(s) => s.to_sql(ty, out),
            PgCell::Int(n) => n.to_sql(ty, out),
            PgCell::Cell(cell) => cell_to_sql(cell, ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

fn cell_to_sql(
    cell: &Cell,
    ty: &Type,
    out: &mut BytesMut,
) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
    match (cell, ty) {
        (Cell::Null, _) => Ok(IsNull::Yes),
        (Cell::Text(s), &Type::DATE) => match NaiveDate::parse_from_str(s, "%Y-%m-%d") {
            Ok(date) => date.to_sql(ty, out),
            Err(_) => Ok(IsNull::Yes),
        },
        (Cell::Text(s), _) => s.to_sql(ty, out),
        (Cell::Int(n), &Type::INT4) => match i32::try_from(*n) {
            Ok(n) => n.to_sql(ty, out),
            Err(_) => Ok(IsNull::Yes),
        },
        (Cell::Int(n), _) => n.to_sql(ty, out),
        (Cell::Real(x), _) => x.to_sql(ty, out),
        (Cell::Bool(b), _) => b.to_sql(ty, out),
        (Cell::Time(t), _) => t.to_sql(ty, out),
        (Cell::Json(s), &Type::JSONB) => {
            // jsonb's binary form: a version byte, then the text.
            out.put_u8(1);
            out.put_slice(s.as_bytes());
            Ok(IsNull::No)
        }
        (Cell::Json(s), _) => s.to_sql(ty, out),
    }
}

/// The URL's settings, with the password from `PGPASSWORD` or the password file when
/// the URL has none.
fn config(url: &str, shown: &str) -> Result<Config, Failure> {
    let mut config: Config = url
        .parse()
        .map_err(|e| Failure::usage(format!("DATABASE: {shown} is not a PostgreSQL URL: {e}")))?;
    if config.get_password().is_none() {
        if let Some(password) = std::env::var_os("PGPASSWORD") {
            config.password(password.to_string_lossy().as_bytes());
        } else if let Some(password) = pgpass(&config) {
            config.password(password);
        }
    }
    Ok(config)
}

/// The password file's password for this host, port, database and user
/// (`hostname:port:database:username:password`, `*` for any; the first match wins).
fn pgpass(config: &Config) -> Option<String> {
    let path = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or("").to_string();
    let database = config.get_dbname().unwrap_or(&user).to_string();
    pgpass_lookup(&text, [&host, &port, &database, &user])
}

fn pgpass_lookup(text: &str, wanted: [&str; 4]) -> Option<String> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .find_map(|line| {
            let fields = split_pgpass(line);
            if fields.len() != 5 {
                return None;
            }
            let matches = fields[..4]
                .iter()
                .zip(wanted)
                .all(|(f, w)| f == "*" || f == w);
            matches.then(|| fields[4].clone())
        })
}

/// A line's fields: `:` separates, `\:` and `\\` escape.
fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut().unwrap().extend(chars.next()),
            ':' => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// The server's failure, naming the database (never its password: `shown` has none,
/// and the driver's messages carry none).
fn failure(shown: &str, e: tokio_postgres::Error) -> Failure {
    let detail = match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => e.to_string(),
    };
    Failure::new(Class::Database, format!("the database {shown}: {detail}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_file_matches_host_port_database_and_user() {
        let text = "# comment\n\
                    other:5432:fleet:sync:wrong\n\
                    db.local:5432:fleet:sync:s3cret\n\
                    *:*:*:sync:fallback\n\
                    db.local:5432:ops:esc\\:aped:p\\:w\n";
        assert_eq!(
            pgpass_lookup(text, ["db.local", "5432", "fleet", "sync"]).as_deref(),
            Some("s3cret")
        );
        assert_eq!(
            pgpass_lookup(text, ["x", "1", "y", "sync"]).as_deref(),
            Some("fallback")
        );
        assert_eq!(
            pgpass_lookup(text, ["db.local", "5432", "ops", "esc:aped"]).as_deref(),
            Some("p:w")
        );
        assert_eq!(pgpass_lookup(text, ["x", "1", "y", "nobody"]), None);
    }
}
