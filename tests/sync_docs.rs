//! What `inspection sync` promises in words holds in both databases: every spec's tables
//! (the real one and the small specs of `tests/specs`) are made by SQLite and by a real
//! PostgreSQL exactly as generated, and every ```sql block of docs/sync.md runs as
//! written against a synced database of each, answering the same rows.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/cli_process.rs"]
mod tool;

use std::path::Path;

use rusqlite::Connection;

use export_folder::{control, sandbox, scratch, strings, v3_env};
use postgres::Postgres;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn every_spec_s_tables_are_made_in_sqlite_and_postgres() {
    let pg = Postgres::start("sync-tables");
    let (_, mut files) = codegen::generate_from(root()).unwrap();
    let small = codegen::load_dir(root(), &root().join("tests/specs")).unwrap();
    files.extend(codegen::generate(&small).unwrap());
    let mut made = 0;
    for file in files
        .iter()
        .filter(|f| f.path.starts_with("generated/sql/"))
    {
        if file.path.ends_with(".sqlite.sql") {
            let db = Connection::open_in_memory().unwrap();
            db.execute_batch(&file.contents)
                .unwrap_or_else(|e| panic!("SQLite refuses {}: {e}", file.path));
            made += 1;
        } else if file.path.ends_with(".postgres.sql") {
            let name = format!("t{made}");
            pg.create_database(&name);
            pg.psql(&name, &file.contents);
            made += 1;
        }
    }
    // v3 and legacy, and each small spec with a sync, in both databases.
    assert!(made >= 8, "only {made} files of statements");
}

/// The ```sql blocks of a Markdown text.
fn sql_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim()) {
            (None, "```sql") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_query_of_docs_sync_md_runs_in_both_databases_alike() {
    let text = std::fs::read_to_string(root().join("docs/sync.md")).unwrap();
    let blocks = sql_blocks(&text);
    assert!(blocks.len() >= 4, "{} sql blocks", blocks.len());

    let sandbox = sandbox("--inspections 20").await;
    let pg = Postgres::start("sync-docs");
    pg.create_database("fleet");
    let lite = scratch("sync-docs").join("fleet.db");
    let databases = [lite.display().to_string(), pg.url("fleet")];
    for db in &databases {
        let ran = tool::run(
            &strings(&["--quiet", "sync", "v3", db]),
            &v3_env(&sandbox),
            None,
        )
        .await;
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }
    // A unit no longer listed, so that every query has rows to show.
    control(&sandbox, "DELETE", "/_sandbox/v3/units/unt_001").await;
    for db in &databases {
        let args = strings(&["--quiet", "sync", "v3", db, "--only", "units"]);
        let ran = tool::run(&args, &v3_env(&sandbox), None).await;
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }

    let sqlite = Connection::open(&lite).unwrap();
    for block in &blocks {
        let mut stmt = sqlite
            .prepare(block)
            .unwrap_or_else(|e| panic!("SQLite refuses:\n{block}{e}"));
        let columns = stmt.column_count();
        let from_sqlite: Vec<String> = stmt
            .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))
            .unwrap()
            .map(|v| match v.unwrap() {
                rusqlite::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
            .collect();
        let out = pg.psql("fleet", block);
        let from_pg: Vec<String> = out
            .lines()
            .map(|l| l.split('|').next().unwrap_or("").to_string())
            .collect();
        assert!(!from_sqlite.is_empty(), "no rows in SQLite for:\n{block}");
        assert_eq!(
            from_pg, from_sqlite,
            "PostgreSQL and SQLite answer differently ({columns} columns):\n{block}"
        );
    }
}
