//! The context of an interface's client: its constructor, login and every operation's
//! method, parameters, answer plan and request literal.

use heck::ToUpperCamelCase;

use crate::doc_text;
use crate::ir::{
    AnswerKind, AuthUse, Body, Builtin, Field, Input, Interface, Operation, Paging, Segment,
    TypeKind, TypeRef,
};
use crate::templates;
use crate::typescript::names::{self, Scope};
use crate::typescript::types::{self, TypeNames};

use super::{
    AlternativeCx, BodyCx, CallCx, CheckCx, ClientCx, DownloadCx, LoginCx, OperationCx, ParamCx,
    QueryParamCx, RequestCx, SegmentCx, WebhooksCx,
};

/// The client of an interface: its constructor (API key headers) or login, and one
/// method per operation.
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
    let mut params = names::params_scope();
    ClientCx::new(
        i,
        [
            "turn off with `validateRequests: false`",
            "shared by everything using this client",
        ],
        |h| params.claim(&names::camel(&h.replace('-', "_"))),
        |_| login_cx(i, &m),
        operations,
        webhooks_cx(i, &m),
    )
}

/// `Client.login` of an interface whose auth is a token login.
fn login_cx(i: &Interface, m: &TypeNames) -> Result<LoginCx, String> {
    let login = i.token_login()?;
    Ok(LoginCx {
        body_type: m.ts(&login.body.ty),
        answer_type: m.ts(login.answer),
        answer_desc: types::desc(i, login.answer, &Default::default()),
        token_field: names::string(login.token_field),
        header: names::string(login.header),
        scheme: names::string(login.scheme),
        request: request_cx(login.op, None, Some(BodyCx::Json { hidden: None })),
        hidden: hidden_literal(i, &login.body.ty),
        doc: doc_text::login(login.doc),
    })
}

/// `parseEvent`, for an interface whose service calls webhooks.
fn webhooks_cx(i: &Interface, m: &TypeNames) -> Option<WebhooksCx> {
    let words = doc_text::WebhookWords {
        unknown: "is kept whole (`$unknown`)",
        failure: "throws `DecodeError`",
        verify: "`verifyWebhook`",
    };
    let desc = |t| types::desc(i, &TypeRef::Named(t), &Default::default());
    templates::webhooks(i, |t| m.named(t), desc, words)
}

/// An operation's method: its parameters, answer plan and request, and the methods
/// beside it (an alternative answer's, a download's).
fn operation_cx(
    i: &Interface,
    op: &Operation,
    query: Option<&str>,
    m: &TypeNames,
    members: &mut Scope,
) -> OperationCx {
    let method = members.claim(&names::camel(&op.name));
    let (inputs, request, content_type) = inputs_cx(i, op, query, m);
    let (call, returns) = call_cx(i, op, m);
    let download_params = with_out(&inputs.params);
    let alternative = alternative_cx(op, &method, &request, &download_params, members);
    let download = match &op.answer.kind {
        AnswerKind::Bytes { content_type } if op.paging.is_none() => Some(download_cx(
            &method,
            content_type,
            download_params,
            request.clone(),
            members,
        )),
        _ => None,
    };
    OperationCx {
        doc: operation_doc(i, op, content_type.as_deref()),
        method,
        params: inputs.params,
        returns,
        call,
        checks: inputs.checks,
        request,
        alternative,
        download,
    }
}

/// A method's parameters and the checks run on them, gathered in order.
#[derive(Default)]
struct Inputs {
    params: Vec<ParamCx>,
    checks: Vec<CheckCx>,
}

impl Inputs {
    /// Adds the parameter `name` of type `ts`.
    fn param(&mut self, name: &str, ts: String, optional: bool) {
        self.params.push(ParamCx {
            name: name.to_string(),
            ts,
            optional,
        });
    }

    /// Adds a check of the parameter `param` against `desc`, its errors naming `path`.
    fn check(&mut self, path: &str, desc: String, param: &str, or_empty: bool) {
        self.checks.push(CheckCx {
            path: names::string(path),
            desc,
            param: param.to_string(),
            or_empty,
        });
    }
}

/// An operation's parameters (path, body, query, content type, options) and their checks,
/// its request, and the parameter naming a binary body's content type.
fn inputs_cx(
    i: &Interface,
    op: &Operation,
    query: Option<&str>,
    m: &TypeNames,
) -> (Inputs, RequestCx, Option<String>) {
    let mut scope = names::params_scope();
    let mut inputs = Inputs::default();
    let mut values = Vec::new();
    let (mut body, mut content_type) = (None, None);
    // The query is one object, where the plan's first query parameter stands.
    let mut query = query;
    for input in &op.call.inputs {
        match *input {
            Input::Path { index } => {
                let f = &op.path_params[index];
                values.push(path_input(i, f, m, &mut scope, &mut inputs));
            }
            Input::Body => {
                if let Some(b) = &op.body {
                    (body, content_type) = body_input(i, b, m, &mut scope, &mut inputs);
                }
            }
            Input::Query { .. } => {
                if let Some(query_type) = query.take() {
                    query_input(op, query_type, &mut inputs);
                }
            }
        }
    }
    // Optional, so after the query (which may be required), just before the options.
    if let Some(name) = &content_type {
        inputs.param(name, "string".into(), true);
    }
    let options = if op.paging.is_some() {
        "rt.PageOptions"
    } else {
        "rt.CallOptions"
    };
    inputs.param("options", options.into(), true);
    let request = request_cx(op, Some(&values), body);
    (inputs, request, content_type)
}

/// Adds a path parameter and its check (record references are checked by the runtime);
/// returns the segment it is sent as, by spec name.
fn path_input(
    i: &Interface,
    f: &Field,
    m: &TypeNames,
    scope: &mut Scope,
    inputs: &mut Inputs,
) -> (String, SegmentCx) {
    let name = scope.claim(&names::camel(&f.name));
    inputs.param(&name, m.ts(&f.ty), false);
    if !matches!(
        i.named(&f.ty).map(|t| &t.kind),
        Some(TypeKind::RecordRef(_))
    ) {
        inputs.check(&f.name, types::desc(i, &f.ty, &f.constraints), &name, false);
    }
    (f.name.clone(), segment_value(i, f, &name))
}

/// Adds the `body` parameter (and its check, for JSON); returns the request's body and,
/// for bytes, the parameter naming their content type.
fn body_input(
    i: &Interface,
    body: &Body,
    m: &TypeNames,
    scope: &mut Scope,
    inputs: &mut Inputs,
) -> (Option<BodyCx>, Option<String>) {
    if matches!(body.ty, TypeRef::Builtin(Builtin::Binary)) {
        // Sent as it is: nothing to check, and the caller may choose its content type.
        inputs.param("body", "Uint8Array | string".into(), false);
        let name = scope.claim("contentType");
        let request_body = BodyCx::Bytes {
            content_type: name.clone(),
            default: names::string(&body.content_type),
        };
        return (Some(request_body), Some(name));
    }
    // An optional body comes after every required input (the call plan's order), so it
    // can be an optional parameter; `undefined` sends none.
    inputs.param("body", m.ts(&body.ty), body.optional);
    let desc = types::desc(i, &body.ty, &Default::default());
    inputs.check("", desc, "body", false);
    let hidden = hidden_literal(i, &body.ty);
    let request_body = BodyCx::Json {
        hidden: (hidden != "[]").then_some(hidden),
    };
    (Some(request_body), None)
}

/// Adds the `query` parameter (of the module's type `query_type`; optional unless a field
/// is required) and its check.
fn query_input(op: &Operation, query_type: &str, inputs: &mut Inputs) {
    let required = op.query.iter().any(|f| f.required);
    inputs.param("query", format!("m.{query_type}"), !required);
    let key = names::string(&types::query_key(&op.name));
    inputs.check("", format!("{{ k: \"ref\", name: {key} }}"), "query", true);
}

/// How an operation's answer is read, and the type its method returns.
fn call_cx(i: &Interface, op: &Operation, m: &TypeNames) -> (CallCx, String) {
    if let Some(paging) = i.paging(op) {
        return paged_call(i, paging, m);
    }
    match &op.answer.kind {
        AnswerKind::Json { body, .. } => {
            let value = m.ts(body);
            let returns = format!("Promise<{value}>");
            let desc = types::desc(i, body, &Default::default());
            (CallCx::Json { value, desc }, returns)
        }
        AnswerKind::Upsert { body } => {
            let value = m.ts(body);
            let returns = format!("Promise<rt.Upserted<{value}>>");
            let desc = types::desc(i, body, &Default::default());
            (CallCx::Upsert { value, desc }, returns)
        }
        AnswerKind::Bytes { .. } => (CallCx::Bytes, "Promise<Uint8Array>".to_string()),
        AnswerKind::Empty => (CallCx::Empty, "Promise<void>".to_string()),
    }
}

/// How a paged operation's records are walked, and its method's type (`rt.Paged`).
fn paged_call(i: &Interface, paging: Paging<'_>, m: &TypeNames) -> (CallCx, String) {
    let (item, page) = match paging {
        Paging::Cursor { item, .. } => {
            let item = m.ts(item);
            let page = format!("m.{}<{item}>", names::PAGE);
            (item, page)
        }
        Paging::Links { envelope, item, .. } => (m.ts(item), m.named(envelope)),
    };
    let returns = format!("rt.Paged<{item}, {page}>");
    let plan = types::paging_plan(i, paging);
    (CallCx::Paged { item, page, plan }, returns)
}

/// An operation method's doc: the spec's words, then what a binary body, paging, an
/// upsert and polling mean for the caller.
fn operation_doc(i: &Interface, op: &Operation, content_type: Option<&str>) -> String {
    let mut doc = doc_text::operation(i, op);
    if let (Some(name), Some(body)) = (content_type, &op.body) {
        doc.push(format!(
            "`body` is sent as it is (text as UTF-8), as `{name}` (`{}` unless given).",
            body.content_type
        ));
    }
    if op.paging.is_some() {
        doc.push(
            "`for await` over the result walks every record of every page, one page in \
             memory at a time; `.pages()` gives the pages, `.first()` the first one. A walk \
             that fails past its first page throws an `InterruptedError` whose `resume`, \
             passed back as `options.resume`, starts the walk again at the page that failed."
                .to_string(),
        );
    } else if matches!(op.answer.kind, AnswerKind::Upsert { .. }) {
        doc.push("`created` tells whether the record was created (201) or replaced (200).".into());
    }
    if op.answer.polls {
        doc.push("A 202 (still preparing) is asked again with backoff, up to `maxPolls`.".into());
    }
    doc.text()
}

/// The method asking for an operation's alternative answer (`Accept`: its media type), and
/// its download.
fn alternative_cx(
    op: &Operation,
    method: &str,
    request: &RequestCx,
    download_params: &[ParamCx],
    members: &mut Scope,
) -> Option<AlternativeCx> {
    let ct = op.answer.alternative.as_deref()?;
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
    Some(AlternativeCx {
        doc: format!(
            "Like `{method}`, but asks for `{ct}` (`Accept: {ct}`) and returns its bytes, \
             waiting out 202 answers. The bytes are read into memory within \
             `maxResponseBytes`; `{alt}To` writes them to a stream instead."
        ),
        download: download_cx(&alt, ct, download_params.to_vec(), request.clone(), members),
        method: alt,
        request,
    })
}

/// The method `<method>To`, writing the `content_type` bytes `method` returns to a stream.
fn download_cx(
    method: &str,
    content_type: &str,
    params: Vec<ParamCx>,
    request: RequestCx,
    members: &mut Scope,
) -> DownloadCx {
    DownloadCx {
        method: members.claim(&format!("{method}To")),
        doc: download_doc(method, content_type),
        params,
        request,
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

/// The doc of the method writing `method`'s `content_type` bytes to a stream.
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
