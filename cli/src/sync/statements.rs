//! The statements a sync runs, the same text for SQLite and PostgreSQL (numbered
//! parameters `$1`, every name quoted): the tool's own two tables, and per table the
//! upsert of a row and the removal of a record's rows. In PostgreSQL every table's name
//! is qualified with the schema the tables are in ([`Namespace`]): no statement depends
//! on the session's `search_path`, which a transaction-mode pooler does not keep.

use super::schema::{Schema, Table};

/// Where the tool's tables are: a PostgreSQL schema, every table's name qualified with
/// it, or SQLite's one database (names alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    schema: Option<String>,
}

/// SQLite's: names alone.
pub const SQLITE: Namespace = Namespace { schema: None };

impl Namespace {
    /// The PostgreSQL schema `name`.
    pub fn schema(name: &str) -> Namespace {
        Namespace {
            schema: Some(name.to_string()),
        }
    }

    /// `"schema"."name"` (`"name"` in SQLite).
    pub fn table(&self, name: &str) -> String {
        match &self.schema {
            Some(schema) => format!("{}.{}", quoted(schema), quoted(name)),
            None => quoted(name),
        }
    }

    /// The statements that make tables (`generated/sql/<interface>.postgres.sql`'s) with
    /// every table's name qualified: the lines the generator starts with one (`CREATE
    /// TABLE "t"`, `COMMENT ON TABLE "t"`, `COMMENT ON COLUMN "t"."c"`, `REFERENCES "t"`);
    /// a doc's text is on lines of its own, never one of these.
    pub fn qualified(&self, create: &str) -> String {
        let Some(schema) = &self.schema else {
            return create.to_string();
        };
        let prefix = format!("{}.", quoted(schema));
        create
            .split_inclusive('\n')
            .map(|line| {
                let start = [
                    "CREATE TABLE ",
                    "COMMENT ON TABLE ",
                    "COMMENT ON COLUMN ",
                    "    REFERENCES ",
                ]
                .iter()
                .find(|s| line.starts_with(*s) && line[s.len()..].starts_with('"'));
                match start {
                    Some(s) => format!("{}{prefix}{}", &line[..s.len()], &line[s.len()..]),
                    None => line.to_string(),
                }
            })
            .collect()
    }
}

/// The tool's tables, which a database this tool made has: what made the database, and
/// each list's place.
pub const META: &str = "_sync_meta";
pub const STATE: &str = "_sync_state";
/// The run history (the tool's tables' format 2).
pub const RUNS: &str = "_sync_runs";

/// The statement that makes the run history: a row per run (`runs.rs`).
pub fn create_runs(ns: &Namespace) -> String {
    format!(
        "CREATE TABLE {} (\
            \"run\" BIGINT NOT NULL PRIMARY KEY, \
            \"started_at\" TEXT NOT NULL, \
            \"updated_at\" TEXT NOT NULL, \
            \"ended_at\" TEXT, \
            \"outcome\" TEXT NOT NULL, \
            \"exit_code\" BIGINT, \
            \"error\" TEXT, \
            \"lists\" TEXT NOT NULL, \
            \"api_requests\" BIGINT NOT NULL, \
            \"rate_limited\" BIGINT NOT NULL, \
            \"tool_version\" TEXT NOT NULL, \
            \"spec_version\" TEXT NOT NULL)",
        ns.table(RUNS)
    )
}

/// The columns of a `_sync_runs` row, in the order they are written and read.
const RUN_COLUMNS: [&str; 12] = [
    "run",
    "started_at",
    "updated_at",
    "ended_at",
    "outcome",
    "exit_code",
    "error",
    "lists",
    "api_requests",
    "rate_limited",
    "tool_version",
    "spec_version",
];

/// Writes a run's row whole (`$1`...`$12`, in the order of the run history's columns),
/// made or replaced.
pub fn write_run(ns: &Namespace) -> String {
    let columns: Vec<String> = RUN_COLUMNS.iter().map(|c| quoted(c)).collect();
    let values: Vec<String> = (1..=columns.len()).map(|n| format!("${n}")).collect();
    let set: Vec<String> = columns[1..]
        .iter()
        .map(|c| format!("{c} = excluded.{c}"))
        .collect();
    format!(
        "INSERT INTO {} ({}) VALUES ({}) ON CONFLICT (\"run\") DO UPDATE SET {}",
        ns.table(RUNS),
        columns.join(", "),
        values.join(", "),
        set.join(", ")
    )
}

/// Every run's row, the newest first.
pub fn read_runs(ns: &Namespace) -> String {
    let columns: Vec<String> = RUN_COLUMNS.iter().map(|c| quoted(c)).collect();
    format!(
        "SELECT {} FROM {} ORDER BY \"run\" DESC",
        columns.join(", "),
        ns.table(RUNS)
    )
}

/// The number the next run takes.
pub fn next_run(ns: &Namespace) -> String {
    format!(
        "SELECT CAST(COALESCE(MAX(\"run\"), 0) + 1 AS BIGINT) FROM {}",
        ns.table(RUNS)
    )
}

/// Marks the rows of runs that never ended (`running`, while this run holds the lock: so
/// none of them runs) as killed.
pub fn mark_killed(ns: &Namespace) -> String {
    format!(
        "UPDATE {} SET \"outcome\" = 'killed' WHERE \"outcome\" = 'running'",
        ns.table(RUNS)
    )
}

/// The statements that make the tool's tables. `TEXT` and `BIGINT` mean the same in both
/// databases; times are RFC 3339 text here.
pub fn create_own(ns: &Namespace) -> [String; 3] {
    [
        format!(
            "CREATE TABLE {} (\"key\" TEXT NOT NULL PRIMARY KEY, \"value\" TEXT NOT NULL)",
            ns.table(META)
        ),
        format!(
            "CREATE TABLE {} (\
                \"list\" TEXT NOT NULL PRIMARY KEY, \
                \"pass\" BIGINT NOT NULL, \
                \"in_pass\" BIGINT NOT NULL, \
                \"whole\" BIGINT NOT NULL, \
                \"since\" TEXT, \
                \"resume\" TEXT, \
                \"watermark\" TEXT, \
                \"started_at\" TEXT, \
                \"finished_at\" TEXT)",
            ns.table(STATE)
        ),
        create_runs(ns),
    ]
}

pub fn read_meta(ns: &Namespace) -> String {
    format!("SELECT \"key\", \"value\" FROM {}", ns.table(META))
}

pub fn write_meta(ns: &Namespace) -> String {
    format!(
        "INSERT INTO {} (\"key\", \"value\") VALUES ($1, $2) \
         ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"",
        ns.table(META)
    )
}

pub fn read_state(ns: &Namespace) -> String {
    format!(
        "SELECT \"pass\", \"in_pass\", \"whole\", \"since\", \"resume\", \"watermark\", \
         \"started_at\", \"finished_at\" FROM {} WHERE \"list\" = $1",
        ns.table(STATE)
    )
}

pub fn write_state(ns: &Namespace) -> String {
    format!(
        "INSERT INTO {} (\"list\", \"pass\", \"in_pass\", \"whole\", \"since\", \"resume\", \
         \"watermark\", \"started_at\", \"finished_at\") \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (\"list\") DO UPDATE SET \
         \"pass\" = excluded.\"pass\", \"in_pass\" = excluded.\"in_pass\", \
         \"whole\" = excluded.\"whole\", \"since\" = excluded.\"since\", \
         \"resume\" = excluded.\"resume\", \"watermark\" = excluded.\"watermark\", \
         \"started_at\" = excluded.\"started_at\", \"finished_at\" = excluded.\"finished_at\"",
        ns.table(STATE)
    )
}

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
    pub fn of(table: &Table, ns: &Namespace) -> Statements {
        let name = ns.table(table.name);
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
    pub fn all(schema: &Schema, ns: &Namespace) -> Vec<Statements> {
        schema
            .tables
            .iter()
            .map(|t| Statements::of(t, ns))
            .collect()
    }
}

/// Marks the rows of a list's table that the whole walk `$2` did not see, at `$1`.
pub fn mark_deleted(table: &Table, ns: &Namespace) -> String {
    format!(
        "UPDATE {} SET \"_deleted_at\" = $1 WHERE \"_pass\" < $2 AND \"_deleted_at\" IS NULL",
        ns.table(table.name)
    )
}

/// The records of a list's table after the id `$1`, by id, a batch at a time (a
/// migration reads each record's stored JSON again).
pub fn records_after(table: &Table, batch: usize, ns: &Namespace) -> String {
    let id = quoted(table.keys[0]);
    format!(
        "SELECT {id}, CAST(\"_record\" AS TEXT) FROM {} WHERE {id} > $1 ORDER BY {id} LIMIT {batch}",
        ns.table(table.name)
    )
}

/// Sets `columns` (indexes into the table's columns, `$1`...) of the row with the keys
/// that follow them.
pub fn update_columns(table: &Table, columns: &[usize], ns: &Namespace) -> String {
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
        ns.table(table.name),
        set.join(", "),
        key.join(" AND ")
    )
}

/// Keeps a record's document path (`$1`) in its list's row (id `$2`).
pub fn set_document(table: &Table, ns: &Namespace) -> String {
    format!(
        "UPDATE {} SET \"_document\" = $1 WHERE {} = $2",
        ns.table(table.name),
        quoted(table.keys[0])
    )
}

/// Whether a list's table holds the record `$1`.
pub fn exists(table: &Table, ns: &Namespace) -> String {
    format!(
        "SELECT 1 FROM {} WHERE {} = $1",
        ns.table(table.name),
        quoted(table.keys[0])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every statement that names a table in `create` (the generator's PostgreSQL text),
    /// with the schema `"Acme ""Fleet"""` qualifying it: every table's name follows it.
    #[test]
    fn every_table_the_generated_statements_name_is_qualified() {
        let ns = Namespace::schema("Acme \"Fleet\"");
        let prefix = "\"Acme \"\"Fleet\"\"\".\"";
        for create in [
            include_str!("../../../generated/sql/v3.postgres.sql"),
            include_str!("../../../generated/sql/legacy.postgres.sql"),
        ] {
            let qualified = ns.qualified(create);
            assert_eq!(qualified.lines().count(), create.lines().count());
            let mut named = 0;
            for line in qualified.lines() {
                let keyword = ["CREATE TABLE ", "COMMENT ON ", "REFERENCES "]
                    .iter()
                    .find_map(|k| line.find(k).map(|at| &line[at + k.len()..]));
                let Some(rest) = keyword else { continue };
                let rest = rest
                    .strip_prefix("TABLE ")
                    .or_else(|| rest.strip_prefix("COLUMN "))
                    .unwrap_or(rest);
                assert!(rest.starts_with(prefix), "not qualified: {line}");
                named += 1;
            }
            let tables = create.matches("\nCREATE TABLE ").count();
            assert!(named > tables * 3, "{named} statements for {tables} tables");
            // The docs' text is unchanged.
            let docs = |t: &str| t.lines().filter(|l| l.starts_with("  '")).count();
            assert_eq!(docs(&qualified), docs(create));
        }
        assert_eq!(
            SQLITE.qualified("CREATE TABLE \"t\" (\n);\n"),
            "CREATE TABLE \"t\" (\n);\n"
        );
    }

    #[test]
    fn the_tool_s_own_statements_name_the_schema() {
        let ns = Namespace::schema("acme");
        let all = [
            read_meta(&ns),
            write_meta(&ns),
            read_state(&ns),
            write_state(&ns),
            write_run(&ns),
            read_runs(&ns),
            next_run(&ns),
            mark_killed(&ns),
        ];
        for sql in all.iter().chain(&create_own(&ns)) {
            assert!(sql.contains("\"acme\".\"_sync_"), "{sql}");
        }
        assert_eq!(
            read_meta(&SQLITE),
            "SELECT \"key\", \"value\" FROM \"_sync_meta\""
        );
    }
}
