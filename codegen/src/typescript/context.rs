//! What the TypeScript templates see: every name, type, descriptor and doc, computed here
//! from the IR, so a template only lays them out.

use serde::Serialize;

use super::names::{self, Scope};
use super::types::{self, TypeNames};
use crate::doc_text::{self, Doc};
use crate::ir::{
    AnswerKind, Auth, AuthUse, Builtin, Field, Interface, Method, Operation, Pagination, TypeDef,
    TypeKind, TypeRef,
};
use crate::templates;

fn header(source: &str) -> String {
    templates::header("//", source)
}

/// One interface module (`src/v3/`).
#[derive(Serialize)]
pub struct InterfaceCx {
    pub header: String,
    pub name: String,
    pub doc: String,
    pub types: Vec<TypeCx>,
    pub queries: Vec<RecordCx>,
    pub page: Option<PageCx>,
    pub registry: Vec<RegistryEntry>,
    pub client: ClientCx,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeCx {
    Record(RecordCx),
    Enum {
        name: String,
        doc: String,
        values: Vec<EnumValueCx>,
        open: bool,
    },
    Union {
        name: String,
        doc: String,
        tag: String,
        members: Vec<MemberCx>,
        unknown: Option<String>,
    },
    Id {
        name: String,
        doc: String,
    },
    RecordRef {
        name: String,
        doc: String,
        id_type: String,
        external: bool,
        self_keyword: Option<String>,
    },
    Scalar {
        name: String,
        doc: String,
        ts: String,
    },
}

#[derive(Serialize)]
pub struct RecordCx {
    pub name: String,
    pub doc: String,
    pub fields: Vec<PropCx>,
    /// Keeps properties the spec does not list (an index signature).
    pub open: bool,
    pub one_of: Option<OneOfCx>,
}

/// A record with an exactly-one-of group: `Name = NameFields & Choice`.
#[derive(Serialize)]
pub struct OneOfCx {
    pub fields_name: String,
    pub choice: String,
    pub doc: String,
    pub variants: Vec<OneOfVariantCx>,
}

#[derive(Serialize)]
pub struct OneOfVariantCx {
    pub name: String,
    pub doc: String,
    pub fields: Vec<PropCx>,
    /// The other variants' properties, typed `?: never` so two cannot be given at once.
    pub never: Vec<String>,
}

#[derive(Serialize)]
pub struct PropCx {
    pub key: String,
    pub ts: String,
    pub optional: bool,
    pub doc: String,
}

#[derive(Serialize)]
pub struct EnumValueCx {
    pub literal: String,
    pub doc: String,
}

#[derive(Serialize)]
pub struct MemberCx {
    pub tag: String,
    pub shape: String,
    pub doc: String,
}

#[derive(Serialize)]
pub struct PageCx {
    pub name: String,
    pub items: String,
    pub paging: String,
    pub paging_type: String,
}

#[derive(Serialize)]
pub struct RegistryEntry {
    pub key: String,
    pub desc: String,
}

#[derive(Serialize)]
pub struct ClientCx {
    pub doc: String,
    pub info: String,
    /// `headers` (an API key pair) or `token` (a login).
    pub auth: &'static str,
    pub key_params: Vec<KeyParamCx>,
    pub login: Option<LoginCx>,
    pub operations: Vec<OperationCx>,
    pub webhooks: Option<WebhooksCx>,
}

/// `parseEvent`, when the interface delivers webhook events.
#[derive(Serialize)]
pub struct WebhooksCx {
    pub event: String,
    pub desc: String,
    pub doc: String,
}

#[derive(Serialize)]
pub struct KeyParamCx {
    pub name: String,
    pub header: String,
    pub sensitive: bool,
    pub doc: String,
}

#[derive(Serialize)]
pub struct LoginCx {
    pub body_type: String,
    pub answer_type: String,
    pub answer_desc: String,
    pub token_field: String,
    pub header: String,
    pub scheme: String,
    pub request: Vec<String>,
    pub doc: String,
    /// The paths (property names) of the body's sensitive strings, as a TypeScript
    /// literal: scrubbed from errors like the token.
    pub hidden: String,
}

#[derive(Serialize)]
pub struct OperationCx {
    pub method: String,
    pub doc: String,
    pub params: Vec<ParamCx>,
    pub returns: String,
    pub call: CallCx,
    pub checks: Vec<String>,
    pub request: Vec<String>,
    pub alternative: Option<AlternativeCx>,
    /// The method writing a binary answer to a stream, for operations that answer bytes.
    pub download: Option<DownloadCx>,
}

/// A method that writes a binary answer to a stream (`out`) instead of returning it.
#[derive(Serialize)]
pub struct DownloadCx {
    pub method: String,
    pub doc: String,
    /// The operation's parameters with `out` before the first optional one.
    pub params: Vec<ParamCx>,
    pub request: Vec<String>,
}

/// How an operation's answer is read: the core method it calls and what that needs.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallCx {
    /// A JSON record of type `value`, decoded through `desc`.
    Json {
        value: String,
        desc: String,
    },
    /// The same, and whether it was created (201) or replaced (200).
    Upsert {
        value: String,
        desc: String,
    },
    Bytes,
    Empty,
    /// Records of type `item` on pages of type `page`, walked as `plan` says.
    Paged {
        item: String,
        page: String,
        plan: String,
    },
}

#[derive(Serialize, Clone)]
pub struct ParamCx {
    pub name: String,
    pub ts: String,
    pub optional: bool,
}

#[derive(Serialize)]
pub struct AlternativeCx {
    pub method: String,
    pub doc: String,
    pub request: Vec<String>,
    pub download: DownloadCx,
}

/// Every name an interface module exports, decided once, in a fixed order; `scope` hands
/// out the names of what the templates add (choice types, unknown members).
struct ModuleNames {
    types: Vec<String>,
    queries: Vec<Option<String>>,
    scope: Scope,
}

fn module_names(i: &Interface) -> ModuleNames {
    let mut scope = names::module_scope();
    // Spec types first, so their names change only when they collide with our own.
    let types: Vec<String> = i.types.iter().map(|t| scope.claim(&t.name)).collect();
    let queries = i
        .operations
        .iter()
        .map(|op| {
            (!op.query.is_empty()).then(|| {
                scope.claim(&format!(
                    "{}Query",
                    heck::ToUpperCamelCase::to_upper_camel_case(op.name.as_str())
                ))
            })
        })
        .collect();
    ModuleNames {
        types,
        queries,
        scope,
    }
}

pub fn interface(i: &Interface) -> Result<InterfaceCx, String> {
    let ModuleNames {
        types: type_names,
        queries: query_names,
        mut scope,
    } = module_names(i);
    let local = TypeNames {
        names: &type_names,
        prefix: "",
    };
    let types = i
        .types
        .iter()
        .zip(&type_names)
        .map(|(t, name)| type_cx(t, name, &local, &mut scope))
        .collect();
    let queries = i
        .operations
        .iter()
        .zip(&query_names)
        .filter_map(|(op, name)| Some(query_cx(op, name.as_ref()?, &local)))
        .collect();
    let page = page_cx(i, &local);
    let registry = i
        .types
        .iter()
        .map(|t| RegistryEntry {
            key: names::property(&t.name),
            desc: types::type_desc(i, &t.kind),
        })
        .collect();
    Ok(InterfaceCx {
        header: header(&i.source_file),
        name: i.name.clone(),
        doc: doc_text::interface(i),
        types,
        queries,
        page,
        registry,
        client: client_cx(i, &type_names, &query_names)?,
    })
}

fn page_cx(i: &Interface, local: &TypeNames) -> Option<PageCx> {
    let Some(Pagination::Cursor {
        items_field,
        paging_field,
        paging_type,
        ..
    }) = &i.pagination
    else {
        return None;
    };
    Some(PageCx {
        name: names::PAGE.to_string(),
        items: names::property(items_field),
        paging: names::property(paging_field),
        paging_type: local.named(*paging_type),
    })
}

fn type_cx(t: &TypeDef, name: &str, local: &TypeNames, scope: &mut Scope) -> TypeCx {
    let name = name.to_string();
    match &t.kind {
        TypeKind::Object(o) => {
            let response_side = t.usage.response_side();
            let mut doc = Doc::new(&t.doc);
            doc.push(if response_side {
                "Properties this spec does not list are kept as the service sent them.".to_string()
            } else {
                "A property this spec does not list yet (the service may add optional ones) is \
                 sent with `withAdditional(record, { name: value })`; validation refuses one \
                 this spec lists."
                    .to_string()
            });
            if let Some(env) = &o.envelope {
                doc.push(format!(
                    "Also read bare: an answer that is the record itself (no `{env}` property) \
                     is read as if wrapped, since the wrapping is not documented for every \
                     answer."
                ));
            }
            doc.not_shown(o.not_shown.as_deref()).source(o.source);
            let fields = o
                .fields
                .iter()
                .map(|f| prop(f, local, response_side))
                .collect();
            let one_of = o.one_of.as_ref().map(|one| {
                let fields_name = scope.claim(&format!("{name}Fields"));
                let choice = scope.claim(&one.type_name);
                let variants = one
                    .variants
                    .iter()
                    .map(|v| {
                        let vname = scope.claim(&format!(
                            "{}{}",
                            one.type_name,
                            heck::ToUpperCamelCase::to_upper_camel_case(v.name.as_str())
                        ));
                        let never = one
                            .variants
                            .iter()
                            .filter(|other| other.name != v.name)
                            .flat_map(|other| other.fields.iter().map(|f| names::property(&f.name)))
                            .collect();
                        OneOfVariantCx {
                            name: vname,
                            doc: v.doc.clone(),
                            fields: v.fields.iter().map(|f| prop(f, local, false)).collect(),
                            never,
                        }
                    })
                    .collect();
                OneOfCx {
                    fields_name,
                    choice,
                    doc: format!(
                        "{}\n\nExactly one variant applies: \"none\" and \"two at once\" do not type-check.",
                        one.doc.trim()
                    ),
                    variants,
                }
            });
            TypeCx::Record(RecordCx {
                name,
                doc: doc.text(),
                fields,
                open: response_side,
                one_of,
            })
        }
        TypeKind::Enum(e) => {
            let mut doc = Doc::new(&t.doc);
            if e.open {
                doc.push(
                    "Open: the service may send values this spec does not list; they are kept as \
                     strings."
                        .to_string(),
                );
            }
            let values: Vec<String> = e
                .values
                .iter()
                .map(|v| format!("- `{}`: {}", v.wire, v.doc.trim()))
                .collect();
            doc.push(format!("Values:\n\n{}", values.join("\n")));
            doc.not_shown(e.not_shown.as_deref());
            TypeCx::Enum {
                name,
                doc: doc.text(),
                values: e
                    .values
                    .iter()
                    .map(|v| EnumValueCx {
                        literal: names::string(&v.wire),
                        doc: v.doc.clone(),
                    })
                    .collect(),
                open: e.open,
            }
        }
        TypeKind::Union(u) => {
            let mut doc = Doc::new(&t.doc);
            doc.push(format!(
                "Discriminated by `{}`: narrow with `switch (x.{})`.",
                u.tag,
                if names::is_identifier(&u.tag) {
                    u.tag.clone()
                } else {
                    format!("[{}]", names::string(&u.tag))
                }
            ));
            let members: Vec<String> = u
                .variants
                .iter()
                .map(|v| format!("- `{}`: {}", v.tag_value, v.doc.trim()))
                .collect();
            doc.push(format!("Members:\n\n{}", members.join("\n")));
            let unknown = u.open.then(|| scope.claim(&format!("Unknown{name}")));
            if let Some(unknown) = &unknown {
                doc.push(format!(
                    "A member with a tag this spec does not know is an `{unknown}`: test \
                     `x.$unknown` first; it keeps the whole object and serialises back unchanged."
                ));
            }
            TypeCx::Union {
                name,
                doc: doc.text(),
                tag: names::property(&u.tag),
                members: u
                    .variants
                    .iter()
                    .map(|v| MemberCx {
                        tag: names::string(&v.tag_value),
                        shape: local.named(v.shape),
                        doc: v.doc.clone(),
                    })
                    .collect(),
                unknown,
            }
        }
        TypeKind::ScalarUnion(kinds) => {
            let ts: Vec<&str> = kinds
                .iter()
                .map(|k| match k {
                    crate::ir::ScalarKind::String => "string",
                    crate::ir::ScalarKind::Integer | crate::ir::ScalarKind::Number => "number",
                    crate::ir::ScalarKind::Boolean => "boolean",
                    crate::ir::ScalarKind::Null => "null",
                })
                .collect();
            let mut unique: Vec<&str> = Vec::new();
            for k in ts {
                if !unique.contains(&k) {
                    unique.push(k);
                }
            }
            let mut doc = Doc::new(&t.doc);
            doc.push(
                "Decoding never refuses another JSON kind here: it is passed through untouched."
                    .to_string(),
            );
            TypeCx::Scalar {
                name,
                doc: doc.text(),
                ts: unique.join(" | "),
            }
        }
        TypeKind::Id { max_length } => {
            let mut doc = Doc::new(&t.doc);
            doc.push(format!(
                "An opaque, case-sensitive id{}. Branded, so it cannot be passed where another \
                 resource's id is expected: make one with `{name}(\"...\")`.",
                max_length
                    .map(|n| format!(" of at most {n} characters"))
                    .unwrap_or_default()
            ));
            TypeCx::Id {
                name,
                doc: doc.text(),
            }
        }
        TypeKind::RecordRef(r) => {
            let mut doc = Doc::new(&t.doc);
            doc.source(r.source);
            TypeCx::RecordRef {
                name,
                doc: doc.text(),
                id_type: local.named(r.id_type),
                external: r.external,
                self_keyword: r.self_keyword.as_ref().map(|k| names::string(k)),
            }
        }
    }
}

/// A record property: response-side collections are always present (decoding fills
/// them), other optional fields are `?:`, and `null` is typed only where documented.
fn prop(f: &Field, local: &TypeNames, response_side: bool) -> PropCx {
    let mut ts = local.ts(&f.ty);
    if f.nullable {
        ts = format!("{ts} | null");
    }
    let collection = matches!(f.ty, TypeRef::Array(_) | TypeRef::Map(_));
    // Response-side collections are filled by decoding, so they are always there.
    let filled = response_side && collection && !f.nullable;
    let optional = !f.required && !filled;
    PropCx {
        key: names::property(&f.name),
        ts,
        optional,
        doc: field_doc(f, !response_side),
    }
}

fn field_doc(f: &Field, show_limits: bool) -> String {
    let mut d = Doc::new(&f.doc);
    if let Some(note) = types::note(&f.ty) {
        d.push(note.to_string());
    }
    if f.nullable && !f.required {
        d.push("Absent (`undefined`) is not the same as `null`.".to_string());
    }
    if show_limits && let Some(limits) = doc_text::describe_limits(&f.constraints) {
        d.push(format!("Limits: {limits}."));
    }
    d.not_shown(f.not_shown.as_deref()).source(f.source);
    d.text()
}

fn query_cx(op: &Operation, name: &str, local: &TypeNames) -> RecordCx {
    RecordCx {
        name: name.to_string(),
        doc: format!(
            "The query parameters of `{}`, by their names on the wire.",
            names::camel(&op.name)
        ),
        fields: op.query.iter().map(|f| prop(f, local, false)).collect(),
        open: false,
        one_of: None,
    }
}

fn client_cx(
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
            let params = headers
                .iter()
                .map(|h| KeyParamCx {
                    name: scope.claim(&names::camel(&h.name.replace('-', "_"))),
                    header: names::string(&h.name),
                    sensitive: h.sensitive,
                    doc: h.doc.clone(),
                })
                .collect();
            ("headers", params, None)
        }
        Auth::TokenLogin {
            login_operation,
            token_field,
            header,
            scheme,
            doc,
            ..
        } => {
            let op = i
                .operations
                .iter()
                .find(|o| &o.name == login_operation)
                .ok_or_else(|| format!("the login operation `{login_operation}` is missing"))?;
            let body = op
                .body
                .as_ref()
                .ok_or_else(|| format!("the login operation `{login_operation}` has no body"))?;
            let AnswerKind::Json { body: answer, .. } = &op.answer.kind else {
                return Err(format!(
                    "the login operation `{login_operation}` answers no JSON record"
                ));
            };
            let login = LoginCx {
                body_type: m.ts(&body.ty),
                answer_type: m.ts(answer),
                answer_desc: types::desc(i, answer, &Default::default()),
                token_field: names::string(token_field),
                header: names::string(header),
                scheme: names::string(scheme),
                request: request_literal(op, None, &["body".to_string()]),
                hidden: hidden_literal(i, &body.ty),
                doc: format!(
                    "Logs in and returns a client that sends the token on every request and \
                     logs in again, once, when the service answers 401.\n\n{}",
                    doc.trim()
                ),
            };
            ("token", Vec::new(), Some(login))
        }
    };
    Ok(ClientCx {
        doc: format!(
            "A client of the {}.\n\nEvery request is checked against the documented limits \
             before it is sent (turn off with `validateRequests: false`), paced under the rate \
             limit (shared by everything using this client), and retried when that is safe: \
             any method after a 429 (after `Retry-After`), GET/PUT/DELETE after a 5xx, a \
             timeout or a broken connection, never a POST or PATCH that may have been applied.",
            i.title
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
                doc: format!(
                    "Reads a webhook delivery's JSON body as a `{name}`.\n\n{}\n\nAn event type \
                     this spec does not list is kept whole (`$unknown`), never an error; a body \
                     that is not JSON, or a known event whose payload does not fit, throws \
                     `DecodeError` with its JSON path. Check the delivery's authentication \
                     header first with `verifyWebhook`.",
                    w.doc.trim()
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
            checks.push(format!(
                "[{}, {}, {name}]",
                names::string(&f.name),
                types::desc(i, &f.ty, &f.constraints)
            ));
        }
        segment_values.push((f.name.clone(), segment_value(i, f, &name)));
    }
    let mut content_type = None;
    let mut body_lines = Vec::new();
    if let Some(body) = &op.body {
        if matches!(body.ty, TypeRef::Builtin(Builtin::Binary)) {
            // Sent as it is: nothing to check, and the caller may choose its content type.
            params.push(ParamCx {
                name: "body".into(),
                ts: "Uint8Array | string".into(),
                optional: false,
            });
            let name = scope.claim("contentType");
            body_lines.push("bytes: body".to_string());
            body_lines.push(format!(
                "contentType: {name} ?? {}",
                names::string(&body.content_type)
            ));
            content_type = Some((name, body.content_type.clone()));
        } else {
            params.push(ParamCx {
                name: "body".into(),
                ts: m.ts(&body.ty),
                optional: false,
            });
            checks.push(format!(
                "[\"\", {}, body]",
                types::desc(i, &body.ty, &Default::default())
            ));
            body_lines.push("body".to_string());
            let hidden = hidden_literal(i, &body.ty);
            if hidden != "[]" {
                body_lines.push(format!("hidden: rt.secretsAt(body, {hidden})"));
            }
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
        checks.push(format!(
            "[\"\", {}, query ?? {{}}]",
            types::object_desc(&fields, None, None)
        ));
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

    let request = request_literal(op, Some(&segment_values), &body_lines);
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
        let suffix = if ct == "application/pdf" {
            "Pdf"
        } else {
            "Bytes"
        };
        let alt = members.claim(&format!("{method}{suffix}"));
        let request = request_literal_with(op, Some(&segment_values), &body_lines, Some(ct), true);
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

/// The text a path parameter is sent as: ids and strings as they are, numbers in decimal,
/// record references through the runtime (`_<external id>`, `self`).
fn segment_value(i: &Interface, f: &Field, name: &str) -> String {
    match (&f.ty, i.named(&f.ty).map(|t| &t.kind)) {
        (_, Some(TypeKind::RecordRef(r))) => format!(
            "rt.refSegment({name}{})",
            r.self_keyword
                .as_ref()
                .map(|k| format!(", {}", names::string(k)))
                .unwrap_or_default()
        ),
        (TypeRef::Builtin(b), _) if !b.is_string_like() => format!("String({name})"),
        _ => name.to_string(),
    }
}

fn request_literal(
    op: &Operation,
    segments: Option<&[(String, String)]>,
    body: &[String],
) -> Vec<String> {
    let accept = match &op.answer.kind {
        AnswerKind::Bytes { content_type } => Some(content_type.as_str()),
        _ => None,
    };
    request_literal_with(op, segments, body, accept, op.answer.polls)
}

/// The entries of the `rt.RequestSpec` object literal of an operation; `body`: those of
/// its body (`body`, or `bytes` and `contentType`).
fn request_literal_with(
    op: &Operation,
    segments: Option<&[(String, String)]>,
    body: &[String],
    accept: Option<&str>,
    poll: bool,
) -> Vec<String> {
    let method = match op.method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
    };
    let segs: Vec<String> = op
        .path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            match s
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .and_then(|p| segments?.iter().find(|(name, _)| name == p))
            {
                Some((_, value)) => format!("{{ value: {value} }}"),
                None => names::string(s),
            }
        })
        .collect();
    let mut lines = vec![
        format!("op: {}", names::string(&op.name)),
        format!("method: \"{method}\""),
        format!("path: {}", names::string(&op.path)),
        format!("segments: [{}]", segs.join(", ")),
    ];
    if !op.query.is_empty() {
        let fields: Vec<String> = op
            .query
            .iter()
            .map(|f| {
                let form = if matches!(f.ty, TypeRef::JsonEncoded(_)) {
                    "json"
                } else {
                    "text"
                };
                format!("[{}, \"{form}\"]", names::string(&f.name))
            })
            .collect();
        lines.push(format!(
            "query: rt.queryEntries(query, [{}])",
            fields.join(", ")
        ));
    }
    lines.extend(body.iter().cloned());
    if let Some(a) = accept {
        lines.push(format!("accept: {}", names::string(a)));
    }
    if op.auth == AuthUse::None {
        lines.push("anonymous: true".to_string());
    }
    if op.manager_only {
        lines.push(format!(
            "hint: {}",
            names::string(doc_text::MANAGER_ONLY_HINT)
        ));
    }
    if poll {
        lines.push("poll: true".to_string());
    }
    lines
}
