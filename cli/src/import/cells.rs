//! A row's cells as the call's arguments: each read as its column's type says (a CSV
//! cell's text, a JSON Lines value), `column.KEY` cells folded into their map, the
//! columns put where the operation takes them (path, query, body, or the body's wrapped
//! record). A cell that does not read is a problem naming its column and the rule.

use chrono::{DateTime, NaiveDate};
use serde_json::{Map, Value};

use super::file::{Cell, Name, Problem, Row};
use super::journal::Fnv;
use super::{CellKind, Column, Place, Target};
use crate::call::Args;

/// A row read: its arguments by place, its key and the hash of its values.
#[derive(Debug, Clone)]
pub struct Typed {
    pub line: u64,
    path: Map<String, Value>,
    query: Map<String, Value>,
    body: Map<String, Value>,
    pub key: String,
    pub hash: String,
}

impl Typed {
    /// The call's arguments.
    pub fn args(&self, target: &Target) -> Args {
        let body = match target.row {
            Some(row) => Value::Object(Map::from_iter([(
                row.to_string(),
                Value::Object(self.body.clone()),
            )])),
            None => Value::Object(self.body.clone()),
        };
        Args {
            path: self.path.clone(),
            query: self.query.clone(),
            body: Some(body),
            ..Args::default()
        }
    }

    /// The value of column `name`, when the row gives one.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.body
            .get(name)
            .or_else(|| self.path.get(name))
            .or_else(|| self.query.get(name))
    }
}

/// Reads `row` for `target`: the row (its bad cells left out) and every problem of its
/// cells at once.
pub fn read_row(target: &Target, row: Row) -> (Typed, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut typed = Typed {
        line: row.line,
        path: Map::new(),
        query: Map::new(),
        body: Map::new(),
        key: String::new(),
        hash: String::new(),
    };
    let problem = |column: &str, rule: String| Problem {
        line: row.line,
        column: Some(column.to_string()),
        rule,
    };
    for (name, cell) in row.cells {
        match name {
            Name::Ignored => {}
            Name::Column(c) => match read(c.kind, cell) {
                Ok(value) => {
                    typed.place(c).insert(c.name.to_string(), value);
                }
                Err(rule) => problems.push(problem(c.name, rule)),
            },
            Name::Folded(c, key) => {
                let value = match cell {
                    Cell::Text(text) => Value::String(text),
                    Cell::Json(value) => value,
                };
                let map = typed
                    .place(c)
                    .entry(c.name)
                    .or_insert_with(|| Value::Object(Map::new()));
                match map {
                    Value::Object(map) => {
                        map.insert(key, value);
                    }
                    _ => problems.push(problem(c.name, "an object and its keys' columns".into())),
                }
            }
        }
    }
    for c in target.columns {
        if c.required && c.variant.is_none() && typed.value(c.name).is_none() {
            problems.push(problem(
                c.name,
                "required, but the row leaves it empty".into(),
            ));
        }
    }
    typed.key = key_text(target, &typed);
    let mut hash = Fnv::default();
    for part in [&typed.path, &typed.query, &typed.body] {
        hash.write(serde_json::to_string(part).unwrap_or_default().as_bytes());
        hash.write(b"\0");
    }
    typed.hash = hash.hex();
    (typed, problems)
}

/// Reads `row` for `target`: the row, or every problem of its cells.
pub fn typed(target: &Target, row: Row) -> Result<Typed, Vec<Problem>> {
    match read_row(target, row) {
        (typed, problems) if problems.is_empty() => Ok(typed),
        (_, problems) => Err(problems),
    }
}

impl Typed {
    fn place(&mut self, c: &Column) -> &mut Map<String, Value> {
        match c.place {
            Place::Path => &mut self.path,
            Place::Query => &mut self.query,
            Place::Body => &mut self.body,
        }
    }
}

/// The key's values as one text: the value itself for a key of one column, the values
/// joined by ` | ` (an empty cell as nothing) for more.
fn key_text(target: &Target, typed: &Typed) -> String {
    let text = |name: &str| match typed.value(name) {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    target
        .key
        .iter()
        .map(|k| text(k))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// A cell as its column's kind reads it.
fn read(kind: CellKind, cell: Cell) -> Result<Value, String> {
    match cell {
        Cell::Text(text) => read_text(kind, text),
        Cell::Json(value) => read_json(kind, value),
    }
}

fn read_text(kind: CellKind, text: String) -> Result<Value, String> {
    let t = text.trim();
    let got = || format!("got `{t}`");
    Ok(match kind {
        CellKind::Text => Value::String(text),
        CellKind::Integer => Value::from(
            t.parse::<i64>()
                .map_err(|_| format!("must be a whole number, {}", got()))?,
        ),
        CellKind::Number => t
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("must be a number, {}", got()))?,
        CellKind::Boolean => match t.to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" => Value::Bool(true),
            "false" | "no" | "n" | "0" => Value::Bool(false),
            _ => return Err(format!("must be true or false, {}", got())),
        },
        CellKind::Date | CellKind::DateTime | CellKind::DateOrDateTime => {
            dated(kind, t)?;
            Value::String(t.to_string())
        }
        CellKind::Scalar => t
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or(Value::String(text)),
        CellKind::Json => serde_json::from_str(t).map_err(|e| format!("must be JSON: {e}"))?,
        CellKind::Map => match serde_json::from_str(t) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => return Err(format!("must be a JSON object, {}", got())),
        },
    })
}

fn read_json(kind: CellKind, value: Value) -> Result<Value, String> {
    let fits = match (kind, &value) {
        (CellKind::Text, Value::String(_)) => true,
        (CellKind::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (CellKind::Number, Value::Number(_)) => true,
        (CellKind::Boolean, Value::Bool(_)) => true,
        (CellKind::Date | CellKind::DateTime | CellKind::DateOrDateTime, Value::String(s)) => {
            dated(kind, s)?;
            true
        }
        (CellKind::Scalar, Value::String(_) | Value::Number(_)) => true,
        (CellKind::Json, _) => true,
        (CellKind::Map, Value::Object(_)) => true,
        _ => false,
    };
    if fits {
        Ok(value)
    } else {
        Err(format!("must be {}, got {value}", what(kind)))
    }
}

/// Fails unless `t` is the date or date-time `kind` asks for.
fn dated(kind: CellKind, t: &str) -> Result<(), String> {
    let date = NaiveDate::parse_from_str(t, "%Y-%m-%d").is_ok();
    let time = DateTime::parse_from_rfc3339(t).is_ok();
    let ok = match kind {
        CellKind::Date => date,
        CellKind::DateTime => time,
        _ => date || time,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("must be {}, got `{t}`", what(kind)))
    }
}

fn what(kind: CellKind) -> &'static str {
    match kind {
        CellKind::Text => "text",
        CellKind::Integer => "a whole number",
        CellKind::Number => "a number",
        CellKind::Boolean => "true or false",
        CellKind::Date => "a date (2026-12-01)",
        CellKind::DateTime => "a date-time with its offset (2026-12-01T08:00:00Z)",
        CellKind::DateOrDateTime => "a date (2026-12-01) or a date-time (2026-12-01T08:00:00Z)",
        CellKind::Scalar => "text or a number",
        CellKind::Json => "JSON",
        CellKind::Map => "a JSON object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_their_kind_or_name_the_rule() {
        let ok = |kind, text: &str| read_text(kind, text.to_string()).unwrap();
        assert_eq!(ok(CellKind::Integer, " 42 "), Value::from(42));
        assert_eq!(ok(CellKind::Boolean, "Yes"), Value::Bool(true));
        assert_eq!(ok(CellKind::Scalar, "17"), Value::from(17));
        assert_eq!(ok(CellKind::Scalar, "A-1"), Value::from("A-1"));
        assert_eq!(ok(CellKind::Map, r#"{"a": 1}"#)["a"], Value::from(1));
        assert_eq!(
            ok(CellKind::DateOrDateTime, "2026-12-01"),
            Value::from("2026-12-01")
        );
        for (kind, text, rule) in [
            (
                CellKind::Integer,
                "12.5",
                "must be a whole number, got `12.5`",
            ),
            (
                CellKind::Boolean,
                "maybe",
                "must be true or false, got `maybe`",
            ),
            (
                CellKind::Date,
                "01/12/2026",
                "must be a date (2026-12-01), got `01/12/2026`",
            ),
            (
                CellKind::DateTime,
                "2026-12-01",
                "must be a date-time with its offset",
            ),
            (CellKind::Map, "[1]", "must be a JSON object, got `[1]`"),
            (CellKind::Json, "{", "must be JSON: "),
        ] {
            let got = read_text(kind, text.to_string()).unwrap_err();
            assert!(got.starts_with(rule), "{text}: {got}");
        }
        assert_eq!(
            read_json(CellKind::Integer, Value::from("7")).unwrap_err(),
            "must be a whole number, got \"7\""
        );
        assert!(read_json(CellKind::Text, Value::from("x")).is_ok());
    }
}
