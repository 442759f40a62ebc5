//! `inspection sync v3 postgres://...` end to end against the sandbox and a real
//! PostgreSQL server started by the test (`tests/support/postgres.rs`): the tables hold
//! what a sync into SQLite holds; killed with SIGKILL at five seeded moments under faults
//! and resumed, the database equals an uninterrupted sync's, table by table; a second
//! sync is refused while one runs (the advisory lock); the password comes from the URL,
//! `PGPASSWORD` or a password file and is never printed; a server that cannot be
//! reached, a wrong password and a malformed URL are named with their exit code. No wait
//! is without end: a server frozen mid-run (its processes stopped) ends the run within
//! its bound, connecting to it too, and the same command resumes exactly once it is
//! thawed; a connection reset part-way through a transaction (by a proxy, before a
//! commit or after it, its answer lost) stops the run, and the next one writes each
//! record once. `--schema`: two syncs into two schemas of one database at once, each in
//! its own schema with its own lock and state, every statement naming its schema (the
//! session has no `search_path`), another schema's tables left alone.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/pg_proxy.rs"]
mod pg_proxy;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/sync_tables.rs"]
mod sync_tables;
#[path = "support/cli_process.rs"]
mod tool;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::Value;

use export_folder::{Moments, assert_same_tables, sandbox, scratch, strings, v3_env, v3_sandbox};
use inspection_cli_runtime::sync::postgres::lock_key;
use pg_proxy::{Cut, Proxy};
use postgres::{PASSWORD, Postgres};
use sync_tables::{dump_schema, rows_in};

/// `sync v3 DATABASE --quiet` with `extra` flags and environment.
async fn sync(
    sandbox: &sandbox::Sandbox,
    database: &str,
    extra: &[&str],
    env: &[(String, String)],
) -> tool::Ran {
    let mut args = strings(&["--quiet", "sync", "v3", database]);
    args.extend(strings(extra));
    let mut all = v3_env(sandbox);
    all.extend(env.iter().cloned());
    tool::run(&args, &all, None).await
}

/// Every table of the database but the tool's own, each row as JSON without what differs
/// between two equal syncs (when a row was written, the run that saw it, the links).
fn dump(pg: &Postgres, database: &str) -> BTreeMap<String, Vec<Value>> {
    dump_schema(pg, database, "public")
}

/// The inspections `database` holds (none before its tables are made).
fn inspections(pg: &Postgres, database: &str) -> usize {
    let made = pg.psql(database, "SELECT to_regclass('inspections') IS NOT NULL");
    if made.trim() != "t" {
        return 0;
    }
    let count = pg.psql(database, "SELECT count(*) FROM inspections");
    count.trim().parse().unwrap()
}

/// The records a run's summary says it wrote into `table`.
fn written(ran: &tool::Ran, table: &str) -> usize {
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let lists = summary["lists"].as_array().unwrap();
    let list = lists.iter().find(|l| l["table"] == table).unwrap();
    list["records"].as_u64().unwrap() as usize
}

/// `run`'s end, failing the test (rather than hanging it) when `what` has not ended within
/// two minutes, a bound far above any the tool is given here.
async fn within_minutes<T>(run: impl std::future::Future<Output = T>, what: &str) -> T {
    tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .unwrap_or_else(|_| panic!("{what} did not end within two minutes"))
}

/// How many rows a table of a SQLite sync holds.
fn sqlite_rows(path: &std::path::Path, table: &str) -> usize {
    let db = Connection::open(path).unwrap();
    db.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
        r.get::<_, i64>(0)
    })
    .unwrap() as usize
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_into_postgres_holds_what_a_sync_into_sqlite_holds() {
    let pg = Postgres::start("sync-equal");
    pg.create_database("fleet");
    let sandbox = sandbox("--inspections 37").await;
    let ran = sync(&sandbox, &pg.url("fleet"), &[], &[]).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(summary["created"], true);
    assert!(
        !summary.to_string().contains(PASSWORD),
        "the summary shows the password: {summary}"
    );

    let dir = scratch("sync-postgres-equal");
    let lite = dir.join("fleet.db");
    let ran = sync(&sandbox, &lite.display().to_string(), &[], &[]).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);

    let got = dump(&pg, "fleet");
    assert!(got.len() >= 14, "{:?}", got.keys());
    for (table, rows) in &got {
        assert_eq!(rows.len(), sqlite_rows(&lite, table), "{table}");
    }
    // Every record as the service sent it (jsonb keeps every property and value).
    let db = Connection::open(&lite).unwrap();
    let mut stmt = db.prepare("SELECT _record FROM inspections").unwrap();
    let mut from_sqlite: Vec<Value> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|t| {
            let mut v: Value = serde_json::from_str(&t.unwrap()).unwrap();
            v.as_object_mut().unwrap().remove("pdf_share_url");
            v
        })
        .collect();
    from_sqlite.sort_by_key(|r| r.to_string());
    let mut from_pg: Vec<Value> = got["inspections"]
        .iter()
        .map(|r| r["_record"].clone())
        .collect();
    from_pg.sort_by_key(|r| r.to_string());
    assert_eq!(from_pg, from_sqlite);
    // Typed columns: a date-time is a timestamptz, a boolean a boolean.
    let typed = pg.psql(
        "fleet",
        "SELECT pg_typeof(created_at)::text, pg_typeof(damage_present)::text, \
         count(*) FILTER (WHERE created_at = (_record->>'created_at')::timestamptz) \
         FROM inspections GROUP BY 1, 2",
    );
    assert_eq!(typed.trim(), "timestamp with time zone|boolean|40");
    // The docs are with the tables.
    let comment = pg.psql("fleet", "SELECT obj_description('inspections'::regclass)");
    assert_eq!(comment.trim(), "An inspection performed on a unit.");

    // The next run brings nothing new and changes nothing.
    let ran = sync(&sandbox, &pg.url("fleet"), &[], &[]).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(dump(&pg, "fleet"), got);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_into_postgres_killed_five_times_ends_as_an_uninterrupted_one() {
    let pg = Postgres::start("sync-kill");
    pg.create_database("whole");
    pg.create_database("killed");
    let (_sandbox, env) =
        v3_sandbox("--inspections 500 --faults 0.1 --fault-seed 7 --slow-ms 200").await;
    let args = |url: &str| strings(&["--quiet", "sync", "v3", url, "--page-size", "5"]);
    tool::run_to_end(&args(&pg.url("whole")), &env, "the sync").await;
    let expected = dump(&pg, "whole");
    assert_eq!(expected["inspections"].len(), 503);

    let mut moments = Moments(0x5eed_2027);
    let moment = || moments.next_ms(200, 1000);
    let mut partial = Vec::new();
    tool::kill_runs(&args(&pg.url("killed")), &env, 5, moment, |kill| {
        let written: usize = pg
            .psql(
                "killed",
                "SELECT count(*) FROM information_schema.tables WHERE table_name = 'inspections'",
            )
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n == 1)
            .map_or(0, |_| {
                pg.psql("killed", "SELECT count(*) FROM inspections")
                    .trim()
                    .parse()
                    .unwrap()
            });
        eprintln!("kill {kill}: {written} inspections committed");
        partial.push(written);
    })
    .await;
    assert!(
        partial.iter().any(|n| (1..503).contains(n)),
        "no kill fell in the middle of the inspections: {partial:?}"
    );
    tool::run_to_end(&args(&pg.url("killed")), &env, "the sync").await;
    let got = dump(&pg, "killed");
    assert_same_tables(&got, &expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_credentials_locks_and_bad_urls() {
    let pg = Postgres::start("sync-bad");
    pg.create_database("fleet");
    let sandbox = sandbox("--inspections 40 --fault-slow 1.0 --slow-ms 300").await;

    // The password from PGPASSWORD, then from a password file.
    let bare = pg.url_without_password("fleet");
    let env = [("PGPASSWORD".to_string(), PASSWORD.to_string())];
    let ran = sync(&sandbox, &bare, &["--only", "units"], &env).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let dir = scratch("sync-pgpass");
    let pgpass = dir.join("pgpass");
    std::fs::write(
        &pgpass,
        format!("127.0.0.1:{}:fleet:postgres:{PASSWORD}\n", pg.port),
    )
    .unwrap();
    let env = [("PGPASSFILE".to_string(), pgpass.display().to_string())];
    let ran = sync(&sandbox, &bare, &["--only", "units"], &env).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);

    // A wrong password and a server that is not there: the database's exit code, the
    // URL named without its password.
    let wrong = pg.url("fleet").replace(PASSWORD, "not-the-password");
    let ran = sync(&sandbox, &wrong, &[], &[]).await;
    assert_eq!(ran.code, 10, "{}", ran.stderr);
    assert!(!ran.stderr.contains("not-the-password"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("postgres://postgres:***@127.0.0.1"),
        "{}",
        ran.stderr
    );
    let closed = format!("postgres://postgres:{PASSWORD}@127.0.0.1:1/fleet");
    let ran = sync(&sandbox, &closed, &[], &[]).await;
    assert_eq!(ran.code, 10, "{}", ran.stderr);
    assert!(!ran.stderr.contains(PASSWORD), "{}", ran.stderr);
    let ran = sync(&sandbox, "postgres://127.0.0.1:notaport/fleet", &[], &[]).await;
    tool::assert_failed(&ran, 2, "is not a PostgreSQL URL");

    // A second sync while one runs: the advisory lock.
    let args = strings(&[
        "--quiet",
        "sync",
        "v3",
        &pg.url("fleet"),
        "--page-size",
        "5",
    ]);
    let mut first = tool::spawn(&args, &v3_env(&sandbox));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let ran = sync(&sandbox, &pg.url("fleet"), &[], &[]).await;
    first.kill().unwrap();
    first.wait().unwrap();
    tool::assert_failed(&ran, 9, "held by a sync that is still running");
    assert!(!ran.stderr.contains(PASSWORD), "{}", ran.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_spec_adds_a_table_filled_from_the_stored_records() {
    let pg = Postgres::start("sync-migrate");
    pg.create_database("fleet");
    let sandbox = sandbox("--inspections 5").await;
    let url = pg.url("fleet");
    let ran = sync(&sandbox, &url, &[], &[]).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let videos = pg.psql("fleet", "SELECT count(*) FROM inspections_videos");
    assert!(
        videos.trim().parse::<u32>().unwrap() > 0,
        "the demo has videos"
    );

    // As if a spec without `Inspection.videos` had made the tables.
    made_without_videos(&pg, "");

    let ran = sync(&sandbox, &url, &["--only", "units"], &[]).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(
        summary["migrated"],
        serde_json::json!(["table `inspections_videos` added"]),
        "{summary}"
    );
    let again = pg.psql("fleet", "SELECT count(*) FROM inspections_videos");
    assert_eq!(
        again, videos,
        "the new table is filled from the stored records"
    );
    let same = pg.psql(
        "fleet",
        "SELECT count(*) FROM inspections_videos v JOIN inspections i ON i.id = v.inspection_id \
         WHERE v._record = i._record->'videos'->v.position",
    );
    assert_eq!(same, videos);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_against_a_frozen_server_ends_within_its_bound_and_resumes_once_thawed() {
    let pg = Postgres::start("sync-frozen");
    pg.create_database("whole");
    pg.create_database("frozen");
    let (_sandbox, env) = v3_sandbox("--inspections 100 --fault-slow 1.0 --slow-ms 100").await;
    let args = |url: &str| {
        let flags = ["--page-size", "5", "--db-timeout", "2s"];
        let mut args = strings(&["--quiet", "sync", "v3", url]);
        args.extend(strings(&flags));
        args
    };
    let ran = tool::run(&args(&pg.url("whole")), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let expected = dump(&pg, "whole");
    assert_eq!(expected["inspections"].len(), 103);

    // Frozen part-way (its processes stopped): the run ends within its bound, naming the
    // database and what it waited for.
    let url = pg.url("frozen");
    let mut frozen_at = None;
    let frozen_args = args(&url);
    let running = tool::run_acting(
        &frozen_args,
        &env,
        || inspections(&pg, "frozen") >= 20,
        || {
            pg.freeze();
            frozen_at = Some(Instant::now());
        },
    );
    let (ran, acted) = within_minutes(running, "the run against a frozen server").await;
    assert!(acted, "the sync ended before 20 inspections were committed");
    let ended = frozen_at.unwrap().elapsed();
    eprintln!("frozen: the run ended {ended:?} after the freeze");
    assert_eq!(ran.code, 10, "{}", ran.stderr);
    let shown = format!(
        "the database postgres://postgres:***@127.0.0.1:{}/frozen",
        pg.port
    );
    assert!(
        ran.stderr.contains(&format!(
            "{shown}: waited 2 s for the answer to a statement"
        )) || ran
            .stderr
            .contains(&format!("{shown}: waited 2 s for the answer to a commit")),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains(PASSWORD), "{}", ran.stderr);
    assert!(
        ended < Duration::from_secs(60),
        "the run ended {ended:?} after the freeze"
    );

    // Connecting to the frozen server (its system takes the TCP connection; nothing
    // answers the start-up): bounded by the URL's connect_timeout.
    let started = Instant::now();
    let connect_args = args(&format!("{url}?connect_timeout=2"));
    let connecting = tool::run(&connect_args, &env, None);
    let ran = within_minutes(connecting, "connecting to a frozen server").await;
    let ended = started.elapsed();
    eprintln!("frozen: connecting ended after {ended:?}");
    tool::assert_failed(
        &ran,
        10,
        "waited 2 s for the connection (TCP, TLS, authentication and start-up)",
    );
    assert!(
        ended < Duration::from_secs(60),
        "connecting ended after {ended:?}"
    );

    // Thawed: the frozen run's session sees its connection gone (the commit it waited
    // for made or not, as the server decides), and the same command goes on from what the
    // database holds, writing each inspection once.
    pg.thaw();
    pg.wait_for_no_sessions("frozen");
    let held = inspections(&pg, "frozen");
    let ran = tool::run(&args(&url), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        held + written(&ran, "inspections"),
        103,
        "{held} inspections held after the freeze, the next run wrote the rest once"
    );
    assert_same_tables(&dump(&pg, "frozen"), &expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_reset_part_way_through_a_transaction_stops_the_sync_and_the_next_run_writes_each_record_once()
 {
    // The sixth COMMIT of a first sync with pages of 5 (the tables made, the units' page
    // and pass, two pages of inspections): part-way through the inspections.
    const NTH: usize = 6;
    let pg = Postgres::start("sync-reset");
    for database in ["whole", "cut", "lost"] {
        pg.create_database(database);
    }
    let (_sandbox, env) = v3_sandbox("--inspections 40").await;
    let args = |url: &str| strings(&["--quiet", "sync", "v3", url, "--page-size", "5"]);
    let ran = tool::run(&args(&pg.url("whole")), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let expected = dump(&pg, "whole");
    assert_eq!(expected["inspections"].len(), 43);

    let mut held = Vec::new();
    for (cut, database) in [(Cut::BeforeCommit, "cut"), (Cut::AfterCommit, "lost")] {
        let proxy = Proxy::start(pg.port, cut, NTH).await;
        let ran = tool::run(&args(&proxy.url(database)), &env, None).await;
        assert!(proxy.cut(NTH), "{cut:?}: the run ended before the cut");
        assert_eq!(ran.code, 10, "{cut:?}: {}", ran.stderr);
        let shown = format!(
            "postgres://postgres:***@127.0.0.1:{}/{database}",
            proxy.port
        );
        assert!(
            ran.stderr.contains(&shown)
                && ran.stderr.contains("waiting for the answer to a commit"),
            "{cut:?}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains(PASSWORD), "{}", ran.stderr);
        pg.wait_for_no_sessions(database);
        let before = inspections(&pg, database);
        eprintln!("{cut:?}: {before} inspections held after the reset");
        // The same command (through the proxy, which cuts once).
        let ran = tool::run(&args(&proxy.url(database)), &env, None).await;
        assert_eq!(ran.code, 0, "{cut:?}: {}", ran.stderr);
        assert_eq!(
            before + written(&ran, "inspections"),
            43,
            "{cut:?}: {before} inspections held after the reset, the next run wrote the rest once"
        );
        assert_same_tables(&dump(&pg, database), &expected);
        held.push(before);
    }
    // The commit whose answer was lost was made: one page more than where the COMMIT
    // never reached the server (rolled back whole).
    assert!((1..43).contains(&held[0]), "{held:?}");
    assert_eq!(held[1], held[0] + 5, "{held:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syncs_into_two_schemas_of_one_database_run_at_once_each_in_its_own() {
    let pg = Postgres::start("sync-schemas");
    pg.create_database("fleet");
    // Other schemas' tables are the database's business, not the sync's.
    pg.psql("fleet", "CREATE TABLE public.erp_orders (id int); CREATE SCHEMA crm; CREATE TABLE crm.contacts (id int)");
    let (sandbox, env) = v3_sandbox("--inspections 60 --fault-slow 1.0 --slow-ms 200").await;
    // No search_path at all: a statement that named a table without its schema would fail.
    let bare = format!("{}?options=-c%20search_path%3D", pg.url("fleet"));
    let args = |schema: &str, extra: &[&str]| {
        let mut args = strings(&[
            "sync",
            "v3",
            &bare,
            "--quiet",
            "--page-size",
            "5",
            "--schema",
            schema,
        ]);
        args.extend(strings(extra));
        args
    };

    // The first sync into `acme` runs; one into `Beta Co` starts meanwhile and ends; a
    // second one into `acme` is refused by its lock.
    let (first_args, first_env) = (args("acme", &[]), env.clone());
    let first = tokio::spawn(async move { tool::run(&first_args, &first_env, None).await });
    let started = Instant::now();
    while rows_in(&pg, "fleet", "acme", "inspections") < 5 {
        if first.is_finished() {
            let ran = first.await.unwrap();
            panic!(
                "the sync into acme ended early ({}): {}",
                ran.code, ran.stderr
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "acme: no inspections after a minute"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !first.is_finished(),
        "the first sync ended before the others started"
    );
    let ran = tool::run(&args("acme", &[]), &env, None).await;
    assert_eq!(ran.code, 9, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("/fleet?options=-c%20search_path%3D (schema acme) is held by a sync")
            && ran
                .stderr
                .contains(&format!("advisory lock {}", lock_key("acme"))),
        "{}",
        ran.stderr
    );
    let (beta_args, beta_env) = (args("Beta Co", &[]), env.clone());
    let beta = tokio::spawn(async move { tool::run(&beta_args, &beta_env, None).await });
    let mut at_once = false;
    while !beta.is_finished() {
        at_once |= advisory_locks(&pg) == 2;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(at_once, "the two syncs never held their locks at once");
    let beta = beta.await.unwrap();
    assert_eq!(beta.code, 0, "{}", beta.stderr);
    let acme = within_minutes(first, "the sync into acme").await.unwrap();
    assert_eq!(acme.code, 0, "{}", acme.stderr);

    // Each summary names its schema; each schema holds the whole sync and its own state,
    // the same rows; the public schema holds nothing of the tool's.
    for (ran, schema) in [(&acme, "acme"), (&beta, "Beta Co")] {
        let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
        assert_eq!(summary["schema"], schema, "{summary}");
        assert_eq!(summary["created"], true, "{summary}");
        assert!(!summary.to_string().contains(PASSWORD), "{summary}");
        assert_eq!(rows_in(&pg, "fleet", schema, "_sync_state"), 7, "{schema}");
    }
    let expected = dump_schema(&pg, "fleet", "acme");
    assert_eq!(expected["inspections"].len(), 63);
    assert_same_tables(&dump_schema(&pg, "fleet", "Beta Co"), &expected);
    let public = pg.psql("fleet", "SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = 'public'");
    assert_eq!(public.trim(), "erp_orders");

    // A schema holding tables of its own is refused as a database is, naming it.
    let ran = tool::run(&args("crm", &[]), &env, None).await;
    assert_eq!(ran.code, 10, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("(schema crm) holds tables this tool did not make (contacts)")
            && ran.stderr.contains("--schema NAME"),
        "{}",
        ran.stderr
    );
    // Without --schema and without a search_path: no schema to sync into, said so.
    let ran = sync(&sandbox, &bare, &["--only", "units"], &[]).await;
    tool::assert_failed(&ran, 2, "names no schema that exists");
    // SQLite has no schemas.
    let dir = scratch("sync-schema-sqlite");
    let file = dir.join("fleet.db");
    let ran = sync(
        &sandbox,
        &file.display().to_string(),
        &["--schema", "acme"],
        &[],
    )
    .await;
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("--schema") && ran.stderr.contains("SQLite"),
        "{}",
        ran.stderr
    );
    assert!(!file.exists(), "nothing made");

    // A migration and --rebuild in a schema, still without a search_path: as if a spec
    // without `Inspection.videos` had made acme's tables.
    let videos = rows_in(&pg, "fleet", "acme", "inspections_videos");
    made_without_videos(&pg, "acme.");
    let ran = tool::run(&args("acme", &["--only", "units"]), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(
        summary["migrated"],
        serde_json::json!(["table `inspections_videos` added"])
    );
    assert!(videos > 0);
    assert_eq!(rows_in(&pg, "fleet", "acme", "inspections_videos"), videos);
    let ran = tool::run(&args("acme", &["--rebuild"]), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_same_tables(&dump_schema(&pg, "fleet", "acme"), &expected);
    assert_eq!(public_and_crm(&pg), "crm.contacts,public.erp_orders");
}

/// Makes the tables of database `fleet` (in the schema `prefix` names, `acme.`, or the
/// current one for "") look as a spec without `Inspection.videos` made them: that table
/// dropped and left out of the stored IR and table list, so the next sync migrates.
fn made_without_videos(pg: &Postgres, prefix: &str) {
    let meta = |key: &str| {
        pg.psql(
            "fleet",
            &format!("SELECT value FROM {prefix}_sync_meta WHERE key = '{key}'"),
        )
    };
    let mut ir: Value = serde_json::from_str(meta("ir").trim()).unwrap();
    export_folder::recorded_inspection_fields(&mut ir).retain(|f| f["name"] != "videos");
    let tables: String = meta("tables")
        .lines()
        .filter(|l| !l.starts_with("inspections_videos "))
        .map(|l| format!("{l}\n"))
        .collect();
    let quote = |s: &str| s.replace('\'', "''");
    pg.psql(
        "fleet",
        &format!(
            "BEGIN; DROP TABLE {prefix}inspections_videos; \
             UPDATE {prefix}_sync_meta SET value = '{}' WHERE key = 'ir'; \
             UPDATE {prefix}_sync_meta SET value = '{}' WHERE key = 'tables'; COMMIT;",
            quote(&ir.to_string()),
            quote(&tables)
        ),
    );
}

/// How many advisory locks (keys) sessions hold in the server.
fn advisory_locks(pg: &Postgres) -> usize {
    let sql = "SELECT count(DISTINCT (classid, objid)) FROM pg_locks \
               WHERE locktype = 'advisory' AND granted";
    pg.psql("fleet", sql).trim().parse().unwrap()
}

/// The tables of the schemas `public` and `crm`, `schema.table` by name.
fn public_and_crm(pg: &Postgres) -> String {
    let sql = "SELECT string_agg(table_schema || '.' || table_name, ',' ORDER BY table_schema, table_name) \
               FROM information_schema.tables WHERE table_schema IN ('public', 'crm')";
    pg.psql("fleet", sql).trim().to_string()
}
