//! The contexts of an interface's clients: `Client` (blocking) and `AsyncClient`, one
//! method per operation, the same in both; `Operations`, which builds each call's request
//! (validated) once for both; the query classes of operations with optional query
//! parameters; the credentials class; and, for cursor paging, the generic `Page`.

use crate::doc_text;
use crate::ir::{Auth, Interface, Segment, TypeKind, TypeRef};

mod answer;
mod operation;

use super::models::{self, TypeCx};
use super::names::{self, Scope};
use super::types::Types;

pub use operation::{OperationCx, QueryCx};

/// The names an interface's package claims after its declared types.
pub struct ClientNames {
    pub client: String,
    pub async_client: String,
    pub operations: String,
    /// The key pair's class (a login takes its body's type).
    pub credentials: Option<String>,
    pub page: Option<String>,
    /// The webhook reader's class, when the service delivers events.
    pub webhooks: Option<String>,
}

impl ClientNames {
    pub fn claim(i: &Interface, scope: &mut Scope) -> Self {
        ClientNames {
            client: scope.claim("Client"),
            async_client: scope.claim("AsyncClient"),
            operations: scope.claim("Operations"),
            // A login's credentials are its body, a declared type already.
            credentials: match i.auth {
                Auth::ApiKeyHeaders { .. } => Some(scope.claim("ApiKey")),
                Auth::TokenLogin { .. } => None,
            },
            page: i.cursor_paging().map(|_| scope.claim("Page")),
            webhooks: i.webhooks.as_ref().map(|_| scope.claim("Webhooks")),
        }
    }
}

#[derive(serde::Serialize)]
pub struct ClientCx {
    pub client: String,
    pub async_client: String,
    pub operations: String,
    pub credentials: String,
    pub doc: String,
    pub interface: String,
    pub info: String,
    pub auth: AuthCx,
    pub ops: Vec<OperationCx>,
    pub page: Option<PageCx>,
    pub queries: Vec<QueryCx>,
    pub login: Option<LoginCx>,
    /// The webhook reader: its class, and the event type, its reader and the doc.
    pub webhooks: Option<(String, crate::templates::WebhooksCx)>,
}

/// The login of a token interface: its body's type, its operation, and the chain building
/// its request from `body`.
#[derive(serde::Serialize)]
pub struct LoginCx {
    pub body: String,
    /// The login operation's constant in `Operations`.
    pub constant: String,
    pub build: String,
}

/// The credentials: the key headers, or the login's username and password.
#[derive(serde::Serialize)]
pub struct AuthCx {
    pub doc: String,
    /// `headers` or `login`.
    pub kind: &'static str,
    pub fields: Vec<CredentialCx>,
    /// The expression making the runtime's `Auth` from `credentials` (and `core` names
    /// nothing: the login call is built by `Operations`).
    pub make: String,
}

#[derive(serde::Serialize)]
pub struct CredentialCx {
    pub name: String,
    pub wire: String,
    pub doc: String,
    pub secret: bool,
}

/// The generic page of a cursor-paged interface: `{items: [...], paging: {...}}`.
#[derive(serde::Serialize)]
pub struct PageCx {
    pub name: String,
    pub items: String,
    pub items_wire: String,
    pub paging: String,
    pub paging_wire: String,
    pub paging_type: String,
}

pub fn client_cx(i: &Interface, n: &ClientNames, types: &Types, scope: &mut Scope) -> ClientCx {
    let mut members = names::member_scope();
    for taken in [
        "close",
        "login",
        "fetchPresigned",
        "putPresigned",
        "putParts",
        "core",
    ] {
        members.claim(taken);
    }
    let mut constants = Scope::new(&[], names::is_keyword);
    let mut ops: Vec<OperationCx> = i
        .operations
        .iter()
        .map(|op| operation::operation_cx(i, op, n, types, &mut members, &mut constants, scope))
        .collect();
    let queries = ops.iter_mut().filter_map(|op| op.query.take()).collect();
    let login = i.token_login().ok().map(|l| LoginCx {
        body: types.java(&l.body.ty, false),
        constant: ops[l.index].constant.clone(),
        build: l
            .op
            .call
            .segments
            .iter()
            .filter_map(|s| match s {
                Segment::Text { text } => Some(format!(".text({})", names::string(text))),
                Segment::Param { .. } => None,
            })
            .chain([format!(".json({})", types.encode(&l.body.ty, "body", 0))])
            .collect(),
    });
    ClientCx {
        client: n.client.clone(),
        async_client: n.async_client.clone(),
        operations: n.operations.clone(),
        credentials: n.credentials.clone().unwrap_or_else(|| {
            let login = i.token_login().expect("an interface without keys logs in");
            types.java(&login.body.ty, false)
        }),
        doc: doc_text::client(
            i,
            "",
            "turn off with `ClientOptions.builder().validateRequests(false)`",
            "shared by every thread using this client",
        ),
        interface: names::string(&i.name),
        info: info(i),
        auth: auth_cx(i, n, types),
        ops,
        page: n.page.as_ref().map(|name| page_cx(i, name, types)),
        queries,
        login,
        webhooks: n.webhooks.clone().and_then(|class| {
            let words = doc_text::WebhookWords {
                unknown: "is its `Unknown` member, kept whole",
                failure: "throws `DecodeException`",
                verify: "`verify`",
            };
            let name = |t: crate::ir::TypeId| types.names[t.index()].clone();
            crate::templates::webhooks(i, name, name, words).map(|w| (class, w))
        }),
    }
}

fn info(i: &Interface) -> String {
    let rate = i.rate_limit.as_ref().map_or("null".to_string(), |r| {
        format!(
            "ClientOptions.RateLimit.of({}, Duration.ofSeconds({}))",
            r.requests, r.window_seconds
        )
    });
    let limit_status = i.rate_limit.as_ref().map_or(429, |r| r.status);
    let retry_after = i
        .rate_limit
        .as_ref()
        .and_then(|r| r.retry_after_header.clone())
        .unwrap_or_else(|| "Retry-After".to_string());
    wrapped(
        "new InterfaceInfo",
        &[
            names::string(&i.name),
            rate,
            limit_status.to_string(),
            names::string(&retry_after),
            names::string(i.error_message_field.as_deref().unwrap_or("errors")),
            i.default_accept
                .as_deref()
                .map_or("null".to_string(), names::string),
        ],
        4,
    )
}

fn auth_cx(i: &Interface, n: &ClientNames, types: &Types) -> AuthCx {
    match &i.auth {
        Auth::ApiKeyHeaders { doc, headers, .. } => {
            let mut scope = names::member_scope();
            let fields: Vec<CredentialCx> = headers
                .iter()
                .map(|h| CredentialCx {
                    name: scope.claim(&names::member(&h.name)),
                    wire: names::string(&h.name),
                    doc: h.doc.clone(),
                    secret: h.sensitive,
                })
                .collect();
            let pairs: Vec<String> = fields
                .iter()
                .map(|f| format!("Map.entry({}, credentials.{}())", f.wire, f.name))
                .collect();
            let secrets: Vec<String> = fields
                .iter()
                .filter(|f| f.secret)
                .map(|f| format!("credentials.{}()", f.name))
                .collect();
            AuthCx {
                doc: doc.clone(),
                kind: "headers",
                make: wrapped(
                    "Auth.headers",
                    &[
                        format!("List.of({})", pairs.join(", ")),
                        format!("List.of({})", secrets.join(", ")),
                    ],
                    8,
                ),
                fields,
            }
        }
        Auth::TokenLogin { doc, .. } => {
            let login = i.token_login().expect("checked: the interface logs in");
            let mut secrets = Vec::new();
            sensitive_paths(i, &login.body.ty, "credentials", types, &mut secrets);
            let answer = types.decode(login.answer, "v", "JsonPath.ROOT", 0);
            let token_path = format!("$.{}", login.token_field);
            AuthCx {
                doc: doc_text::login(doc),
                kind: "login",
                make: {
                    let field = names::string(login.token_field);
                    let path = names::string(&token_path);
                    wrapped(
                        "Auth.token",
                        &[
                            format!("() -> {}.login(credentials)", n.operations),
                            format!(
                                "v -> Wire.string(Wire.object({answer}.toJsonValue(), JsonPath.ROOT).get({field})\n                .orElseThrow(() -> Wire.missing(JsonPath.ROOT, {field})), JsonPath.ROOT.member({field}))"
                            ),
                            path.clone(),
                            names::string(login.header),
                            names::string(login.scheme),
                            format!("List.of({})", secrets.join(", ")),
                        ],
                        8,
                    )
                },
                fields: Vec::new(),
            }
        }
    }
}

/// The accessor chains (from `value`) of every sensitive string a record holds through
/// required fields: what errors never show.
fn sensitive_paths(i: &Interface, ty: &TypeRef, value: &str, types: &Types, out: &mut Vec<String>) {
    let Some(TypeKind::Object(o)) = i.named(ty).map(|t| &t.kind) else {
        return;
    };
    let TypeRef::Named(id) = ty else { return };
    let TypeCx::Record(r) = models::type_cx(i, i.ty(*id), &types.names[id.index()], types) else {
        return;
    };
    for (f, cx) in o.fields.iter().zip(&r.fields) {
        if !f.required {
            continue;
        }
        let chain = format!("{value}.{}()", cx.name);
        if f.sensitive {
            out.push(chain);
        } else {
            sensitive_paths(i, &f.ty, &chain, types, out);
        }
    }
}

fn page_cx(i: &Interface, name: &str, types: &Types) -> PageCx {
    let c = i.cursor_paging().expect("a page only for cursor paging");
    PageCx {
        name: name.to_string(),
        items: names::member(&c.items_field),
        items_wire: names::string(&c.items_field),
        paging: names::member(&c.paging_field),
        paging_wire: names::string(&c.paging_field),
        paging_type: types.names[c.paging_type.index()].clone(),
    }
}

/// `head(args...)` on one line when short, else one argument a line, indented by
/// `indent + 4` (the generated code's lines stay under the house's width).
fn wrapped(head: &str, args: &[String], indent: usize) -> String {
    let one = format!("{head}({})", args.join(", "));
    if one.len() + indent <= 110 {
        return one;
    }
    let pad = " ".repeat(indent + 4);
    format!("{head}(\n{pad}{})", args.join(&format!(",\n{pad}")))
}

/// Parameter declarations, one a line when they would make the line long.
fn declarations(params: &[String]) -> String {
    let one = params.join(", ");
    if one.len() <= 60 {
        return one;
    }
    let pad = " ".repeat(12);
    format!("\n{pad}{}", params.join(&format!(",\n{pad}")))
}
