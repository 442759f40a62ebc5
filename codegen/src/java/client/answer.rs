//! How an operation's answer is read: the call kind, the answer's type and its reader, or
//! for a paged list the `Walk.Plan` of its pages.

use crate::ir::{AnswerKind, Interface, Operation, Paging, TypeRef};
use crate::java::models::{self, TypeCx};
use crate::java::names;
use crate::java::types::Types;

use super::{ClientNames, wrapped};

/// How the answer is read: the call kind, the answer's type, the page's type and the
/// reader (or paging plan).
pub(super) fn answer(
    i: &Interface,
    op: &Operation,
    n: &ClientNames,
    types: &Types,
) -> (&'static str, String, String, String) {
    if let Some(paging) = i.paging(op) {
        let (page_type, plan) = plan(i, n, types, paging);
        return (
            "paged",
            types.java(paging_item(&paging), true),
            page_type,
            plan,
        );
    }
    match &op.answer.kind {
        AnswerKind::Json { body, .. } => (
            "json",
            types.java(body, true),
            String::new(),
            reader(types, body),
        ),
        AnswerKind::Upsert { body } => (
            "upsert",
            format!("Upserted<{}>", types.java(body, true)),
            types.java(body, true),
            reader(types, body),
        ),
        AnswerKind::Bytes { .. } => ("bytes", "byte[]".to_string(), String::new(), String::new()),
        AnswerKind::Empty => ("empty", "Void".to_string(), String::new(), String::new()),
    }
}

/// A paged list's page type and its `Walk.Plan`.
fn plan(i: &Interface, n: &ClientNames, types: &Types, paging: Paging<'_>) -> (String, String) {
    let item = paging_item(&paging);
    let item_ty = types.java(item, true);
    let item_reader = reader(types, item);
    match paging {
        Paging::Cursor { settings: c, .. } => {
            let page = n.page.clone().expect("a cursor interface has a page");
            let field = |f: &Option<String>| f.as_deref().map_or("null".to_string(), names::string);
            let plan = wrapped(
                "Walk.Plan.cursor",
                &[
                    format!("(v, p) -> {page}.decode(v, p, {item_reader})"),
                    format!("{page}::{}", names::member(&c.items_field)),
                    names::string(&c.items_field),
                    names::string(&c.paging_field),
                    field(&c.next_url_field),
                    field(&c.cursor_field),
                    names::string(&c.page_param),
                    field(&c.page_size_field),
                    names::string(&c.per_page_param),
                ],
                8,
            );
            (format!("{page}<{item_ty}>"), plan)
        }
        Paging::Links {
            envelope,
            items_field,
            settings,
            ..
        } => {
            let env = types.names[envelope.index()].clone();
            let plan = wrapped(
                "Walk.Plan.links",
                &[
                    format!("{env}::decode"),
                    envelope_items(i, envelope, items_field, types),
                    names::string(items_field),
                    names::string(&settings.links_field),
                    // The links paging style names its links `next` and `prev`.
                    names::string("next"),
                    names::string("prev"),
                ],
                8,
            );
            (env, plan)
        }
    }
}

fn paging_item<'a>(p: &Paging<'a>) -> &'a TypeRef {
    match p {
        Paging::Cursor { item, .. } | Paging::Links { item, .. } => item,
    }
}

/// A `Wire.Reader` of `ty`: a method reference for a declared type, else a lambda.
fn reader(types: &Types, ty: &TypeRef) -> String {
    match ty {
        TypeRef::Named(id) => format!("{}::decode", types.names[id.index()]),
        _ => format!("(v, p) -> {}", types.decode(ty, "v", "p", 0)),
    }
}

/// The function giving a links envelope's records (none when absent).
fn envelope_items(
    i: &Interface,
    envelope: crate::ir::TypeId,
    items_field: &str,
    types: &Types,
) -> String {
    let t = i.ty(envelope);
    let TypeCx::Record(r) = models::type_cx(i, t, &types.names[envelope.index()], types) else {
        panic!("checked: a links envelope is a record")
    };
    let f = r
        .fields
        .iter()
        .find(|f| f.wire_text == items_field)
        .expect("checked: the envelope holds the items field");
    match f.presence {
        "required" => format!("p -> p.{}()", f.name),
        _ => format!("p -> p.{}().orElse(List.of())", f.name),
    }
}
