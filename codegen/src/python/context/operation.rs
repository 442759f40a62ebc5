//! The context of one operation: its `_rt.Operation` constant, its method's parameters,
//! doc and answer, and the methods beside it (an alternative media type, downloads).

use crate::doc_text;
use crate::ir::{
    AnswerKind, AuthUse, Body, Builtin, CursorPaging, Field, Input, Interface, Operation, Paging,
    Segment, TypeId, TypeKind, TypeRef,
};
use crate::python::names::{self, Scope};
use crate::python::types::TypeNames;

use super::{
    AlternativeCx, CallKind, DownloadCx, ModuleNames, OperationCx, PagingCx, PagingPlanCx, ParamCx,
    PathParamCx, QueryValueCx, RtOperationCx,
};

/// The paragraph a paged list's doc ends with.
const PAGED_DOC: &str = "Iterating over the result (`for` / `async for`) walks every record of \
    every page, one page in memory at a time; `.pages()` gives the pages, `.first()` the \
    first one. A walk that fails past its first page raises `PagingInterruptedError`; its \
    `resume`, given as `resume=`, walks on from the page that failed.";

/// The context of `op`, its names claimed in the client's `members` and module `constants`.
pub(super) fn operation_cx(
    i: &Interface,
    op: &Operation,
    module: &ModuleNames,
    m: &TypeNames,
    members: &mut Scope,
    constants: &mut Scope,
) -> OperationCx {
    let method = members.claim(&names::snake(&op.name));
    let constant = constants.claim_private(&format!("_{}", names::snake(&op.name).to_uppercase()));
    let paging = i.paging(op).map(|paging| PagingCx {
        constant: constants.claim_private(&format!("{constant}_PAGES")),
        plan: paging_plan(i, module, m, paging),
    });
    let mut scope = names::params_scope();
    let mut signature = signature(i, op, m, &mut scope);
    // A download's writer, named after every parameter of the spec's (`out_` after one
    // named `out`).
    let out = scope.claim("out");
    let answer = answer(i, op, m);
    // `resume` is refused as a parameter name by the spec check: it is the list's own.
    let resume = (answer.call == CallKind::Paged).then(|| scope.claim("resume"));
    close_params(&mut signature.params, resume.as_deref());
    let alternative = alternative_cx(op, &method, members);
    let downloads = downloads_cx(
        &method,
        answer.call,
        alternative.as_ref(),
        &signature.params,
        &out,
        members,
    );
    OperationCx {
        doc: operation_doc(i, op, signature.content_type.as_deref()),
        method,
        constant,
        rt_operation: rt_operation_cx(i, op, m),
        params: signature.params,
        path_values: signature.path_values,
        query_values: signature.query_values,
        has_body: op.body.is_some(),
        optional_body: op.body.as_ref().is_some_and(|b| b.optional),
        content_type: signature.content_type,
        call: answer.call,
        answer_desc: answer.desc,
        paging,
        returns: answer.returns,
        returns_async: answer.returns_async,
        alternative,
        resume,
        downloads,
    }
}

/// An operation's parameters before `resume` and `options`, and the names its request
/// takes them by.
struct Signature {
    params: Vec<ParamCx>,
    /// Parameter names of the path values, in order.
    path_values: Vec<String>,
    query_values: Vec<QueryValueCx>,
    /// The parameter naming a binary body's media type.
    content_type: Option<String>,
}

/// The method's parameters up to `resume`, named in `scope`, and how its request takes them.
fn signature(i: &Interface, op: &Operation, m: &TypeNames, scope: &mut Scope) -> Signature {
    let mut params = Vec::new();
    let mut path_values = Vec::new();
    let mut query_values = Vec::new();
    // Query parameters are keyword-only, after the positional path and body: the plan's
    // order within each kind (required query parameters before the defaulted ones).
    let mut keywords = Vec::new();
    for input in &op.call.inputs {
        match *input {
            Input::Path { index } => {
                let f = &op.path_params[index];
                let name = scope.claim(&names::snake(&f.name));
                params.push(ParamCx::positional(&name, m.annotation(i, &f.ty, false)));
                path_values.push(name);
            }
            Input::Body => {
                let Some(body) = &op.body else { continue };
                let annotation = match binary_body(op) {
                    Some(_) => "bytes | str".to_string(),
                    None => m.annotation(i, &body.ty, false),
                };
                // After every required input (the plan's order), so it may have a default.
                params.push(match body.optional {
                    true => ParamCx {
                        default: Some("None".into()),
                        ..ParamCx::positional("body", format!("{annotation} | None"))
                    },
                    false => ParamCx::positional("body", annotation),
                });
            }
            Input::Query { index } => {
                let f = &op.query[index];
                let name = scope.claim(&names::snake(&f.name));
                keywords.push(query_param(i, m, f, &name));
                query_values.push(QueryValueCx {
                    wire: names::string(&f.name),
                    name,
                });
            }
        }
    }
    params.extend(keywords);
    // Named after every parameter of the spec's.
    let content_type = binary_body(op).map(|b| {
        let name = scope.claim("content_type");
        let default = names::string(&b.content_type);
        params.push(ParamCx::keyword(&name, "str", Some(default)));
        name
    });
    Signature {
        params,
        path_values,
        query_values,
        content_type,
    }
}

/// A query value's keyword-only parameter, `None` by default when it is optional.
fn query_param(i: &Interface, m: &TypeNames, f: &Field, name: &str) -> ParamCx {
    let annotation = m.annotation(i, &f.ty, f.sensitive);
    if f.required {
        ParamCx::keyword(name, &annotation, None)
    } else {
        ParamCx::keyword(name, &format!("{annotation} | None"), Some("None".into()))
    }
}

/// Ends the parameters with `resume` and `options`, and marks the first keyword-only one.
fn close_params(params: &mut Vec<ParamCx>, resume: Option<&str>) {
    if let Some(resume) = resume {
        params.push(ParamCx::keyword(resume, "str | None", Some("None".into())));
    }
    params.push(ParamCx::keyword(
        "options",
        "_rt.CallOptions | None",
        Some("None".into()),
    ));
    if let Some(first) = params.iter_mut().find(|p| p.keyword) {
        first.star = true;
    }
}

/// The body of `op` when it is sent as it is (binary).
fn binary_body(op: &Operation) -> Option<&Body> {
    op.body
        .as_ref()
        .filter(|b| b.ty == TypeRef::Builtin(Builtin::Binary))
}

/// What the `_rt.Operation(...)` constant of `op` is given: how to send and answer it.
fn rt_operation_cx(i: &Interface, op: &Operation, m: &TypeNames) -> RtOperationCx {
    let json_encoded = op
        .query
        .iter()
        .filter(|f| matches!(f.ty, TypeRef::JsonEncoded(_)));
    let accept = match (&op.paging, &op.answer.kind) {
        (None, AnswerKind::Bytes { content_type }) => Some(names::string(content_type)),
        _ => None,
    };
    RtOperationCx {
        name: names::string(&op.name),
        method: names::string(op.method.as_str()),
        path: names::string(&op.path),
        segments: op.call.segments.iter().map(segment_literal).collect(),
        path_params: op
            .path_params
            .iter()
            .map(|f| path_param_cx(i, m, f))
            .collect(),
        query: op
            .query
            .iter()
            .map(|f| m.field(i, f, &f.name, false, false))
            .collect(),
        json: json_encoded.map(|f| names::string(&f.name)).collect(),
        body: op
            .body
            .as_ref()
            .map(|b| m.desc(i, &b.ty, &Default::default(), false)),
        content_type: binary_body(op).map(|b| names::string(&b.content_type)),
        accept,
        poll: op.answer.polls,
        anonymous: op.auth == AuthUse::None,
        hint: op
            .manager_only
            .then(|| names::string(doc_text::MANAGER_ONLY_HINT)),
    }
}

/// A path segment as a Python literal: a path value's index, or the text.
fn segment_literal(segment: &Segment) -> String {
    match segment {
        Segment::Param { index } => index.to_string(),
        Segment::Text { text } => names::string(text),
    }
}

/// How a path value is checked: against its descriptor, or as a record reference.
fn path_param_cx(i: &Interface, m: &TypeNames, f: &Field) -> PathParamCx {
    let wire = names::string(&f.name);
    match i.named(&f.ty).map(|t| &t.kind) {
        Some(TypeKind::RecordRef(r)) => PathParamCx::Record {
            wire,
            self_keyword: r.self_keyword.as_deref().map(names::string),
        },
        _ => PathParamCx::Value {
            wire,
            desc: m.desc(i, &f.ty, &f.constraints, false),
        },
    }
}

/// What the `_rt.PagingPlan(...)` of a paged list is given: its records and next page.
fn paging_plan(
    i: &Interface,
    module: &ModuleNames,
    m: &TypeNames,
    paging: Paging<'_>,
) -> PagingPlanCx {
    match paging {
        Paging::Cursor { item, settings } => cursor_plan(i, module, m, item, settings),
        Paging::Links {
            envelope,
            items_field,
            settings,
            ..
        } => links_plan(i, module, m, envelope, items_field, &settings.links_field),
    }
}

/// The plan of pages of the shared envelope, led by a next-page URL or a cursor.
fn cursor_plan(
    i: &Interface,
    module: &ModuleNames,
    m: &TypeNames,
    item: &TypeRef,
    c: &CursorPaging,
) -> PagingPlanCx {
    let (items_attr, paging_attr, _) = module.page_attrs.clone().unwrap_or_default();
    let attr = |wire: &Option<String>| {
        wire.as_ref()
            .and_then(|w| module.attr_of(i, c.paging_type, w))
            .map(|a| names::string(&a))
    };
    let page = TypeRef::Page(Box::new(item.clone()));
    PagingPlanCx::Cursor {
        page: m.desc(i, &page, &Default::default(), false),
        items_attr: names::string(&items_attr),
        paging_attr: names::string(&paging_attr),
        next_url_attr: attr(&c.next_url_field),
        cursor_attr: attr(&c.cursor_field),
        page_param: names::string(&c.page_param),
        page_size_attr: attr(&c.page_size_field),
        per_page_param: names::string(&c.per_page_param),
    }
}

/// The plan of pages of an operation's own envelope, whose links name the next page.
fn links_plan(
    i: &Interface,
    module: &ModuleNames,
    m: &TypeNames,
    envelope: TypeId,
    items_field: &str,
    links_field: &str,
) -> PagingPlanCx {
    let links_type = match &i.ty(envelope).kind {
        TypeKind::Object(o) => o
            .fields
            .iter()
            .find(|f| f.name == links_field)
            .and_then(|f| f.ty.named()),
        _ => None,
    };
    let link = |wire: &str| {
        links_type
            .and_then(|t| module.attr_of(i, t, wire))
            .unwrap_or_else(|| wire.to_string())
    };
    let attr = |wire: &str| module.attr_of(i, envelope, wire).map(|a| names::string(&a));
    PagingPlanCx::Links {
        envelope: m.wire(envelope),
        items_attr: attr(items_field),
        links_attr: attr(links_field),
        next_attr: names::string(&link("next")),
        prev_attr: names::string(&link("prev")),
    }
}

/// The method's doc: the spec's, then notes on a binary body, paging, upserts and polling.
fn operation_doc(i: &Interface, op: &Operation, content_type: Option<&str>) -> String {
    let mut doc = doc_text::operation(i, op);
    if let (Some(body), Some(param)) = (binary_body(op), content_type) {
        doc.push(format!(
            "The body is sent as it is (`bytes`; text is sent as its UTF-8 bytes), as \
             `Content-Type: {}` unless `{param}` says otherwise.",
            body.content_type
        ));
    }
    match (&op.paging, &op.answer.kind) {
        (Some(_), _) => {
            doc.push(PAGED_DOC.to_string());
        }
        (None, AnswerKind::Upsert { .. }) => {
            doc.push(
                "`created` tells whether the record was created (201) or replaced (200).".into(),
            );
        }
        _ => {}
    }
    if op.answer.polls {
        doc.push("A 202 (still preparing) is asked again with backoff, up to `max_polls`.".into());
    }
    doc.text()
}

/// How an operation's answer is read, and what its method returns.
struct Answer {
    call: CallKind,
    /// The descriptor a JSON answer is decoded with.
    desc: Option<String>,
    returns: String,
    returns_async: String,
}

/// How `op`'s answer is read: paged, a JSON value, an upsert's, bytes or nothing.
fn answer(i: &Interface, op: &Operation, m: &TypeNames) -> Answer {
    let same = |call, desc, value: String| Answer {
        call,
        desc,
        returns: value.clone(),
        returns_async: value,
    };
    match (i.paging(op), &op.answer.kind) {
        (Some(paging), _) => {
            let (item, page) = page_types(i, m, paging);
            Answer {
                call: CallKind::Paged,
                desc: None,
                returns: format!("_rt.Paged[{item}, {page}]"),
                returns_async: format!("_rt.AsyncPaged[{item}, {page}]"),
            }
        }
        (None, AnswerKind::Json { body, .. }) => same(
            CallKind::Json,
            Some(m.desc(i, body, &Default::default(), false)),
            m.annotation(i, body, false),
        ),
        (None, AnswerKind::Upsert { body }) => same(
            CallKind::Upsert,
            Some(m.desc(i, body, &Default::default(), false)),
            format!("_rt.Upserted[{}]", m.annotation(i, body, false)),
        ),
        (None, AnswerKind::Bytes { .. }) => same(CallKind::Bytes, None, "bytes".into()),
        (None, AnswerKind::Empty) => same(CallKind::Empty, None, "None".into()),
    }
}

/// The annotations of a paged list's records and of its pages.
fn page_types(i: &Interface, m: &TypeNames, paging: Paging<'_>) -> (String, String) {
    match paging {
        Paging::Cursor { item, .. } => {
            let item = m.annotation(i, item, false);
            let page = format!("_m.Page[{item}]");
            (item, page)
        }
        Paging::Links { envelope, item, .. } => (m.annotation(i, item, false), m.named(envelope)),
    }
}

/// The method asking for the answer's alternative media type (`get_inspection_pdf`), if any.
fn alternative_cx(op: &Operation, method: &str, members: &mut Scope) -> Option<AlternativeCx> {
    op.answer.alternative.as_ref().map(|ct| {
        let suffix = op.call.alternative.as_deref().unwrap_or("bytes");
        AlternativeCx {
            method: members.claim(&format!("{method}_{suffix}")),
            doc: format!(
                "Like `{method}`, but asks for `{ct}` (`Accept: {ct}`) and returns its bytes, \
                 waiting out 202 answers."
            ),
            accept: names::string(ct),
        }
    })
}

/// The methods writing a binary answer to `out`: the operation's own and its alternative's.
fn downloads_cx(
    method: &str,
    call: CallKind,
    alternative: Option<&AlternativeCx>,
    params: &[ParamCx],
    out: &str,
    members: &mut Scope,
) -> Vec<DownloadCx> {
    let mut downloads = Vec::new();
    if call == CallKind::Bytes {
        let to = members.claim(&format!("{method}_to"));
        downloads.push(download_cx(to, method, params, out, None));
    }
    if let Some(alt) = alternative {
        let to = members.claim(&format!("{}_to", alt.method));
        let accept = Some(alt.accept.clone());
        downloads.push(download_cx(to, &alt.method, params, out, accept));
    }
    downloads
}

/// The method `method` writing `what`'s answer to `out`, put before the keyword-only parameters.
fn download_cx(
    method: String,
    what: &str,
    params: &[ParamCx],
    out: &str,
    accept: Option<String>,
) -> DownloadCx {
    let mut with_out = params.to_vec();
    let at = with_out
        .iter()
        .position(|p| p.keyword)
        .unwrap_or(with_out.len());
    with_out.insert(at, ParamCx::writer(out));
    DownloadCx {
        method,
        doc: format!(
            "Like `{what}`, but writes the answer to `{out}` as it arrives (a file opened \
             `\"wb\"`, or any object with a binary `write`; for the `AsyncClient` also one \
             whose `write` is a coroutine), in bounded memory whatever its size: \
             `max_response_bytes` does not apply. Returns the number of bytes written; a \
             download that breaks off is not asked again (`{out}` holds what came)."
        ),
        params: with_out,
        out: out.to_string(),
        accept,
    }
}

impl ParamCx {
    /// A positional parameter with no default.
    fn positional(name: &str, annotation: String) -> Self {
        ParamCx {
            name: name.to_string(),
            annotation,
            keyword: false,
            star: false,
            default: None,
            writer: false,
        }
    }

    /// A keyword-only parameter, with its default value if any.
    fn keyword(name: &str, annotation: &str, default: Option<String>) -> Self {
        ParamCx {
            keyword: true,
            default,
            ..ParamCx::positional(name, annotation.to_string())
        }
    }

    /// A download's writer (annotated by the template, as the clients differ).
    fn writer(name: &str) -> Self {
        ParamCx {
            writer: true,
            ..ParamCx::positional(name, String::new())
        }
    }
}
