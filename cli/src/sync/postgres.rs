//! The sync into PostgreSQL (cargo feature `postgres`), for a team sharing the data:
//! tokio-postgres, one connection, each page of records and its list's state in one
//! transaction, the page's statements pipelined (sent together, answered in order). The
//! tables are in one schema (`--schema`, made when missing; the session's current schema
//! otherwise), every statement naming it: none depends on the session's `search_path`. A
//! session advisory lock per database and schema keeps a second sync into the same
//! schema out while one runs (released with the connection, so by a killed run too); syncs
//! into other schemas of the database go on. The URL is read as libpq reads it
//! (`libpq.rs`: TLS, the password from the URL, `PGPASSWORD` or the password file, never
//! shown).
//!
//! No wait is without end: connecting within the URL's `connect_timeout` (30 s when it
//! has none), each answer (a statement's, a commit's) within `--db-timeout`, TCP
//! keepalives on the connection; past its bound the run stops with exit 10 naming what it
//! waited for (`deadline.rs`). A commit whose answer never came was made or not as the
//! server decides; the next run reads the state the database holds either way, since each
//! page's rows and its list's state are one transaction.

use std::error::Error;
use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use chrono::{DateTime, NaiveDate, Utc};
use futures_util::TryStreamExt;
use futures_util::future::try_join_all;
use futures_util::stream::FuturesOrdered;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, GenericClient, Statement};

use super::deadline::{self, Wait};
use super::libpq;
use super::meta::{self, Made};
use super::migrate;
use super::rows::{Cell, Checkpoint, Page, Record};
use super::runs::{RunRecord, RunValues, Stored};
use super::schema::{Dialect, Schema};
use super::state::{self, ListState};
use super::statements::{self, Namespace, Statements, quoted};
use super::target::Target;
use super::tls;
use crate::exit::{Class, Failure};

/// The advisory lock an earlier version of this tool held for the session's current
/// schema ("inspsync" as a number): held too when the tables are there, so that such a
/// version and this one never sync into the same tables at once.
const LOCK_KEY: i64 = 0x696e_7370_7379_6e63;

/// The advisory lock a sync into the schema `name` holds: a 64-bit FNV-1a hash of
/// `inspection sync`, a zero byte and the name.
pub fn lock_key(name: &str) -> i64 {
    let bytes = b"inspection sync\0".iter().chain(name.as_bytes());
    let hash = bytes.fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    i64::from_ne_bytes(hash.to_ne_bytes())
}

pub struct Postgres {
    client: Client,
    link: Link,
    /// The schema the tables are in.
    pub schema: String,
    ns: Namespace,
    /// Each table's statements (write, remove), prepared.
    prepared: Vec<(Statement, Statement)>,
    write_state: Statement,
    write_run: Statement,
}

/// A connection whose tables are not ready yet, and the schema they go in.
struct Connected {
    client: Client,
    link: Link,
    schema: String,
    ns: Namespace,
}

/// The database as messages show it (no password), and how long one of its answers may
/// take (`--db-timeout`).
struct Link {
    shown: String,
    bound: Duration,
}

impl Link {
    /// `work`'s answer within the bound; a failure naming the database and `what` it
    /// waited for otherwise (the bound passed, the server's error, the connection lost).
    async fn ask<T>(
        &self,
        what: Wait,
        work: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, Failure> {
        deadline::within(&self.shown, what, self.bound, work)
            .await?
            .map_err(|e| failure(&self.shown, what, e))
    }
}

/// A connection to `url` (`shown`: without its password) made within its bound, TLS as
/// the URL asks (`tls.rs`), its driver's task spawned.
async fn connect(url: &str, shown: &str) -> Result<Client, Failure> {
    let settings = libpq::settings(url, shown)?;
    let connector = tls::Connector::new(&settings.tls)
        .map_err(|e| Failure::usage(format!("DATABASE: {shown}: {e}")))?;
    let connecting = tls::connect(&settings.config, &settings.tls, &connector);
    let (client, connection) = deadline::within(
        shown,
        Wait::Connecting,
        settings.connect_timeout,
        connecting,
    )
    .await?
    .map_err(
        |failed| match tls::refusal(&failed, &settings.tls, &settings.hosts) {
            Some(why) => Failure::new(Class::Database, format!("the database {shown}: {why}")),
            None => {
                let mut f = failure(shown, Wait::Connecting, failed.error);
                if let Some(before) = failed.before {
                    f.message.push_str(&format!(
                        " (without TLS, after TLS failed under sslmode=prefer: {before})"
                    ));
                }
                f
            }
        },
    )?;
    tokio::spawn(async move {
        // The connection's errors come back through the client's calls.
        let _ = connection.await;
    });
    Ok(client)
}

/// Parameters as the driver takes them.
fn as_params<'a>(cells: &'a [PgCell<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    cells.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl Postgres {
    /// Connects to `url`, takes the sync's lock on the schema (`namespace`, else the
    /// session's current one; made when missing), and makes the tables in an empty schema
    /// or checks what made them; every answer within `bound`.
    pub async fn open(
        url: &str,
        schema: &'static Schema,
        namespace: Option<&str>,
        rebuild: bool,
        bound: Duration,
    ) -> Result<(Postgres, Made), Failure> {
        let (client, link, name) = reach(url, namespace, bound).await?;
        lock(&link, &client, &name).await?;
        let mut db = Connected {
            client,
            link,
            ns: Namespace::schema(&name),
            schema: name,
        };
        db.make_schema().await?;
        if rebuild {
            db.drop_own(schema).await?;
        }
        let made = db.prepare(schema).await?;
        let (client, ns) = (&db.client, &db.ns);
        let preparing = try_join_all(Statements::all(schema, ns).into_iter().map(|s| async move {
            let write = client.prepare(&s.write).await?;
            let remove = client.prepare(&s.remove).await?;
            Ok::<_, tokio_postgres::Error>((write, remove))
        }));
        let prepared = db.link.ask(Wait::Statement, preparing).await?;
        let write_state = statements::write_state(ns);
        let write_state = db
            .link
            .ask(Wait::Statement, client.prepare(&write_state))
            .await?;
        let write_run = statements::write_run(ns);
        let write_run = db
            .link
            .ask(Wait::Statement, client.prepare(&write_run))
            .await?;
        let Connected {
            client,
            link,
            schema: name,
            ns,
        } = db;
        let db = Postgres {
            client,
            link,
            schema: name,
            ns,
            prepared,
            write_state,
            write_run,
        };
        Ok((db, made))
    }

    pub async fn state(&self, list: &str) -> Result<ListState, Failure> {
        let params: [&(dyn ToSql + Sync); 1] = [&list];
        let sql = statements::read_state(&self.ns);
        let read = self.client.query_opt(&sql, &params);
        let Some(r) = self.link.ask(Wait::Statement, read).await? else {
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
        row.read(&self.link.shown)
    }

    /// Writes `records` and the list's `state` in one transaction, the statements sent
    /// together, each answer within the bound.
    pub async fn commit_page(
        &mut self,
        at: &Checkpoint<'_>,
        page: &Page<'_>,
    ) -> Result<(), Failure> {
        let (schema, list, state, run, now) = (at.schema, at.list, &at.state, &at.run, at.now);
        let family = schema.family(list.table);
        let synced_at = Cell::Time(now);
        let pass = Cell::Int(state.pass);
        let mut calls: Vec<(&Statement, Vec<PgCell>)> = Vec::new();
        for record in page.records {
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
        let set_document = statements::set_document(&schema.tables[list.table], &self.ns);
        let documents: Vec<[PgCell; 2]> = page
            .documents
            .iter()
            .map(|(id, path)| [PgCell::Text(path), PgCell::Text(id)])
            .collect();
        let state_params = state_params(list.list, state);
        let link = &self.link;
        let tx = link.ask(Wait::Statement, self.client.transaction()).await?;
        {
            let tx = &tx;
            let mut answers: FuturesOrdered<_> = calls
                .iter()
                .map(|(statement, params)| async move {
                    tx.execute(*statement, &as_params(params)).await
                })
                .collect();
            // Sent together; each answer within the bound of the one before.
            while link
                .ask(Wait::Statement, answers.try_next())
                .await?
                .is_some()
            {}
        }
        for params in &documents {
            let params = as_params(params);
            link.ask(Wait::Statement, tx.execute(&set_document, &params))
                .await?;
        }
        let state_params = as_params(&state_params);
        link.ask(
            Wait::Statement,
            tx.execute(&self.write_state, &state_params),
        )
        .await?;
        let run = run_params(run);
        link.ask(Wait::Statement, tx.execute(&self.write_run, &run))
            .await?;
        link.ask(Wait::Commit, tx.commit()).await
    }

    /// Starts `run`'s row: rows of runs that never ended marked killed (this run holds
    /// the lock), its number given, its row written; one transaction.
    pub async fn start_run(&mut self, run: &mut RunRecord) -> Result<(), Failure> {
        let link = &self.link;
        let tx = link.ask(Wait::Statement, self.client.transaction()).await?;
        let killed = statements::mark_killed(&self.ns);
        link.ask(Wait::Statement, tx.execute(&killed, &[])).await?;
        let next = statements::next_run(&self.ns);
        run.run = link
            .ask(Wait::Statement, tx.query_one(&next, &[]))
            .await?
            .get(0);
        let values = run.values(Utc::now());
        let params = run_params(&values);
        link.ask(Wait::Statement, tx.execute(&self.write_run, &params))
            .await?;
        link.ask(Wait::Commit, tx.commit()).await
    }

    /// Writes the run's row (its end).
    pub async fn write_run(&mut self, run: &RunValues) -> Result<(), Failure> {
        let params = run_params(run);
        let write = self.client.execute(&self.write_run, &params);
        self.link.ask(Wait::Statement, write).await.map(drop)
    }

    pub async fn save_state(&mut self, list: &str, state: &ListState) -> Result<(), Failure> {
        let params = state_params(list, state);
        let params = as_params(&params);
        let write = self.client.execute(&self.write_state, &params);
        self.link.ask(Wait::Statement, write).await.map(drop)
    }

    pub async fn finish_pass(&mut self, at: &Checkpoint<'_>) -> Result<u64, Failure> {
        let (schema, list, state, run, now) = (at.schema, at.list, &at.state, &at.run, at.now);
        let params = state_params(list.list, state);
        let link = &self.link;
        let tx = link.ask(Wait::Statement, self.client.transaction()).await?;
        let marked = if state.whole {
            let sql = statements::mark_deleted(&schema.tables[list.table], &self.ns);
            link.ask(Wait::Statement, tx.execute(&sql, &[&now, &state.pass]))
                .await?
        } else {
            0
        };
        let params = as_params(&params);
        link.ask(Wait::Statement, tx.execute(&self.write_state, &params))
            .await?;
        let run = run_params(run);
        link.ask(Wait::Statement, tx.execute(&self.write_run, &run))
            .await?;
        link.ask(Wait::Commit, tx.commit()).await?;
        Ok(marked)
    }
}

impl Connected {
    /// Makes the schema when it is missing (looked for first: an existing schema needs no
    /// right to create one).
    async fn make_schema(&self) -> Result<(), Failure> {
        let params: [&(dyn ToSql + Sync); 1] = [&self.schema];
        let find = self.client.query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)",
            &params,
        );
        let there: bool = self.link.ask(Wait::Statement, find).await?.get(0);
        if !there {
            let create = format!("CREATE SCHEMA IF NOT EXISTS {}", quoted(&self.schema));
            let create = self.client.batch_execute(&create);
            self.link.ask(Wait::Statement, create).await?;
        }
        Ok(())
    }

    async fn prepare(&mut self, schema: &'static Schema) -> Result<Made, Failure> {
        let tables = self.table_names().await?;
        let (link, ns) = (&self.link, &self.ns);
        if !tables.iter().any(|t| t == statements::META) {
            let elsewhere = "a new database, or a schema of its own (--schema NAME)";
            meta::refuse_foreign(&PathBuf::from(&link.shown), &tables, elsewhere)?;
            let entries = meta::entries(schema);
            let tx = link.ask(Wait::Statement, self.client.transaction()).await?;
            let create = ns.qualified(schema.create_all(Dialect::Postgres));
            link.ask(Wait::Statement, tx.batch_execute(&create)).await?;
            for create in statements::create_own(ns) {
                link.ask(Wait::Statement, tx.batch_execute(&create)).await?;
            }
            write_meta(link, ns, &tx, &entries).await?;
            link.ask(Wait::Commit, tx.commit()).await?;
            return Ok(Made::Now);
        }
        let stored = self.read_meta().await?;
        meta::check(&PathBuf::from(&self.link.shown), schema, &stored, &tables)?;
        let mut added = Vec::new();
        if let Some(from) = meta::older_format(&stored) {
            self.raise_format().await?;
            added.push(meta::raised(from));
        }
        match migrate::plan(&self.link.shown, schema, &stored)? {
            Some(plan) => {
                self.migrate(schema, &plan).await?;
                added.extend(plan.describe(schema));
            }
            None if meta::other_version(schema, &stored) => {
                let entries = meta::entries(schema);
                write_meta(&self.link, &self.ns, &self.client, &entries).await?;
            }
            None => {}
        }
        Ok(if added.is_empty() {
            Made::Before
        } else {
            Made::Migrated(added)
        })
    }

    /// Raises the tool's own tables to this format (the run history made): one
    /// transaction.
    async fn raise_format(&mut self) -> Result<(), Failure> {
        let (link, ns) = (&self.link, &self.ns);
        let tx = link.ask(Wait::Statement, self.client.transaction()).await?;
        let create = statements::create_runs(ns);
        link.ask(Wait::Statement, tx.batch_execute(&create)).await?;
        write_meta(link, ns, &tx, &meta::format_entries()).await?;
        link.ask(Wait::Commit, tx.commit()).await
    }

    async fn read_meta(&self) -> Result<Vec<(String, String)>, Failure> {
        let sql = statements::read_meta(&self.ns);
        let rows = self
            .link
            .ask(Wait::Statement, self.client.query(&sql, &[]))
            .await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Makes the plan's tables and columns and fills them from each record's stored JSON,
    /// then records this tool's spec: one transaction, each statement small (a batch of
    /// 500 stored records read, one record's rows written), each answer within the bound.
    async fn migrate(&mut self, schema: &Schema, plan: &migrate::Plan) -> Result<(), Failure> {
        let entries = meta::entries(schema);
        let now = Cell::Time(Utc::now());
        let (link, ns) = (&self.link, &self.ns);
        let tx = link.ask(Wait::Statement, self.client.transaction()).await?;
        for statement in plan.statements(schema, Dialect::Postgres, ns) {
            link.ask(Wait::Statement, tx.batch_execute(&statement))
                .await?;
        }
        let all = Statements::all(schema, ns);
        for list in schema
            .lists
            .iter()
            .filter(|l| plan.touches(schema, l.table))
        {
            let select = statements::records_after(&schema.tables[list.table], 500, ns);
            let mut after = String::new();
            loop {
                let rows = link
                    .ask(Wait::Statement, tx.query(&select, &[&after]))
                    .await?;
                let Some(last) = rows.last() else { break };
                after = last.get(0);
                for row in &rows {
                    let json: String = row.get(1);
                    let record = migrate::stored_record(schema, list, &json, &link.shown)?;
                    let refilling = Refilling {
                        link,
                        ns,
                        tx: &tx,
                        all: &all,
                        now: &now,
                    };
                    refilling.record(schema, plan, &record).await?;
                }
            }
        }
        write_meta(link, ns, &tx, &entries).await?;
        link.ask(Wait::Commit, tx.commit()).await
    }

    /// The tables of the tool's schema (those of other schemas are not its business).
    async fn table_names(&self) -> Result<Vec<String>, Failure> {
        let params: [&(dyn ToSql + Sync); 1] = [&self.schema];
        let read = self.client.query(
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY 1",
            &params,
        );
        let rows = self.link.ask(Wait::Statement, read).await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// `--rebuild`: drops the tables this tool made, leaving any other alone.
    async fn drop_own(&mut self, schema: &Schema) -> Result<(), Failure> {
        let tables = self.table_names().await?;
        if !tables.iter().any(|t| t == statements::META) {
            return Ok(());
        }
        let stored = self.read_meta().await?;
        let mut names = meta::recorded_tables(&stored);
        names.extend(schema.tables.iter().map(|t| t.name.to_string()));
        names.extend([statements::META, statements::STATE, statements::RUNS].map(String::from));
        let drops: Vec<String> = names
            .iter()
            .filter(|n| tables.contains(n))
            .map(|n| format!("DROP TABLE IF EXISTS {} CASCADE;", self.ns.table(n)))
            .collect();
        let link = &self.link;
        let tx = link.ask(Wait::Statement, self.client.transaction()).await?;
        for drop in &drops {
            link.ask(Wait::Statement, tx.batch_execute(drop)).await?;
        }
        link.ask(Wait::Commit, tx.commit()).await
    }
}

/// The schema the tables go in: `--schema`'s, else the session's current one (the first
/// schema of its `search_path` that exists).
async fn target_schema(
    link: &Link,
    client: &Client,
    given: Option<&str>,
) -> Result<String, Failure> {
    if let Some(name) = given {
        return Ok(name.to_string());
    }
    let current = client.query_one("SELECT pg_catalog.current_schema()::text", &[]);
    let current: Option<String> = link.ask(Wait::Statement, current).await?.get(0);
    current.ok_or_else(|| {
        Failure::usage(format!(
            "{}: the connection's search_path names no schema that exists; name the \
             sync's with --schema NAME",
            link.shown
        ))
    })
}

/// Takes the sync's advisory lock on the schema `name` (and, when it is the session's
/// current schema, the lock an earlier version of this tool took there), or refuses: a
/// sync into it is running.
async fn lock(link: &Link, client: &Client, name: &str) -> Result<(), Failure> {
    let key = lock_key(name);
    let params: [&(dyn ToSql + Sync); 3] = [&key, &LOCK_KEY, &name];
    let take = client.query_one(
        "SELECT pg_catalog.pg_try_advisory_lock($1), CASE WHEN $3::text = \
         pg_catalog.current_schema() THEN pg_catalog.pg_try_advisory_lock($2) ELSE true END",
        &params,
    );
    let row = link.ask(Wait::Statement, take).await?;
    let (ours, earlier): (bool, bool) = (row.get(0), row.get(1));
    if ours && earlier {
        return Ok(());
    }
    let held = if ours { LOCK_KEY } else { key };
    Err(Failure::new(
        Class::Busy,
        format!(
            "{} is held by a sync that is still running (PostgreSQL advisory lock {held}, \
             the schema {name}); wait for it to end, or stop it and run this again to resume",
            link.shown
        ),
    ))
}

/// What a migration's writes of stored records share: the connection's transaction, the
/// schema, every table's statements and the time rows are written at.
struct Refilling<'a> {
    link: &'a Link,
    ns: &'a Namespace,
    tx: &'a tokio_postgres::Transaction<'a>,
    all: &'a [Statements],
    now: &'a Cell,
}

impl Refilling<'_> {
    /// A stored record's rows in a table the migration made (inserted) or with columns it
    /// added (those set).
    async fn record(
        &self,
        schema: &Schema,
        plan: &migrate::Plan,
        record: &Record,
    ) -> Result<(), Failure> {
        for write in plan.refill(schema, record) {
            let (sql, cells) = match write {
                migrate::Refill::Insert(t, mut cells) => {
                    cells.push(self.now.clone());
                    (self.all[t].write.clone(), cells)
                }
                migrate::Refill::Update(t, cells) => (
                    statements::update_columns(&schema.tables[t], &plan.columns_of(t), self.ns),
                    cells,
                ),
            };
            let cells: Vec<PgCell> = cells.iter().map(PgCell::Cell).collect();
            let params = as_params(&cells);
            let write = self.tx.execute(&sql, &params);
            self.link.ask(Wait::Statement, write).await?;
        }
        Ok(())
    }
}

async fn write_meta(
    link: &Link,
    ns: &Namespace,
    client: &impl GenericClient,
    entries: &[(&str, String)],
) -> Result<(), Failure> {
    let sql = statements::write_meta(ns);
    for (key, value) in entries {
        let params: [&(dyn ToSql + Sync); 2] = [key, value];
        let write = client.execute(&sql, &params);
        link.ask(Wait::Statement, write).await?;
    }
    Ok(())
}

/// A run's row as parameters, in `write_run`'s order.
fn run_params(r: &RunValues) -> [&(dyn ToSql + Sync); 12] {
    [
        &r.run,
        &r.started_at,
        &r.updated_at,
        &r.ended_at,
        &r.outcome,
        &r.exit_code,
        &r.error,
        &r.lists,
        &r.api_requests,
        &r.rate_limited,
        &r.tool_version,
        &r.spec_version,
    ]
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

/// The server's failure, naming the database (never its password: `shown` has none,
/// and the driver's messages carry none) and, when the connection failed, what it waited
/// for.
fn failure(shown: &str, what: Wait, e: tokio_postgres::Error) -> Failure {
    let detail = match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => format!(
            "{}, waiting for {}{}",
            libpq::with_causes(&e),
            what.what(),
            what.afterword()
        ),
    };
    Failure::new(Class::Database, format!("the database {shown}: {detail}"))
}

/// A connection to the database at `url` within `bound`, the link that names it (with the
/// schema when one was asked for), and the schema's name (`namespace`, else the
/// session's current one).
async fn reach(
    url: &str,
    namespace: Option<&str>,
    bound: Duration,
) -> Result<(Client, Link, String), Failure> {
    let shown = Target::Postgres(url.to_string()).to_string();
    let client = connect(url, &shown).await?;
    let mut link = Link { shown, bound };
    let name = target_schema(&link, &client, namespace).await?;
    if namespace.is_some() {
        link.shown = format!("{} (schema {name})", link.shown);
    }
    Ok((client, link, name))
}

/// What `sync status` reads of the schema (`namespace`, else the session's current one)
/// of the database at `url`: what made it, its runs, and whether a sync holds its lock
/// now (`pg_locks`, read: nothing is taken). Nothing is written, nothing made.
pub async fn read_status(
    url: &str,
    namespace: Option<&str>,
    bound: Duration,
) -> Result<Stored, Failure> {
    let (client, link, name) = reach(url, namespace, bound).await?;
    let ns = Namespace::schema(&name);
    let params: [&(dyn ToSql + Sync); 1] = [&name];
    let read = client.query(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1",
        &params,
    );
    let tables: Vec<String> = link
        .ask(Wait::Statement, read)
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if !tables.iter().any(|t| t == statements::META) {
        return Err(Failure::new(
            Class::Database,
            format!(
                "the database {}: the schema {name} holds no sync of this tool (no `_sync_meta`)",
                link.shown
            ),
        ));
    }
    let sql = statements::read_meta(&ns);
    let meta = link.ask(Wait::Statement, client.query(&sql, &[])).await?;
    let meta = meta.iter().map(|r| (r.get(0), r.get(1))).collect();
    let runs = match tables.iter().any(|t| t == statements::RUNS) {
        true => {
            let sql = statements::read_runs(&ns);
            let rows = link.ask(Wait::Statement, client.query(&sql, &[])).await?;
            rows.iter().map(run_values).collect()
        }
        false => Vec::new(),
    };
    let key = lock_key(&name) as u64;
    let (high, low) = ((key >> 32) as i64, (key & 0xffff_ffff) as i64);
    let params: [&(dyn ToSql + Sync); 2] = [&high, &low];
    let held = client.query_one(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_locks WHERE locktype = 'advisory' \
         AND objsubid = 1 AND classid::bigint = $1 AND objid::bigint = $2 AND granted)",
        &params,
    );
    let held: bool = link.ask(Wait::Statement, held).await?.get(0);
    Ok(Stored {
        shown: link.shown,
        schema: Some(name),
        meta,
        runs,
        held,
    })
}

fn run_values(r: &tokio_postgres::Row) -> RunValues {
    RunValues {
        run: r.get(0),
        started_at: r.get(1),
        updated_at: r.get(2),
        ended_at: r.get(3),
        outcome: r.get(4),
        exit_code: r.get(5),
        error: r.get(6),
        lists: r.get(7),
        api_requests: r.get(8),
        rate_limited: r.get(9),
        tool_version: r.get(10),
        spec_version: r.get(11),
    }
}
