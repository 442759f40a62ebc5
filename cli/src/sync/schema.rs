//! What a sync writes, as the generated crate describes it (from the same model as the
//! `generated/sql` statements): the lists, their tables and each column's place in a
//! record. Plain static data; `rows` reads it to turn a record into rows.

/// An interface's sync.
#[derive(Debug)]
pub struct Schema {
    /// The interface (`v3`) and the spec version the tables come from.
    pub interface: &'static str,
    pub spec_version: &'static str,
    pub lists: &'static [List],
    /// Every table, each parent before its children.
    pub tables: &'static [Table],
    /// The statements that make the tables in SQLite and in PostgreSQL
    /// (`generated/sql/<interface>.<dialect>.sql`), each table's after its
    /// `-- table: <name>` line.
    pub create: [&'static str; 2],
    /// The generator's IR of every interface (`generated/ir.json`): a database records
    /// its interface's, and a migration compares the two with the IR's change report.
    pub ir: &'static str,
}

/// A list a sync walks into its table.
#[derive(Debug)]
pub struct List {
    /// The list operation (`list_inspections`) and its table's index.
    pub list: &'static str,
    pub table: usize,
    pub current: Current,
}

/// How a list stays current.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Current {
    /// The list's date filter from the records' `watermark` field; `changes`: a changed
    /// record is listed again (an update time), otherwise only new ones are.
    Filter {
        watermark: &'static str,
        changes: bool,
    },
    /// Walked whole every run.
    Walk,
}

/// A table: a list's (its rows the records) or a child (its rows an array's elements).
#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    pub parent: Option<usize>,
    /// Where the array of its rows is in the parent's element (empty for a list's).
    pub path: &'static [&'static str],
    pub only: Option<Only>,
    /// The key columns: the record's id (read from `id`) for a list's table; the root
    /// record's id, each array position above, and the row's own position for a child.
    pub keys: &'static [&'static str],
    /// The record's id property, for a list's table.
    pub id: &'static [&'static str],
    pub columns: &'static [Column],
    /// Its records each have a document (`--documents` keeps its path in `_document`).
    pub document: bool,
}

/// A column filled from the element's JSON.
#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub path: &'static [&'static str],
    pub only: Option<Only>,
    /// Its definition (name, type, check) in SQLite and in PostgreSQL, for a migration
    /// that adds it.
    pub definition: [&'static str; 2],
}

/// Read only when the element is one of these union members.
#[derive(Debug)]
pub struct Only {
    pub tag: &'static [&'static str],
    pub members: &'static [&'static str],
}

/// What a column holds: the generator's own model of it.
pub use inspection_ir::ColumnKind as Kind;

/// The two databases, as the index of their text in [`Schema::create`] and
/// [`Column::definition`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite = 0,
    Postgres = 1,
}

impl Schema {
    /// Every statement that makes the tables in `dialect`.
    pub fn create_all(&self, dialect: Dialect) -> &'static str {
        self.create[dialect as usize]
    }

    /// The statements that make the table `table` alone in `dialect` (empty when the
    /// text has none for it, which a generated schema never lacks).
    pub fn create_table(&self, dialect: Dialect, table: usize) -> &'static str {
        let text = self.create[dialect as usize];
        let mark = format!("-- table: {}\n", self.tables[table].name);
        let Some(start) = text.find(&mark) else {
            return "";
        };
        let rest = &text[start + mark.len()..];
        let end = rest.find("\n-- table: ").map_or(rest.len(), |e| e + 1);
        &rest[..end]
    }

    /// The tables whose rows sit in `table`'s rows' elements.
    pub fn children(&self, table: usize) -> impl Iterator<Item = (usize, &Table)> {
        self.tables
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.parent == Some(table))
    }

    /// The list's table and every table below it, parents first.
    pub fn family(&self, root: usize) -> Vec<usize> {
        let mut out = vec![root];
        let mut at = 0;
        while at < out.len() {
            let parent = out[at];
            out.extend(self.children(parent).map(|(i, _)| i));
            at += 1;
        }
        out
    }
}
