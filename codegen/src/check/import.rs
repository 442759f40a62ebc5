//! The interface's `import`: the operations `inspection import` calls once per row of a
//! file. Checked on the resolved interface (each operation's body and each list's paging
//! are known): a target names an operation with a JSON body whose row is an object, its
//! key and its find's columns are among the row's columns, an idempotent target needs no
//! find, and a find walks a paged list by a date-time filter to fields its records have.

use std::collections::BTreeSet;

use serde_saphyr::Spanned;

use super::Checker;
use crate::ir::{self, Interface, Operation, TypeKind, TypeRef};
use crate::spec;

impl Checker<'_> {
    pub(super) fn import(&mut self, def: &spec::ImportDef, i: &Interface) -> Option<ir::Import> {
        if def.targets.value.is_empty() {
            self.error(
                &def.targets,
                "the import names no target",
                "name each kind of row under `targets:` with its operation",
            );
            return None;
        }
        let mut names = BTreeSet::new();
        let mut targets = Vec::new();
        for target in &def.targets.value {
            let name = &target.name;
            if !is_command_name(&name.value) {
                self.error(
                    name,
                    format!("`{}` cannot be a command's name", name.value),
                    "use lower-case letters, digits and `_`, starting with a letter (`unit_updates`)",
                );
                continue;
            }
            if !names.insert(name.value.as_str()) {
                self.error(
                    name,
                    format!("the import names `{}` twice", name.value),
                    "name each target once",
                );
                continue;
            }
            targets.extend(self.import_target(target, i));
        }
        (targets.len() == def.targets.value.len()).then(|| ir::Import {
            doc: def.doc.clone(),
            targets,
        })
    }

    fn import_target(
        &mut self,
        def: &spec::ImportTargetDef,
        i: &Interface,
    ) -> Option<ir::ImportTarget> {
        let op = self.export_operation(&def.operation, i)?;
        let row = def.row.as_ref().map(|r| r.value.clone());
        if ir::row_object(i, op, row.as_deref()).is_none() {
            let (at, message) = match &def.row {
                Some(r) => (
                    r,
                    format!("`{}` is no object field of `{}`'s body", r.value, op.name),
                ),
                None => (
                    &def.operation,
                    format!("`{}` takes no JSON body of an object", op.name),
                ),
            };
            self.error(
                at,
                message,
                "import into an operation whose body is a record (`row:` names the field of a body that wraps one)",
            );
            return None;
        }
        let mut target = ir::ImportTarget {
            name: def.name.value.clone(),
            doc: def.doc.clone(),
            operation: op.name.clone(),
            idempotent: def
                .idempotent
                .as_ref()
                .map_or(ir::idempotent_method(op.method), |s| s.value),
            key: def.key.value.clone(),
            row,
            find: None,
        };
        let columns: BTreeSet<String> = target.columns(i).into_iter().map(|c| c.name).collect();
        self.import_key(&def.key, &columns)?;
        if let Some(find) = &def.find {
            if target.idempotent {
                self.error(
                    &find.list,
                    format!(
                        "`{}` is sent again safely, so nothing needs finding",
                        target.name
                    ),
                    "drop `find`, or say `idempotent: false` if sending a row twice is not safe",
                );
                return None;
            }
            target.find = Some(self.import_find(find, i, &columns)?);
        }
        Some(target)
    }

    fn import_key(&mut self, key: &Spanned<Vec<String>>, columns: &BTreeSet<String>) -> Option<()> {
        if key.value.is_empty() {
            self.error(
                key,
                "the key names no column",
                "name the columns that tell rows apart",
            );
            return None;
        }
        let mut seen = BTreeSet::new();
        for column in &key.value {
            if !columns.contains(column) || !seen.insert(column) {
                self.error(
                    key,
                    format!(
                        "the key's `{column}` is not a column of the target, or is named twice"
                    ),
                    format!("name columns of the target once each: {}", names(columns)),
                );
                return None;
            }
        }
        Some(())
    }

    fn import_find(
        &mut self,
        def: &spec::FindDef,
        i: &Interface,
        columns: &BTreeSet<String>,
    ) -> Option<ir::Find> {
        let list = self.paged_list(&def.list, i, "import's find")?;
        let (since_param, field) = self.export_since(&def.since, i, list)?;
        if field.is_some() {
            self.error(
                &def.since,
                "a find filters on a date-time query parameter, not a field of a JSON-encoded one",
                "name a plain date-time query parameter such as `created_after`",
            );
            return None;
        }
        let mut matches = Vec::new();
        for (column, path) in def.matches.iter() {
            if !columns.contains(&column.value) {
                self.error(
                    column,
                    format!("`{}` is not a column of the target", column.value),
                    format!("compare columns of the target: {}", names(columns)),
                );
                return None;
            }
            if !record_has(i, list, &path.value) {
                self.error(
                    path,
                    format!(
                        "the records of `{}` have no field `{}`",
                        list.name, path.value
                    ),
                    "name a field of the list's records, nested with `.` (`unit.reference_number`)",
                );
                return None;
            }
            matches.push((column.value.clone(), path.value.clone()));
        }
        if matches.is_empty() {
            self.error(
                &def.list,
                "the find compares no column",
                "under `match:`, pair each column that names a row with the records' field",
            );
            return None;
        }
        Some(ir::Find {
            list: list.name.clone(),
            since_param,
            matches,
        })
    }
}

/// Whether the records of the paged `list` have the field at `path` (`unit.id`).
fn record_has(i: &Interface, list: &Operation, path: &str) -> bool {
    let Some(mut ty) = list.paging.as_ref().map(|p| p.item().clone()) else {
        return false;
    };
    for name in path.split('.') {
        let next = match i.named(&ty).map(|t| &t.kind) {
            Some(TypeKind::Object(o)) => o
                .wire_fields()
                .find(|f| f.name == name)
                .map(|f| f.ty.clone()),
            _ => None,
        };
        match next {
            Some(next) => ty = next,
            None => return false,
        }
    }
    !matches!(ty, TypeRef::Array(_))
}

fn is_command_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn names(columns: &BTreeSet<String>) -> String {
    columns
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
