//! The row converters of a dlt source: per record or union a load reaches, a function
//! making a decoded record's row (a dict dlt normalizes: its wire names, nested records as
//! dicts, arrays of records as lists of rows, each value of the column type the tables
//! model gives it), and the descriptors of the values written back as JSON.

use serde::Serialize;

use super::tables::{self, Cycles, Renames, Shape, Value};
use crate::ir::{Interface, TypeId, TypeKind};
use crate::python::context::ModuleNames;
use crate::python::names;
use crate::python::types::TypeNames;

/// The converters of one interface's dlt module, and the descriptor constants they use.
#[derive(Serialize, Default)]
pub struct RowsCx {
    /// `_D_<n> = <descriptor>`: values written back as JSON, or as their wire text.
    pub descriptors: Vec<DescriptorCx>,
    pub records: Vec<RecordRowCx>,
    pub unions: Vec<UnionRowCx>,
}

#[derive(Serialize)]
pub struct DescriptorCx {
    pub name: String,
    pub expr: String,
}

/// `def _row_X(r: _m.X) -> dict[str, _Any]`.
#[derive(Serialize)]
pub struct RecordRowCx {
    pub function: String,
    pub class: String,
    pub entries: Vec<EntryCx>,
}

/// One property of a record's row.
#[derive(Serialize)]
pub struct EntryCx {
    /// The row's key (a literal).
    pub key: String,
    pub attr: String,
    /// The variable holding the attribute's value (one per entry, so each has one type).
    pub var: String,
    /// The condition under which it is set, or empty: always.
    pub when: String,
    /// The value (an expression in `var`).
    pub value: String,
}

/// `def _row_U(r: _m.U) -> dict[str, _Any]`: the member's converter by its class.
#[derive(Serialize)]
pub struct UnionRowCx {
    pub function: String,
    pub table: String,
    pub annotation: String,
    /// `(member class, its converter)`.
    pub members: Vec<(String, String)>,
}

/// The converter function of a declared type.
pub fn function(names: &ModuleNames, id: TypeId) -> String {
    format!("_row_{}", names.types[id.index()])
}

/// The converters of every record and union the lists' rows reach.
pub fn rows(i: &Interface, names: &ModuleNames, renames: &Renames) -> RowsCx {
    let cycles = Cycles::new(i);
    let m = TypeNames {
        names: &names.types,
        prefix: "_m.",
    };
    let mut out = RowsCx::default();
    for id in reached(i, &cycles) {
        match &i.ty(id).kind {
            TypeKind::Object(_) => {
                let record = record_row(i, names, &m, &cycles, renames, id, &mut out);
                out.records.push(record);
            }
            TypeKind::Union(u) => out.unions.push(UnionRowCx {
                function: function(names, id),
                table: format!("_ROW_{}", names.types[id.index()]),
                annotation: m.named(id),
                members: u
                    .variants
                    .iter()
                    .map(|v| (m.named(v.shape), function(names, v.shape)))
                    .collect(),
            }),
            _ => {}
        }
    }
    out
}

/// The records and unions whose rows a load makes, in the order of the interface's types
/// (so the module's order does not depend on the walk).
fn reached(i: &Interface, cycles: &Cycles) -> Vec<TypeId> {
    let mut seen = vec![false; i.types.len()];
    let mut todo: Vec<TypeId> = i
        .sync
        .iter()
        .flat_map(|s| s.lists.iter().map(|l| l.record))
        .collect();
    while let Some(id) = todo.pop() {
        if std::mem::replace(&mut seen[id.index()], true) {
            continue;
        }
        match &i.ty(id).kind {
            TypeKind::Object(o) => {
                for f in o.wire_fields() {
                    if let Shape::Record(t) | Shape::Child(t) = tables::shape(i, cycles, id, f) {
                        todo.push(t);
                    }
                }
            }
            TypeKind::Union(u) => todo.extend(u.variants.iter().map(|v| v.shape)),
            _ => {}
        }
    }
    (0..i.types.len())
        .filter(|&n| seen[n])
        .map(|n| TypeId(n as u32))
        .collect()
}

/// A record's converter: its union tags, then each field (the credentials left out).
fn record_row(
    i: &Interface,
    names: &ModuleNames,
    m: &TypeNames,
    cycles: &Cycles,
    renames: &Renames,
    id: TypeId,
    out: &mut RowsCx,
) -> RecordRowCx {
    let TypeKind::Object(o) = &i.ty(id).kind else {
        unreachable!("record_row is called for records")
    };
    let attrs = names.record(id);
    let tags = &names.tags[id.index()];
    let mut entries: Vec<EntryCx> = attrs
        .tags(tags)
        .enumerate()
        .map(|(n, ((tag, _), attr))| EntryCx {
            key: names::string(tag),
            attr: attr.to_string(),
            var: format!("x{n}"),
            when: String::new(),
            value: format!("x{n}"),
        })
        .collect();
    let filled = i.ty(id).usage.response_side();
    let fields = attrs
        .fields(o)
        .map(|(f, a)| (f, a, filled && !f.nullable))
        .chain(attrs.one_of(o).map(|(f, a)| (f, a, false)));
    for (f, attr, filled) in fields {
        if tags.iter().any(|(tag, _)| *tag == f.name) {
            continue;
        }
        let collection = matches!(
            f.ty,
            crate::ir::TypeRef::Array(_) | crate::ir::TypeRef::Map(_)
        );
        let unset = !(f.required || filled && collection);
        let x = format!("x{}", entries.len());
        let value = match tables::shape(i, cycles, id, f) {
            Shape::Skipped => continue,
            Shape::Scalar(_, Value::Plain) => x.clone(),
            Shape::Scalar(_, Value::Text) => format!("_text({x})"),
            Shape::Scalar(_, Value::ScalarText) => format!("_scalar_text({x})"),
            Shape::Scalar(_, Value::WireText) => {
                format!("_wire_text({}, {x})", descriptor(i, m, f, out))
            }
            Shape::Json => format!("{}.encode({x})", descriptor(i, m, f, out)),
            Shape::Record(t) => format!("{}({x})", function(names, t)),
            Shape::Child(t) => format!("[{}(e) for e in {x}]", function(names, t)),
        };
        let when = match (unset, f.nullable) {
            (true, true) => format!("{x} is not _UNSET and {x} is not None"),
            (true, false) => format!("{x} is not _UNSET"),
            (false, true) => format!("{x} is not None"),
            (false, false) => String::new(),
        };
        entries.push(EntryCx {
            key: names::string(&tables::key(renames, id, f)),
            attr: attr.to_string(),
            var: x,
            when,
            value,
        });
    }
    RecordRowCx {
        function: function(names, id),
        class: m.named(id),
        entries,
    }
}

/// A module constant holding the descriptor of `f`'s values (made once, reused).
fn descriptor(i: &Interface, m: &TypeNames, f: &crate::ir::Field, out: &mut RowsCx) -> String {
    let expr = m.desc(i, &f.ty, &Default::default(), false);
    if let Some(d) = out.descriptors.iter().find(|d| d.expr == expr) {
        return d.name.clone();
    }
    let name = format!("_D_{}", out.descriptors.len());
    out.descriptors.push(DescriptorCx {
        name: name.clone(),
        expr,
    });
    name
}
