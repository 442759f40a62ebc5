//! A paged list's walk: the methods of its pages and of a resumed walk, and how a page is
//! read and says where the next one is (a cursor, or a link).

use crate::ir::{CursorPaging, Interface, LinksPaging, Paging, TypeId, TypeKind, TypeRef};

use super::super::models::Claimed;
use super::super::names::{self, Scope};
use super::super::types::Types;
use super::record_field;

/// A paged list: its item type, the pages' and the resumed walk's methods, and how a page
/// is read and where it says the next one is.
#[derive(serde::Serialize)]
pub struct PagedCx {
    pub item: String,
    pub pages: String,
    pub from: String,
    /// Statements reading `answer` into the page's items and the next resume point.
    pub read: Vec<String>,
    /// The query parameter a cursor goes back in (empty for links).
    pub cursor_param: String,
    /// A links list's walk backwards (it follows `prev`): its methods, and the unexported
    /// method both directions share; `read` then tests `backward`.
    pub backward: Option<BackwardCx>,
}

#[derive(serde::Serialize)]
pub struct BackwardCx {
    pub method: String,
    pub from: String,
    pub walk: String,
}

pub(super) fn paged_cx(
    i: &Interface,
    types: &Types,
    claimed: &Claimed,
    method: &str,
    methods: &mut Scope,
    paging: Paging<'_>,
) -> PagedCx {
    let pages = methods.claim(&format!("{method}Pages"));
    let from = methods.claim(&format!("{method}From"));
    let (item, read, cursor_param, backward) = match paging {
        Paging::Cursor { item, settings } => (
            item,
            cursor_read(i, types, claimed, item, settings),
            names::string(&settings.page_param),
            None,
        ),
        Paging::Links {
            envelope,
            item,
            items_field,
            settings,
        } => (
            item,
            links_read(i, types, claimed, envelope, items_field, settings),
            String::new(),
            Some(BackwardCx {
                method: methods.claim(&format!("{method}Backward")),
                from: methods.claim(&format!("{method}BackwardFrom")),
                walk: methods.claim(&format!("{}Walk", super::lower_first(method))),
            }),
        ),
    };
    PagedCx {
        item: types.go(item),
        pages,
        from,
        read,
        cursor_param,
        backward,
    }
}

const FAILED: &str = "if err != nil {\n\treturn nil, nil, runtime.Resume{}, false, err\n}";

/// A cursor page: its records, and its paging object's next link or cursor.
fn cursor_read(
    i: &Interface,
    types: &Types,
    claimed: &Claimed,
    item: &TypeRef,
    c: &CursorPaging,
) -> Vec<String> {
    let page = claimed.page.clone().unwrap_or_default();
    let paging = TypeRef::Named(c.paging_type);
    let field = |wire: &str| record_field(i, &paging, wire, types, claimed).unwrap_or_default();
    let mut read = vec![
        format!(
            "page, err := runtime.Read(answer, read{page}[{}])",
            types.go(item)
        ),
        FAILED.to_string(),
        "next := runtime.Resume{}".to_string(),
        format!(
            "end := runtime.PageEnd{{Count: len(page.Data), PerPage: call.Query.Get({})}}",
            names::string(&c.per_page_param)
        ),
        "if paging, ok := page.Paging.Get(); ok {".to_string(),
    ];
    let mut nulls = Vec::new();
    if let Some(next) = &c.next_url_field {
        read.push(format!("\tnext.Link = paging.{}", field(next)));
        nulls.push(format!("paging.{}.IsNull()", opt_field(&field(next))));
    }
    if let Some(cursor) = &c.cursor_field {
        read.push(format!("\tnext.Cursor = paging.{}", field(cursor)));
        nulls.push(format!("paging.{}.IsNull()", opt_field(&field(cursor))));
    }
    if !nulls.is_empty() {
        read.push(format!("\tend.Null = {}", nulls.join(" || ")));
    }
    if let Some(size) = &c.page_size_field {
        read.push(format!("\tend.Size = int64(paging.{})", field(size)));
    }
    read.push("}".to_string());
    // A page with no way on ends the walk only when it says it is the last (the runtime
    // stops a walk whose page does not, rather than end as if complete).
    read.push("return page.Data, page, next, next.IsZero() && end.Last(), nil".to_string());
    read
}

/// The Opt field of an accessor chain ending in `.Value()` (a link or cursor may be
/// null, which says the page is the last).
fn opt_field(accessor: &str) -> &str {
    accessor.strip_suffix(".Value()").unwrap_or(accessor)
}

/// A links page: its records, and the URL of its `next` link (`prev` when `backward`).
fn links_read(
    i: &Interface,
    types: &Types,
    claimed: &Claimed,
    envelope: TypeId,
    items_field: &str,
    settings: &LinksPaging,
) -> Vec<String> {
    let env = TypeRef::Named(envelope);
    let field = |wire: &str| record_field(i, &env, wire, types, claimed).unwrap_or_default();
    let links_type = match &i.ty(envelope).kind {
        TypeKind::Object(o) => o
            .fields
            .iter()
            .find(|f| f.name == settings.links_field)
            .map(|f| f.ty.clone()),
        _ => None,
    };
    // The links paging style names its links to the next and previous pages so.
    let link = |name: &str| {
        links_type
            .as_ref()
            .and_then(|ty| record_field(i, ty, name, types, claimed))
            .unwrap_or_default()
    };
    let links = field(&settings.links_field);
    vec![
        format!(
            "page, err := runtime.Read(answer, read{})",
            types.names[envelope.index()]
        ),
        FAILED.to_string(),
        format!("link := page.{links}.{}", link("next")),
        format!("if backward {{\n\tlink = page.{links}.{}\n}}", link("prev")),
        "next := runtime.Resume{Link: link}".to_string(),
        format!(
            "return page.{}, page, next, next.IsZero(), nil",
            field(items_field)
        ),
    ]
}
