//! The contexts several template backends give their templates alike: an interface's
//! modules and client, what the runtime is told, the webhook reader, and the pieces Go and
//! Java share (the declared types' names, a closed enum's values, an operation's query
//! type and parameter lists).

use super::{header, quoted};

/// One interface's modules as a template backend renders them: the generated-file header,
/// the interface's name and doc, its declared types, the page type of its lists and its
/// client, and what the language's templates need besides (`more`, its keys beside these);
/// `T`, `P`, `M`, `L` and `O` are the language's type, page, extra, login and operation
/// contexts.
#[derive(serde::Serialize)]
pub struct InterfaceCx<T, P, M, L, O> {
    pub header: String,
    pub name: String,
    pub doc: String,
    pub types: Vec<T>,
    pub page: Option<P>,
    #[serde(flatten)]
    pub more: M,
    pub client: ClientCx<L, O>,
}

impl<T, P, M, L, O> InterfaceCx<T, P, M, L, O> {
    /// The modules of `i`, the header in the language's `comment` syntax.
    pub fn new(
        i: &crate::ir::Interface,
        comment: &str,
        types: Vec<T>,
        page: Option<P>,
        more: M,
        client: ClientCx<L, O>,
    ) -> Self {
        InterfaceCx {
            header: header(comment, &i.source_file),
            name: i.name.clone(),
            doc: crate::doc_text::interface(i),
            types,
            page,
            more,
            client,
        }
    }
}

/// A parameter of an API-key client's constructor: one key header.
#[derive(serde::Serialize)]
pub struct KeyParamCx {
    pub name: String,
    /// The header name, as a string literal.
    pub header: String,
    pub sensitive: bool,
    pub doc: String,
}

/// The constructor parameters of `headers`, named by `name` (which claims each in the
/// constructor's scope).
fn key_params(
    headers: &[crate::ir::Header],
    mut name: impl FnMut(&str) -> String,
) -> Vec<KeyParamCx> {
    headers
        .iter()
        .map(|h| KeyParamCx {
            name: name(&h.name),
            header: quoted(&h.name),
            sensitive: h.sensitive,
            doc: h.doc.clone(),
        })
        .collect()
}

/// An interface's client: its doc, what the runtime is told, its credentials (a key pair's
/// constructor parameters, or a login) and one method per operation; `L` and `O` are the
/// language's login and operation contexts.
#[derive(serde::Serialize)]
pub struct ClientCx<L, O> {
    pub doc: String,
    pub info: InfoCx,
    /// `headers` (an API key pair) or `token` (a login).
    pub auth: &'static str,
    pub key_params: Vec<KeyParamCx>,
    pub login: Option<L>,
    pub operations: Vec<O>,
    pub webhooks: Option<WebhooksCx>,
}

impl<L, O> ClientCx<L, O> {
    /// The client of `i`: its doc, with how the language turns validation off and what
    /// shares the pacing (`turn_off`, `pacing`, as `doc_text::client` takes them); the
    /// runtime's facts; the credentials, a key pair's constructor parameters each named by
    /// `param`, or the login `login` describes (from the operations' contexts); the
    /// operations and the webhook reader.
    pub fn new(
        i: &crate::ir::Interface,
        [turn_off, pacing]: [&str; 2],
        param: impl FnMut(&str) -> String,
        login: impl FnOnce(&[O]) -> Result<L, String>,
        operations: Vec<O>,
        webhooks: Option<WebhooksCx>,
    ) -> Result<Self, String> {
        let (auth, key_params, login) = match &i.auth {
            crate::ir::Auth::ApiKeyHeaders { headers, .. } => {
                ("headers", key_params(headers, param), None)
            }
            crate::ir::Auth::TokenLogin { .. } => ("token", Vec::new(), Some(login(&operations)?)),
        };
        Ok(ClientCx {
            doc: crate::doc_text::client(i, "", turn_off, pacing),
            info: info(i),
            auth,
            key_params,
            login,
            operations,
            webhooks,
        })
    }
}

/// What the runtime is told about an interface (`rt.InterfaceInfo`,
/// `_rt.InterfaceInfo(...)`); every string a literal.
#[derive(serde::Serialize)]
pub struct InfoCx {
    pub name: String,
    pub rate_limit: Option<RateLimitCx>,
    /// The property of an error answer holding its message.
    pub error_message_field: Option<String>,
    /// The `Accept` header sent unless a request asks for another.
    pub accept: Option<String>,
}

/// The service's rate limit: `requests` per `window_seconds`, refused with `status` (and
/// the header telling how long to wait, a literal).
#[derive(serde::Serialize)]
pub struct RateLimitCx {
    pub requests: u32,
    pub window_seconds: u32,
    pub status: u16,
    pub retry_after_header: Option<String>,
}

/// A parameter list: `before`, an operation's own parameters (`declared`), then `after`
/// (the backends that write out each signature of an operation's methods: Go, Java).
pub fn params_around(before: &[&str], declared: &[String], after: &[&str]) -> Vec<String> {
    let own = |s: &&str| s.to_string();
    before
        .iter()
        .map(own)
        .chain(declared.iter().cloned())
        .chain(after.iter().map(own))
        .collect()
}

/// An operation's optional query values as a type of their own (Go's struct, Java's
/// class): its name, its doc and its fields, as each language describes a field (`F`).
#[derive(serde::Serialize)]
pub struct QueryTypeCx<F> {
    pub name: String,
    pub doc: String,
    pub fields: Vec<F>,
}

/// A value of a closed enum as the backends that declare one constant a value (Go, Java)
/// write it: the constant's name, the wire value as a string literal, and its doc.
#[derive(serde::Serialize)]
pub struct EnumValueCx {
    pub constant: String,
    pub wire: String,
    pub doc: String,
}

impl EnumValueCx {
    /// The value `v`, declared as `constant`.
    pub fn new(v: &crate::ir::EnumValue, constant: String) -> Self {
        EnumValueCx {
            constant,
            wire: quoted(&v.wire),
            doc: crate::doc_text::enum_value(v),
        }
    }
}

/// An interface's declared types with their names in one language (by type id): what the
/// Go and Java backends write their type expressions from. `L` marks the language, whose
/// backend gives the methods (`impl Declared<'_, Go>`).
pub struct Declared<'a, L> {
    pub names: &'a [String],
    pub interface: &'a crate::ir::Interface,
    language: std::marker::PhantomData<L>,
}

impl<'a, L> Declared<'a, L> {
    /// The types of `interface`, declared with `names` (by type id).
    pub fn new(names: &'a [String], interface: &'a crate::ir::Interface) -> Self {
        Declared {
            names,
            interface,
            language: std::marker::PhantomData,
        }
    }
}

/// How a module of a template backend refers to the interface's declared types: their
/// names in the language, and the prefix (`_m.`, `m.`) of a module that imports the models
/// as a namespace. Each backend adds its own methods (annotations, descriptors).
pub struct TypeNames<'a> {
    pub names: &'a [String],
    pub prefix: &'a str,
}

impl TypeNames<'_> {
    /// A declared type's name, with the prefix.
    pub fn named(&self, id: crate::ir::TypeId) -> String {
        format!("{}{}", self.prefix, self.names[id.index()])
    }
}

/// The interface facts both runtimes are given.
pub fn info(i: &crate::ir::Interface) -> InfoCx {
    InfoCx {
        name: quoted(&i.name),
        rate_limit: i.rate_limit.as_ref().map(|r| RateLimitCx {
            requests: r.requests,
            window_seconds: r.window_seconds,
            status: r.status,
            retry_after_header: r.retry_after_header.as_deref().map(quoted),
        }),
        error_message_field: i.error_message_field.as_deref().map(quoted),
        accept: i.default_accept.as_deref().map(quoted),
    }
}

/// The client's webhook reader (`parse_event` / `parseEvent`), when the interface delivers
/// webhook events.
#[derive(serde::Serialize)]
pub struct WebhooksCx {
    /// The event type's name in the client module.
    pub event: String,
    /// Its descriptor expression.
    pub desc: String,
    pub doc: String,
}

/// The webhook reader of an interface whose service delivers events: the event type's name
/// (`event`) and descriptor (`desc`) as the language spells them, its doc in the language's
/// `words` (the event type named as the spec does).
pub fn webhooks(
    i: &crate::ir::Interface,
    event: impl Fn(crate::ir::TypeId) -> String,
    desc: impl Fn(crate::ir::TypeId) -> String,
    words: crate::doc_text::WebhookWords,
) -> Option<WebhooksCx> {
    let w = i.webhooks.as_ref()?;
    let what = format!("a `{}`", i.ty(w.event).name);
    Some(WebhooksCx {
        event: event(w.event),
        desc: desc(w.event),
        doc: crate::doc_text::parse_event(&w.doc, &what, words),
    })
}
