//! A database whose tables another spec made: what a migration adds (new tables and
//! columns, filled from each record's stored JSON), or why it cannot. The classification
//! is the IR's change report (`inspection_ir::diff`, the one maintainers read), between
//! the IR the database recorded and this tool's, kept to the types the sync's tables are
//! made from: a breaking change there (a field removed, a type narrowed, a list gone) is
//! refused before anything is written, each change named with its spec line.

use std::collections::BTreeMap;

use inspection_ir::diff::{self, Impact};
use inspection_ir::{Api, Interface};

use super::meta;
use super::rows::{self, Cell, Record};
use super::schema::{Dialect, List, Schema};
use super::statements::Namespace;
use crate::exit::{Class, Failure};

/// What a migration makes: tables (indexes into the schema's tables) and columns (a
/// table's index and the column's).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub tables: Vec<usize>,
    pub columns: Vec<(usize, usize)>,
}

impl Plan {
    /// Whether the list whose table is `root` has a table or column to fill.
    pub fn touches(&self, schema: &Schema, root: usize) -> bool {
        let family = schema.family(root);
        self.tables
            .iter()
            .chain(self.columns.iter().map(|(t, _)| t))
            .any(|t| family.contains(t))
    }

    /// The columns added to `table` (indexes into its columns).
    pub fn columns_of(&self, table: usize) -> Vec<usize> {
        self.columns
            .iter()
            .filter(|(t, _)| *t == table)
            .map(|(_, c)| *c)
            .collect()
    }

    /// What the migration writes for a record already stored: its rows in the new tables,
    /// and the new columns of its rows in the others.
    pub fn refill(&self, schema: &Schema, record: &Record) -> Vec<Refill> {
        record
            .rows
            .iter()
            .filter_map(|row| {
                if self.tables.contains(&row.table) {
                    return Some(Refill::Insert(row.table, row.cells.clone()));
                }
                let columns = self.columns_of(row.table);
                if columns.is_empty() {
                    return None;
                }
                let keys = schema.tables[row.table].keys.len();
                let mut cells: Vec<Cell> = columns
                    .iter()
                    .map(|&c| row.cells[keys + c].clone())
                    .collect();
                cells.extend(row.cells[..keys].iter().cloned());
                Some(Refill::Update(row.table, cells))
            })
            .collect()
    }

    /// The statements that make the plan's tables and columns in `dialect`, in order,
    /// their tables in `ns`.
    pub fn statements(&self, schema: &Schema, dialect: Dialect, ns: &Namespace) -> Vec<String> {
        let tables = self
            .tables
            .iter()
            .map(|&t| ns.qualified(schema.create_table(dialect, t)));
        let columns = self.columns.iter().map(|&(t, c)| {
            let table = &schema.tables[t];
            format!(
                "ALTER TABLE {} ADD COLUMN {}",
                ns.table(table.name),
                table.columns[c].definition[dialect as usize]
            )
        });
        tables.chain(columns).collect()
    }

    /// What the migration adds, for the summary.
    pub fn describe(&self, schema: &Schema) -> Vec<String> {
        let tables = self
            .tables
            .iter()
            .map(|&t| format!("table `{}` added", schema.tables[t].name));
        let columns = self.columns.iter().map(|&(t, c)| {
            let table = &schema.tables[t];
            format!("column `{}.{}` added", table.name, table.columns[c].name)
        });
        tables.chain(columns).collect()
    }
}

/// A write of a migration: a row of a new table (its cells, as a sync writes them), or
/// the new columns of a row (their cells, then the row's keys).
#[derive(Debug, PartialEq)]
pub enum Refill {
    Insert(usize, Vec<Cell>),
    Update(usize, Vec<Cell>),
}

/// A record as stored in `_record`, as rows again.
pub fn stored_record(
    schema: &Schema,
    list: &List,
    json: &str,
    shown: &str,
) -> Result<Record, Failure> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| {
        Failure::new(
            Class::Database,
            format!("{shown}: a stored record of `{}` is not JSON ({e}); `--rebuild` syncs everything again", list.list),
        )
    })?;
    rows::record(schema, list, &value)
        .map_err(|e| Failure::new(Class::Database, format!("{shown}: {e}")))
}

/// `None` when the database's tables are this tool's; the migration when they differ by
/// additions only; a refusal naming every change that is not one.
pub fn plan(
    shown: &str,
    schema: &Schema,
    stored: &[(String, String)],
) -> Result<Option<Plan>, Failure> {
    let get = |key: &str| {
        stored
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let theirs = get("tables").unwrap_or("");
    let ours = meta::tables(schema);
    if theirs == ours {
        return Ok(None);
    }
    let refuse = |changes: Vec<String>| {
        Failure::new(
            Class::Database,
            format!(
                "{shown}: its tables were made from spec {} and this tool's (spec {}) change them in ways a migration cannot: {}; `--rebuild` drops this tool's tables and syncs everything again",
                get("spec_version").unwrap_or("?"),
                schema.spec_version,
                changes.join("; ")
            ),
        )
    };
    let old: Interface = get("ir")
        .and_then(|text| meta::interface_of(text, schema.interface))
        .ok_or_else(|| refuse(vec!["the database records no IR to compare with".into()]))?;
    let new = meta::own_ir(schema)?;
    let breaking = breaking_changes(&old, &new);
    let (plan, gone) = compare(schema, theirs);
    if !breaking.is_empty() {
        return Err(refuse(breaking));
    }
    if !gone.is_empty() {
        return Err(refuse(gone));
    }
    Ok(Some(plan))
}

/// The report's breaking changes to what the sync's tables are made from, each with where
/// the spec (this tool's, or the old one's for what is gone) says it.
fn breaking_changes(old: &Interface, new: &Interface) -> Vec<String> {
    let mut synced = old.sync.as_ref().map(|s| s.types(old)).unwrap_or_default();
    synced.extend(new.sync.as_ref().map(|s| s.types(new)).unwrap_or_default());
    let report = diff::diff(&Api::new(vec![old.clone()]), &Api::new(vec![new.clone()]));
    report
        .iter()
        .filter(|c| c.impact == Impact::Breaking)
        .filter(|c| {
            c.what.starts_with("sync list") || c.type_name().is_some_and(|t| synced.contains(t))
        })
        .map(|c| {
            let key = match c.subject() {
                Some(list) if c.what.starts_with("sync list") => format!("operation {list}"),
                Some(subject) => subject.to_string(),
                None => String::new(),
            };
            let at = [new, old].iter().find_map(|i| {
                let [line, column] = i.positions.get(&key)?;
                Some(format!(" ({}:{line}:{column})", i.source_file))
            });
            format!("{}{}", c.what, at.unwrap_or_default())
        })
        .collect()
}

/// The tables and columns this tool has that the database's lack, and what the database
/// has that this tool's tables do not (a table or column gone, a column of another kind).
fn compare(schema: &Schema, theirs: &str) -> (Plan, Vec<String>) {
    let parse = |text: &str| -> BTreeMap<String, Vec<String>> {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| {
                let mut words = l.split(' ');
                Some((
                    words.next()?.to_string(),
                    words.map(str::to_string).collect(),
                ))
            })
            .collect()
    };
    let (theirs, ours) = (parse(theirs), parse(&meta::tables(schema)));
    let mut plan = Plan::default();
    let mut gone = Vec::new();
    for (index, table) in schema.tables.iter().enumerate() {
        let Some(had) = theirs.get(table.name) else {
            plan.tables.push(index);
            continue;
        };
        let has = &ours[table.name];
        for (n, column) in table.columns.iter().enumerate() {
            let word = &has[table.keys.len() + n];
            if !had.contains(word) {
                match had
                    .iter()
                    .find(|w| w.split(':').next() == Some(column.name))
                {
                    Some(was) => gone.push(format!(
                        "column `{}.{}` was `{was}`, now `{word}`",
                        table.name, column.name
                    )),
                    None => plan.columns.push((index, n)),
                }
            }
        }
        for word in had.iter().filter(|w| !has.contains(w)) {
            let name = word.split(':').next().unwrap_or(word);
            if !has.iter().any(|w| w.split(':').next() == Some(name)) {
                gone.push(format!("column `{}.{name}` gone", table.name));
            }
        }
    }
    for name in theirs.keys().filter(|t| !ours.contains_key(*t)) {
        gone.push(format!("table `{name}` gone"));
    }
    (plan, gone)
}
