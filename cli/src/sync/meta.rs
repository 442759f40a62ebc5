//! What made a database (`_sync_meta`): this tool, the format of its own tables, the
//! interface, the spec version and the tables' columns. A database made by another tool,
//! for another interface, by a newer format or with other tables is refused before
//! anything is written, naming what differs and the way out.

use std::path::Path;

use inspection_ir::{Api, Interface};

use super::schema::Schema;
use crate::exit::{Class, Failure};

/// Whether this run made the tables, found them, or migrated them (what it added).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Made {
    Now,
    Before,
    Migrated(Vec<String>),
}

/// The format of the tool's own tables this tool writes: 2 since the run history
/// (`_sync_runs`); a database of format 1 is raised to it before a run writes anything.
pub const FORMAT: u32 = 2;
/// What the format brought, kept in the database (`format_change`) so that a tool that
/// reads only older formats can say why it refuses the database.
pub const FORMAT_CHANGE: &str =
    "format 2 keeps the run history in `_sync_runs` (a row per run: start, end, outcome, lists)";
const MADE_BY: &str = "inspection sync";

/// The entries written when the tables are made (and, but `made_by`, again by a
/// migration or a newer spec): the generator's IR among them (as the tool holds it, every
/// interface's: read only by a later migration), for a later migration.
pub fn entries(schema: &Schema) -> Vec<(&'static str, String)> {
    vec![
        ("made_by", MADE_BY.to_string()),
        ("format", FORMAT.to_string()),
        ("format_change", FORMAT_CHANGE.to_string()),
        ("interface", schema.interface.to_string()),
        ("spec_version", schema.spec_version.to_string()),
        ("tables", tables(schema)),
        ("ir", schema.ir.to_string()),
    ]
}

/// The entries a raised format writes (apart from a spec's: a migration writes those).
pub fn format_entries() -> Vec<(&'static str, String)> {
    vec![
        ("format", FORMAT.to_string()),
        ("format_change", FORMAT_CHANGE.to_string()),
    ]
}

/// The format of the tool's own tables an older version of this tool made, if so.
pub fn older_format(stored: &[(String, String)]) -> Option<u32> {
    stored
        .iter()
        .find(|(k, _)| k == "format")
        .and_then(|(_, v)| v.parse::<u32>().ok())
        .filter(|f| *f < FORMAT)
}

/// What raising the format from `from` did, for the summary's `migrated`.
pub fn raised(from: u32) -> String {
    format!(
        "the tool's tables raised from format {from} to {FORMAT}: table `{}` added",
        super::statements::RUNS
    )
}

/// The interface's IR as this tool has it.
pub fn own_ir(schema: &Schema) -> Result<Interface, Failure> {
    interface_of(schema.ir, schema.interface).ok_or_else(|| {
        Failure::new(
            Class::Failure,
            format!("the tool's own IR has no readable `{}`", schema.interface),
        )
    })
}

/// The interface `name` of an IR's text (`generated/ir.json`, as a database records it).
pub fn interface_of(ir: &str, name: &str) -> Option<Interface> {
    let api: Api = serde_json::from_str(ir).ok()?;
    api.interfaces.into_iter().find(|i| i.name == name)
}

/// Whether the database records another spec version than this tool's.
pub fn other_version(schema: &Schema, stored: &[(String, String)]) -> bool {
    !stored
        .iter()
        .any(|(k, v)| k == "spec_version" && v == schema.spec_version)
}

/// Each table and its columns with their kinds, one line each: what a migration compares.
pub fn tables(schema: &Schema) -> String {
    let mut out = String::new();
    for t in schema.tables {
        let columns: Vec<String> = t
            .keys
            .iter()
            .map(|k| k.to_string())
            .chain(t.columns.iter().map(|c| format!("{}:{:?}", c.name, c.kind)))
            .collect();
        out.push_str(&format!("{} {}\n", t.name, columns.join(" ")));
    }
    out
}

/// The tables a database's `tables` entry names, in the order they were made.
pub fn recorded_tables(stored: &[(String, String)]) -> Vec<String> {
    let text = stored
        .iter()
        .find(|(k, _)| k == "tables")
        .map_or("", |(_, v)| v.as_str());
    text.lines()
        .filter_map(|line| line.split(' ').next())
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

/// Refuses a database (or a PostgreSQL schema) that holds tables but none of this tool's;
/// `elsewhere` says where to sync instead.
pub fn refuse_foreign(path: &Path, tables: &[String], elsewhere: &str) -> Result<(), Failure> {
    let theirs: Vec<&str> = tables
        .iter()
        .map(String::as_str)
        .filter(|t| !t.starts_with("sqlite_"))
        .collect();
    if theirs.is_empty() {
        return Ok(());
    }
    let shown = theirs
        .iter()
        .take(5)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    Err(Failure::new(
        Class::Database,
        format!(
            "{} holds tables this tool did not make ({shown}{}); sync into {elsewhere}",
            path.display(),
            if theirs.len() > 5 { ", ..." } else { "" }
        ),
    ))
}

/// Checks that this tool made the database, for this interface, in a format it reads (its
/// tables are `migrate`'s to compare).
pub fn check(
    path: &Path,
    schema: &Schema,
    stored: &[(String, String)],
    tables: &[String],
) -> Result<(), Failure> {
    let format = check_made(path, stored)?;
    let own = [super::statements::STATE]
        .into_iter()
        .chain((format >= 2).then_some(super::statements::RUNS));
    for table in own {
        if !tables.iter().any(|t| t == table) {
            let what = format!("its `{table}` table is missing");
            return Err(super::state::damaged(&path.display().to_string(), &what));
        }
    }
    let interface = get(stored, "interface");
    if interface != Some(schema.interface) {
        return Err(Failure::new(
            Class::Database,
            format!(
                "{}: it holds a sync of `{}`, not of `{}`; sync each interface into a database of its own",
                path.display(),
                interface.unwrap_or("?"),
                schema.interface
            ),
        ));
    }
    Ok(())
}

fn get<'s>(stored: &'s [(String, String)], key: &str) -> Option<&'s str> {
    stored
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Checks that this tool made the database in a format it reads; that format.
pub fn check_made(path: &Path, stored: &[(String, String)]) -> Result<u32, Failure> {
    let refuse =
        |what: String| Failure::new(Class::Database, format!("{}: {what}", path.display()));
    if get(stored, "made_by") != Some(MADE_BY) {
        return Err(refuse(
            "its `_sync_meta` was not written by this tool; sync into a new database".into(),
        ));
    }
    match get(stored, "format").and_then(|f| f.parse::<u32>().ok()) {
        Some(f) if f <= FORMAT => Ok(f),
        Some(f) => {
            let why = get(stored, "format_change")
                .map(|c| format!(": {c}"))
                .unwrap_or_default();
            Err(refuse(format!(
                "it was made by a newer version of this tool (format {f}, this one reads {FORMAT} at most{why}); use that version"
            )))
        }
        None => Err(refuse("its `_sync_meta` has no format".into())),
    }
}
