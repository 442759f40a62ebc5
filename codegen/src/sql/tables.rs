//! The tables a sync fills, from the IR: a table per synced list, its record's scalar
//! fields as typed columns, nested records as prefixed columns, a union's members as its
//! tag column and the members' own columns, arrays of records as child tables keyed by
//! the root record's id and each element's position. Both dialects and the tool's row
//! mapper read this one model; `check` asks it for names that collide.

use std::collections::BTreeSet;

use heck::ToSnakeCase;

use super::names;
use crate::ir::{Builtin, Element, Field, Interface, SyncList, TypeId, TypeKind, TypeRef, Variant};

/// A table of the database.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub name: String,
    pub doc: String,
    /// The table whose rows hold this one's (its index), for a child table.
    pub parent: Option<usize>,
    /// Where the array of this table's rows is in the parent's element (empty for a
    /// list's table, whose rows are the list's records).
    pub path: Vec<String>,
    /// Only when the parent's element is one of these union members.
    pub only: Option<Only>,
    /// The key: the record's id for a list's table; the root record's id, the position
    /// of each array above and the element's position for a child table.
    pub keys: Vec<Key>,
    pub columns: Vec<Column>,
    /// A list's table whose records each have a document (the export's), which
    /// `--documents` saves: its path is kept in `_document`.
    pub document: bool,
    /// Where the spec declares what fills it (`file:line:column`).
    pub at: String,
}

/// A key column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub name: String,
    pub doc: String,
    pub kind: KeyKind,
    /// Where the record holds it (the id's property), for [`KeyKind::Id`].
    pub path: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// The record's id (a list's table), read from its `id` column.
    Id,
    /// The root record's id, in a child table.
    RootId,
    /// The position of an array's element (0-based): an ancestor's, or the row's own.
    Position,
}

/// A column filled from the element's JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub doc: String,
    pub kind: Kind,
    /// The property path from the table's element.
    pub path: Vec<String>,
    /// Only when the element is one of these union members.
    pub only: Option<Only>,
    /// A range or length the spec states for answers: a `CHECK`.
    pub check: Option<Check>,
    pub at: String,
}

/// A union member condition: the tag's path from the element, and the member values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Only {
    pub tag: Vec<String>,
    pub members: Vec<String>,
}

/// What a column holds, each dialect's type following from it: one enum for the
/// generator and the command-line tool's sync, which reads the tables it writes.
pub use crate::ir::ColumnKind as Kind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Range(Option<i64>, Option<i64>),
    Length(Option<u32>, Option<u32>),
}

/// Two names the tables would give twice, each with where the spec declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    pub message: String,
    /// `[line, column]` in the interface's spec file.
    pub at: Option<[u32; 2]>,
}

/// Every table of an interface's sync, lists first then their child tables, each
/// parent before its children.
pub fn tables(i: &Interface) -> Result<Vec<Table>, Clash> {
    let Some(sync) = &i.sync else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for list in &sync.lists {
        list_tables(i, list, &mut out)?;
    }
    let mut seen = BTreeSet::new();
    for t in &out {
        if !seen.insert(t.name.as_str()) {
            return Err(clash(&t.at, format!("two tables are named `{}`", t.name)));
        }
    }
    Ok(out)
}

/// A list's table and, after it, the tables of its arrays.
fn list_tables(i: &Interface, list: &SyncList, out: &mut Vec<Table>) -> Result<(), Clash> {
    let ty = i.ty(list.record);
    let at = i
        .position(&Element::Operation(&list.list))
        .unwrap_or_default();
    let name = names::sql_name(list.table());
    let mut walk = Walk::new(i, name.clone(), Vec::new());
    walk.record(list.record, &Place::default())?;
    let id = walk
        .columns
        .iter()
        .position(|c| c.path == [list.id_field.clone()]);
    let Some(id) = id else {
        return Err(clash(
            &at,
            format!("the records of `{}` have no id column", list.list),
        ));
    };
    let mut columns = walk.columns;
    let id = columns.remove(id);
    let root = out.len();
    out.push(Table {
        name: name.clone(),
        doc: ty.doc.clone(),
        parent: None,
        path: Vec::new(),
        only: None,
        keys: vec![Key {
            name: id.name,
            doc: id.doc,
            kind: KeyKind::Id,
            path: id.path,
        }],
        columns,
        document: i
            .export
            .as_ref()
            .is_some_and(|e| e.list == list.list && e.document.is_some()),
        at,
    });
    let root_key = Key {
        name: names::sql_name(&format!("{}_id", ty.name.to_snake_case())),
        doc: format!("The id of the {} the row belongs to.", ty.name),
        kind: KeyKind::RootId,
        path: Vec::new(),
    };
    child_tables(i, root, root_key, walk.children, out)?;
    for t in &out[root..] {
        check_names(t)?;
    }
    Ok(())
}

/// The tables of the arrays of records below a list's table, breadth first: each child
/// keyed by the keys above it and its position.
fn child_tables(
    i: &Interface,
    root: usize,
    root_key: Key,
    children: Vec<Child>,
    out: &mut Vec<Table>,
) -> Result<(), Clash> {
    let mut pending = std::collections::VecDeque::from([(root, vec![root_key], children)]);
    while let Some((parent, keys, children)) = pending.pop_front() {
        for child in children {
            let index = out.len();
            let mut own = keys.clone();
            own.push(Key {
                name: "position".into(),
                doc: "The element's position in its array, from 0.".into(),
                kind: KeyKind::Position,
                path: Vec::new(),
            });
            let name = names::sql_name(&format!("{}_{}", out[parent].name, child.name));
            let mut walk = Walk::new(i, name.clone(), child.ancestors);
            walk.element(&child.element, &child.at)?;
            out.push(Table {
                name,
                doc: child.doc,
                parent: Some(parent),
                path: child.path,
                only: child.only,
                keys: own,
                columns: walk.columns,
                document: false,
                at: child.at,
            });
            let mut below = keys.clone();
            below.push(Key {
                name: format!("{}_position", child.name),
                doc: format!(
                    "The position of the `{}` element the row belongs to.",
                    child.name
                ),
                kind: KeyKind::Position,
                path: Vec::new(),
            });
            if !walk.children.is_empty() {
                pending.push_back((index, below, walk.children));
            }
        }
    }
    Ok(())
}

/// An array of records found under a table's element: a child table to make.
#[derive(Debug, Clone)]
struct Child {
    /// The column-style name (`results`, `value_items`).
    name: String,
    doc: String,
    path: Vec<String>,
    only: Option<Only>,
    element: TypeRef,
    /// The records holding it (one of them met again is stored as JSON).
    ancestors: Vec<TypeId>,
    at: String,
}

/// Where a walk is in a table's element: the property path, the columns' name prefix
/// and doc prefix (a nested record's), and the union member it holds for.
#[derive(Clone, Debug, Default)]
struct Place {
    path: Vec<String>,
    prefix: String,
    doc: String,
    only: Option<Only>,
}

/// The columns and child arrays of one table's element, gathered by walking its type.
struct Walk<'i> {
    i: &'i Interface,
    table: String,
    columns: Vec<Column>,
    children: Vec<Child>,
    /// The records being walked, to store a recursive one as JSON.
    stack: Vec<TypeId>,
}

impl<'i> Walk<'i> {
    fn new(i: &'i Interface, table: String, stack: Vec<TypeId>) -> Self {
        Walk {
            i,
            table,
            columns: Vec::new(),
            children: Vec::new(),
            stack,
        }
    }

    /// The element of an array: a record, a union, or anything else as one JSON column.
    fn element(&mut self, ty: &TypeRef, at: &str) -> Result<(), Clash> {
        match ty {
            TypeRef::Named(id) if self.is_record(*id) => self.record(*id, &Place::default()),
            _ => self.push(Column {
                name: "value".into(),
                doc: "The element.".into(),
                kind: Kind::Json,
                path: Vec::new(),
                only: None,
                check: None,
                at: at.to_string(),
            }),
        }
    }

    fn is_record(&self, id: TypeId) -> bool {
        matches!(self.i.ty(id).kind, TypeKind::Object(_) | TypeKind::Union(_))
            && !self.stack.contains(&id)
    }

    /// A record's (or union's) properties at `place`.
    fn record(&mut self, id: TypeId, place: &Place) -> Result<(), Clash> {
        self.stack.push(id);
        let ty = self.i.ty(id);
        let result = match &ty.kind {
            TypeKind::Object(o) => {
                let response_only = !ty.usage.request;
                o.wire_fields()
                    .try_for_each(|f| self.field(&ty.name, f, place, response_only))
            }
            TypeKind::Union(u) => self.union(&ty.name, &u.tag, &u.variants, place),
            _ => Ok(()),
        };
        self.stack.pop();
        result
    }

    /// A union at `place`: its tag's column, then each member's fields, read only from
    /// that member (the innermost union's condition, when unions nest).
    fn union(
        &mut self,
        name: &str,
        tag: &str,
        variants: &[Variant],
        place: &Place,
    ) -> Result<(), Clash> {
        let tag_path = [&place.path[..], std::slice::from_ref(&tag.to_string())].concat();
        self.push(Column {
            name: join(&place.prefix, tag),
            doc: format!("{}Which member this is (the union's `{tag}`); a member the spec does not list is kept with its value here and the row's JSON.", place.doc),
            kind: Kind::Text,
            path: tag_path.clone(),
            only: place.only.clone(),
            check: None,
            at: self.i.position(&Element::Type(name)).unwrap_or_default(),
        })?;
        for v in variants {
            let member = Place {
                only: Some(Only {
                    tag: tag_path.clone(),
                    members: vec![v.tag_value.clone()],
                }),
                ..place.clone()
            };
            let shape = self.i.ty(v.shape);
            let TypeKind::Object(o) = &shape.kind else {
                continue;
            };
            let response_only = !shape.usage.request;
            for f in o.wire_fields().filter(|f| f.name != tag) {
                self.field(&shape.name, f, &member, response_only)?;
            }
        }
        // A column or child every member has needs no condition (an unknown member's
        // common fields are read too).
        let every: Vec<String> = variants.iter().map(|v| v.tag_value.clone()).collect();
        let everyone = |only: &Option<Only>| {
            only.as_ref()
                .is_some_and(|o| o.tag == tag_path && o.members == every)
        };
        for c in self.columns.iter_mut().filter(|c| everyone(&c.only)) {
            c.only = place.only.clone();
        }
        for c in self.children.iter_mut().filter(|c| everyone(&c.only)) {
            c.only = place.only.clone();
        }
        Ok(())
    }

    /// A field of a record at `place`: a column, the columns of a nested record or
    /// union (prefixed by its name), or a child table for an array of records.
    fn field(
        &mut self,
        owner: &str,
        f: &Field,
        place: &Place,
        response_only: bool,
    ) -> Result<(), Clash> {
        let at = self
            .i
            .position(&Element::Field(owner, &f.name))
            .unwrap_or_default();
        let name = join(&place.prefix, &f.name);
        let here = [&place.path[..], std::slice::from_ref(&f.name)].concat();
        let scalar = |kind: Kind| Column {
            name: name.clone(),
            doc: format!("{}{}", place.doc, f.doc),
            kind,
            path: here.clone(),
            only: place.only.clone(),
            check: if response_only { check(f) } else { None },
            at: at.clone(),
        };
        match &f.ty {
            TypeRef::Builtin(b) => self.push(scalar(builtin(*b))),
            TypeRef::Named(id) => match &self.i.ty(*id).kind {
                TypeKind::Object(_) | TypeKind::Union(_) if !self.stack.contains(id) => {
                    let nested = Place {
                        path: here.clone(),
                        prefix: name.clone(),
                        doc: format!("{}{} ", place.doc, sentence(&f.doc)),
                        only: place.only.clone(),
                    };
                    self.record(*id, &nested)
                }
                TypeKind::Object(_) | TypeKind::Union(_) => self.push(scalar(Kind::Json)),
                TypeKind::Enum(_) | TypeKind::Id { .. } | TypeKind::RecordRef(_) => {
                    self.push(scalar(Kind::Text))
                }
                TypeKind::ScalarUnion(_) => self.push(scalar(Kind::Scalar)),
            },
            TypeRef::Array(inner) if self.named_record(inner) => self.push_child(Child {
                name: name.clone(),
                doc: f.doc.clone(),
                path: here,
                only: place.only.clone(),
                element: (**inner).clone(),
                ancestors: self.stack.clone(),
                at,
            }),
            _ => self.push(scalar(Kind::Json)),
        }
    }

    fn named_record(&self, ty: &TypeRef) -> bool {
        matches!(ty, TypeRef::Named(id) if self.is_record(*id))
    }

    /// A column; one of the same name merges with it when both read the same property
    /// the same way (two members sharing a field), and clashes otherwise.
    fn push(&mut self, mut column: Column) -> Result<(), Clash> {
        column.name = names::sql_name(&column.name);
        match self.columns.iter_mut().find(|c| c.name == column.name) {
            None => {
                self.columns.push(column);
                Ok(())
            }
            Some(c)
                if c.path == column.path && c.kind == column.kind && c.check == column.check =>
            {
                merge(&mut c.only, column.only.as_ref());
                Ok(())
            }
            Some(c) => Err(clash(
                &column.at,
                format!(
                    "the table `{}` would have two columns `{}` (the other from {})",
                    self.table, column.name, c.at
                ),
            )),
        }
    }

    fn push_child(&mut self, child: Child) -> Result<(), Clash> {
        match self.children.iter_mut().find(|c| c.name == child.name) {
            None => {
                self.children.push(child);
                Ok(())
            }
            Some(c) if c.path == child.path && c.element == child.element => {
                merge(&mut c.only, child.only.as_ref());
                Ok(())
            }
            Some(c) => Err(clash(
                &child.at,
                format!(
                    "the table `{}_{}` would be made twice (the other from {})",
                    self.table, child.name, c.at
                ),
            )),
        }
    }
}

/// Widens a merged column's member condition by another's (none: always read).
fn merge(into: &mut Option<Only>, other: Option<&Only>) {
    match (into.as_mut(), other) {
        (Some(a), Some(b)) if a.tag == b.tag => {
            for m in &b.members {
                if !a.members.contains(m) {
                    a.members.push(m.clone());
                }
            }
        }
        _ => *into = None,
    }
}

fn builtin(b: Builtin) -> Kind {
    match b {
        Builtin::String | Builtin::Url | Builtin::DateOrDateTime | Builtin::DateTimeOrRange => {
            Kind::Text
        }
        Builtin::Integer => Kind::Integer,
        Builtin::Int32 => Kind::Int32,
        Builtin::Number => Kind::Real,
        Builtin::Boolean => Kind::Boolean,
        Builtin::DateTime => Kind::Timestamp,
        Builtin::Date => Kind::Date,
        Builtin::Json | Builtin::Binary => Kind::Json,
    }
}

/// The range or length a response field states (never an input's limit: only fields
/// of types no request sends reach here).
fn check(f: &Field) -> Option<Check> {
    let c = &f.constraints;
    if c.min.is_some() || c.max.is_some() {
        return Some(Check::Range(c.min, c.max));
    }
    match (c.length, c.max_length) {
        (Some(n), _) => Some(Check::Length(Some(n), Some(n))),
        (None, Some(max)) => Some(Check::Length(None, Some(max))),
        _ => None,
    }
}

fn join(prefix: &str, name: &str) -> String {
    let name = name.to_snake_case();
    if prefix.is_empty() {
        name
    } else {
        format!("{prefix}_{name}")
    }
}

/// A doc's first sentence as the start of a nested column's doc: "The inspected unit:".
fn sentence(doc: &str) -> String {
    let first = doc.split(". ").next().unwrap_or(doc);
    format!("{}:", first.trim_end_matches('.'))
}

/// Every name of a table is one a database takes: unique (the keys beside the columns),
/// short enough for PostgreSQL. The tool's own columns (`_record`, ...) cannot be met:
/// `names::sql_name` starts a name with `_` only before a digit.
fn check_names(t: &Table) -> Result<(), Clash> {
    let mut seen = BTreeSet::new();
    let keys = t.keys.iter().map(|k| (&k.name, &t.at));
    for (name, at) in keys.chain(t.columns.iter().map(|c| (&c.name, &c.at))) {
        if !seen.insert(name.as_str()) {
            let message = format!("the table `{}` would have two columns `{name}`", t.name);
            return Err(clash(at, message));
        }
        if name.len() > names::MAX_LENGTH {
            return Err(clash(at, too_long(name)));
        }
    }
    if t.name.len() > names::MAX_LENGTH {
        return Err(clash(&t.at, too_long(&t.name)));
    }
    Ok(())
}

fn too_long(name: &str) -> String {
    format!(
        "the name `{name}` is longer than {} bytes, which PostgreSQL cuts",
        names::MAX_LENGTH
    )
}

fn clash(at: &str, message: String) -> Clash {
    let mut parts = at.rsplitn(3, ':');
    let column = parts.next().and_then(|c| c.parse().ok());
    let line = parts.next().and_then(|l| l.parse().ok());
    Clash {
        message,
        at: line.zip(column).map(|(l, c)| [l, c]),
    }
}
