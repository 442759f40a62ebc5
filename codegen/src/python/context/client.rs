//! The context of an interface's client: its constructor, login and every operation's
//! method, parameters, answer plan and paging.

use crate::doc_text;
use crate::ir::{
    AnswerKind, Auth, AuthUse, Builtin, Field, Interface, Operation, OperationPaging, Segment,
    TokenLogin, TypeId, TypeKind, TypeRef,
};
use crate::python::names::{self, Scope};
use crate::python::types::TypeNames;
use crate::templates;

use super::{
    AlternativeCx, CallKind, ClientCx, DownloadCx, InfoCx, LoginCx, ModuleNames, OperationCx,
    PagingCx, PagingPlanCx, ParamCx, RateLimitCx, WebhooksCx,
};

pub(super) fn client_cx(i: &Interface, names: &ModuleNames) -> Result<ClientCx, String> {
    let m = TypeNames {
        names: &names.types,
        prefix: "_m.",
    };
    let mut members = names::client_scope();
    let mut constants = names::module_scope();
    for n in &names.types {
        constants.reserve(n);
    }
    let mut operations = Vec::new();
    for op in &i.operations {
        operations.push(operation_cx(i, op, names, &m, &mut members, &mut constants));
    }
    let (auth, key_params, login) = match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            let mut scope = names::params_scope();
            let params = templates::key_params(headers, |h| scope.claim(&names::snake(h)));
            ("headers", params, None)
        }
        Auth::TokenLogin { .. } => (
            "token",
            Vec::new(),
            Some(login_cx(i, names, &m, &operations)?),
        ),
    };
    Ok(ClientCx {
        doc: doc_text::client(
            i,
            "",
            "turn off with `ClientOptions(validate_requests=False)`",
            "shared by every thread or task using this client",
        ),
        info: info_cx(i),
        auth,
        key_params,
        login,
        operations,
        webhooks: webhooks_cx(i, &m),
    })
}

/// A token login: the operation's constant, what it sends and answers, the answer's
/// attribute holding the token, and how the token is sent.
fn login_cx(
    i: &Interface,
    names: &ModuleNames,
    m: &TypeNames,
    operations: &[OperationCx],
) -> Result<LoginCx, String> {
    let TokenLogin {
        index,
        body,
        answer,
        ..
    } = i.token_login()?;
    let Auth::TokenLogin {
        login_operation,
        token_field,
        header,
        scheme,
        doc,
        ..
    } = &i.auth
    else {
        unreachable!("`token_login` answers only for a token login")
    };
    let token_attr = answer
        .named()
        .and_then(|id| attr_of(i, names, id, token_field))
        .ok_or_else(|| {
            format!("the login answer of `{login_operation}` has no field `{token_field}`")
        })?;
    Ok(LoginCx {
        body_type: m.annotation(i, &body.ty, false),
        answer_desc: m.desc(i, answer, &Default::default(), false),
        constant: operations[index].constant.clone(),
        token_field: names::string(token_field),
        token_attr: names::string(&token_attr),
        header: names::string(header),
        scheme: names::string(scheme),
        doc: crate::doc_text::login(doc),
    })
}

fn webhooks_cx(i: &Interface, m: &TypeNames) -> Option<WebhooksCx> {
    i.webhooks.as_ref().map(|w| {
        let name = &i.ty(w.event).name;
        WebhooksCx {
            event: m.named(w.event),
            desc: m.wire(w.event),
            doc: doc_text::parse_event(
                &w.doc,
                doc_text::WebhookWords {
                    event: &format!("a `{name}`"),
                    unknown: "is its `Unknown` member, kept whole",
                    failure: "raises `DecodeError`",
                    verify: "`inspection_client.verify_webhook`",
                },
            ),
        }
    })
}

/// What `_rt.InterfaceInfo(...)` is given: the interface's name, rate limit, error
/// message field and default `Accept`, as Python literals.
fn info_cx(i: &Interface) -> InfoCx {
    InfoCx {
        name: names::string(&i.name),
        rate_limit: i.rate_limit.as_ref().map(|r| RateLimitCx {
            requests: r.requests,
            window_seconds: r.window_seconds,
            status: r.status,
            retry_after_header: r.retry_after_header.as_deref().map(names::string),
        }),
        error_message_field: i.error_message_field.as_deref().map(names::string),
        default_accept: i.default_accept.as_deref().map(names::string),
    }
}

fn operation_cx(
    i: &Interface,
    op: &Operation,
    module: &ModuleNames,
    m: &TypeNames,
    members: &mut Scope,
    constants: &mut Scope,
) -> OperationCx {
    let method = members.claim(&names::snake(&op.name));
    let constant = constants.claim_private(&format!("_{}", names::snake(&op.name).to_uppercase()));
    let mut scope = names::params_scope();
    let mut params = Vec::new();
    let mut path_values = Vec::new();
    let mut path_params = Vec::new();
    for f in &op.path_params {
        let name = scope.claim(&names::snake(&f.name));
        params.push(ParamCx {
            name: name.clone(),
            annotation: m.annotation(i, &f.ty, false),
            keyword: false,
            star: false,
            default: String::new(),
            writer: false,
        });
        path_values.push(name);
        match i.named(&f.ty).map(|t| &t.kind) {
            Some(TypeKind::RecordRef(r)) => path_params.push(format!(
                "_rt.PathParam({}, None, {})",
                names::string(&f.name),
                r.self_keyword
                    .as_ref()
                    .map(|k| names::string(k))
                    .unwrap_or_else(|| "None".into())
            )),
            _ => path_params.push(format!(
                "_rt.PathParam({}, {})",
                names::string(&f.name),
                m.desc(i, &f.ty, &f.constraints, false)
            )),
        }
    }
    let binary = op
        .body
        .as_ref()
        .filter(|b| b.ty == TypeRef::Builtin(Builtin::Binary));
    if let Some(body) = &op.body {
        params.push(ParamCx {
            name: "body".into(),
            annotation: if binary.is_some() {
                "bytes | str".to_string()
            } else {
                m.annotation(i, &body.ty, false)
            },
            keyword: false,
            star: false,
            default: String::new(),
            writer: false,
        });
    }
    let mut query_values = Vec::new();
    let mut query_fields = Vec::new();
    let mut json_params = Vec::new();
    // Required query parameters first: Python wants them before the defaulted ones.
    let mut query: Vec<&Field> = op.query.iter().collect();
    query.sort_by_key(|f| !f.required);
    for f in query {
        let name = scope.claim(&names::snake(&f.name));
        let annotation = m.annotation(i, &f.ty, f.sensitive);
        params.push(ParamCx {
            name: name.clone(),
            annotation: if f.required {
                annotation
            } else {
                format!("{annotation} | None")
            },
            keyword: true,
            star: false,
            default: if f.required {
                String::new()
            } else {
                " = None".into()
            },
            writer: false,
        });
        query_values.push((names::string(&f.name), name));
    }
    // A binary body's media type, named after every parameter of the spec's.
    let content_type = binary.map(|b| {
        let name = scope.claim("content_type");
        params.push(ParamCx {
            name: name.clone(),
            annotation: "str".into(),
            keyword: true,
            star: false,
            default: format!(" = {}", names::string(&b.content_type)),
            writer: false,
        });
        name
    });
    for f in &op.query {
        query_fields.push(m.field(i, f, &f.name, false, false));
        if matches!(f.ty, TypeRef::JsonEncoded(_)) {
            json_params.push(names::string(&f.name));
        }
    }

    let segments: Vec<String> = op
        .call
        .segments
        .iter()
        .map(|segment| match segment {
            Segment::Param { index } => index.to_string(),
            Segment::Text { text } => names::string(text),
        })
        .collect();
    let mut args = vec![
        format!("name={}", names::string(&op.name)),
        format!("method=\"{}\"", op.method.as_str()),
        format!("path={}", names::string(&op.path)),
        format!("segments={}", tuple(&segments)),
    ];
    if !path_params.is_empty() {
        args.push(format!("path_params={}", tuple(&path_params)));
    }
    if !query_fields.is_empty() {
        let json = if json_params.is_empty() {
            String::new()
        } else {
            format!("    json={},\n    ", tuple(&json_params))
        };
        args.push(format!(
            "query=_rt.Query(\n        {},\n    {json})",
            query_fields.join(",\n        ")
        ));
    }
    if let Some(body) = &op.body {
        args.push(format!(
            "body={}",
            m.desc(i, &body.ty, &Default::default(), false)
        ));
        if binary.is_some() {
            args.push(format!(
                "content_type={}",
                names::string(&body.content_type)
            ));
        }
    }

    // A download's writer, named after every parameter of the spec's (`out_` after one
    // named `out`).
    let out = scope.claim("out");
    let answer = &op.answer;
    let mut answer_desc = None;
    let mut paging_constant = None;
    let mut doc = doc_text::operation(i, op);
    if let (Some(body), Some(param)) = (binary, &content_type) {
        doc.push(format!(
            "The body is sent as it is (`bytes`; text is sent as its UTF-8 bytes), as \
             `Content-Type: {}` unless `{param}` says otherwise.",
            body.content_type
        ));
    }
    let (call, returns, returns_async) = match (&op.paging, &answer.kind) {
        (Some(paging), _) => {
            let (item, page) = match paging {
                OperationPaging::Cursor { item, .. } => {
                    let item = m.annotation(i, item, false);
                    let page = format!("_m.Page[{item}]");
                    (item, page)
                }
                OperationPaging::Links { envelope, item, .. } => {
                    (m.annotation(i, item, false), m.named(*envelope))
                }
            };
            doc.push(
                "Iterating over the result (`for` / `async for`) walks every record of every \
                 page, one page in memory at a time; `.pages()` gives the pages, `.first()` the \
                 first one. A walk that fails past its first page raises \
                 `PagingInterruptedError`; its `resume`, given as `resume=`, walks on from the \
                 page that failed."
                    .to_string(),
            );
            paging_constant = Some(PagingCx {
                constant: constants.claim_private(&format!("{constant}_PAGES")),
                plan: paging_plan(i, module, m, paging),
            });
            (
                CallKind::Paged,
                format!("_rt.Paged[{item}, {page}]"),
                format!("_rt.AsyncPaged[{item}, {page}]"),
            )
        }
        (None, AnswerKind::Json { body, .. }) => {
            answer_desc = Some(m.desc(i, body, &Default::default(), false));
            let value = m.annotation(i, body, false);
            (CallKind::Json, value.clone(), value)
        }
        (None, AnswerKind::Upsert { body }) => {
            doc.push(
                "`created` tells whether the record was created (201) or replaced (200).".into(),
            );
            answer_desc = Some(m.desc(i, body, &Default::default(), false));
            let value = format!("_rt.Upserted[{}]", m.annotation(i, body, false));
            (CallKind::Upsert, value.clone(), value)
        }
        (None, AnswerKind::Bytes { content_type }) => {
            args.push(format!("accept={}", names::string(content_type)));
            (CallKind::Bytes, "bytes".to_string(), "bytes".to_string())
        }
        (None, AnswerKind::Empty) => (CallKind::Empty, "None".to_string(), "None".to_string()),
    };
    if answer.polls {
        doc.push("A 202 (still preparing) is asked again with backoff, up to `max_polls`.".into());
        args.push("poll=True".into());
    }
    if op.auth == AuthUse::None {
        args.push("anonymous=True".into());
    }
    if op.manager_only {
        args.push(format!(
            "hint={}",
            names::string(doc_text::MANAGER_ONLY_HINT)
        ));
    }
    let alternative = answer.alternative.as_ref().map(|ct| {
        let suffix = op.call.alternative.as_deref().unwrap_or("bytes");
        AlternativeCx {
            method: members.claim(&format!("{method}_{suffix}")),
            doc: format!(
                "Like `{method}`, but asks for `{ct}` (`Accept: {ct}`) and returns its bytes, \
                 waiting out 202 answers."
            ),
            accept: names::string(ct),
        }
    });
    // `resume` is refused as a parameter name by the spec check: it is the list's own.
    let resume = (call == CallKind::Paged).then(|| {
        let name = scope.claim("resume");
        params.push(ParamCx {
            name: name.clone(),
            annotation: "str | None".into(),
            keyword: true,
            star: false,
            default: " = None".into(),
            writer: false,
        });
        name
    });
    params.push(ParamCx {
        name: "options".into(),
        annotation: "_rt.CallOptions | None".into(),
        keyword: true,
        star: false,
        default: " = None".into(),
        writer: false,
    });
    if let Some(first) = params.iter_mut().find(|p| p.keyword) {
        first.star = true;
    }
    let download = |method: &str, what: &str, accept: Option<String>| {
        let mut with_out = params.clone();
        let at = with_out
            .iter()
            .position(|p| p.keyword)
            .unwrap_or(with_out.len());
        with_out.insert(
            at,
            ParamCx {
                name: out.clone(),
                annotation: String::new(),
                keyword: false,
                star: false,
                default: String::new(),
                writer: true,
            },
        );
        DownloadCx {
            method: method.to_string(),
            doc: format!(
                "Like `{what}`, but writes the answer to `{out}` as it arrives (a file opened \
                 `\"wb\"`, or any object with a binary `write`; for the `AsyncClient` also one \
                 whose `write` is a coroutine), in bounded memory whatever its size: \
                 `max_response_bytes` does not apply. Returns the number of bytes written; a \
                 download that breaks off is not asked again (`{out}` holds what came)."
            ),
            params: with_out,
            out: out.clone(),
            accept,
        }
    };
    let mut downloads = Vec::new();
    if call == CallKind::Bytes {
        downloads.push(download(
            &members.claim(&format!("{method}_to")),
            &method,
            None,
        ));
    }
    if let Some(alt) = &alternative {
        downloads.push(download(
            &members.claim(&format!("{}_to", alt.method)),
            &alt.method,
            Some(alt.accept.clone()),
        ));
    }
    OperationCx {
        method,
        doc: doc.text(),
        constant,
        constant_args: args,
        params,
        path_values,
        has_query: !query_values.is_empty(),
        query_values,
        has_body: op.body.is_some(),
        content_type,
        call,
        answer_desc,
        paging: paging_constant,
        returns,
        returns_async,
        alternative,
        resume,
        downloads,
    }
}

/// A Python tuple display of `items`: `()`, `(a,)`, `(a, b)`.
fn tuple(items: &[String]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// The attribute name of field `wire` of declared type `id` (a record). A record's
/// attributes are its union tags first, then its fields.
fn attr_of(i: &Interface, module: &ModuleNames, id: TypeId, wire: &str) -> Option<String> {
    let TypeKind::Object(o) = &i.ty(id).kind else {
        return None;
    };
    let pos = o.fields.iter().position(|f| f.name == wire)?;
    let tags = module.tags[id.index()].len();
    module.attrs[id.index()]
        .as_ref()?
        .0
        .get(tags + pos)
        .cloned()
}

/// What the `_rt.PagingPlan(...)` of a paginated operation is given: where its pages keep
/// their records and the way to the next page.
fn paging_plan(
    i: &Interface,
    module: &ModuleNames,
    m: &TypeNames,
    paging: &OperationPaging,
) -> PagingPlanCx {
    match paging {
        OperationPaging::Cursor {
            item,
            next_url_field,
            cursor_field,
            page_size_field,
            page_param,
            per_page_param,
            ..
        } => {
            let (items_attr, paging_attr, _) = module.page_attrs.clone().unwrap_or_default();
            let paging_type = i.cursor_envelope().map(|(_, _, t)| t);
            let attr = |wire: &Option<String>| {
                wire.as_ref()
                    .and_then(|w| attr_of(i, module, paging_type?, w))
                    .map(|a| names::string(&a))
            };
            let page = TypeRef::Page(Box::new(item.clone()));
            PagingPlanCx::Cursor {
                page: m.desc(i, &page, &Default::default(), false),
                items_attr: names::string(&items_attr),
                paging_attr: names::string(&paging_attr),
                next_url_attr: attr(next_url_field),
                cursor_attr: attr(cursor_field),
                page_param: names::string(page_param),
                page_size_attr: attr(page_size_field),
                per_page_param: (!per_page_param.is_empty()).then(|| names::string(per_page_param)),
            }
        }
        OperationPaging::Links {
            envelope,
            items_field,
            links_field,
            ..
        } => {
            let links_type = match &i.ty(*envelope).kind {
                TypeKind::Object(o) => o
                    .fields
                    .iter()
                    .find(|f| &f.name == links_field)
                    .and_then(|f| f.ty.named()),
                _ => None,
            };
            let link = |wire: &str| {
                links_type
                    .and_then(|t| attr_of(i, module, t, wire))
                    .unwrap_or_else(|| wire.to_string())
            };
            let attr = |wire: &str| attr_of(i, module, *envelope, wire).map(|a| names::string(&a));
            PagingPlanCx::Links {
                envelope: m.wire(*envelope),
                items_attr: attr(items_field),
                links_attr: attr(links_field),
                next_attr: names::string(&link("next")),
                prev_attr: names::string(&link("prev")),
            }
        }
    }
}
