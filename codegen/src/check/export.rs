//! The interface's `export`: which paged list the command-line tool walks, how it asks
//! for records after a time, which fields tell records apart and in time, and which
//! operation answers a record's document. Checked on the resolved interface, where each
//! operation's paging and answer are known.

use serde_saphyr::Spanned;

use super::Checker;
use crate::ir::{self, AnswerKind, Builtin, Interface, Operation, TypeKind, TypeRef};
use crate::spec;

impl Checker<'_> {
    pub(super) fn export(&mut self, def: &spec::ExportDef, i: &Interface) -> Option<ir::Export> {
        let list = self.paged_list(&def.list, i, "export")?;
        let (since_param, since_field) = self.export_since(&def.since, i, list)?;
        let item = list.paging.as_ref().and_then(|p| i.named(p.item()));
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
        let document_link = match &def.document_link {
            Some(link) => Some(self.export_link(link, def, fields)?),
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
            document_link,
        })
    }

    /// A url field of the records, a lifetime, no credentials; and a `document` operation
    /// to fall back on when a link fails.
    fn export_link(
        &mut self,
        def: &spec::DocumentLinkDef,
        export: &spec::ExportDef,
        fields: &[ir::Field],
    ) -> Option<ir::DocumentLink> {
        if export.document.is_none() {
            self.error(
                &def.field,
                "a document link needs the export's `document` operation, its fallback when a link fails",
                "name the operation answering the same document with `document:`",
            );
            return None;
        }
        let url = |ty: &TypeRef| matches!(ty, TypeRef::Builtin(Builtin::Url | Builtin::String));
        if !fields
            .iter()
            .any(|f| f.name == def.field.value && url(&f.ty))
        {
            self.error(
                &def.field,
                format!(
                    "the exported records have no url field `{}`",
                    def.field.value
                ),
                "name the records' field holding the pre-signed link, such as `pdf_share_url`",
            );
            return None;
        }
        if def.credentials.value != "none" {
            self.error(
                &def.credentials,
                format!(
                    "`credentials: {}`: a document link is fetched with no credential",
                    def.credentials.value
                ),
                "write `credentials: none` (a link that needs the key is not a pre-signed link)",
            );
            return None;
        }
        let Some(lifetime_secs) = lifetime(&def.lifetime.value) else {
            self.error(
                &def.lifetime,
                format!("`{}` is not a lifetime", def.lifetime.value),
                "write a whole number above 0 and a unit: `48 hours` (seconds, minutes, hours, days)",
            );
            return None;
        };
        Some(ir::DocumentLink {
            doc: def.doc.clone(),
            field: def.field.value.clone(),
            lifetime_secs,
        })
    }

    pub(super) fn export_operation<'i>(
        &mut self,
        name: &Spanned<String>,
        i: &'i Interface,
    ) -> Option<&'i Operation> {
        let op = i.operations.iter().find(|o| o.name == name.value);
        if op.is_none() {
            self.error(
                name,
                format!("`{}` is no operation of this interface", name.value),
                "name an operation of this interface",
            );
        }
        op
    }

    /// A paged list with no required input, which the tool's `what` (export, sync) walks.
    pub(super) fn paged_list<'i>(
        &mut self,
        name: &Spanned<String>,
        i: &'i Interface,
        what: &str,
    ) -> Option<&'i Operation> {
        let op = self.export_operation(name, i)?;
        if op.paging.is_none() || !op.path_params.is_empty() || op.query.iter().any(|q| q.required)
        {
            self.error(
                name,
                format!(
                    "the {what} list `{}` must be paged and take no required input",
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
    pub(super) fn export_since(
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

/// `48 hours` in seconds: a whole number above 0 and a unit (singular or plural).
fn lifetime(text: &str) -> Option<u64> {
    let (count, unit) = text.trim().split_once(' ')?;
    let count: u64 = count.parse().ok().filter(|n| *n > 0)?;
    let unit = match unit.trim().trim_end_matches('s') {
        "second" => 1,
        "minute" => 60,
        "hour" => 3_600,
        "day" => 86_400,
        _ => return None,
    };
    count.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lifetime_is_a_whole_number_and_a_unit() {
        assert_eq!(super::lifetime("48 hours"), Some(172_800));
        assert_eq!(super::lifetime("1 day"), Some(86_400));
        assert_eq!(super::lifetime("90 seconds"), Some(90));
        for bad in [
            "48",
            "hours",
            "0 hours",
            "-1 hours",
            "1.5 hours",
            "2 weeks",
            "",
        ] {
            assert_eq!(super::lifetime(bad), None, "{bad}");
        }
    }
}
