//! The sync's run history (`_sync_runs`) and `inspection sync status`, end to end against
//! the sandbox, into SQLite and into a PostgreSQL schema: each run's row (its outcome,
//! exit code, lists, requests, versions) written in the run's own transactions, a run
//! killed with SIGKILL left saying so, a running one told from a killed one by its lock;
//! `sync status` on fresh, stale and killed-run databases with its exit codes (0, 11 for a
//! list older than `--max-age`, 10 for a database it cannot read); a database of the
//! tool's tables' format 1 raised to format 2 by the next run, and a newer format refused
//! naming why.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/cli_process.rs"]
mod tool;

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::Value;

use export_folder::{scratch, strings, v3_sandbox};
use postgres::Postgres;

/// The seven v3 lists, by name.
const LISTS: [&str; 7] = [
    "list_units",
    "list_inspections",
    "list_tasks",
    "list_workflows",
    "list_locations",
    "list_users",
    "list_user_groups",
];

/// `inspection ARGS...` over `env`: its exit code, stdout as JSON (null if none), stderr.
async fn run(args: &[&str], env: &[(String, String)]) -> (i32, Value, String) {
    let ran = tool::run(&strings(args), env, None).await;
    let out = serde_json::from_slice(&ran.stdout).unwrap_or(Value::Null);
    (ran.code, out, ran.stderr)
}

/// The SQLite file's `_sync_runs`, the newest first: (run, outcome, exit code, lists).
fn runs(path: &Path) -> Vec<(i64, String, Option<i64>, Value)> {
    let db = Connection::open(path).unwrap();
    let mut stmt = db
        .prepare("SELECT run, outcome, exit_code, lists FROM _sync_runs ORDER BY run DESC")
        .unwrap();
    stmt.query_map([], |r| {
        let lists: String = r.get(3)?;
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            serde_json::from_str(&lists).unwrap(),
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Waits until `ready` while `child` runs (panics if it ends first), then kills it.
async fn kill_when(child: &mut std::process::Child, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended first");
        assert!(started.elapsed() < Duration::from_secs(60), "not ready");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

/// A list's entry in a status report.
fn listed<'a>(report: &'a Value, list: &str) -> &'a Value {
    report["lists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["list"] == list)
        .unwrap_or_else(|| panic!("no {list} in {report}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_status_says_each_list_s_freshness_and_a_killed_run_in_sqlite() {
    let (_sandbox, env) = v3_sandbox("--inspections 60 --fault-slow 1.0 --slow-ms 150").await;
    let dir = scratch("sync-runs");
    let path = dir.join("fleet.db");
    let db = path.display().to_string();
    let version = tool::run(&strings(&["--version"]), &env, None)
        .await
        .stdout_text();
    let version = version.split_whitespace().last().unwrap().to_string();

    // Fresh: the run's row says what it did.
    let (code, summary, stderr) = run(&["--quiet", "sync", "v3", &db], &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["run"], 1, "{summary}");
    let conn = Connection::open(&path).unwrap();
    let row: (String, Option<String>, i64, i64, String, String) = conn
        .query_row(
            "SELECT outcome, ended_at, exit_code, api_requests, tool_version, spec_version FROM _sync_runs WHERE run = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .unwrap();
    assert_eq!(row.0, "succeeded");
    assert!(row.1.is_some());
    assert_eq!(row.2, 0);
    assert_eq!(row.3, summary["api_requests"].as_i64().unwrap());
    let limited: i64 = conn
        .query_row(
            "SELECT rate_limited FROM _sync_runs WHERE run = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(limited, summary["rate_limited"].as_i64().unwrap());
    assert_eq!(row.4, version);
    let spec: String = conn
        .query_row(
            "SELECT value FROM _sync_meta WHERE key = 'spec_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(row.5, spec);
    let lists = &runs(&path)[0].3;
    for list in LISTS {
        let entry = lists
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["list"] == list)
            .unwrap();
        assert!(entry["finished_at"].is_string(), "{entry}");
    }
    let inspections = lists
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["list"] == "list_inspections")
        .unwrap();
    assert_eq!(inspections["records"], 63);
    assert!(inspections["watermark"].is_string());

    let (code, report, stderr) = run(&["sync", "status", &db, "--max-age", "1h"], &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["interface"], "v3");
    assert_eq!(report["last_run"]["outcome"], "succeeded");
    for list in LISTS {
        let l = listed(&report, list);
        assert_eq!(l["last_success"]["run"], 1, "{l}");
        assert!(l["age_s"].as_u64().unwrap() < 60, "{l}");
        assert_eq!(l["stale"], false);
    }

    // Stale: older than --max-age is exit 11, naming each list and its age.
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let (code, report, stderr) = run(&["sync", "status", &db, "--max-age", "1s"], &env).await;
    assert_eq!(code, 11, "{stderr}");
    assert_eq!(listed(&report, "list_tasks")["stale"], true);
    assert!(
        stderr.contains("error (stale)")
            && stderr.contains("list_tasks last synced")
            && stderr.contains("over --max-age 1s"),
        "{stderr}"
    );

    // Running, then killed: the row says how far it got; status tells one from the other
    // by the lock; the next run marks it killed.
    let args = strings(&[
        "--quiet",
        "sync",
        "v3",
        &db,
        "--reconcile",
        "--page-size",
        "5",
    ]);
    let mut child = tool::spawn(&args, &env);
    let written = |p: &Path| {
        Connection::open(p).ok().and_then(|c| {
            c.query_row("SELECT lists FROM _sync_runs WHERE run = 2", [], |r| {
                r.get::<_, String>(0)
            })
            .ok()
        })
    };
    kill_when(&mut child, || {
        let Some(lists) = written(&path) else {
            return false;
        };
        let lists: Value = serde_json::from_str(&lists).unwrap();
        let entry = |name: &str| {
            lists
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["list"] == name)
                .cloned()
                .unwrap()
        };
        entry("list_units")["finished_at"].is_string()
            && entry("list_inspections")["records"].as_u64().unwrap() >= 5
    })
    .await;
    let (code, report, stderr) = run(&["sync", "status", &db, "--max-age", "1h"], &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["last_run"]["run"], 2);
    assert_eq!(report["last_run"]["outcome"], "killed", "{report}");
    assert!(report["last_run"]["ended_at"].is_null());
    // units finished in the killed run; inspections' last success is still run 1.
    assert_eq!(listed(&report, "list_units")["last_success"]["run"], 2);
    assert_eq!(
        listed(&report, "list_inspections")["last_success"]["run"],
        1
    );
    assert_eq!(runs(&path)[0].1, "running");

    // While a run holds the database, its row is `running`.
    let mut child = tool::spawn(&args, &env);
    let mut while_running = None;
    kill_when(&mut child, || {
        if runs(&path).first().map(|r| r.0) != Some(3) {
            return false;
        }
        while_running = Some(status_now(&db));
        true
    })
    .await;
    let (ok, report) = while_running.unwrap();
    assert!(ok, "{report}");
    assert_eq!(report["last_run"]["outcome"], "running", "{report}");

    let (code, _, stderr) = run(&["--quiet", "sync", "v3", &db], &env).await;
    assert_eq!(code, 0, "{stderr}");
    let all = runs(&path);
    assert_eq!(all[0].0, 4);
    assert_eq!(all[0].1, "succeeded");
    assert_eq!(all[1].1, "killed");
    assert_eq!(all[2].1, "killed");

    // A failed run: its exit code and message, never the secret it was given.
    let mut wrong = env.clone();
    wrong[2].1 = "not-the-secret-5f3a".into();
    let (code, _, stderr) = run(&["--quiet", "sync", "v3", &db], &wrong).await;
    assert_eq!(code, 4, "{stderr}");
    let (failed_code, error): (i64, String) = conn
        .query_row(
            "SELECT exit_code, error FROM _sync_runs WHERE run = 5 AND outcome = 'failed'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(failed_code, 4);
    assert!(
        !error.is_empty() && !error.contains("not-the-secret"),
        "{error}"
    );

    // A database status cannot read is exit 10, apart from stale.
    let (code, _, stderr) = run(
        &["sync", "status", &dir.join("none.db").display().to_string()],
        &env,
    )
    .await;
    assert_eq!(code, 10, "{stderr}");
    assert!(!dir.join("none.db").exists(), "status made a file");
}

/// `sync status` run synchronously (from inside a poll): whether it exited 0, its report.
fn status_now(db: &str) -> (bool, Value) {
    let out = std::process::Command::new(tool::binary())
        .args(["sync", "status", db])
        .env("INSPECTION_CONFIG_DIR", "/nonexistent")
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.success(), report)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_format_1_is_raised_to_the_run_history_and_a_newer_one_refused() {
    let (_sandbox, env) = v3_sandbox("--inspections 5").await;
    let dir = scratch("sync-runs-format");
    let path = dir.join("fleet.db");
    let db = path.display().to_string();
    let (code, _, stderr) = run(&["--quiet", "sync", "v3", &db], &env).await;
    assert_eq!(code, 0, "{stderr}");
    // As an earlier version of the tool left it: format 1, no run history.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TABLE _sync_runs; UPDATE _sync_meta SET value = '1' WHERE key = 'format'; \
         DELETE FROM _sync_meta WHERE key = 'format_change'",
    )
    .unwrap();
    let (code, _, stderr) = run(&["sync", "status", &db], &env).await;
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains("older version of this tool (format 1)"),
        "{stderr}"
    );

    let (code, summary, stderr) = run(&["--quiet", "sync", "v3", &db], &env).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        summary["migrated"][0],
        "the tool's tables raised from format 1 to 2: table `_sync_runs` added",
        "{summary}"
    );
    assert_eq!(summary["run"], 1);
    let format: String = conn
        .query_row(
            "SELECT value FROM _sync_meta WHERE key = 'format'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(format, "2");
    assert_eq!(runs(&path)[0].1, "succeeded");
    let (code, _, stderr) = run(&["sync", "status", &db, "--max-age", "1h"], &env).await;
    assert_eq!(code, 0, "{stderr}");

    // A newer format is refused by name, with what it brought, and nothing is written.
    conn.execute_batch(
        "UPDATE _sync_meta SET value = '3' WHERE key = 'format'; \
         UPDATE _sync_meta SET value = 'format 3 keeps the sync''s errors' WHERE key = 'format_change'",
    )
    .unwrap();
    for args in [
        vec!["--quiet", "sync", "v3", &db],
        vec!["sync", "status", &db],
    ] {
        let (code, _, stderr) = run(&args, &env).await;
        assert_eq!(code, 10, "{stderr}");
        assert!(
            stderr.contains(
                "made by a newer version of this tool (format 3, this one reads 2 at most: \
                 format 3 keeps the sync's errors); use that version"
            ),
            "{stderr}"
        );
    }
    assert_eq!(runs(&path).len(), 1, "a refused run wrote its row");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_status_reads_a_postgresql_schema_s_runs_fresh_stale_killed_and_raised() {
    let pg = Postgres::start("sync-runs");
    pg.create_database("fleet");
    let (_sandbox, env) = v3_sandbox("--inspections 60 --fault-slow 1.0 --slow-ms 150").await;
    // No search_path: every statement, status's too, names the schema.
    let url = format!("{}?options=-c%20search_path%3D", pg.url("fleet"));
    let sync = |extra: &[&str]| {
        let mut args = strings(&["--quiet", "sync", "v3", &url, "--schema", "Acme Co"]);
        args.extend(strings(extra));
        args
    };
    let status = |max_age: &str| {
        strings(&[
            "sync",
            "status",
            &url,
            "--schema",
            "Acme Co",
            "--max-age",
            max_age,
        ])
    };
    let ran = tool::run(&sync(&[]), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let ran = tool::run(&status("1h"), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let report: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(report["schema"], "Acme Co");
    assert_eq!(report["last_run"]["outcome"], "succeeded");
    assert_eq!(
        listed(&report, "list_inspections")["last_success"]["records"],
        63
    );
    assert!(!ran.stdout_text().contains(postgres::PASSWORD));

    // Killed part-way: the row left `running`; status, reading `pg_locks`, says killed.
    let row = |sql: &str| {
        pg.psql(
            "fleet",
            &format!("SELECT {sql} FROM \"Acme Co\"._sync_runs WHERE run = 2"),
        )
    };
    let mut child = tool::spawn(&sync(&["--reconcile", "--page-size", "5"]), &env);
    let mut while_running = None;
    kill_when(&mut child, || {
        let lists = row("lists");
        if !lists.contains("\"finished_at\":\"") {
            return false;
        }
        let ran = std::process::Command::new(tool::binary())
            .args(status("1h"))
            .output()
            .unwrap();
        while_running = Some(serde_json::from_slice::<Value>(&ran.stdout).unwrap());
        true
    })
    .await;
    let report = while_running.unwrap();
    assert_eq!(report["last_run"]["outcome"], "running", "{report}");
    pg.wait_for_no_sessions("fleet");
    let ran = tool::run(&status("1h"), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let report: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(report["last_run"]["outcome"], "killed", "{report}");
    assert_eq!(row("outcome").trim(), "running");

    // Stale: exit 11; a schema that holds no sync: exit 10.
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let ran = tool::run(&status("1s"), &env, None).await;
    assert_eq!(ran.code, 11, "{}", ran.stderr);
    let mut other = status("1h");
    other[4] = "nobody".into();
    let ran = tool::run(&other, &env, None).await;
    tool::assert_failed(&ran, 10, "the schema nobody holds no sync");

    // Format 1, as an earlier version left it: raised by the next run, in the schema.
    pg.psql(
        "fleet",
        "DROP TABLE \"Acme Co\"._sync_runs; \
         UPDATE \"Acme Co\"._sync_meta SET value = '1' WHERE key = 'format'",
    );
    let ran = tool::run(&sync(&[]), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(summary["run"], 1, "{summary}");
    assert!(
        summary["migrated"][0]
            .as_str()
            .unwrap()
            .contains("format 1 to 2")
    );
    assert_eq!(row("1").trim(), "", "run 2 is gone with the table");
    let ran = tool::run(&status("1h"), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}
