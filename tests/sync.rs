//! `inspection sync v3 DATABASE` end to end against the sandbox, into SQLite: the tables
//! hold every record the sandbox lists (counted over HTTP, every child row checked
//! against its record's JSON); killed with SIGKILL at five seeded moments under faults and
//! resumed, the database equals an uninterrupted sync's, table by table; the next sync
//! brings exactly what changed (new inspections, an updated task, a unit no longer
//! listed); bad databases are named, get their exit code and are left as they were; a
//! lock another process holds is waited for within `--db-timeout`, and named past it.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/small_disk.rs"]
mod small_disk;
#[path = "support/cli_process.rs"]
mod tool;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::Value;

use export_folder::{
    Moments, assert_same_tables, control, listed, recorded_inspection_fields, sandbox, scratch,
    strings, v3_env, v3_sandbox, whole_pdf,
};
use small_disk::SmallDisk;

/// Each v3 list the sync walks: its path and its table.
const LISTS: &[(&str, &str)] = &[
    ("/units", "units"),
    ("/inspections", "inspections"),
    ("/tasks", "tasks"),
    ("/workflows", "workflows"),
    ("/locations", "locations"),
    ("/users", "users"),
    ("/user_groups", "user_groups"),
];

/// `sync v3 DATABASE` with `extra` flags; its exit code, summary and stderr.
async fn sync(sandbox: &sandbox::Sandbox, db: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut args = strings(&["--quiet", "sync", "v3", &db.display().to_string()]);
    args.extend(strings(extra));
    let ran = tool::run(&args, &v3_env(sandbox), None).await;
    let summary = serde_json::from_slice(&ran.stdout).unwrap_or(Value::Null);
    (ran.code, summary, ran.stderr)
}

/// A record without its pre-signed link, signed anew in every answer.
fn unlinked(mut record: Value) -> Value {
    if let Some(map) = record.as_object_mut() {
        map.remove("pdf_share_url");
    }
    record
}

/// A table's rows by id: each row's stored JSON.
fn stored(db: &Connection, table: &str) -> BTreeMap<String, Value> {
    let mut stmt = db
        .prepare(&format!("SELECT id, _record FROM \"{table}\""))
        .unwrap();
    stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap()
        .map(|r| {
            let (id, json) = r.unwrap();
            (id, unlinked(serde_json::from_str(&json).unwrap()))
        })
        .collect()
}

fn count(db: &Connection, sql: &str, params: impl rusqlite::Params) -> usize {
    db.query_row(sql, params, |r| r.get::<_, i64>(0)).unwrap() as usize
}

/// What a sync's summary says of the list filling `table`.
fn list_of(summary: &Value, table: &str) -> Value {
    summary["lists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["table"] == table)
        .cloned()
        .unwrap_or_else(|| panic!("no list of `{table}` in {summary}"))
}

fn len(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_into_sqlite_holds_every_record_the_sandbox_lists() {
    let sandbox = sandbox("--inspections 37").await;
    let dir = scratch("sync-equal");
    let path = dir.join("fleet.db");
    let (code, summary, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["created"], true, "{summary}");
    let db = Connection::open(&path).unwrap();
    for (list, table) in LISTS {
        let records: BTreeMap<String, Value> = listed(&sandbox, list)
            .await
            .into_iter()
            .map(|r| (r["id"].as_str().unwrap().to_string(), unlinked(r)))
            .collect();
        assert!(!records.is_empty(), "the sandbox lists no {table}");
        assert_eq!(
            stored(&db, table),
            records,
            "{table} differ from the sandbox's"
        );
    }
    let inspections = listed(&sandbox, "/inspections").await;
    assert_eq!(inspections.len(), 40);
    for record in &inspections {
        check_children(&db, record);
    }
    let (code, summary, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["created"], false, "{summary}");
    assert_eq!(count(&db, "SELECT count(*) FROM inspections", []), 40);
}

/// An inspection's child rows against its JSON: one per element, at its position, with
/// its typed columns.
fn check_children(db: &Connection, record: &Value) {
    let id = record["id"].as_str().unwrap();
    let row: (Option<String>, Option<bool>, Option<String>) = db
        .query_row(
            "SELECT unit_reference_number, damage_present, created_at FROM inspections WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        row.0.as_deref(),
        record["unit"]["reference_number"].as_str()
    );
    assert_eq!(row.1, record["damage_present"].as_bool());
    let created =
        chrono::DateTime::parse_from_rfc3339(record["created_at"].as_str().unwrap()).unwrap();
    assert_eq!(
        row.2.unwrap(),
        created
            .to_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
    );
    for field in ["results", "photos", "videos", "signatures"] {
        let sql = format!("SELECT count(*) FROM inspections_{field} WHERE inspection_id = ?1");
        assert_eq!(count(db, &sql, [id]), len(&record[field]), "{id} {field}");
    }
    for (n, result) in record["results"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let (kind, name): (String, Option<String>) = db
            .query_row(
                "SELECT object, name FROM inspections_results WHERE inspection_id = ?1 AND position = ?2",
                rusqlite::params![id, n as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(kind, result["object"].as_str().unwrap());
        assert_eq!(name.as_deref(), result["name"].as_str());
        let sql = "SELECT count(*) FROM inspections_results_data \
                   WHERE inspection_id = ?1 AND results_position = ?2";
        // A PDF form's `data` is a map: a column, not rows.
        let fields = if result["data"].is_array() {
            len(&result["data"])
        } else {
            0
        };
        assert_eq!(
            count(db, sql, rusqlite::params![id, n as i64]),
            fields,
            "{id} result {n}"
        );
        for (m, field) in result["data"].as_array().into_iter().flatten().enumerate() {
            let sql = "SELECT count(*) FROM inspections_results_data_items \
                       WHERE inspection_id = ?1 AND results_position = ?2 AND data_position = ?3";
            let items = count(db, sql, rusqlite::params![id, n as i64, m as i64]);
            assert_eq!(items, len(&field["items"]), "{id} result {n} field {m}");
        }
    }
}

/// Every table of a sync database, each row as text, without what differs between two
/// equal syncs: when a row was written, the run that saw it, the pre-signed links.
fn dump(path: &Path) -> BTreeMap<String, Vec<String>> {
    let db = Connection::open(path).unwrap();
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_sync%' ESCAPE '\\'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = BTreeMap::new();
    for table in tables {
        let mut stmt = db.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let names: Vec<String> = stmt.column_names().map(String::from).collect();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let mut cells = Vec::new();
                for (n, name) in names.iter().enumerate() {
                    if ["_synced_at", "_pass", "pdf_share_url", "_document"]
                        .contains(&name.as_str())
                    {
                        continue;
                    }
                    let v: rusqlite::types::Value = r.get(n)?;
                    let text = match (name.as_str(), v) {
                        ("_record", rusqlite::types::Value::Text(t)) => {
                            unlinked(serde_json::from_str(&t).unwrap()).to_string()
                        }
                        (_, v) => format!("{v:?}"),
                    };
                    cells.push(format!("{name}={text}"));
                }
                Ok(cells.join(" "))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows.sort();
        out.insert(table, rows);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_killed_five_times_ends_as_an_uninterrupted_one() {
    let (_sandbox, env) =
        v3_sandbox("--inspections 200 --faults 0.1 --fault-seed 7 --slow-ms 200").await;
    let dir = scratch("sync-kill");
    let args = |db: &Path| {
        let docs = db.with_extension("pdfs");
        strings(&[
            "--quiet",
            "sync",
            "v3",
            &db.display().to_string(),
            "--page-size",
            "5",
            "--documents",
            &docs.display().to_string(),
        ])
    };
    let whole = dir.join("uninterrupted.db");
    tool::run_to_end(&args(&whole), &env, "the sync").await;
    let expected = dump(&whole);
    assert_eq!(expected["inspections"].len(), 203);

    let killed = dir.join("killed.db");
    let mut moments = Moments(0x5eed_2026);
    let mut partial = Vec::new();
    let moment = || moments.next_ms(100, 800);
    tool::kill_runs(&args(&killed), &env, 5, moment, |kill| {
        let written = Connection::open(&killed)
            .ok()
            .and_then(|db| {
                db.query_row("SELECT count(*) FROM inspections", [], |r| {
                    r.get::<_, i64>(0)
                })
                .ok()
            })
            .unwrap_or(0);
        eprintln!("kill {kill}: {written} inspections committed");
        partial.push(written);
    })
    .await;
    assert!(
        partial.iter().any(|n| (1..203).contains(n)),
        "no kill fell in the middle of the inspections: {partial:?}"
    );
    let runs = tool::run_to_end(&args(&killed), &env, "the sync").await;
    eprintln!("resumed to the end in {runs} run(s)");
    let got = dump(&killed);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    // Every inspection's document whole, where its row says, and nothing else there.
    let db = Connection::open(&killed).unwrap();
    let paths: Vec<String> = db
        .prepare("SELECT _document FROM inspections")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(paths.len(), 203);
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        assert!(whole_pdf(&bytes), "{path}");
    }
    let files = std::fs::read_dir(killed.with_extension("pdfs").join("documents"))
        .unwrap()
        .count();
    assert_eq!(files, 203, "a partial or stray file is left");
    assert_same_tables(&got, &expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_sync_brings_exactly_what_changed() {
    let sandbox = sandbox("--inspections 5").await;
    let dir = scratch("sync-changes");
    let path = dir.join("fleet.db");
    let (code, _, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let before = dump(&path);

    let new_ids: Vec<String> = [(); 2]
        .iter()
        .map(|_| async { control(&sandbox, "POST", "/_sandbox/v3/inspections").await })
        .collect::<futures_util::future::JoinAll<_>>()
        .await
        .into_iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    let tasks = listed(&sandbox, "/tasks").await;
    let task = tasks
        .iter()
        .find(|t| t["assignee"]["username"].is_string())
        .expect("a task assigned to a user");
    let body = serde_json::json!({
        "name": "Renamed by the office",
        "reference_number": task["unit"]["reference_number"],
        "due_by": task["due_by"],
        "assignee_username": task["assignee"]["username"],
    });
    let task = task["id"].as_str().unwrap().to_string();
    let answer = reqwest::Client::new()
        .patch(format!("{}/tasks/{task}", sandbox.base_url()))
        .header("api-key-id", "demo-key")
        .header("api-key-secret", "demo-secret")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert!(
        answer.status().is_success(),
        "{}",
        answer.text().await.unwrap()
    );
    let units = listed(&sandbox, "/units").await;
    let gone = units[0]["id"].as_str().unwrap().to_string();
    control(&sandbox, "DELETE", &format!("/_sandbox/v3/units/{gone}")).await;

    let (code, summary, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(list_of(&summary, "units")["marked_deleted"], 1, "{summary}");
    assert_eq!(
        list_of(&summary, "tasks")["whole"],
        false,
        "tasks are read after their watermark"
    );
    assert_eq!(list_of(&summary, "inspections")["whole"], false);
    let db = Connection::open(&path).unwrap();
    for id in &new_ids {
        assert_eq!(
            count(&db, "SELECT count(*) FROM inspections WHERE id = ?1", [id]),
            1
        );
    }
    let name: String = db
        .query_row("SELECT name FROM tasks WHERE id = ?1", [&task], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(name, "Renamed by the office");
    let deleted: Vec<String> = db
        .prepare("SELECT id FROM units WHERE _deleted_at IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(deleted, [gone], "only the unit no longer listed is marked");

    // Nothing else changed: every other row is as it was.
    let after = dump(&path);
    for (table, rows) in &before {
        let changed: Vec<&String> = rows.iter().filter(|r| !after[table].contains(r)).collect();
        let expected = match table.as_str() {
            "units" => 1,
            "tasks" => 1,
            _ => 0,
        };
        assert_eq!(changed.len(), expected, "{table}: {changed:?}");
    }
    assert_eq!(after["inspections"].len(), before["inspections"].len() + 2);

    // Marked once: the next sync marks nothing again.
    let (code, summary, _) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0);
    assert_eq!(summary["lists"][0]["marked_deleted"], 0, "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_databases_are_named_with_their_exit_code_and_left_as_they_were() {
    let sandbox = sandbox("").await;
    let dir = scratch("sync-bad");

    let missing = dir.join("no-such-folder/fleet.db");
    let (code, _, stderr) = sync(&sandbox, &missing, &[]).await;
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains("no-such-folder") && stderr.contains("does not exist"),
        "{stderr}"
    );
    assert!(!missing.exists());

    let foreign = dir.join("erp.db");
    {
        let db = Connection::open(&foreign).unwrap();
        db.execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL);")
            .unwrap();
    }
    let (code, _, stderr) = sync(&sandbox, &foreign, &[]).await;
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains("tables this tool did not make (orders)"),
        "{stderr}"
    );
    let db = Connection::open(&foreign).unwrap();
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            []
        ),
        1
    );

    for (url, says) in [
        (
            "mysql://fleet@db/fleet",
            "`mysql://` is no database this tool writes to",
        ),
        ("sqlite:", "names no file"),
    ] {
        let ran = tool::run(&strings(&["sync", "v3", url]), &v3_env(&sandbox), None).await;
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
    }
    // A state row that does not read (here a resume point) is refused, naming the way out.
    let damaged = dir.join("damaged.db");
    let (code, _, stderr) = sync(&sandbox, &damaged, &["--only", "units"]).await;
    assert_eq!(code, 0, "{stderr}");
    Connection::open(&damaged)
        .unwrap()
        .execute_batch(
            "UPDATE _sync_state SET in_pass = 1, resume = 'garbage' WHERE list = 'list_units'",
        )
        .unwrap();
    let (code, _, stderr) = sync(&sandbox, &damaged, &["--only", "units"]).await;
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains("resume point") && stderr.contains("--rebuild"),
        "{stderr}"
    );
    let (code, _, stderr) = sync(&sandbox, &damaged, &["--only", "units", "--rebuild"]).await;
    assert_eq!(code, 0, "{stderr}");

    let ran = tool::run(
        &strings(&["sync", "v3", "x.db", "--only", "invoices"]),
        &[],
        None,
    )
    .await;
    tool::assert_failed(&ran, 2, "`invoices` is no list of the v3 sync");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sync_into_the_same_database_is_refused_while_one_runs() {
    let sandbox = sandbox("--inspections 40 --fault-slow 1.0 --slow-ms 300").await;
    let dir = scratch("sync-busy");
    let path = dir.join("fleet.db");
    let env = v3_env(&sandbox);
    let path_text = path.display().to_string();
    let args = ["--quiet", "sync", "v3", &path_text, "--page-size", "5"];
    let mut first = tool::spawn(&strings(&args), &env);
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (code, _, stderr) = sync(&sandbox, &path, &[]).await;
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(code, 9, "{stderr}");
    assert!(
        stderr.contains("fleet.db is held") && stderr.contains("a sync"),
        "{stderr}"
    );
}

/// The inspections a SQLite sync holds (none before its tables are made).
fn inspections(path: &Path) -> usize {
    let Ok(db) = Connection::open(path) else {
        return 0;
    };
    db.query_row("SELECT count(*) FROM inspections", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_or(0, |n| n as usize)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_another_process_holds_is_waited_for_within_its_bound() {
    let sandbox = sandbox("--inspections 40 --fault-slow 1.0 --slow-ms 100").await;
    let dir = scratch("sync-locked");
    let pages = ["--page-size", "5"];
    let whole = dir.join("whole.db");
    let (code, _, stderr) = sync(&sandbox, &whole, &pages).await;
    assert_eq!(code, 0, "{stderr}");
    let expected = dump(&whole);

    // Another process holds the write lock throughout: the run ends after its bound,
    // naming the file and what it waited for.
    let path = dir.join("fleet.db");
    let (code, _, stderr) = sync(&sandbox, &path, &["--only", "units"]).await;
    assert_eq!(code, 0, "{stderr}");
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = Instant::now();
    let (code, _, stderr) = sync(&sandbox, &path, &["--db-timeout", "1s"]).await;
    let ended = started.elapsed();
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(code, 10, "{stderr}");
    let said = format!(
        "the database {}: waited 1 s for the lock another process holds on it",
        path.display()
    );
    assert!(stderr.contains(&said), "{stderr}");
    assert!(
        ended < Duration::from_secs(60),
        "the run ended after {ended:?}"
    );

    // A lock taken part-way (between two pages) and held for a moment is waited out: the
    // run ends whole, as an uninterrupted one.
    let mut args = strings(&["--quiet", "sync", "v3", &path.display().to_string()]);
    args.extend(strings(&["--page-size", "5", "--db-timeout", "60s"]));
    let take_the_lock = || {
        let holder = Connection::open(&path).unwrap();
        holder.execute_batch("BEGIN IMMEDIATE").unwrap();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            holder.execute_batch("ROLLBACK").unwrap();
        });
    };
    let env = v3_env(&sandbox);
    let (ran, acted) =
        tool::run_acting(&args, &env, || inspections(&path) >= 10, take_the_lock).await;
    assert!(acted, "the sync ended before 10 inspections were committed");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_same_tables(&dump(&path), &expected);
}

/// Makes a synced database look as if an older spec had made it: `edit` changes the IR
/// the database recorded (the interface's JSON), `sql` its tables, and the recorded
/// tables' list drops `drop_word` or gains `add_word` on the `inspections` line.
fn as_if_made_by(
    path: &Path,
    edit: impl FnOnce(&mut Value),
    sql: &str,
    drop_word: &str,
    add_word: &str,
) {
    let db = Connection::open(path).unwrap();
    let ir: String = db
        .query_row("SELECT value FROM _sync_meta WHERE key = 'ir'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let mut ir: Value = serde_json::from_str(&ir).unwrap();
    edit(&mut ir);
    let tables: String = db
        .query_row(
            "SELECT value FROM _sync_meta WHERE key = 'tables'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let tables: Vec<String> = tables
        .lines()
        .map(|line| {
            if !line.starts_with("inspections ") {
                return line.to_string();
            }
            let mut words: Vec<&str> = line.split(' ').filter(|w| *w != drop_word).collect();
            if !add_word.is_empty() {
                words.push(add_word);
            }
            words.join(" ")
        })
        .collect();
    db.execute_batch(sql).unwrap();
    db.execute(
        "UPDATE _sync_meta SET value = ?1 WHERE key = 'ir'",
        [ir.to_string()],
    )
    .unwrap();
    db.execute(
        "UPDATE _sync_meta SET value = ?1 WHERE key = 'tables'",
        [tables.join("\n") + "\n"],
    )
    .unwrap();
    db.execute(
        "UPDATE _sync_meta SET value = '0.1.0' WHERE key = 'spec_version'",
        [],
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_spec_migrates_what_it_adds_and_refuses_what_it_breaks() {
    let sandbox = sandbox("--inspections 5").await;
    let dir = scratch("sync-migrate");
    let path = dir.join("fleet.db");
    let (code, _, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0, "{stderr}");

    // A spec without `Inspection.pdf_share_url` made the tables: this one adds it.
    as_if_made_by(
        &path,
        |ir| recorded_inspection_fields(ir).retain(|f| f["name"] != "pdf_share_url"),
        "ALTER TABLE inspections DROP COLUMN pdf_share_url",
        "pdf_share_url:Text",
        "",
    );
    let (code, summary, stderr) = sync(&sandbox, &path, &["--only", "units"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        summary["migrated"],
        serde_json::json!(["column `inspections.pdf_share_url` added"]),
        "{summary}"
    );
    // Filled from each stored record (the run synced units only).
    let db = Connection::open(&path).unwrap();
    let filled = count(
        &db,
        "SELECT count(*) FROM inspections WHERE pdf_share_url = json_extract(_record, '$.pdf_share_url')",
        [],
    );
    assert_eq!(filled, 8);
    let version: String = db
        .query_row(
            "SELECT value FROM _sync_meta WHERE key = 'spec_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_ne!(version, "0.1.0", "the database records this tool's spec");
    drop(db);

    // A spec with a field this one no longer has: refused, naming it, nothing written.
    as_if_made_by(
        &path,
        |ir| {
            let fields = recorded_inspection_fields(ir);
            let mut gone = fields
                .iter()
                .find(|f| f["name"] == "damage_present")
                .unwrap()
                .clone();
            gone["name"] = "legacy_flag".into();
            fields.push(gone);
            export_folder::recorded_v3(ir)["positions"]["Inspection.legacy_flag"] =
                serde_json::json!([999, 9]);
        },
        "ALTER TABLE inspections ADD COLUMN legacy_flag BOOLEAN",
        "",
        "legacy_flag:Boolean",
    );
    let before = dump(&path);
    let (code, _, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains("field `Inspection.legacy_flag` removed (spec/v3.yaml:999:9)"),
        "{stderr}"
    );
    assert!(stderr.contains("--rebuild"), "{stderr}");
    assert!(dump(&path) == before, "a refused migration wrote");

    // `--rebuild`: this tool's tables made again, everything synced.
    let (code, summary, stderr) = sync(&sandbox, &path, &["--rebuild"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["created"], true, "{summary}");
    let db = Connection::open(&path).unwrap();
    let columns = count(
        &db,
        "SELECT count(*) FROM pragma_table_info('inspections') WHERE name = 'legacy_flag'",
        [],
    );
    assert_eq!(columns, 0);
    assert_eq!(count(&db, "SELECT count(*) FROM inspections", []), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_are_saved_whole_with_their_path_in_the_row() {
    let sandbox = sandbox("--inspections 12").await;
    let dir = scratch("sync-documents");
    let path = dir.join("fleet.db");
    let docs = dir.join("pdfs");
    let flag = docs.display().to_string();
    let (code, summary, stderr) = sync(&sandbox, &path, &["--documents", &flag]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["documents"]["link"], 15, "{summary}");
    assert_eq!(sandbox.stats().await.storage_with_credentials, 0);
    let db = Connection::open(&path).unwrap();
    let saved: Vec<(String, String)> = db
        .prepare("SELECT id, _document FROM inspections")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(saved.len(), 15);
    for (id, file) in &saved {
        let bytes = std::fs::read(file).unwrap();
        assert!(whole_pdf(&bytes), "{id}");
        assert!(file.ends_with(&format!("{id}.pdf")), "{file}");
    }
    // Saved once: the next run keeps them and takes none again.
    let (code, summary, stderr) = sync(&sandbox, &path, &["--documents", &flag]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary["documents"]["link"], 0, "{summary}");
    // A sync without --documents leaves the paths as they were.
    let (code, _, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM inspections WHERE _document IS NOT NULL",
            []
        ),
        15
    );
    // The export's flags say where they come from: `--documents-from api` never touches
    // a link.
    let other = dir.join("api.db");
    let api_dir = dir.join("api-pdfs").display().to_string();
    let args = ["--documents", &api_dir, "--documents-from", "api"];
    let (code, summary, stderr) = sync(&sandbox, &other, &args).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        (
            summary["documents"]["api"].as_u64(),
            summary["documents"]["link"].as_u64()
        ),
        (Some(15), Some(0)),
        "{summary}"
    );
    // Only the v3 inspections have documents: `--documents` with `--only units` saves none.
    let (code, summary, _) =
        sync(&sandbox, &path, &["--only", "units", "--documents", &flag]).await;
    assert_eq!(code, 0);
    assert_eq!(summary["documents"]["link"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookback_and_reconcile_say_what_a_run_reads_again() {
    let sandbox = sandbox("--inspections 5").await;
    let dir = scratch("sync-reconcile");
    let path = dir.join("fleet.db");
    let (code, _, stderr) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let at = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();

    // Inspections are read again from the watermark less the lookback.
    let (code, summary, stderr) = sync(&sandbox, &path, &["--lookback", "2d"]).await;
    assert_eq!(code, 0, "{stderr}");
    let inspections = list_of(&summary, "inspections");
    let back = at(&inspections["watermark"]) - at(&inspections["since"]);
    assert_eq!(back, chrono::Duration::days(2), "{inspections}");
    let tasks = list_of(&summary, "tasks");
    assert_eq!(
        at(&tasks["watermark"]) - at(&tasks["since"]),
        chrono::Duration::seconds(1)
    );

    // A deleted task is not listed again: its filter does not see it, a reconcile does.
    let task = listed(&sandbox, "/tasks").await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let answer = reqwest::Client::new()
        .delete(format!("{}/tasks/{task}", sandbox.base_url()))
        .header("api-key-id", "demo-key")
        .header("api-key-secret", "demo-secret")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 204);
    let (code, summary, _) = sync(&sandbox, &path, &[]).await;
    assert_eq!(code, 0);
    assert_eq!(list_of(&summary, "tasks")["marked_deleted"], 0, "{summary}");
    let (code, summary, _) = sync(&sandbox, &path, &["--reconcile"]).await;
    assert_eq!(code, 0);
    assert_eq!(list_of(&summary, "tasks")["whole"], true, "{summary}");
    assert_eq!(list_of(&summary, "tasks")["marked_deleted"], 1, "{summary}");
    let db = Connection::open(&path).unwrap();
    let deleted: String = db
        .query_row(
            "SELECT id FROM tasks WHERE _deleted_at IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(deleted, task);
    // Every inspection read again and none marked: all are still listed.
    assert_eq!(list_of(&summary, "inspections")["records"], 8, "{summary}");
    assert_eq!(list_of(&summary, "inspections")["marked_deleted"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_legacy_interface_syncs_into_a_database_of_its_own() {
    let sandbox = sandbox("--legacy-transactions 7").await;
    let dir = scratch("sync-legacy");
    let path = dir.join("legacy.db");
    let env = export_folder::legacy_env(&sandbox);
    let args = strings(&["--quiet", "sync", "legacy", &path.display().to_string()]);
    let ran = tool::run(&args, &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let db = Connection::open(&path).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM transactions", []), 7);
    assert!(count(&db, "SELECT count(*) FROM assets", []) > 0);
    // Transactions are read again from their watermark less the lookback.
    let ran = tool::run(&args, &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let transactions = list_of(&summary, "transactions");
    assert_eq!(transactions["whole"], false, "{summary}");
    assert_eq!(count(&db, "SELECT count(*) FROM transactions", []), 7);
    // A v3 database is not the legacy sync's.
    let v3 = dir.join("v3.db");
    let (code, _, stderr) = sync(&sandbox, &v3, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let args = strings(&["--quiet", "sync", "legacy", &v3.display().to_string()]);
    let ran = tool::run(&args, &env, None).await;
    tool::assert_failed(&ran, 10, "holds a sync of `v3`, not of `legacy`");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_on_a_disk_that_fills_up_keeps_whole_pages_and_resumes_once_space_is_freed() {
    let sandbox = sandbox("--inspections 150").await;
    let dir = scratch("sync-full-disk");
    let pages = ["--page-size", "20"];
    let Some(roomy) = SmallDisk::mount(&dir.join("roomy"), 8 << 20) else {
        return;
    };
    let whole = roomy.path.join("whole.db");
    let (code, _, stderr) = sync(&sandbox, &whole, &pages).await;
    assert_eq!(code, 0, "{stderr}");
    let expected = dump(&whole);
    let needed = roomy.used();

    let small = SmallDisk::mount(&dir.join("small"), needed * 3 / 4).unwrap();
    let path = small.path.join("fleet.db");
    let (code, _, stderr) = sync(&sandbox, &path, &pages).await;
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains("no space left on the disk")
            && stderr.contains(&path.display().to_string()),
        "the path and the cause are named: {stderr}"
    );
    {
        let db = Connection::open(&path).unwrap();
        let check: String = db
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
    }
    small.grow(8 << 20);
    let (code, _, stderr) = sync(&sandbox, &path, &pages).await;
    assert_eq!(code, 0, "{stderr}");
    let got = dump(&path);
    assert_same_tables(&got, &expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_whose_folders_turn_read_only_stops_whole_and_resumes_once_writable() {
    let sandbox = sandbox("--inspections 150 --rate-limit off").await;
    let dir = scratch("sync-read-only");
    let Some(disk) = SmallDisk::mount(&dir.join("disk"), 8 << 20) else {
        return;
    };
    let docs = disk.path.join("pdfs");
    let flags = |docs: &Path| {
        let docs = docs.display().to_string();
        // Documents through the API at 50 a second: slow enough to be caught part-way.
        strings(&["--documents", &docs, "--documents-from", "api"])
    };
    let whole = dir.join("whole.db");
    let mut whole_flags = flags(&dir.join("whole-pdfs"));
    whole_flags.extend(strings(&["--rate-limit", "off"]));
    let whole_flags: Vec<&str> = whole_flags.iter().map(String::as_str).collect();
    let (code, _, stderr) = sync(&sandbox, &whole, &whole_flags).await;
    assert_eq!(code, 0, "{stderr}");
    let expected = dump(&whole);

    // The documents' folder turns read-only part-way.
    let path = disk.path.join("fleet.db");
    let mut args = strings(&["--quiet", "--rate-limit", "50/1", "sync", "v3"]);
    args.push(path.display().to_string());
    args.extend(flags(&docs));
    let saved = || std::fs::read_dir(docs.join("documents")).map_or(0, |d| d.count());
    let mut read_only = None;
    let env = v3_env(&sandbox);
    let (ran, acted) = tool::run_acting(
        &args,
        &env,
        || saved() >= 20,
        || read_only = Some(disk.read_only(&docs)),
    )
    .await;
    assert!(acted, "the sync ended before 20 documents were seen");
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("Read-only file system")
            && ran.stderr.contains(&docs.display().to_string()),
        "the path and the cause are named: {}",
        ran.stderr
    );
    read_only.unwrap().undo();
    let ran = tool::run(&args, &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let got = dump(&path);
    assert_same_tables(&got, &expected);
    for entry in std::fs::read_dir(docs.join("documents")).unwrap() {
        let pdf = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(whole_pdf(&pdf));
    }

    // The database's own folder read-only: the next run is refused, naming it, and the
    // database is left as it was.
    let folder = disk.path.join("db");
    std::fs::create_dir_all(&folder).unwrap();
    let db = folder.join("fleet.db");
    let (code, _, stderr) = sync(&sandbox, &db, &["--only", "units"]).await;
    assert_eq!(code, 0, "{stderr}");
    let files = || {
        let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let before = files();
    let _read_only = disk.read_only(&folder);
    let (code, _, stderr) = sync(&sandbox, &db, &["--only", "units"]).await;
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains(&db.display().to_string()) && stderr.to_lowercase().contains("read-only"),
        "the path and the cause are named: {stderr}"
    );
    assert!(files() == before, "the database's files changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_state_is_refused_by_name_with_its_way_out_and_never_trusted() {
    let sandbox = sandbox("--inspections 30").await;
    let dir = scratch("sync-damaged");
    let whole = dir.join("whole.db");
    let (code, _, stderr) = sync(&sandbox, &whole, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    let expected = dump(&whole);
    // One file, whatever SQLite kept in its log.
    Connection::open(&whole)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let sql = |statement: &'static str| -> Box<dyn Fn(&Path)> {
        Box::new(move |path| {
            Connection::open(path)
                .unwrap()
                .execute_batch(statement)
                .unwrap();
        })
    };
    let bytes = |f: fn(Vec<u8>) -> Vec<u8>| -> Box<dyn Fn(&Path)> {
        Box::new(move |path| {
            let b = std::fs::read(path).unwrap();
            std::fs::write(path, f(b)).unwrap();
        })
    };
    // (case, damage, words the refusal names, whether `--rebuild` is its way out)
    type Damage = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Damage, &[&str], bool)> = vec![
        (
            "file cut short",
            bytes(|b| b[..b.len() / 2].to_vec()),
            &["is damaged", "restore it from a backup"],
            false,
        ),
        (
            "not a database",
            bytes(|b| b.iter().map(|x| x ^ 0x5a).collect()),
            &["is damaged", "sync into a new database"],
            false,
        ),
        (
            "state table missing",
            sql("DROP TABLE _sync_state"),
            &["`_sync_state` table is missing", "--rebuild"],
            true,
        ),
        (
            "a watermark that is not a time",
            sql("UPDATE _sync_state SET watermark = 'yesterday' WHERE list = 'list_inspections'"),
            &["watermark `yesterday` is not a time", "--rebuild"],
            true,
        ),
        (
            "a flag that is neither 0 nor 1",
            sql("UPDATE _sync_state SET in_pass = 7 WHERE list = 'list_units'"),
            &["in_pass is 7", "--rebuild"],
            true,
        ),
        (
            "made by a newer tool",
            sql("UPDATE _sync_meta SET value = '99' WHERE key = 'format'"),
            &["newer version of this tool (format 99"],
            false,
        ),
        (
            "made for another interface",
            sql("UPDATE _sync_meta SET value = 'legacy' WHERE key = 'interface'"),
            &["a sync of `legacy`, not of `v3`"],
            false,
        ),
    ];
    for (n, (case, damage, words, rebuild)) in cases.iter().enumerate() {
        let path = dir.join(format!("case-{n}.db"));
        std::fs::copy(&whole, &path).unwrap();
        damage(&path);
        let before = std::fs::read(&path).unwrap();
        let (code, _, stderr) = sync(&sandbox, &path, &[]).await;
        assert_eq!(code, 10, "{case}: {stderr}");
        for word in words.iter().chain(&[path.display().to_string().as_str()]) {
            assert!(stderr.contains(word), "{case}: no `{word}` in {stderr}");
        }
        assert!(
            !stderr.contains("run the same command again"),
            "{case}: {stderr}"
        );
        assert!(
            std::fs::read(&path).unwrap() == before,
            "{case}: the file was changed"
        );
        if *rebuild {
            let (code, _, stderr) = sync(&sandbox, &path, &["--rebuild"]).await;
            assert_eq!(code, 0, "{case}: {stderr}");
            assert_same_tables(&dump(&path), &expected);
        }
    }
}
