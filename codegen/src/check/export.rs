//! The interface's `export`: which paged list the command-line tool walks, how it asks
//! for records after a time, which fields tell records apart and in time, and which
//! operation answers a record's document. Checked on the resolved interface, where each
//! operation's paging and answer are known.

use serde_saphyr::Spanned;

use super::Checker;
use crate::ir::{
    self, AnswerKind, Builtin, Interface, Operation, OperationPaging, TypeKind, TypeRef,
};
use crate::spec;

impl Checker<'_> {
    pub(super) fn export(&mut self, def: &spec::ExportDef, i: &Interface) -> Option<ir::Export> {
        let list = self.export_list(&def.list, i)?;
        let (since_param, since_field) = self.export_since(&def.since, i, list)?;
        let item = match &list.paging {
            Some(OperationPaging::Cursor { item, .. } | OperationPaging::Links { item, .. }) => {
                i.named(item)
            }
            None => None,
        };
        let fields = match item.map(|t| &t.kind) {
            Some(TypeKind::Object(o)) => &o.fields,
            _ => {
                self.error(
                    &def.list,
                    format!("the records of `{}` are not a record type", list.name),
                    "export a list whose items are records with an id and a date-time",
                );
                return None;
            }
        };
        let has = |name: &str, date: bool| {
            fields.iter().any(|f| {
                f.name == name && (!date || matches!(f.ty, TypeRef::Builtin(Builtin::DateTime)))
            })
        };
        let id_field = def.id.as_ref().map_or("id", |id| id.value.as_str());
        if !has(id_field, false) {
            let at = def.id.as_ref().unwrap_or(&def.list);
            self.error(
                at,
                format!("the records of `{}` have no field `{id_field}`", list.name),
                "name the records' id field with `id:`",
            );
            return None;
        }
        if !has(&def.watermark.value, true) {
            self.error(
                &def.watermark,
                format!(
                    "the records of `{}` have no date-time field `{}`",
                    list.name, def.watermark.value
                ),
                "name the date-time field that `since` filters on, such as `created_at`",
            );
            return None;
        }
        let document = match &def.document {
            Some(name) => Some(self.export_document(name, i)?.name.clone()),
            None => None,
        };
        Some(ir::Export {
            doc: def.doc.clone(),
            list: list.name.clone(),
            since_param,
            since_field,
            id_field: id_field.to_string(),
            watermark_field: def.watermark.value.clone(),
            document,
        })
    }

    fn export_operation<'i>(
        &mut self,
        name: &Spanned<String>,
        i: &'i Interface,
    ) -> Option<&'i Operation> {
        let op = i.operations.iter().find(|o| o.name == name.value);
        if op.is_none() {
            self.error(
                name,
                format!("the export names `{}`, which is no operation", name.value),
                "name an operation of this interface",
            );
        }
        op
    }

    fn export_list<'i>(
        &mut self,
        name: &Spanned<String>,
        i: &'i Interface,
    ) -> Option<&'i Operation> {
        let op = self.export_operation(name, i)?;
        if op.paging.is_none() || !op.path_params.is_empty() || op.query.iter().any(|q| q.required)
        {
            self.error(
                name,
                format!(
                    "the export list `{}` must be paged and take no required input",
                    op.name
                ),
                "name a paged list with no path parameter and no required query parameter",
            );
            return None;
        }
        Some(op)
    }

    /// `param` (a date-time query parameter) or `param.field` (a date-time field of a
    /// JSON-encoded record parameter).
    fn export_since(
        &mut self,
        since: &Spanned<String>,
        i: &Interface,
        list: &Operation,
    ) -> Option<(String, Option<String>)> {
        let (param, field) = match since.value.split_once('.') {
            Some((p, f)) => (p, Some(f)),
            None => (since.value.as_str(), None),
        };
        let date = |ty: &TypeRef| {
            matches!(
                ty,
                TypeRef::Builtin(Builtin::DateTime | Builtin::DateTimeOrRange)
            )
        };
        let fits = list
            .query
            .iter()
            .find(|q| q.name == param)
            .is_some_and(|q| match (field, &q.ty) {
                (None, ty) => date(ty),
                (Some(field), TypeRef::JsonEncoded(inner)) => {
                    matches!(i.named(inner).map(|t| &t.kind), Some(TypeKind::Object(o))
                        if o.fields.iter().any(|f| f.name == field && date(&f.ty)))
                }
                _ => false,
            });
        if !fits {
            self.error(
                since,
                format!(
                    "`{}` is no date-time query parameter of `{}` (nor `param.field` of a JSON-encoded one)",
                    since.value, list.name
                ),
                "name the list's \"after\" filter, such as `created_after` or `filter.created_at`",
            );
            return None;
        }
        Some((param.to_string(), field.map(str::to_string)))
    }

    fn export_document<'i>(
        &mut self,
        name: &Spanned<String>,
        i: &'i Interface,
    ) -> Option<&'i Operation> {
        let op = self.export_operation(name, i)?;
        let bytes =
            matches!(op.answer.kind, AnswerKind::Bytes { .. }) || op.answer.alternative.is_some();
        if op.path_params.len() != 1
            || op.query.iter().any(|q| q.required)
            || op.body.is_some()
            || !bytes
        {
            self.error(
                name,
                format!(
                    "the export document `{}` must take the record's id as its one input and answer bytes",
                    op.name
                ),
                "name an operation like `get_inspection` (one path parameter; a PDF answer or alternative)",
            );
            return None;
        }
        Some(op)
    }
}
