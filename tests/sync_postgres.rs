//! `inspection sync v3 postgres://...` end to end against the sandbox and a real
//! PostgreSQL server started by the test (`tests/support/postgres.rs`): the tables hold
//! what a sync into SQLite holds; killed with SIGKILL at five seeded moments under faults
//! and resumed, the database equals an uninterrupted sync's, table by table; a second
//! sync is refused while one runs (the advisory lock); the password comes from the URL,
//! `PGPASSWORD` or a password file and is never printed; a server that cannot be
//! reached, a wrong password and a malformed URL are named with their exit code.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/cli_process.rs"]
mod tool;

use std::collections::BTreeMap;
use std::time::Duration;

use rusqlite::Connection;
use serde_json::Value;

use export_folder::{Moments, assert_same_tables, sandbox, scratch, strings, v3_env};
use postgres::{PASSWORD, Postgres};

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
    let tables = pg.psql(
        database,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' \
         AND table_name NOT LIKE '\\_sync%' ORDER BY 1",
    );
    tables
        .lines()
        .map(|table| {
            let sql = format!(
                "SELECT to_jsonb(t) - '_synced_at' - '_pass' - 'pdf_share_url' \
                 || jsonb_build_object('_record', t._record - 'pdf_share_url') FROM \"{table}\" t"
            );
            let mut rows: Vec<Value> = pg
                .psql(database, &sql)
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            rows.sort_by_key(|r| r.to_string());
            (table.to_string(), rows)
        })
        .collect()
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
    let sandbox = sandbox("--inspections 500 --faults 0.1 --fault-seed 7 --slow-ms 200").await;
    let env = v3_env(&sandbox);
    let args = |url: &str| strings(&["--quiet", "sync", "v3", url, "--page-size", "5"]);
    tool::run_to_end(&args(&pg.url("whole")), &env, "the sync").await;
    let expected = dump(&pg, "whole");
    assert_eq!(expected["inspections"].len(), 503);

    let mut moments = Moments(0x5eed_2027);
    let moment = || moments.next_ms(200, 1000);
    let mut partial = Vec::new();
    tool::kill_runs(&args(&pg.url("killed")), &env, 5, moment, |kill, at, killed_it| {
        if !killed_it {
            eprintln!("kill {kill}: the run had already ended at {at} ms");
            return;
        }
        let written: usize = pg
            .psql("killed", "SELECT count(*) FROM information_schema.tables WHERE table_name = 'inspections'")
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n == 1)
            .map_or(0, |_| pg.psql("killed", "SELECT count(*) FROM inspections").trim().parse().unwrap());
        eprintln!("kill {kill}: SIGKILL at {at} ms, {written} inspections committed");
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
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is not a PostgreSQL URL"),
        "{}",
        ran.stderr
    );

    // A second sync while one runs: the advisory lock.
    let mut first = std::process::Command::new(tool::binary())
        .args(strings(&[
            "--quiet",
            "sync",
            "v3",
            &pg.url("fleet"),
            "--page-size",
            "5",
        ]))
        .envs(v3_env(&sandbox))
        .env("INSPECTION_CONFIG_DIR", "/nonexistent")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let ran = sync(&sandbox, &pg.url("fleet"), &[], &[]).await;
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(ran.code, 9, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("held by a sync that is still running"),
        "{}",
        ran.stderr
    );
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
    let ir = pg.psql("fleet", "SELECT value FROM _sync_meta WHERE key = 'ir'");
    let mut ir: Value = serde_json::from_str(ir.trim()).unwrap();
    export_folder::recorded_inspection_fields(&mut ir).retain(|f| f["name"] != "videos");
    let tables = pg.psql("fleet", "SELECT value FROM _sync_meta WHERE key = 'tables'");
    let tables: String = tables
        .lines()
        .filter(|l| !l.starts_with("inspections_videos "))
        .map(|l| format!("{l}\n"))
        .collect();
    let quote = |s: &str| s.replace('\'', "''");
    pg.psql(
        "fleet",
        &format!(
            "BEGIN; DROP TABLE inspections_videos; \
             UPDATE _sync_meta SET value = '{}' WHERE key = 'ir'; \
             UPDATE _sync_meta SET value = '{}' WHERE key = 'tables'; COMMIT;",
            quote(&ir.to_string()),
            quote(&tables)
        ),
    );

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
