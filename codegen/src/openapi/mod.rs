//! The OpenAPI backend: one OpenAPI 3.1 document (JSON Schema 2020-12) per interface under
//! `generated/openapi/`, for the tools users already own. What OpenAPI cannot say (pacing,
//! provenance, paging plans, open unions' intent) travels as `x-` extensions; the lossy
//! points are listed in README.md.

mod schema;
mod yaml;

use std::collections::BTreeMap;

use yaml::Node;

use crate::doc_text;
use crate::ir::{
    Answer, AnswerKind, Api, Auth, AuthUse, Field, Interface, Method, Operation, Paging,
};
use crate::output::OutputFile;

const DIR: &str = "generated/openapi";

/// Renders one document per interface.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    Ok(api
        .interfaces
        .iter()
        .map(|i| {
            let header = crate::templates::header("#", &i.source_file);
            OutputFile::new(
                format!("{DIR}/{}.yaml", i.name),
                format!("{header}{}", yaml::to_yaml(&document(api, i))),
            )
        })
        .collect())
}

/// Interface names OpenAPI has no trouble with.
pub fn reserved_module(_name: &str) -> bool {
    false
}

fn document(api: &Api, i: &Interface) -> Node {
    let mut info = Node::map()
        .with("title", Node::str(&i.title))
        .with("version", Node::str(&api.version))
        .with("description", Node::str(doc_text::interface(i)));
    if let Some(r) = &i.rate_limit {
        let mut limit = Node::map()
            .with("requests", Node::Int(r.requests.into()))
            .with("window_seconds", Node::Int(r.window_seconds.into()))
            .with("scope", Node::str(&r.scope))
            .with("status", Node::Int(r.status.into()));
        if let Some(max) = r.max_requests {
            limit.set("max_requests", Node::Int(max.into()));
        }
        if let Some(h) = &r.retry_after_header {
            limit.set("retry_after_header", Node::str(h));
        }
        info.set("x-rate-limit", limit);
        info.set(
            "x-pacing",
            Node::str(
                "The generated clients pace requests under this limit by default (a sliding \
                 window 2 % longer than documented) and wait out Retry-After on a 429.",
            ),
        );
    }
    // `jsonSchemaDialect` is left at its default (OpenAPI 3.1's own dialect): written out,
    // it made Prism 5.14 skip every body check, silently.
    let mut doc = Node::map()
        .with("openapi", Node::str("3.1.0"))
        .with("info", info)
        .with("servers", Node::Seq(vec![server(i)]));
    let (schemes, requirement) = security(i);
    doc.set("security", Node::Seq(vec![requirement]));
    doc.set("paths", paths(i));
    if let Some(hooks) = webhooks(i) {
        doc.set("webhooks", hooks);
    }
    let mut components = Node::map().with("schemas", schema::components(i));
    components.set("securitySchemes", schemes);
    doc.set("components", components);
    doc
}

/// The example base URL, its `{placeholders}` declared as server variables.
fn server(i: &Interface) -> Node {
    let url = &i.base_url.example;
    let mut variables = Node::map();
    for part in url.split('{').skip(1) {
        if let Some((name, _)) = part.split_once('}') {
            variables.set(
                name,
                Node::map()
                    .with("default", Node::str("localhost"))
                    .with("description", Node::str(format!("The service's `{name}`."))),
            );
        }
    }
    let mut node = Node::map()
        .with("url", Node::str(url))
        .with("description", Node::str(i.base_url.doc.trim()));
    if !variables.is_empty_map() {
        node.set("variables", variables);
    }
    node
}

/// The security schemes, and the requirement every operation has unless it says otherwise.
fn security(i: &Interface) -> (Node, Node) {
    let mut schemes = Node::map();
    let mut requirement = Node::map();
    match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            for h in headers {
                schemes.set(
                    &h.name,
                    Node::map()
                        .with("type", Node::str("apiKey"))
                        .with("in", Node::str("header"))
                        .with("name", Node::str(&h.name))
                        .with("description", Node::str(h.doc.trim())),
                );
                requirement.set(&h.name, Node::Seq(Vec::new()));
            }
        }
        Auth::TokenLogin {
            header,
            scheme,
            login_operation,
            token_field,
            ..
        } => {
            schemes.set(
                "token",
                Node::map()
                    .with("type", Node::str("apiKey"))
                    .with("in", Node::str("header"))
                    .with("name", Node::str(header))
                    .with(
                        "description",
                        Node::str(format!(
                            "`{header}: {scheme} <{token_field}>`, the {token_field} answered by \
                             `{login_operation}`."
                        )),
                    )
                    .with("x-scheme", Node::str(scheme)),
            );
            requirement.set("token", Node::Seq(Vec::new()));
        }
    }
    (schemes, requirement)
}

/// One webhook per known event type (OpenAPI 3.1 `webhooks`): what the service POSTs to a
/// listener. The schema of each is the event union (so a new type is still described).
fn webhooks(i: &Interface) -> Option<Node> {
    let w = i.webhooks.as_ref()?;
    let event = i.ty(w.event);
    let crate::ir::TypeKind::Union(u) = &event.kind else {
        return None;
    };
    let mut out = Node::map();
    for v in &u.variants {
        let post = Node::map()
            .with("summary", Node::str(v.doc.trim()))
            .with("description", Node::str(w.doc.trim()))
            .with(
                "requestBody",
                Node::map().with("required", Node::Bool(true)).with(
                    "content",
                    Node::map().with(
                        "application/json",
                        Node::map().with("schema", schema::reference(&event.name)),
                    ),
                ),
            )
            .with(
                "responses",
                Node::map().with(
                    "200",
                    Node::map().with(
                        "description",
                        Node::str(
                            "Any 2xx acknowledges the delivery (the expected code is not shown).",
                        ),
                    ),
                ),
            );
        let post = schema::source(post, w.source, None);
        out.set(&v.tag_value, Node::map().with("post", post));
    }
    Some(out)
}

fn method_key(m: Method) -> String {
    m.as_str().to_ascii_lowercase()
}

fn paths(i: &Interface) -> Node {
    let mut paths = Node::map();
    for op in &i.operations {
        let mut item = paths.get_mut(&op.path).cloned().unwrap_or_else(Node::map);
        item.set(&method_key(op.method), operation(i, op));
        paths.set(&op.path, item);
    }
    paths
}

fn parameter(i: &Interface, f: &Field, place: &str) -> Node {
    let mut node = Node::map()
        .with("name", Node::str(&f.name))
        .with("in", Node::str(place))
        .with("required", Node::Bool(place == "path" || f.required));
    if !f.doc.trim().is_empty() {
        node.set("description", Node::str(f.doc.trim()));
    }
    let schema = schema::of(i, &f.ty, &f.constraints);
    if matches!(f.ty, crate::ir::TypeRef::JsonEncoded(_)) {
        // Sent as JSON text.
        node.set(
            "content",
            Node::map().with("application/json", Node::map().with("schema", schema)),
        );
    } else {
        node.set("schema", schema);
    }
    node
}

fn operation(i: &Interface, op: &Operation) -> Node {
    let summary = op.doc.trim().split(['\n', '.']).next().unwrap_or("").trim();
    let mut node = Node::map()
        .with("operationId", Node::str(&op.name))
        .with("summary", Node::str(summary))
        .with("description", Node::str(doc_text::operation(i, op).text()));
    let mut parameters: Vec<Node> = op
        .path_params
        .iter()
        .map(|f| parameter(i, f, "path"))
        .collect();
    parameters.extend(op.query.iter().map(|f| parameter(i, f, "query")));
    if !parameters.is_empty() {
        node.set("parameters", Node::Seq(parameters));
    }
    if let Some(body) = &op.body {
        let mut request = Node::map()
            .with("required", Node::Bool(!body.optional))
            .with(
                "content",
                Node::map().with(
                    &body.content_type,
                    Node::map().with("schema", schema::of(i, &body.ty, &Default::default())),
                ),
            );
        if let Some(doc) = &body.doc {
            request.set("description", Node::str(doc.trim()));
        }
        node.set("requestBody", request);
    }
    node.set("responses", responses(i, op));
    if op.auth == AuthUse::None {
        node.set("security", Node::Seq(Vec::new()));
    }
    if let Some(paging) = i.paging(op) {
        node.set("x-paging", paging_extension(paging));
    }
    if op.manager_only {
        node.set("x-manager-only", Node::Bool(true));
    }
    if op.internal {
        node.set("x-internal", Node::Bool(true));
    }
    if let Some(text) = &op.not_shown {
        node.set("x-not-shown", Node::str(text.trim()));
    }
    if op.answer.polls {
        node.set("x-polls-while-202", Node::Bool(true));
    }
    if let Answer {
        kind: AnswerKind::Upsert { .. },
        ..
    } = &op.answer
    {
        node.set("x-upsert", Node::Bool(true));
    }
    node
}

fn responses(i: &Interface, op: &Operation) -> Node {
    // Several media types of one status are one response.
    let mut by_status: BTreeMap<u16, (Vec<String>, Node)> = BTreeMap::new();
    for r in &op.responses {
        let entry = by_status
            .entry(r.status)
            .or_insert_with(|| (Vec::new(), Node::map()));
        if !r.doc.trim().is_empty() {
            entry.0.push(r.doc.trim().to_string());
        }
        if let Some(body) = &r.body {
            entry.1.set(
                &r.content_type,
                Node::map().with("schema", schema::of(i, body, &Default::default())),
            );
        }
    }
    let error_body = i.error_body.as_ref().map(|ty| {
        Node::map().with(
            "application/json",
            Node::map().with("schema", schema::of(i, ty, &Default::default())),
        )
    });
    let mut out = Node::map();
    for (status, (docs, content)) in by_status {
        let mut response = Node::map().with("description", Node::str(docs.join(" ")));
        if !content.is_empty_map() {
            response.set("content", content);
        }
        if status == 202 {
            response.set(
                "headers",
                retry_after("When to ask again, if the service says."),
            );
        }
        out.set(&status.to_string(), response);
    }
    // The operation's own errors, then those of every operation.
    for e in op.errors.iter().chain(i.errors.iter()) {
        let key = e.status.to_string();
        if out.get_mut(&key).is_some() {
            continue;
        }
        let mut response = Node::map().with("description", Node::str(e.doc.trim()));
        if let Some(content) = &error_body {
            response.set("content", content.clone());
        }
        if Some(e.status) == i.rate_limit.as_ref().map(|r| r.status) {
            response.set("headers", retry_after("Seconds, or an HTTP date, to wait."));
        }
        out.set(&key, response);
    }
    out
}

fn paging_extension(paging: Paging<'_>) -> Node {
    match paging {
        Paging::Cursor { settings: c, .. } => {
            let mut node = Node::map()
                .with("style", Node::str("cursor"))
                .with("items", Node::str(&c.items_field))
                .with("paging", Node::str(&c.paging_field))
                .with("page_param", Node::str(&c.page_param));
            if let Some(n) = &c.next_url_field {
                node.set("next_url", Node::str(n));
            }
            if let Some(cursor) = &c.cursor_field {
                node.set("cursor", Node::str(cursor));
            }
            node.set("per_page_param", Node::str(&c.per_page_param));
            node.set("max_per_page", Node::Int(c.max_per_page.into()));
            node
        }
        Paging::Links {
            items_field,
            settings: l,
            ..
        } => Node::map()
            .with("style", Node::str("links"))
            .with("items", Node::str(items_field))
            .with("links", Node::str(&l.links_field))
            .with("after_param", Node::str(&l.after_param))
            .with("before_param", Node::str(&l.before_param))
            .with("limit_param", Node::str(&l.limit_param))
            .with("max_limit", Node::Int(l.max_limit.into())),
    }
}

/// A response's `headers` with the one it carries: `Retry-After`, as text.
fn retry_after(description: &str) -> Node {
    Node::map().with(
        "Retry-After",
        Node::map()
            .with("description", Node::str(description))
            .with("schema", Node::map().with("type", Node::str("string"))),
    )
}
