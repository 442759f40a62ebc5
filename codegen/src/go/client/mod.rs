//! The context of an interface's client: how it is made (its credentials, its options)
//! and one method per operation, each building its call, checking it, sending it
//! through the runtime's core and reading the answer; a list's walk through the pager.

mod operation;
mod paging;

use crate::doc_text;
use crate::ir::{Auth, Interface, TypeRef};

use super::models::{self, Claimed, TypeCx};
use super::names::{self, Scope};
use super::types::Types;

pub use operation::{OperationCx, QueryCx};

#[derive(serde::Serialize)]
pub struct ClientCx {
    pub doc: String,
    /// `keys` (key headers) or `login` (a token from a login operation).
    pub auth: &'static str,
    /// The key headers: (wire name literal, parameter, secret).
    pub keys: Vec<(String, String, bool)>,
    pub login: Option<LoginCx>,
    pub requests: Option<u32>,
    pub window_seconds: Option<u32>,
    pub error_field: String,
    pub accept: String,
    pub operations: Vec<OperationCx>,
    pub queries: Vec<QueryCx>,
    /// Whether a list is walked (the client then imports `iter`).
    pub paged: bool,
    /// Whether a method names a type of `encoding/json`.
    pub json: bool,
    /// Whether an operation sends a body of bytes (`WithContentType` is then written).
    pub binary_body: bool,
    /// The list the package's examples walk: one taking nothing but its query values.
    pub example: Option<ExampleCx>,
    /// The reader of webhook deliveries, when the service sends events.
    pub webhooks: Option<crate::templates::WebhooksCx>,
}

/// A list's method and its query struct, for an `Example` function.
#[derive(serde::Serialize)]
pub struct ExampleCx {
    pub method: String,
    pub query: String,
}

/// A token login: the login operation's method, its body type (the credentials), the
/// sensitive strings those hold (accessor chains from `credentials`), the answer's token
/// field and how the token is sent.
#[derive(serde::Serialize)]
pub struct LoginCx {
    /// The login operation's builder and its answer's reader: the login reads the
    /// answer's status too.
    pub builder: String,
    pub reader: String,
    pub body: String,
    pub secrets: Vec<String>,
    pub token: String,
    pub token_wire: String,
    pub header: String,
    pub scheme: String,
}

/// The client of `i`, its names claimed in `scope` (the package's).
pub fn client_cx(i: &Interface, claimed: &Claimed, types: &Types, scope: &mut Scope) -> ClientCx {
    let mut methods = Scope::new(names::CLIENT_METHODS, |_| false);
    let mut queries = Vec::new();
    let operations: Vec<OperationCx> = i
        .operations
        .iter()
        .map(|op| operation::operation_cx(i, op, claimed, types, &mut methods, scope, &mut queries))
        .collect();
    let (auth, keys, login) = match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            let mut params = Scope::new(&["opts", "ctx", "plain", "secret"], reserved_parameter);
            let keys = headers
                .iter()
                .filter(|k| k.value.is_none())
                .map(|k| {
                    let param = params.claim(&lower_first(&names::exported(&k.name)));
                    (names::string(&k.name), param, k.sensitive)
                })
                .collect();
            ("keys", keys, None)
        }
        Auth::TokenLogin { .. } => (
            "login",
            Vec::new(),
            login_cx(i, types, claimed, &operations),
        ),
    };
    ClientCx {
        doc: doc_text::interface(i),
        auth,
        keys,
        login,
        requests: i.rate_limit.as_ref().map(|r| r.requests),
        window_seconds: i.rate_limit.as_ref().map(|r| r.window_seconds),
        error_field: names::string(i.error_message_field.as_deref().unwrap_or("")),
        accept: names::string(i.default_accept.as_deref().unwrap_or("application/json")),
        webhooks: {
            let words = doc_text::WebhookWords {
                unknown: "is its `Unknown…` member, kept whole",
                failure: "returns a `*DecodeError`",
                verify: "`VerifyDelivery`",
            };
            let name = |t: crate::ir::TypeId| types.names[t.index()].clone();
            crate::templates::webhooks(i, name, name, words)
        },
        paged: operations.iter().any(|o| o.paged.is_some()),
        binary_body: i
            .operations
            .iter()
            .any(|op| op.body.is_some() && op.json_body().is_none()),
        example: operations
            .iter()
            .filter(|o| o.paged.is_some() && o.args == "query")
            .find_map(|o| {
                Some(ExampleCx {
                    method: o.method.clone(),
                    query: o.query.clone()?,
                })
            }),
        json: operations
            .iter()
            .any(|o| o.sig.contains("json.") || o.returns.contains("json."))
            || queries
                .iter()
                .any(|q| q.fields.iter().any(|f| f.ty.contains("json."))),
        operations,
        queries,
    }
}

fn login_cx(i: &Interface, types: &Types, c: &Claimed, ops: &[OperationCx]) -> Option<LoginCx> {
    let t = i.token_login().ok()?;
    let mut secrets = Vec::new();
    sensitive_paths(i, &t.body.ty, "credentials", types, c, &mut secrets);
    let op = ops.iter().find(|o| o.name == names::string(&t.op.name))?;
    Some(LoginCx {
        builder: op.builder.clone(),
        reader: op.reader.clone(),
        body: types.go(&t.body.ty),
        secrets,
        token: record_field(i, t.answer, t.token_field, types, c)?,
        token_wire: names::string(t.token_field),
        header: names::string(t.header),
        scheme: names::string(t.scheme),
    })
}

/// The Go accessor of the field `wire` of the record `ty` (`.Value()` after an Opt).
pub(super) fn record_field(
    i: &Interface,
    ty: &TypeRef,
    wire: &str,
    types: &Types,
    c: &Claimed,
) -> Option<String> {
    let TypeRef::Named(id) = ty else { return None };
    let TypeCx::Record(r) = models::type_cx(i.ty(*id), id.index(), c, types) else {
        return None;
    };
    let literal = names::string(wire);
    r.fields.into_iter().find(|f| f.wire == literal).map(|f| {
        if f.plain {
            f.name
        } else {
            format!("{}.Value()", f.name)
        }
    })
}

/// The accessor chains (from `value`) of every sensitive string a record holds through
/// its fields: what errors never show.
fn sensitive_paths(
    i: &Interface,
    ty: &TypeRef,
    value: &str,
    types: &Types,
    c: &Claimed,
    out: &mut Vec<String>,
) {
    let Some(crate::ir::TypeKind::Object(o)) = i.named(ty).map(|t| &t.kind) else {
        return;
    };
    for f in &o.fields {
        let Some(field) = record_field(i, ty, &f.name, types, c) else {
            continue;
        };
        let chain = format!("{value}.{field}");
        if f.sensitive {
            out.push(chain);
        } else {
            sensitive_paths(i, &f.ty, &chain, types, c, out);
        }
    }
}

/// An unexported name from an exported one: its leading word, or initialism, in lower case
/// (`UnitID` -> `unitID`, `APIKeyID` -> `apiKeyID`, `ID` -> `id`).
pub(super) fn lower_first(name: &str) -> String {
    let upper = name.chars().take_while(char::is_ascii_uppercase).count();
    let cut = match upper {
        0 => 0,
        n if n == name.len() => n,
        1 => 1,
        // The last capital of a run starts the next word (`APIKey`: `api` + `Key`).
        n if name[n..].starts_with(|c: char| c.is_ascii_lowercase()) => n - 1,
        n => n,
    };
    name[..cut].to_ascii_lowercase() + &name[cut..]
}

/// The names a parameter may not take: keywords, Go's predeclared names and the packages
/// the client's file imports, which a parameter would hide from the function's body.
pub(super) fn reserved_parameter(name: &str) -> bool {
    const TAKEN: &[&str] = &[
        "any",
        "append",
        "bool",
        "byte",
        "cap",
        "clear",
        "close",
        "comparable",
        "complex",
        "complex128",
        "complex64",
        "context",
        "copy",
        "delete",
        "error",
        "false",
        "float32",
        "float64",
        "http",
        "imag",
        "int",
        "int16",
        "int32",
        "int64",
        "int8",
        "iota",
        "iter",
        "json",
        "len",
        "make",
        "max",
        "min",
        "new",
        "nil",
        "panic",
        "print",
        "println",
        "real",
        "recover",
        "rune",
        "runtime",
        "slog",
        "string",
        "time",
        "true",
        "uint",
        "uint16",
        "uint32",
        "uint64",
        "uint8",
        "uintptr",
        "url",
    ];
    names::KEYWORDS.contains(&name) || TAKEN.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_start_in_lower_case_initialisms_included() {
        assert_eq!(lower_first("UnitID"), "unitID");
        assert_eq!(lower_first("APIKeyID"), "apiKeyID");
        assert_eq!(lower_first("ID"), "id");
        assert_eq!(lower_first("Body"), "body");
        assert!(
            reserved_parameter("string") && reserved_parameter("url") && reserved_parameter("type")
        );
    }
}
