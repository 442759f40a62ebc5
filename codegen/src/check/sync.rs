//! The interface's `sync`: the lists `inspection sync` walks into the user's database and
//! how each stays current. Checked on the resolved interface (each list's paging and
//! records are known), like the export; the tables' names are checked by the SQL
//! backend's model ([`crate::sql`]), which `check` asks once the declaration holds.

use std::collections::BTreeMap;

use serde_saphyr::Spanned;

use super::Checker;
use crate::ir::{self, Builtin, Interface, TypeKind, TypeRef};
use crate::spec;

impl Checker<'_> {
    pub(super) fn sync(&mut self, def: &spec::SyncDef, i: &Interface) -> Option<ir::Sync> {
        let mut seen: BTreeMap<&str, &Spanned<String>> = BTreeMap::new();
        let mut lists = Vec::new();
        for list in &def.lists.value {
            if let Some(first) = seen.insert(list.list.value.as_str(), &list.list) {
                let first = first.referenced;
                self.error(
                    &list.list,
                    format!(
                        "the sync lists `{}` twice (first at {}:{})",
                        list.list.value,
                        first.line(),
                        first.column()
                    ),
                    "list each operation once",
                );
                continue;
            }
            lists.extend(self.sync_list(list, i));
        }
        if def.lists.value.is_empty() {
            self.error(
                &def.lists,
                "the sync lists no operation",
                "name the lists it walks under `lists:`",
            );
        }
        (lists.len() == def.lists.value.len()).then(|| ir::Sync {
            doc: def.doc.clone(),
            lists,
        })
    }

    /// The tables the declared sync makes take one name each, in both databases.
    pub(super) fn sync_tables(&mut self, i: &Interface) {
        if let Err(clash) = crate::sql::tables::tables(i) {
            let [line, column] = clash.at.unwrap_or([0, 0]);
            self.diags.push(crate::diagnostic::Diagnostic {
                file: self.file.to_string(),
                line,
                column,
                message: clash.message,
                help: "rename one of the fields (a database folds case and reserves some words), or leave the list out of the sync".into(),
            });
        }
    }

    fn sync_list(&mut self, def: &spec::SyncListDef, i: &Interface) -> Option<ir::SyncList> {
        let op = self.paged_list(&def.list, i, "sync")?;
        let record = match op.paging.as_ref().map(|p| p.item()) {
            Some(TypeRef::Named(id)) => Some(*id),
            _ => None,
        };
        let fields = match record.map(|id| &i.ty(id).kind) {
            Some(TypeKind::Object(o)) if o.one_of.is_none() => &o.fields,
            _ => {
                self.error(
                    &def.list,
                    format!("the records of `{}` are not a record type", op.name),
                    "sync a list whose items are records with an id",
                );
                return None;
            }
        };
        let id_field = def.id.as_ref().map_or("id", |id| id.value.as_str());
        if !fields.iter().any(|f| f.name == id_field) {
            let at = def.id.as_ref().unwrap_or(&def.list);
            self.error(
                at,
                format!("the records of `{}` have no field `{id_field}`", op.name),
                "name the records' id field with `id:`",
            );
            return None;
        }
        let current = self.sync_current(def, i, op, fields)?;
        Some(ir::SyncList {
            list: op.name.clone(),
            record: record?,
            id_field: id_field.to_string(),
            current,
        })
    }

    /// A filter (`since`, a date-time `watermark` of the records, what it `sees`), or
    /// none of the three: the whole list every run.
    fn sync_current(
        &mut self,
        def: &spec::SyncListDef,
        i: &Interface,
        op: &ir::Operation,
        fields: &[ir::Field],
    ) -> Option<ir::Current> {
        let Some(since) = &def.since else {
            if let Some(extra) = def.watermark.as_ref().or(def.sees.as_ref()) {
                self.error(
                    extra,
                    "`watermark` and `sees` go with a `since` filter",
                    "name the list's \"after\" filter with `since:`, or drop these for a whole walk",
                );
                return None;
            }
            return Some(ir::Current::Walk);
        };
        let (since_param, since_field) = self.export_since(since, i, op)?;
        let Some(watermark) = &def.watermark else {
            self.error(
                since,
                "a `since` filter needs the records' `watermark` field",
                "name the date-time field the filter compares, such as `created_at`",
            );
            return None;
        };
        let dated = fields
            .iter()
            .any(|f| f.name == watermark.value && f.ty == TypeRef::Builtin(Builtin::DateTime));
        if !dated {
            self.error(
                watermark,
                format!(
                    "the records of `{}` have no date-time field `{}`",
                    op.name, watermark.value
                ),
                "name the date-time field that `since` filters on, such as `updated_at`",
            );
            return None;
        }
        let changes = match def.sees.as_ref().map(|s| s.value.as_str()) {
            Some("new") => false,
            Some("changed") => true,
            other => {
                let message = match other {
                    Some(v) => format!("`sees: {v}` is neither `new` nor `changed`"),
                    None => "a `since` filter needs `sees: new` or `sees: changed`".into(),
                };
                self.error(
                    def.sees.as_ref().unwrap_or(since),
                    message,
                    "`changed` when the watermark is an update time (a changed record is listed again), otherwise `new`",
                );
                return None;
            }
        };
        Some(ir::Current::Filter {
            since_param,
            since_field,
            watermark_field: watermark.value.clone(),
            changes,
        })
    }
}
