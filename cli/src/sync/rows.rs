//! A record as the rows of its tables: its list's row (keys, typed columns, the record's
//! JSON) and a row per element of each array of records below it, keyed by the record's
//! id and the positions above. A value that does not fit its column's type (the service
//! sent a string where the spec says integer) leaves the column null; the row's JSON
//! keeps it.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::runs::{RunRecord, RunValues};
use super::schema::{Column, Kind, List, Only, Schema, Table};
use super::state::ListState;
use crate::export::{id_text, time_of};

/// One value to store.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Text(String),
    Int(i64),
    Real(f64),
    Bool(bool),
    Time(DateTime<Utc>),
    Json(String),
}

/// A row of a table: its keys, then its columns, then its element's JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub table: usize,
    pub cells: Vec<Cell>,
}

/// A record's rows, its id and its watermark (when the list has one).
#[derive(Debug)]
pub struct Record {
    pub id: String,
    pub watermark: Option<DateTime<Utc>>,
    pub rows: Vec<Row>,
}

/// A page to commit: its records' rows, and the documents saved for them (the record's
/// id, the file's path).
pub struct Page<'a> {
    pub records: &'a [Record],
    pub documents: &'a [(String, String)],
}

/// A checkpoint of a list, which each of its writes (a page's commit, a pass's end)
/// records beside its rows: the list, its new state, the run's row as it now stands, and
/// the time.
pub struct Checkpoint<'a> {
    pub schema: &'a Schema,
    pub list: &'a List,
    pub state: ListState,
    pub run: RunValues,
    pub now: DateTime<Utc>,
}

impl<'a> Checkpoint<'a> {
    /// The progress of `list` at `state` in the run `run`, now.
    pub fn new(schema: &'a Schema, list: &'a List, state: &ListState, run: &RunRecord) -> Self {
        let now = Utc::now();
        Checkpoint {
            schema,
            list,
            state: state.clone(),
            run: run.values(now),
            now,
        }
    }
}

/// The rows of `value`, a record of `list`.
pub fn record(schema: &Schema, list: &List, value: &Value) -> Result<Record, String> {
    let table = &schema.tables[list.table];
    let id = match at(value, table.id).and_then(id_text) {
        Some(id) => id,
        None => {
            return Err(format!(
                "a record of {} has no id (`{}`)",
                list.list,
                table.id.join(".")
            ));
        }
    };
    let watermark = match list.current {
        super::schema::Current::Filter { watermark, .. } => {
            at(value, &[watermark]).and_then(time_of)
        }
        super::schema::Current::Walk => None,
    };
    let mut rows = Vec::new();
    element(
        schema,
        list.table,
        vec![Cell::Text(id.clone())],
        value,
        &mut rows,
    );
    Ok(Record {
        id,
        watermark,
        rows,
    })
}

/// `value`'s row in `table` under `keys`, then its children's.
fn element(schema: &Schema, index: usize, keys: Vec<Cell>, value: &Value, out: &mut Vec<Row>) {
    let table = &schema.tables[index];
    let mut cells = keys.clone();
    cells.extend(table.columns.iter().map(|c| cell(c, value)));
    cells.push(Cell::Json(value.to_string()));
    out.push(Row {
        table: index,
        cells,
    });
    for (child_index, child) in schema.children(index) {
        for (position, item) in items(child, value) {
            let mut below = keys.clone();
            below.push(Cell::Int(position as i64));
            element(schema, child_index, below, item, out);
        }
    }
}

/// The elements of `child`'s array in its parent's element `value`, when there is one.
fn items<'v>(child: &Table, value: &'v Value) -> impl Iterator<Item = (usize, &'v Value)> {
    let array = match (holds(child.only.as_ref(), value), at(value, child.path)) {
        (true, Some(Value::Array(items))) => items.as_slice(),
        _ => &[],
    };
    array.iter().enumerate()
}

fn cell(column: &Column, value: &Value) -> Cell {
    if !holds(column.only.as_ref(), value) {
        return Cell::Null;
    }
    let Some(v) = at(value, column.path) else {
        return Cell::Null;
    };
    match (column.kind, v) {
        (_, Value::Null) => Cell::Null,
        (Kind::Json, v) => Cell::Json(v.to_string()),
        (Kind::Text | Kind::Date | Kind::Scalar, Value::String(s)) => Cell::Text(s.clone()),
        (Kind::Text | Kind::Scalar, Value::Number(n)) => Cell::Text(n.to_string()),
        (Kind::Scalar, Value::Bool(b)) => Cell::Text(b.to_string()),
        (Kind::Integer | Kind::Int32, Value::Number(n)) => n.as_i64().map_or(Cell::Null, Cell::Int),
        (Kind::Real, Value::Number(n)) => n.as_f64().map_or(Cell::Null, Cell::Real),
        (Kind::Boolean, Value::Bool(b)) => Cell::Bool(*b),
        (Kind::Timestamp, v) => time_of(v).map_or(Cell::Null, Cell::Time),
        _ => Cell::Null,
    }
}

/// Whether the element is one of the union members a column or table is read from.
fn holds(only: Option<&Only>, value: &Value) -> bool {
    only.is_none_or(|o| {
        at(value, o.tag)
            .and_then(Value::as_str)
            .is_some_and(|tag| o.members.contains(&tag))
    })
}

fn at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::schema::Current;

    static TABLES: &[Table] = &[
        Table {
            name: "things",
            parent: None,
            path: &[],
            only: None,
            keys: &["id"],
            id: &["id"],
            document: false,
            columns: &[
                Column {
                    name: "n",
                    kind: Kind::Integer,
                    path: &["n"],
                    only: None,
                    definition: ["", ""],
                },
                Column {
                    name: "at",
                    kind: Kind::Timestamp,
                    path: &["at"],
                    only: None,
                    definition: ["", ""],
                },
            ],
        },
        Table {
            name: "things_parts",
            parent: Some(0),
            path: &["parts"],
            only: None,
            keys: &["thing_id", "position"],
            id: &[],
            document: false,
            columns: &[
                Column {
                    name: "kind",
                    kind: Kind::Text,
                    path: &["kind"],
                    only: None,
                    definition: ["", ""],
                },
                Column {
                    name: "size",
                    kind: Kind::Integer,
                    path: &["size"],
                    only: Some(Only {
                        tag: &["kind"],
                        members: &["big"],
                    }),
                    definition: ["", ""],
                },
            ],
        },
    ];
    static SCHEMA: Schema = Schema {
        interface: "t",
        spec_version: "0",
        lists: &[List {
            list: "list_things",
            table: 0,
            current: Current::Filter {
                watermark: "at",
                changes: false,
            },
        }],
        tables: TABLES,
        create: ["", ""],
        ir: "",
    };

    #[test]
    fn a_record_becomes_its_row_and_its_elements_rows() {
        let value = serde_json::json!({
            "id": "t1", "n": "not a number", "at": "2026-01-02T03:04:05+01:00", "extra": true,
            "parts": [{"kind": "big", "size": 3}, {"kind": "small", "size": 4}, {"kind": "new"}]
        });
        let r = record(&SCHEMA, &SCHEMA.lists[0], &value).unwrap();
        assert_eq!(r.id, "t1");
        assert_eq!(
            r.watermark.unwrap().to_rfc3339(),
            "2026-01-02T02:04:05+00:00"
        );
        assert_eq!(r.rows.len(), 4);
        assert_eq!(r.rows[0].cells[1], Cell::Null, "a string is no integer");
        assert_eq!(r.rows[0].cells[3], Cell::Json(value.to_string()));
        let parts: Vec<_> = r.rows[1..].iter().map(|row| &row.cells[..4]).collect();
        assert_eq!(
            parts[0],
            [
                Cell::Text("t1".into()),
                Cell::Int(0),
                Cell::Text("big".into()),
                Cell::Int(3)
            ]
        );
        // `size` belongs to the `big` member only.
        assert_eq!(parts[1][3], Cell::Null);
        assert_eq!(parts[2][2], Cell::Text("new".into()));
    }

    #[test]
    fn a_record_without_an_id_is_refused_by_name() {
        let e = record(&SCHEMA, &SCHEMA.lists[0], &serde_json::json!({"n": 1})).unwrap_err();
        assert_eq!(e, "a record of list_things has no id (`id`)");
    }
}
