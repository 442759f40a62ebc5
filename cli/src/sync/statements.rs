//! The statements a sync runs, the same text for SQLite and PostgreSQL (numbered
//! parameters `$1`, every name quoted): the tool's own two tables, and per table the
//! upsert of a row and the removal of a record's rows.

use super::schema::{Schema, Table};

/// The tool's tables: what made the database, and each list's place. `TEXT` and
/// `BIGINT` mean the same in both databases; times are RFC 3339 text here.
pub const CREATE_OWN: &[&str] = &[
    "CREATE TABLE \"_sync_meta\" (\"key\" TEXT NOT NULL PRIMARY KEY, \"value\" TEXT NOT NULL)",
    "CREATE TABLE \"_sync_state\" (\
        \"list\" TEXT NOT NULL PRIMARY KEY, \
        \"pass\" BIGINT NOT NULL, \
        \"in_pass\" BIGINT NOT NULL, \
        \"whole\" BIGINT NOT NULL, \
        \"since\" TEXT, \
        \"resume\" TEXT, \
        \"watermark\" TEXT, \
        \"started_at\" TEXT, \
        \"finished_at\" TEXT)",
];

/// The tool's tables, which a database this tool made has.
pub const META: &str = "_sync_meta";
pub const STATE: &str = "_sync_state";

pub const READ_META: &str = "SELECT \"key\", \"value\" FROM \"_sync_meta\"";
pub const WRITE_META: &str = "INSERT INTO \"_sync_meta\" (\"key\", \"value\") VALUES ($1, $2) \
    ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"";
pub const READ_STATE: &str = "SELECT \"pass\", \"in_pass\", \"whole\", \"since\", \"resume\", \
    \"watermark\", \"started_at\", \"finished_at\" FROM \"_sync_state\" WHERE \"list\" = $1";
pub const WRITE_STATE: &str = "INSERT INTO \"_sync_state\" (\"list\", \"pass\", \"in_pass\", \
    \"whole\", \"since\", \"resume\", \"watermark\", \"started_at\", \"finished_at\") \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (\"list\") DO UPDATE SET \
    \"pass\" = excluded.\"pass\", \"in_pass\" = excluded.\"in_pass\", \"whole\" = excluded.\"whole\", \
    \"since\" = excluded.\"since\", \"resume\" = excluded.\"resume\", \
    \"watermark\" = excluded.\"watermark\", \"started_at\" = excluded.\"started_at\", \
    \"finished_at\" = excluded.\"finished_at\"";

/// `"name"`.
pub fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A table's statements, made once per run.
#[derive(Debug, Clone)]
pub struct Statements {
    /// Writes a row (its keys, columns, JSON, then the time and, for a list's table,
    /// the run): an upsert by key for a list's table, an insert for a child's.
    pub write: String,
    /// Removes every row of one record (by the root id, the first key).
    pub remove: String,
}

impl Statements {
    pub fn of(table: &Table) -> Statements {
        let name = quoted(table.name);
        let mut columns: Vec<String> = table.keys.iter().map(|k| quoted(k)).collect();
        columns.extend(table.columns.iter().map(|c| quoted(c.name)));
        columns.push(quoted("_record"));
        columns.push(quoted("_synced_at"));
        let listed = table.parent.is_none();
        if listed {
            columns.push(quoted("_pass"));
            columns.push(quoted("_deleted_at"));
        }
        let values: Vec<String> = (1..=columns.len())
            .map(|n| match (listed, n == columns.len()) {
                // Listed again: no longer deleted.
                (true, true) => "NULL".to_string(),
                _ => format!("${n}"),
            })
            .collect();
        let mut write = format!(
            "INSERT INTO {name} ({}) VALUES ({})",
            columns.join(", "),
            values.join(", ")
        );
        if listed {
            let key = &columns[..table.keys.len()];
            let set: Vec<String> = columns[table.keys.len()..]
                .iter()
                .map(|c| format!("{c} = excluded.{c}"))
                .collect();
            write.push_str(&format!(
                " ON CONFLICT ({}) DO UPDATE SET {}",
                key.join(", "),
                set.join(", ")
            ));
        }
        let remove = format!("DELETE FROM {name} WHERE {} = $1", quoted(table.keys[0]));
        Statements { write, remove }
    }

    /// Every table's, in the schema's order.
    pub fn all(schema: &Schema) -> Vec<Statements> {
        schema.tables.iter().map(Statements::of).collect()
    }
}

/// Marks the rows of a list's table that the whole walk `$2` did not see, at `$1`.
pub fn mark_deleted(table: &Table) -> String {
    format!(
        "UPDATE {} SET \"_deleted_at\" = $1 WHERE \"_pass\" < $2 AND \"_deleted_at\" IS NULL",
        quoted(table.name)
    )
}

/// The records of a list's table after the id `$1`, by id, a batch at a time (a
/// migration reads each record's stored JSON again).
pub fn records_after(table: &Table, batch: usize) -> String {
    let id = quoted(table.keys[0]);
    format!(
        "SELECT {id}, CAST(\"_record\" AS TEXT) FROM {} WHERE {id} > $1 ORDER BY {id} LIMIT {batch}",
        quoted(table.name)
    )
}

/// Sets `columns` (indexes into the table's columns, `$1`...) of the row with the keys
/// that follow them.
pub fn update_columns(table: &Table, columns: &[usize]) -> String {
    let set: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(n, &c)| format!("{} = ${}", quoted(table.columns[c].name), n + 1))
        .collect();
    let key: Vec<String> = table
        .keys
        .iter()
        .enumerate()
        .map(|(n, k)| format!("{} = ${}", quoted(k), columns.len() + n + 1))
        .collect();
    format!(
        "UPDATE {} SET {} WHERE {}",
        quoted(table.name),
        set.join(", "),
        key.join(" AND ")
    )
}

/// Keeps a record's document path (`$1`) in its list's row (id `$2`).
pub fn set_document(table: &Table) -> String {
    format!(
        "UPDATE {} SET \"_document\" = $1 WHERE {} = $2",
        quoted(table.name),
        quoted(table.keys[0])
    )
}

/// Whether a list's table holds the record `$1`.
pub fn exists(table: &Table) -> String {
    format!(
        "SELECT 1 FROM {} WHERE {} = $1",
        quoted(table.name),
        quoted(table.keys[0])
    )
}
