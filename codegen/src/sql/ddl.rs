//! The statements that create an interface's tables, in SQLite's or PostgreSQL's words:
//! the same tables, columns, keys and checks; each table's and column's doc as a comment
//! (SQLite keeps it in the schema) or `COMMENT ON` (PostgreSQL).

use super::names::quoted;
use super::tables::{Check, Column, Kind, Table};

/// The two databases a sync writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    pub const ALL: [Dialect; 2] = [Dialect::Sqlite, Dialect::Postgres];

    /// The file name's part (`v3.sqlite.sql`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
        }
    }

    /// A column's type.
    pub fn type_of(self, kind: Kind) -> &'static str {
        match (self, kind) {
            (Dialect::Sqlite, Kind::Integer | Kind::Int32) => "INTEGER",
            (Dialect::Sqlite, Kind::Real) => "REAL",
            (Dialect::Sqlite, Kind::Boolean) => "BOOLEAN",
            // Text affinity: a JSON text or a date is never turned into a number.
            (Dialect::Sqlite, _) => "TEXT",
            (Dialect::Postgres, Kind::Text | Kind::Scalar) => "text",
            (Dialect::Postgres, Kind::Integer) => "bigint",
            (Dialect::Postgres, Kind::Int32) => "integer",
            (Dialect::Postgres, Kind::Real) => "double precision",
            (Dialect::Postgres, Kind::Boolean) => "boolean",
            (Dialect::Postgres, Kind::Timestamp) => "timestamptz",
            (Dialect::Postgres, Kind::Date) => "date",
            (Dialect::Postgres, Kind::Json) => "jsonb",
        }
    }
}

/// The tool's columns of every table, as (name, kind, not null, doc); a list's table
/// (not a child's) adds [`LISTED`].
pub const KEPT: &[(&str, Kind, bool, &str)] = &[
    (
        "_record",
        Kind::Json,
        true,
        "The row's record (or element) as the service sent it, every property kept.",
    ),
    (
        "_synced_at",
        Kind::Timestamp,
        true,
        "When the tool last wrote the row (UTC).",
    ),
];

pub const LISTED: &[(&str, Kind, bool, &str)] = &[
    (
        "_pass",
        Kind::Integer,
        true,
        "The run of the sync that last saw the record listed.",
    ),
    (
        "_deleted_at",
        Kind::Timestamp,
        false,
        "When a walk of the whole list no longer found the record (null while it is listed).",
    ),
];

/// The line that starts each table's statements: the tool finds a table's statements by
/// it (a migration makes a new table alone).
pub const TABLE_MARK: &str = "-- table: ";

/// The column of a list's table whose records have a document.
pub const DOCUMENT: (&str, Kind, bool, &str) = (
    "_document",
    Kind::Text,
    false,
    "Where `--documents` saved the record's document (its path), null until it has.",
);

/// The tool's columns of `t`: [`KEPT`], a list's [`LISTED`], and [`DOCUMENT`] where its
/// records have one.
pub fn kept(t: &Table) -> Vec<(&'static str, Kind, bool, &'static str)> {
    let mut out = KEPT.to_vec();
    if t.parent.is_none() {
        out.extend_from_slice(LISTED);
    }
    if t.document {
        out.push(DOCUMENT);
    }
    out
}

/// Every statement that creates `tables`, each table's after its [`TABLE_MARK`] line and
/// ending in `;` and a blank line.
pub fn create(dialect: Dialect, tables: &[Table]) -> String {
    let mut out = String::new();
    for t in tables {
        out.push_str(&format!("{TABLE_MARK}{}\n", t.name));
        out.push_str(&create_table(dialect, t, tables));
        out.push('\n');
    }
    out
}

/// The statements that make one table (and, in PostgreSQL, its comments).
fn create_table(dialect: Dialect, t: &Table, tables: &[Table]) -> String {
    let mut lines: Vec<(String, &str)> = Vec::new();
    for k in &t.keys {
        let kind = match k.kind {
            super::tables::KeyKind::Position => Kind::Int32,
            _ => Kind::Text,
        };
        let line = format!("{} {} NOT NULL", quoted(&k.name), dialect.type_of(kind));
        lines.push((line, &k.doc));
    }
    for c in &t.columns {
        lines.push((column(dialect, c), &c.doc));
    }
    let kept = kept(t);
    for (name, kind, not_null, doc) in &kept {
        let null = if *not_null { " NOT NULL" } else { "" };
        lines.push((
            format!("{} {}{null}", quoted(name), dialect.type_of(*kind)),
            doc,
        ));
    }
    let key: Vec<String> = t.keys.iter().map(|k| quoted(&k.name)).collect();
    lines.push((format!("PRIMARY KEY ({})", key.join(", ")), ""));
    if let Some(parent) = t.parent.map(|p| &tables[p]) {
        let own: Vec<String> = key[..key.len() - 1].to_vec();
        let theirs: Vec<String> = parent.keys.iter().map(|k| quoted(&k.name)).collect();
        lines.push((
            format!(
                "FOREIGN KEY ({})\n    REFERENCES {} ({})\n    ON DELETE CASCADE",
                own.join(", "),
                quoted(&parent.name),
                theirs.join(", ")
            ),
            "",
        ));
    }
    let mut out = String::new();
    let sqlite = dialect == Dialect::Sqlite;
    if sqlite {
        out.push_str(&comment("", &t.doc));
    }
    out.push_str(&format!("CREATE TABLE {} (\n", quoted(&t.name)));
    let last = lines.len() - 1;
    for (n, (line, doc)) in lines.iter().enumerate() {
        if sqlite && !doc.is_empty() {
            out.push_str(&comment("  ", doc));
        }
        let comma = if n == last { "" } else { "," };
        out.push_str(&format!("  {line}{comma}\n"));
    }
    out.push_str(");\n");
    if !sqlite {
        out.push_str(&comments_on(t, &kept));
    }
    out
}

/// A column's definition: its name, type and check.
pub fn column(dialect: Dialect, c: &Column) -> String {
    let name = quoted(&c.name);
    let check = match &c.check {
        Some(Check::Range(min, max)) => bounds(&name, *min, *max),
        Some(Check::Length(min, max)) => bounds(
            &format!("length({name})"),
            min.map(i64::from),
            max.map(i64::from),
        ),
        None => String::new(),
    };
    format!("{name} {}{check}", dialect.type_of(c.kind))
}

fn bounds(of: &str, min: Option<i64>, max: Option<i64>) -> String {
    match (min, max) {
        (Some(a), Some(b)) if a == b => format!(" CHECK ({of} = {a})"),
        (Some(a), Some(b)) => format!(" CHECK ({of} BETWEEN {a} AND {b})"),
        (Some(a), None) => format!(" CHECK ({of} >= {a})"),
        (None, Some(b)) => format!(" CHECK ({of} <= {b})"),
        (None, None) => String::new(),
    }
}

/// PostgreSQL keeps each doc with its table or column.
fn comments_on(t: &Table, kept: &[(&str, Kind, bool, &str)]) -> String {
    let table = quoted(&t.name);
    let mut out = format!("COMMENT ON TABLE {table} IS\n{};\n", literal(&t.doc));
    let keys = t.keys.iter().map(|k| (k.name.as_str(), k.doc.as_str()));
    let columns = t.columns.iter().map(|c| (c.name.as_str(), c.doc.as_str()));
    let kept = kept.iter().map(|(n, _, _, d)| (*n, *d));
    for (name, doc) in keys.chain(columns).chain(kept) {
        out.push_str(&format!(
            "COMMENT ON COLUMN {table}.{} IS\n{};\n",
            quoted(name),
            literal(doc)
        ));
    }
    out
}

/// Lines of a doc, none much over [`WIDTH`].
const WIDTH: usize = 88;

/// A doc as `--` comment lines.
fn comment(indent: &str, doc: &str) -> String {
    lines(doc)
        .iter()
        .map(|l| format!("{indent}-- {l}\n"))
        .collect()
}

/// A doc as a string literal, one piece a line: PostgreSQL joins literals that only a
/// line break separates.
fn literal(doc: &str) -> String {
    let pieces: Vec<String> = lines(doc)
        .iter()
        .enumerate()
        .map(|(n, l)| {
            let space = if n == 0 { "" } else { " " };
            format!("  '{space}{}'", l.replace('\'', "''"))
        })
        .collect();
    pieces.join("\n")
}

/// `doc`'s words in lines of at most [`WIDTH`] characters (a longer word alone).
pub(super) fn lines(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in doc.split_whitespace() {
        match out.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= WIDTH => {
                line.push(' ');
                line.push_str(word);
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}
