//! What the sync's PostgreSQL tests read back: a schema's tables as JSON rows, compared
//! between two syncs, and a table's row count.

#![allow(dead_code)] // Each test file uses its own share of these.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::postgres::Postgres;

/// Every table of `schema` but the tool's own, each row as JSON without what differs
/// between two equal syncs (when a row was written, the run that saw it, the links).
pub fn dump_schema(pg: &Postgres, database: &str, schema: &str) -> BTreeMap<String, Vec<Value>> {
    let tables = pg.psql(
        database,
        &format!(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = '{}' \
             AND table_name NOT LIKE '\\_sync%' ORDER BY 1",
            schema.replace('\'', "''")
        ),
    );
    let schema = schema.replace('"', "\"\"");
    tables
        .lines()
        .map(|table| {
            let sql = format!(
                "SELECT to_jsonb(t) - '_synced_at' - '_pass' - 'pdf_share_url' \
                 || jsonb_build_object('_record', t._record - 'pdf_share_url') \
                 FROM \"{schema}\".\"{table}\" t"
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

/// `count(*)` of `schema.table` in `database` (0 before the table is made).
pub fn rows_in(pg: &Postgres, database: &str, schema: &str, table: &str) -> usize {
    let name = format!("\"{schema}\".\"{table}\"");
    let made = pg.psql(
        database,
        &format!("SELECT to_regclass('{name}') IS NOT NULL"),
    );
    if made.trim() != "t" {
        return 0;
    }
    let count = pg.psql(database, &format!("SELECT count(*) FROM {name}"));
    count.trim().parse().unwrap()
}
