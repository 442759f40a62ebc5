//! The tables a dlt load of an interface's synced lists ends with, from the IR: per list a
//! table of its records (a nested record's fields as `record__field` columns, a union's
//! members' fields as columns of its table), and per array of records a nested table
//! under dlt's own naming (`inspections__results`). Each column's data type, nullability
//! and description come from the spec, so dlt infers none of them; the row converters
//! emit exactly the shapes this model gives each field.

use std::collections::{BTreeMap, BTreeSet};

use super::names::{self, PATH};
use crate::ir::{Builtin, Field, Interface, SyncList, TypeId, TypeKind, TypeRef};

/// What a field becomes in a load: the field's shape, decided once per field so that the
/// tables and the rows agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A column of dlt's data type, its value converted as `Value` says.
    Scalar(DataType, Value),
    /// A nested record or union (not one that contains itself): its fields as columns
    /// named after the field's (`unit__reference_number`).
    Record(TypeId),
    /// An array of records or unions: a nested table.
    Child(TypeId),
    /// Anything else (maps, arrays of scalars, `json`, a record met again inside itself):
    /// one `json` column, its JSON as the service sends it.
    Json,
    /// Left out of the load (a credential: the service's records never carry one into a
    /// warehouse).
    Skipped,
}

/// dlt's data types of the columns this model makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Text,
    Bigint,
    /// A 32-bit whole number (dlt's `bigint` with a precision of 32: `INTEGER`).
    Int32,
    Double,
    Bool,
    Timestamp,
    Date,
    /// JSON kept whole (dlt's `json`: not flattened into columns or nested tables).
    Json,
}

impl DataType {
    /// dlt's name of it, and its precision.
    pub fn dlt(self) -> (&'static str, Option<u32>) {
        match self {
            DataType::Text => ("text", None),
            DataType::Bigint => ("bigint", None),
            DataType::Int32 => ("bigint", Some(32)),
            DataType::Double => ("double", None),
            DataType::Bool => ("bool", None),
            DataType::Timestamp => ("timestamp", None),
            DataType::Date => ("date", None),
            DataType::Json => ("json", None),
        }
    }
}

/// How a scalar's Python value becomes the column's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// As the client holds it (`str`, `int`, `float`, `bool`, `datetime`, `date`).
    Plain,
    /// An open enum's member or a plain `str`: the text.
    Text,
    /// A string, integer or boolean (a scalar union): its text.
    ScalarText,
    /// A date or date-time, or a range of two: the text the service sends.
    WireText,
}

/// A column of a table, as dlt is told it.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    pub primary_key: bool,
    pub description: String,
}

/// A table of a list's load: the list's own (`path` empty) or a nested one.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// dlt's name of it (`inspections__results__data`).
    pub name: String,
    /// For a nested table: its path of names below the list's table, as dlt's
    /// `nested_hints` take it, and its parent table's name.
    pub path: Vec<String>,
    pub parent: Option<String>,
    pub doc: String,
    pub columns: Vec<Column>,
}

/// The keys a record's rows give some fields instead of their wire names: a field kept as
/// JSON whose name a nested table or a nested record's columns of the same table take
/// (`data`, a form's map, beside a checklist's array of fields: `data_json`).
pub type Renames = BTreeMap<(TypeId, String), String>;

/// Every list's tables, each list's own first, and the keys some fields are renamed to.
pub fn model(i: &Interface) -> (Vec<Vec<Table>>, Renames) {
    let mut renames = Renames::new();
    let cycles = Cycles::new(i);
    // A rename changes no other shape, so this settles; the bound only guards the loop.
    for _ in 0..64 {
        let mut found = Renames::new();
        let lists = i.sync.iter().flat_map(|s| &s.lists);
        let tables: Vec<Vec<Table>> = lists
            .map(|list| list_tables(i, list, &cycles, &renames, &mut found))
            .collect();
        let before = renames.len();
        renames.extend(found);
        if renames.len() == before {
            return (tables, renames);
        }
    }
    (Vec::new(), renames)
}

/// The shape of field `f` of the record `owner` (a record of `cycles`' interface).
pub fn shape(i: &Interface, cycles: &Cycles, owner: TypeId, f: &Field) -> Shape {
    if f.sensitive {
        return Shape::Skipped;
    }
    match &f.ty {
        TypeRef::Builtin(b) => builtin(*b),
        TypeRef::Named(id) => match &i.ty(*id).kind {
            TypeKind::Object(_) | TypeKind::Union(_) if !cycles.reaches(*id, owner) => {
                Shape::Record(*id)
            }
            TypeKind::Object(_) | TypeKind::Union(_) => Shape::Json,
            TypeKind::Enum(_) => Shape::Scalar(DataType::Text, Value::Text),
            TypeKind::Id { .. } => Shape::Scalar(DataType::Text, Value::Plain),
            TypeKind::ScalarUnion(_) => Shape::Scalar(DataType::Text, Value::ScalarText),
            TypeKind::RecordRef(_) => Shape::Json,
        },
        TypeRef::Array(inner) => match inner.as_ref() {
            TypeRef::Named(id) if is_record(i, *id) && !cycles.reaches(*id, owner) => {
                Shape::Child(*id)
            }
            _ => Shape::Json,
        },
        _ => Shape::Json,
    }
}

fn builtin(b: Builtin) -> Shape {
    let scalar = |t, v| Shape::Scalar(t, v);
    match b {
        Builtin::String | Builtin::Url => scalar(DataType::Text, Value::Plain),
        Builtin::DateOrDateTime | Builtin::DateTimeOrRange => {
            scalar(DataType::Text, Value::WireText)
        }
        Builtin::Integer => scalar(DataType::Bigint, Value::Plain),
        Builtin::Int32 => scalar(DataType::Int32, Value::Plain),
        Builtin::Number => scalar(DataType::Double, Value::Plain),
        Builtin::Boolean => scalar(DataType::Bool, Value::Plain),
        Builtin::DateTime => scalar(DataType::Timestamp, Value::Plain),
        Builtin::Date => scalar(DataType::Date, Value::Plain),
        Builtin::Json | Builtin::Binary => Shape::Json,
    }
}

pub fn is_record(i: &Interface, id: TypeId) -> bool {
    matches!(i.ty(id).kind, TypeKind::Object(_) | TypeKind::Union(_))
}

/// Which records and unions reach which through their fields, members and elements: a
/// field whose type reaches back to its own record is kept as JSON wherever it is met,
/// so every table is finite and each record's rows have one shape.
pub struct Cycles {
    reach: Vec<BTreeSet<usize>>,
}

impl Cycles {
    pub fn new(i: &Interface) -> Self {
        let direct: Vec<Vec<usize>> = i
            .types
            .iter()
            .map(|t| match &t.kind {
                TypeKind::Object(o) => o
                    .wire_fields()
                    .filter_map(|f| f.ty.named())
                    .map(TypeId::index)
                    .collect(),
                TypeKind::Union(u) => u.variants.iter().map(|v| v.shape.index()).collect(),
                _ => Vec::new(),
            })
            .collect();
        let reach = (0..direct.len())
            .map(|start| {
                let mut seen = BTreeSet::new();
                let mut todo = direct[start].clone();
                while let Some(t) = todo.pop() {
                    if seen.insert(t) {
                        todo.extend(direct[t].iter().copied());
                    }
                }
                seen
            })
            .collect();
        Cycles { reach }
    }

    /// Whether `from` is `to` or reaches it.
    pub fn reaches(&self, from: TypeId, to: TypeId) -> bool {
        from == to || self.reach[from.index()].contains(&to.index())
    }
}

/// The key a field's value has in its record's rows: its wire name, or its rename.
pub fn key(renames: &Renames, owner: TypeId, f: &Field) -> String {
    renames
        .get(&(owner, f.name.clone()))
        .cloned()
        .unwrap_or_else(|| f.name.clone())
}

/// A list's table and its nested tables, parents first.
fn list_tables(
    i: &Interface,
    list: &SyncList,
    cycles: &Cycles,
    renames: &Renames,
    found: &mut Renames,
) -> Vec<Table> {
    let name = names::identifier(list.table());
    let mut walk = Walk::new(i, cycles, renames);
    walk.record(list.record, &Place::root());
    let mut columns = walk.columns;
    for c in columns.iter_mut().filter(|c| c.name == list.id_field) {
        c.primary_key = true;
        c.nullable = false;
    }
    let root = Table {
        name: name.clone(),
        path: Vec::new(),
        parent: None,
        doc: i.ty(list.record).doc.clone(),
        columns,
    };
    found.extend(clashes(&root, &walk.json, &walk.children));
    let mut out = vec![root];
    let mut pending: std::collections::VecDeque<(String, Vec<String>, Child)> = walk
        .children
        .into_iter()
        .map(|c| (name.clone(), Vec::new(), c))
        .collect();
    while let Some((parent, above, child)) = pending.pop_front() {
        let table = format!("{parent}{PATH}{}", child.name);
        // dlt reads a nested_hints path a table name per element, each normalized (which
        // makes one `__` an `_`): an array below a nested record is two elements.
        let mut path = above.clone();
        path.extend(child.name.split(PATH).map(str::to_string));
        let mut walk = Walk::new(i, cycles, renames);
        walk.record(child.element, &Place::element(child.nullable_members));
        let t = Table {
            name: table.clone(),
            path: path.clone(),
            parent: Some(parent),
            doc: child.doc,
            columns: walk.columns,
        };
        found.extend(clashes(&t, &walk.json, &walk.children));
        out.push(t);
        pending.extend(
            walk.children
                .into_iter()
                .map(|c| (table.clone(), path.clone(), c)),
        );
    }
    out
}

/// The renames a table needs: each JSON column whose name a nested table or a nested
/// record's columns take gets `<key>_json` (then `_json_json`, ...: never a name in use).
fn clashes(t: &Table, json: &[JsonColumn], children: &[Child]) -> Renames {
    let taken = |name: &str| {
        children.iter().any(|c| c.name == name)
            || t.columns
                .iter()
                .any(|c| c.name.starts_with(name) && c.name[name.len()..].starts_with(PATH))
    };
    let mut out = Renames::new();
    for j in json.iter().filter(|j| taken(&j.name)) {
        let mut key = format!("{}_json", j.key);
        while t.columns.iter().any(|c| c.name == names::identifier(&key)) {
            key.push_str("_json");
        }
        out.insert((j.owner, j.wire.clone()), key);
    }
    out
}

/// An array of records met while walking a table's element: a nested table to make.
#[derive(Debug, Clone)]
struct Child {
    /// Its name below the table (the column path, `value__items`).
    name: String,
    doc: String,
    element: TypeId,
    /// Whether its element sits in a union member (its columns then all nullable).
    nullable_members: bool,
}

/// A JSON column met while walking, with the field that fills it.
#[derive(Debug, Clone)]
struct JsonColumn {
    name: String,
    owner: TypeId,
    wire: String,
    key: String,
}

/// Where a walk is in a table's element: the column path above, the doc prefix, and
/// whether every column here may be null (below an optional record or a union member).
#[derive(Debug, Clone)]
struct Place {
    prefix: Vec<String>,
    doc: String,
    nullable: bool,
}

impl Place {
    fn root() -> Self {
        Place {
            prefix: Vec::new(),
            doc: String::new(),
            nullable: false,
        }
    }

    fn element(nullable: bool) -> Self {
        Place {
            nullable,
            ..Place::root()
        }
    }
}

/// The columns of one table's element, gathered by walking its type.
struct Walk<'i> {
    i: &'i Interface,
    cycles: &'i Cycles,
    renames: &'i Renames,
    columns: Vec<Column>,
    json: Vec<JsonColumn>,
    children: Vec<Child>,
}

impl<'i> Walk<'i> {
    fn new(i: &'i Interface, cycles: &'i Cycles, renames: &'i Renames) -> Self {
        Walk {
            i,
            cycles,
            renames,
            columns: Vec::new(),
            json: Vec::new(),
            children: Vec::new(),
        }
    }

    /// A record's fields (a union's tag, then its members' fields) at `place`.
    fn record(&mut self, id: TypeId, place: &Place) {
        let ty = self.i.ty(id);
        match &ty.kind {
            TypeKind::Object(o) => {
                for f in o.wire_fields() {
                    self.field(id, f, place);
                }
            }
            TypeKind::Union(u) => {
                let tag = Column {
                    name: self.name(place, &u.tag),
                    data_type: DataType::Text,
                    nullable: true,
                    primary_key: false,
                    description: format!(
                        "{}Which member this is (the union's `{}`); a member the spec does \
                         not list has its value here and its properties in columns under it \
                         (`<value>__<property>`).",
                        place.doc, u.tag
                    ),
                };
                self.push(tag);
                let members = Place {
                    nullable: true,
                    ..place.clone()
                };
                for v in &u.variants {
                    if let TypeKind::Object(o) = &self.i.ty(v.shape).kind {
                        for f in o.wire_fields().filter(|f| f.name != u.tag) {
                            self.field(v.shape, f, &members);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn name(&self, place: &Place, key: &str) -> String {
        let mut parts = place.prefix.clone();
        parts.push(names::identifier(key));
        names::path(&parts)
    }

    /// Field `f` of record `owner` at `place`.
    fn field(&mut self, owner: TypeId, f: &Field, place: &Place) {
        let key = key(self.renames, owner, f);
        let name = self.name(place, &key);
        let nullable = place.nullable || !f.required || f.nullable;
        let description = format!("{}{}", place.doc, f.doc);
        let column = |data_type| Column {
            name: name.clone(),
            data_type,
            nullable,
            primary_key: false,
            description: description.clone(),
        };
        match shape(self.i, self.cycles, owner, f) {
            Shape::Scalar(t, _) => self.push(column(t)),
            Shape::Json => {
                self.json.push(JsonColumn {
                    name: name.clone(),
                    owner,
                    wire: f.name.clone(),
                    key,
                });
                self.push(column(DataType::Json));
            }
            Shape::Record(id) => {
                let mut prefix = place.prefix.clone();
                prefix.push(names::identifier(&key));
                let nested = Place {
                    prefix,
                    doc: format!("{}{} ", place.doc, sentence(&f.doc)),
                    nullable,
                };
                self.record(id, &nested);
            }
            Shape::Child(id) => {
                if !self.children.iter().any(|c| c.name == name) {
                    self.children.push(Child {
                        name,
                        doc: f.doc.clone(),
                        element: id,
                        nullable_members: false,
                    });
                }
            }
            Shape::Skipped => {}
        }
    }

    /// A column; one of the same name (two members sharing a field) keeps the first's type
    /// and doc, and may be null if either may.
    fn push(&mut self, column: Column) {
        match self.columns.iter_mut().find(|c| c.name == column.name) {
            Some(c) => c.nullable |= column.nullable,
            None => self.columns.push(column),
        }
    }
}

/// A doc's first sentence as the start of a nested column's doc: "The inspected unit:".
fn sentence(doc: &str) -> String {
    let first = doc.split(". ").next().unwrap_or(doc);
    format!("{}:", first.trim_end_matches('.'))
}
