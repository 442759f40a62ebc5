//! What `inspection import` feeds from a file's rows: per target, the operation a row
//! calls, whether sending a row twice is safe, the columns that name a row (its key) and,
//! for an operation that is not safe to repeat, how a row whose answer never came is
//! looked for instead of being sent again. A row's columns are the operation's inputs
//! ([`ImportTarget::columns`]), computed here once for the generator and its checks.

use serde::{Deserialize, Serialize};

use super::{Builtin, Field, Interface, Method, Operation, TypeKind, TypeRef};

/// The targets of an interface's import (checked: each operation takes a JSON body, the
/// key and the find's columns are among its columns, the find's list is paged and takes
/// the date-time filter it names).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Import {
    pub doc: String,
    pub targets: Vec<ImportTarget>,
}

/// One kind of row a file can hold (`units`, `tasks`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportTarget {
    /// The name on the command line (`inspection import v3 units`).
    pub name: String,
    pub doc: String,
    /// The operation each row calls.
    pub operation: String,
    /// Whether sending a row again is safe (a PUT, a PATCH, or a POST the spec says
    /// finds before it creates): a row whose answer never came is then simply sent again.
    pub idempotent: bool,
    /// The columns that name a row: no two rows of a file share them, and a key's last
    /// applied values are kept so that an unchanged row is not sent again.
    pub key: Vec<String>,
    /// The body's field a row fills, for a body that wraps its record (`asset` of
    /// `{"asset": {...}}`); `None`: a row is the body itself.
    pub row: Option<String>,
    /// How a row whose request may have been applied without its answer is found.
    pub find: Option<Find>,
}

/// How the records a target's operation created are found again: the list, its "after"
/// filter, and which record field each column is compared with.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Find {
    pub list: String,
    pub since_param: String,
    /// (column, the record's field path such as `unit.reference_number`).
    pub matches: Vec<(String, String)>,
}

/// Where a column's value goes in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    Path,
    Query,
    Body,
}

/// How a cell's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CellKind {
    Text,
    Integer,
    Number,
    Boolean,
    Date,
    DateTime,
    DateOrDateTime,
    /// A text or a number, as the cell reads (a union of scalars).
    Scalar,
    /// JSON text (an object, an array).
    Json,
    /// A map: JSON object text, and `column.KEY` cells folded into it as text.
    Map,
}

/// One column a target's rows may fill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    pub place: Place,
    pub kind: CellKind,
    pub required: bool,
    /// The exactly-one-of variant the column belongs to (`user` for `assignee_username`):
    /// a row fills one variant's columns.
    pub variant: Option<String>,
    pub doc: String,
}

impl ImportTarget {
    /// The operation's inputs as columns: path parameters, query parameters, then the
    /// body's fields (those of `row` for a wrapping body) and its variants' fields.
    pub fn columns(&self, i: &Interface) -> Vec<Column> {
        let Some(op) = i.operations.iter().find(|o| o.name == self.operation) else {
            return Vec::new();
        };
        let mut columns: Vec<Column> = Vec::new();
        let plain = |f: &Field, place| column(i, f, place, None);
        columns.extend(op.path_params.iter().map(|f| plain(f, Place::Path)));
        columns.extend(op.query.iter().map(|f| plain(f, Place::Query)));
        if let Some(object) = row_object(i, op, self.row.as_deref()) {
            columns.extend(object.fields.iter().map(|f| plain(f, Place::Body)));
            for variant in object.one_of.iter().flat_map(|o| &o.variants) {
                columns.extend(
                    variant
                        .fields
                        .iter()
                        .map(|f| column(i, f, Place::Body, Some(&variant.name))),
                );
            }
        }
        columns
    }
}

/// The object a row fills: the body's type, or its field `row`'s.
pub fn row_object<'i>(
    i: &'i Interface,
    op: &Operation,
    row: Option<&str>,
) -> Option<&'i super::Object> {
    let object = |ty: &TypeRef| match i.named(ty).map(|t| &t.kind) {
        Some(TypeKind::Object(o)) => Some(o),
        _ => None,
    };
    let body = object(op.json_body()?)?;
    match row {
        None => Some(body),
        Some(name) => object(&body.fields.iter().find(|f| f.name == name)?.ty),
    }
}

/// Whether sending `method` twice leaves the service as sending it once.
pub fn idempotent_method(method: Method) -> bool {
    !matches!(method, Method::POST)
}

fn column(i: &Interface, f: &Field, place: Place, variant: Option<&str>) -> Column {
    Column {
        name: f.name.clone(),
        place,
        kind: cell_kind(i, &f.ty),
        required: f.required,
        variant: variant.map(str::to_string),
        doc: f.doc.clone(),
    }
}

fn cell_kind(i: &Interface, ty: &TypeRef) -> CellKind {
    match ty {
        TypeRef::Builtin(b) => match b {
            Builtin::Integer | Builtin::Int32 => CellKind::Integer,
            Builtin::Number => CellKind::Number,
            Builtin::Boolean => CellKind::Boolean,
            Builtin::Date => CellKind::Date,
            Builtin::DateTime => CellKind::DateTime,
            Builtin::DateOrDateTime | Builtin::DateTimeOrRange => CellKind::DateOrDateTime,
            Builtin::String | Builtin::Url | Builtin::Binary => CellKind::Text,
            Builtin::Json => CellKind::Json,
        },
        TypeRef::Named(id) => match &i.ty(*id).kind {
            TypeKind::Enum(_) | TypeKind::RecordRef(_) => CellKind::Text,
            TypeKind::Id {
                accepts_integers, ..
            } => {
                if *accepts_integers {
                    CellKind::Scalar
                } else {
                    CellKind::Text
                }
            }
            TypeKind::ScalarUnion(_) => CellKind::Scalar,
            TypeKind::Object(_) | TypeKind::Union(_) => CellKind::Json,
        },
        TypeRef::Map(_) => CellKind::Map,
        TypeRef::Array(_) | TypeRef::Page(_) | TypeRef::JsonEncoded(_) => CellKind::Json,
    }
}
