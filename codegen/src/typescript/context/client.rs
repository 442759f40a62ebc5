//! The context of an interface's client: its constructor, login and every operation's
//! method, parameters, answer plan and request literal.

use heck::ToUpperCamelCase;

use crate::doc_text;
use crate::ir::{
    AnswerKind, Auth, AuthUse, Builtin, Field, Interface, Operation, Segment, TokenLogin, TypeKind,
    TypeRef,
};
use crate::templates;
use crate::typescript::names::{self, Scope};
use crate::typescript::types::{self, TypeNames};

use super::{
    AlternativeCx, BodyCx, CallCx, CheckCx, ClientCx, DownloadCx, LoginCx, OperationCx, ParamCx,
    QueryParamCx, RequestCx, SegmentCx, WebhooksCx,
};

pub(super) fn client_cx(
    i: &Interface,
    type_names: &[String],
    query_names: &[Option<String>],
) -> Result<ClientCx, String> {
    let m = TypeNames {
        names: type_names,
        prefix: "m.",
    };
    let mut members = names::client_scope();
    let mut operations = Vec::new();
    for (op, query) in i.operations.iter().zip(query_names) {
        operations.push(operation_cx(i, op, query.as_deref(), &m, &mut members));
    }
    let info = info_literal(i);
    let (auth, key_params, login) = match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            let mut scope = names::params_scope();
            let params = templates::key_params(headers, |h| {
                scope.claim(&names::camel(&h.replace('-', "_")))
            });
            ("headers", params, None)
        }
        Auth::TokenLogin {
            token_field,
            header,
            scheme,
            doc,
            ..
        } => {
            let TokenLogin {
                op, body, answer, ..
            } = i.token_login()?;
            let login = LoginCx {
                body_type: m.ts(&body.ty),
                answer_type: m.ts(answer),
                answer_desc: types::desc(i, answer, &Default::default()),
                token_field: names::string(token_field),
                header: names::string(header),
                scheme: names::string(scheme),
                request: request_cx(op, None, Some(BodyCx::Json { hidden: None })),
                hidden: hidden_literal(i, &body.ty),
                doc: crate::doc_text::login(doc),
            };
            ("token", Vec::new(), Some(login))
        }
    };
    Ok(ClientCx {
        doc: doc_text::client(
            i,
            "",
            "turn off with `validateRequests: false`",
            "shared by everything using this client",
        ),
        info,
        auth,
        key_params,
        login,
        operations,
        webhooks: i.webhooks.as_ref().map(|w| {
            let name = &i.ty(w.event).name;
            WebhooksCx {
                event: m.named(w.event),
                desc: format!("{{ k: \"ref\", name: {} }}", names::string(name)),
                doc: doc_text::parse_event(
                    &w.doc,
                    doc_text::WebhookWords {
                        event: &format!("a `{name}`"),
                        unknown: "is kept whole (`$unknown`)",
                        failure: "throws `DecodeError`",
                        verify: "`verifyWebhook`",
                    },
                ),
            }
        }),
    })
}

/// `rt.InterfaceInfo` of the interface.
fn info_literal(i: &Interface) -> String {
    let mut parts = vec![format!("name: {}", names::string(&i.name))];
    if let Some(r) = &i.rate_limit {
        let retry = r
            .retry_after_header
            .as_ref()
            .map(|h| format!(", retryAfterHeader: {}", names::string(h)))
            .unwrap_or_default();
        parts.push(format!(
            "rateLimit: {{ requests: {}, windowSeconds: {}, status: {}{retry} }}",
            r.requests, r.window_seconds, r.status
        ));
    }
    if let Some(f) = &i.error_message_field {
        parts.push(format!("errorMessageField: {}", names::string(f)));
    }
    let headers = i
        .default_accept
        .as_ref()
        .map(|a| format!(" accept: {} ", names::string(a)))
        .unwrap_or_default();
    parts.push(format!("defaultHeaders: {{{headers}}}"));
    format!("{{\n  {},\n}}", parts.join(",\n  "))
}

fn operation_cx(
    i: &Interface,
    op: &Operation,
    query: Option<&str>,
    m: &TypeNames,
    members: &mut Scope,
) -> OperationCx {
    let method = members.claim(&names::camel(&op.name));
    let mut scope = names::params_scope();
    let mut params = Vec::new();
    let mut checks = Vec::new();
    let mut segment_values = Vec::new();
    for f in &op.path_params {
        let name = scope.claim(&names::camel(&f.name));
        params.push(ParamCx {
            name: name.clone(),
            ts: m.ts(&f.ty),
            optional: false,
        });
        if !matches!(
            i.named(&f.ty).map(|t| &t.kind),
            Some(TypeKind::RecordRef(_))
        ) {
            checks.push(CheckCx {
                path: names::string(&f.name),
                desc: types::desc(i, &f.ty, &f.constraints),
                param: name.clone(),
                or_empty: false,
            });
        }
        segment_values.push((f.name.clone(), segment_value(i, f, &name)));
    }
    let mut content_type = None;
    let mut request_body = None;
    if let Some(body) = &op.body {
        if matches!(body.ty, TypeRef::Builtin(Builtin::Binary)) {
            // Sent as it is: nothing to check, and the caller may choose its content type.
            params.push(ParamCx {
                name: "body".into(),
                ts: "Uint8Array | string".into(),
                optional: false,
            });
            let name = scope.claim("contentType");
            request_body = Some(BodyCx::Bytes {
                content_type: name.clone(),
                default: names::string(&body.content_type),
            });
            content_type = Some((name, body.content_type.clone()));
        } else {
            params.push(ParamCx {
                name: "body".into(),
                ts: m.ts(&body.ty),
                optional: false,
            });
            checks.push(CheckCx {
                path: names::string(""),
                desc: types::desc(i, &body.ty, &Default::default()),
                param: "body".into(),
                or_empty: false,
            });
            let hidden = hidden_literal(i, &body.ty);
            request_body = Some(BodyCx::Json {
                hidden: (hidden != "[]").then_some(hidden),
            });
        }
    }
    if let Some(query_type) = query {
        let required = op.query.iter().any(|f| f.required);
        params.push(ParamCx {
            name: "query".into(),
            ts: format!("m.{query_type}"),
            optional: !required,
        });
        let fields: Vec<String> = op.query.iter().map(|f| types::field_desc(i, f)).collect();
        checks.push(CheckCx {
            path: names::string(""),
            desc: types::object_desc(&fields, None, None),
            param: "query".into(),
            or_empty: true,
        });
    }
    // Optional, so after the query (which may be required), just before the options.
    if let Some((name, _)) = &content_type {
        params.push(ParamCx {
            name: name.clone(),
            ts: "string".into(),
            optional: true,
        });
    }
    params.push(ParamCx {
        name: "options".into(),
        ts: if op.paging.is_some() {
            "rt.PageOptions"
        } else {
            "rt.CallOptions"
        }
        .into(),
        optional: true,
    });

    let request = request_cx(op, Some(&segment_values), request_body.clone());
    let answer = &op.answer;
    let mut doc = doc_text::operation(i, op);
    if let Some((name, default)) = &content_type {
        doc.push(format!(
            "`body` is sent as it is (text as UTF-8), as `{name}` (`{default}` unless given)."
        ));
    }
    let (call, returns) = match (&op.paging, &answer.kind) {
        (Some(paging), _) => {
            let (item, page) = match paging {
                crate::ir::OperationPaging::Cursor { item, .. } => {
                    let item = m.ts(item);
                    let page = format!("m.{}<{item}>", names::PAGE);
                    (item, page)
                }
                crate::ir::OperationPaging::Links { envelope, item, .. } => {
                    (m.ts(item), m.named(*envelope))
                }
            };
            doc.push(
                "`for await` over the result walks every record of every page, one page in \
                 memory at a time; `.pages()` gives the pages, `.first()` the first one. A walk \
                 that fails past its first page throws an `InterruptedError` whose `resume`, \
                 passed back as `options.resume`, starts the walk again at the page that failed."
                    .to_string(),
            );
            let returns = format!("rt.Paged<{item}, {page}>");
            let plan = types::paging_plan(i, paging);
            (CallCx::Paged { item, page, plan }, returns)
        }
        (None, AnswerKind::Json { body, .. }) => {
            let value = m.ts(body);
            let returns = format!("Promise<{value}>");
            let desc = types::desc(i, body, &Default::default());
            (CallCx::Json { value, desc }, returns)
        }
        (None, AnswerKind::Upsert { body }) => {
            doc.push(
                "`created` tells whether the record was created (201) or replaced (200).".into(),
            );
            let value = m.ts(body);
            let returns = format!("Promise<rt.Upserted<{value}>>");
            let desc = types::desc(i, body, &Default::default());
            (CallCx::Upsert { value, desc }, returns)
        }
        (None, AnswerKind::Bytes { .. }) => (CallCx::Bytes, "Promise<Uint8Array>".to_string()),
        (None, AnswerKind::Empty) => (CallCx::Empty, "Promise<void>".to_string()),
    };
    if answer.polls {
        doc.push("A 202 (still preparing) is asked again with backoff, up to `maxPolls`.".into());
    }
    let download_params = with_out(&params);
    let alternative = answer.alternative.as_ref().map(|ct| {
        let suffix = op
            .call
            .alternative
            .as_deref()
            .unwrap_or("bytes")
            .to_upper_camel_case();
        let alt = members.claim(&format!("{method}{suffix}"));
        let request = RequestCx {
            accept: Some(names::string(ct)),
            poll: true,
            ..request.clone()
        };
        AlternativeCx {
            doc: format!(
                "Like `{method}`, but asks for `{ct}` (`Accept: {ct}`) and returns its bytes, \
                 waiting out 202 answers. The bytes are read into memory within \
                 `maxResponseBytes`; `{alt}To` writes them to a stream instead."
            ),
            download: DownloadCx {
                method: members.claim(&format!("{alt}To")),
                doc: download_doc(&alt, ct),
                params: download_params.clone(),
                request: request.clone(),
            },
            method: alt,
            request,
        }
    });
    let download = match &answer.kind {
        AnswerKind::Bytes { content_type } if op.paging.is_none() => Some(DownloadCx {
            method: members.claim(&format!("{method}To")),
            doc: download_doc(&method, content_type),
            params: download_params,
            request: request.clone(),
        }),
        _ => None,
    };
    OperationCx {
        method,
        doc: doc.text(),
        params,
        returns,
        call,
        checks,
        request,
        alternative,
        download,
    }
}

/// `params` with the stream a download is written to (`out`) before the first optional one.
fn with_out(params: &[ParamCx]) -> Vec<ParamCx> {
    let at = params
        .iter()
        .position(|p| p.optional)
        .unwrap_or(params.len());
    let mut out = params.to_vec();
    out.insert(
        at,
        ParamCx {
            name: "out".into(),
            ts: "rt.ByteSink".into(),
            optional: false,
        },
    );
    out
}

fn download_doc(method: &str, content_type: &str) -> String {
    format!(
        "Like `{method}`, but writes the `{content_type}` bytes to `out` (a web \
         `WritableStream`, or anything with Node's `write(chunk)`, like a `fs.WriteStream`) as \
         they arrive, in bounded memory whatever their size, and returns how many were \
         written. `out` is left open. A download that breaks off is not retried: `out` holds \
         what came."
    )
}

/// The property paths of the sensitive strings in a login body of type `ty`, as a
/// TypeScript literal (`[["user", "password"]]`), found through nested objects.
fn hidden_literal(i: &Interface, ty: &TypeRef) -> String {
    let mut paths = Vec::new();
    sensitive_paths(i, ty, &mut Vec::new(), &mut paths);
    let paths: Vec<String> = paths
        .iter()
        .map(|p| {
            let keys: Vec<String> = p.iter().map(|k| names::string(k)).collect();
            format!("[{}]", keys.join(", "))
        })
        .collect();
    format!("[{}]", paths.join(", "))
}

fn sensitive_paths(i: &Interface, ty: &TypeRef, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let Some(TypeKind::Object(object)) = i.named(ty).map(|t| &t.kind) else {
        return;
    };
    // Specs nest a few levels; the bound only stops a type that contains itself.
    if at.len() > 8 {
        return;
    }
    for f in &object.fields {
        at.push(f.name.clone());
        if f.sensitive && matches!(&f.ty, TypeRef::Builtin(b) if b.is_string_like()) {
            out.push(at.clone());
        } else {
            sensitive_paths(i, &f.ty, at, out);
        }
        at.pop();
    }
}

/// The segment a path parameter is sent as: ids and strings as they are, numbers in
/// decimal, record references through the runtime (`_<external id>`, `self`).
fn segment_value(i: &Interface, f: &Field, name: &str) -> SegmentCx {
    let name = name.to_string();
    match (&f.ty, i.named(&f.ty).map(|t| &t.kind)) {
        (_, Some(TypeKind::RecordRef(r))) => SegmentCx::Ref {
            name,
            self_keyword: r.self_keyword.as_deref().map(names::string),
        },
        (TypeRef::Builtin(b), _) if !b.is_string_like() => SegmentCx::Number { name },
        _ => SegmentCx::Param { name },
    }
}

/// The `rt.RequestSpec` of an operation; `values`: the segments of its path parameters
/// by spec name (none: each is sent as its `{name}`).
fn request_cx(
    op: &Operation,
    values: Option<&[(String, SegmentCx)]>,
    body: Option<BodyCx>,
) -> RequestCx {
    let accept = match &op.answer.kind {
        AnswerKind::Bytes { content_type } => Some(names::string(content_type)),
        _ => None,
    };
    RequestCx {
        op: names::string(&op.name),
        method: names::string(op.method.as_str()),
        path: names::string(&op.path),
        segments: segments_cx(op, values),
        query: op.query.iter().map(query_param_cx).collect(),
        body,
        accept,
        anonymous: op.auth == AuthUse::None,
        hint: op
            .manager_only
            .then(|| names::string(doc_text::MANAGER_ONLY_HINT)),
        poll: op.answer.polls,
    }
}

/// The segments of an operation's path, parameters taken from `values` (by spec name).
fn segments_cx(op: &Operation, values: Option<&[(String, SegmentCx)]>) -> Vec<SegmentCx> {
    let text = |text: &str| SegmentCx::Text {
        text: names::string(text),
    };
    op.call
        .segments
        .iter()
        .map(|segment| match segment {
            Segment::Text { text: t } => text(t),
            Segment::Param { index } => {
                let name = &op.path_params[*index].name;
                values
                    .and_then(|values| values.iter().find(|(n, _)| n == name))
                    .map(|(_, value)| value.clone())
                    .unwrap_or_else(|| text(&format!("{{{name}}}")))
            }
        })
        .collect()
}

/// A query parameter as the request sends it: as text, or JSON-encoded.
fn query_param_cx(f: &Field) -> QueryParamCx {
    let form = if matches!(f.ty, TypeRef::JsonEncoded(_)) {
        "json"
    } else {
        "text"
    };
    QueryParamCx {
        name: names::string(&f.name),
        form: names::string(form),
    }
}
