//! The checked, language-neutral model every backend renders from.
//!
//! Everything here is resolved: type references are [`TypeId`]s into the interface's
//! `types`, union shapes carry their common fields, each type knows whether requests,
//! responses or both use it, and [`resolve`] has decided what is about the service's meaning
//! (each operation's answer plan and paging, the error message field, openness). Backends
//! never see spans or raw YAML, and decide nothing but how to say it in their language.
//! `cargo xtask codegen --dump-ir` prints it as JSON.

pub mod diff;
mod resolve;
pub mod version;

use serde::{Deserialize, Serialize};

pub use crate::spec::{AuthUse, CharClass, Method, ScalarKind, Source};
pub use resolve::resolve;

/// Every interface of the spec, in file-name order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Api {
    /// The version every generated package takes (`spec/VERSION`).
    pub version: String,
    pub interfaces: Vec<Interface>,
}

/// The version of a spec folder without a `VERSION` file.
pub const DEFAULT_VERSION: &str = "0.1.0";

impl Api {
    /// The interfaces at the default version.
    pub fn new(interfaces: Vec<Interface>) -> Self {
        Api {
            version: DEFAULT_VERSION.to_string(),
            interfaces,
        }
    }

    pub fn type_count(&self) -> usize {
        self.interfaces.iter().map(|i| i.types.len()).sum()
    }

    pub fn operation_count(&self) -> usize {
        self.interfaces.iter().map(|i| i.operations.len()).sum()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Interface {
    /// Module name (`v3`).
    pub name: String,
    pub title: String,
    pub doc: String,
    /// The spec file it came from, relative to the repository root.
    pub source_file: String,
    pub base_url: BaseUrl,
    pub auth: Auth,
    pub pagination: Option<Pagination>,
    pub rate_limit: Option<RateLimit>,
    pub error_body: Option<TypeRef>,
    pub errors: Vec<StatusDoc>,
    pub headers: Vec<Header>,
    pub limits: Vec<Limit>,
    pub versioning: String,
    pub not_shown: Vec<String>,
    /// The JSON property of error bodies that holds the message (resolved from
    /// `error_body`: its first field).
    pub error_message_field: Option<String>,
    /// The `Accept` every request sends unless it asks for another media type (a fixed
    /// value of the interface's `Accept` header, such as a versioned one).
    pub default_accept: Option<String>,
    /// Event deliveries to a webhook listener, when the service sends them.
    pub webhooks: Option<Webhooks>,
    /// Every declared type; a [`TypeId`] is an index into this list.
    pub types: Vec<TypeDef>,
    pub operations: Vec<Operation>,
}

/// A token login, resolved: the operation that logs in (and its index), the body it sends
/// and the JSON record it answers, which holds the token.
#[derive(Debug)]
pub struct TokenLogin<'a> {
    pub index: usize,
    pub op: &'a Operation,
    pub body: &'a Body,
    pub answer: &'a TypeRef,
}

impl Interface {
    /// The list envelope of a cursor-paged interface: its items field, its paging field and
    /// the paging field's type. `None` for other paging.
    pub fn cursor_envelope(&self) -> Option<(&str, &str, TypeId)> {
        match &self.pagination {
            Some(Pagination::Cursor {
                items_field,
                paging_field,
                paging_type,
                ..
            }) => Some((items_field, paging_field, *paging_type)),
            _ => None,
        }
    }

    /// The login of a token-login interface. `check` refuses a login operation that is
    /// missing, takes no body or answers no record, so for an accepted spec this is an
    /// error only when the interface does not log in; a backend passes the error on.
    pub fn token_login(&self) -> Result<TokenLogin<'_>, String> {
        let Auth::TokenLogin {
            login_operation, ..
        } = &self.auth
        else {
            return Err(format!(
                "the interface `{}` does not log in with a token",
                self.name
            ));
        };
        let malformed = || {
            format!(
                "the login operation `{login_operation}` must take a body and answer a JSON record"
            )
        };
        let (index, op) = self
            .operations
            .iter()
            .enumerate()
            .find(|(_, o)| &o.name == login_operation)
            .ok_or_else(malformed)?;
        let (AnswerKind::Json { body: answer, .. }, Some(body)) = (&op.answer.kind, &op.body)
        else {
            return Err(malformed());
        };
        Ok(TokenLogin {
            index,
            op,
            body,
            answer,
        })
    }

    /// The type a [`TypeId`] of this interface names.
    pub fn ty(&self, id: TypeId) -> &TypeDef {
        &self.types[id.index()]
    }

    /// The type `ty` names, when it is a plain reference to a declared type.
    pub fn named(&self, ty: &TypeRef) -> Option<&TypeDef> {
        match ty {
            TypeRef::Named(id) => Some(self.ty(*id)),
            _ => None,
        }
    }
}

/// A declared type of one interface: its index in [`Interface::types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TypeId(pub u32);

impl TypeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a webhook listener receives: a JSON body read as the `event` union (always open, so
/// an event type the spec does not know is kept whole, never an error).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Webhooks {
    pub doc: String,
    pub event: TypeId,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BaseUrl {
    pub placeholder: String,
    pub example: String,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    pub name: String,
    pub doc: String,
    pub value: Option<String>,
    pub sensitive: bool,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Limit {
    pub name: String,
    pub value: String,
    pub doc: String,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Auth {
    ApiKeyHeaders {
        doc: String,
        headers: Vec<Header>,
        unauthorized_status: u16,
    },
    TokenLogin {
        doc: String,
        login_operation: String,
        token_field: String,
        header: String,
        scheme: String,
        source: Source,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "style")]
pub enum Pagination {
    Cursor {
        doc: String,
        page_param: String,
        per_page_param: String,
        max_per_page: u32,
        default_per_page: Option<u32>,
        items_field: String,
        paging_field: String,
        paging_type: TypeId,
        next_url_field: Option<String>,
        cursor_field: Option<String>,
        page_size_field: Option<String>,
        /// Where the paging field names come from.
        #[serde(default)]
        source: Source,
    },
    Links {
        doc: String,
        links_field: String,
        after_param: String,
        before_param: String,
        limit_param: String,
        max_limit: u32,
        source: Source,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RateLimit {
    pub requests: u32,
    pub window_seconds: u32,
    pub max_requests: Option<u32>,
    pub scope: String,
    pub status: u16,
    pub retry_after_header: Option<String>,
    pub doc: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusDoc {
    pub status: u16,
    pub doc: String,
}

/// Which side of the wire uses a type. Request types are validated and closed; response
/// types are lenient and open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub request: bool,
    pub response: bool,
}

impl Usage {
    /// Only ever sent: checked strictly, never needs to tolerate what the service adds.
    pub fn request_only(&self) -> bool {
        self.request && !self.response
    }

    /// Read from answers, or from nothing: decoded tolerantly (unknown properties kept,
    /// unknown members and values kept).
    pub fn response_side(&self) -> bool {
        !self.request_only()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TypeDef {
    pub name: String,
    pub doc: String,
    pub kind: TypeKind,
    pub usage: Usage,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeKind {
    Object(Object),
    Enum(Enum),
    Union(Union),
    ScalarUnion(Vec<ScalarKind>),
    Id { max_length: Option<u32> },
    RecordRef(RecordRef),
}

/// A path reference: an id, an external id (`_<external id>`), or a self keyword.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordRef {
    pub id_type: TypeId,
    pub external: bool,
    pub self_keyword: Option<String>,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Object {
    pub fields: Vec<Field>,
    /// A record envelope: the field holding the record. An answer without it is the bare
    /// record, read as if wrapped. (Every object keeps properties the spec does not list.)
    pub envelope: Option<String>,
    pub one_of: Option<OneOf>,
    pub not_shown: Option<String>,
    pub source: Source,
}

impl Object {
    /// Every property of the record on the wire: its fields, then the fields of each
    /// exactly-one-of variant (flattened into the record).
    pub fn wire_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().chain(
            self.one_of
                .iter()
                .flat_map(|one| one.variants.iter().flat_map(|v| &v.fields)),
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OneOf {
    /// Field name in generated code.
    pub name: String,
    /// Name of the generated choice type.
    pub type_name: String,
    pub doc: String,
    pub variants: Vec<OneOfVariant>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OneOfVariant {
    pub name: String,
    pub doc: String,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Field {
    /// The name on the wire (JSON property or query/path parameter).
    pub name: String,
    pub doc: String,
    pub ty: TypeRef,
    pub required: bool,
    pub nullable: bool,
    pub sensitive: bool,
    pub constraints: Constraints,
    pub not_shown: Option<String>,
    pub source: Source,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraints {
    pub max_length: Option<u32>,
    pub length: Option<u32>,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub chars: Option<CharRule>,
    pub max_items: Option<u32>,
    pub min_items: Option<u32>,
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        *self == Constraints::default()
    }

    /// The numeric limits that are set, by their snake_case names, in a fixed order (each
    /// backend spells the names its own way).
    pub fn numbers(&self) -> Vec<(&'static str, i64)> {
        [
            ("max_length", self.max_length.map(i64::from)),
            ("length", self.length.map(i64::from)),
            ("min", self.min),
            ("max", self.max),
            ("min_items", self.min_items.map(i64::from)),
            ("max_items", self.max_items.map(i64::from)),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharRule {
    pub allow: CharClass,
    pub forbid: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Enum {
    /// Unknown values are kept (response side); a closed enum refuses them.
    pub open: bool,
    pub values: Vec<EnumValue>,
    pub not_shown: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EnumValue {
    pub wire: String,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Union {
    /// The discriminating property.
    pub tag: String,
    pub variants: Vec<Variant>,
    /// An unknown tag value is kept with its whole object (every union a response reaches:
    /// the service may add members at any time).
    pub open: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Variant {
    pub tag_value: String,
    /// The object carried by this tag value (the union's common fields first).
    pub shape: TypeId,
    pub doc: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Builtin {
    String,
    Integer,
    Int32,
    Boolean,
    Number,
    Date,
    DateTime,
    DateOrDateTime,
    DateTimeOrRange,
    Url,
    Json,
    Binary,
}

impl Builtin {
    pub const ALL: &'static [(&'static str, Builtin)] = &[
        ("string", Builtin::String),
        ("integer", Builtin::Integer),
        ("int64", Builtin::Integer),
        ("int32", Builtin::Int32),
        ("boolean", Builtin::Boolean),
        ("number", Builtin::Number),
        ("date", Builtin::Date),
        ("date-time", Builtin::DateTime),
        ("date-or-date-time", Builtin::DateOrDateTime),
        ("date-time-or-range", Builtin::DateTimeOrRange),
        ("url", Builtin::Url),
        ("json", Builtin::Json),
        ("binary", Builtin::Binary),
    ];

    pub fn from_name(name: &str) -> Option<Builtin> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }

    pub fn is_string_like(self) -> bool {
        matches!(self, Builtin::String | Builtin::Url)
    }

    pub fn is_integer(self) -> bool {
        matches!(self, Builtin::Integer | Builtin::Int32)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeRef {
    Builtin(Builtin),
    Named(TypeId),
    Array(Box<TypeRef>),
    Map(Box<TypeRef>),
    /// The interface's list envelope around records of this type.
    Page(Box<TypeRef>),
    /// A query value sent as the JSON text of this type.
    JsonEncoded(Box<TypeRef>),
}

impl TypeRef {
    /// The declared type this reference mentions, looking through containers.
    pub fn named(&self) -> Option<TypeId> {
        match self {
            TypeRef::Named(n) => Some(*n),
            TypeRef::Array(t) | TypeRef::Map(t) | TypeRef::Page(t) | TypeRef::JsonEncoded(t) => {
                t.named()
            }
            TypeRef::Builtin(_) => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Operation {
    pub name: String,
    pub doc: String,
    pub method: Method,
    pub path: String,
    pub path_params: Vec<Field>,
    pub query: Vec<Field>,
    pub body: Option<Body>,
    pub paginated: bool,
    /// For links pagination: the envelope property that holds the records.
    pub items_field: Option<String>,
    pub responses: Vec<Response>,
    pub errors: Vec<StatusDoc>,
    pub auth: AuthUse,
    pub manager_only: bool,
    pub internal: bool,
    pub not_shown: Option<String>,
    pub source: Source,
    /// How a successful answer is read (resolved from `responses`).
    pub answer: Answer,
    /// How the list is walked page after page (paginated operations only).
    pub paging: Option<OperationPaging>,
}

/// What a caller gets back from an operation, decided once for every backend.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Answer {
    #[serde(flatten)]
    pub kind: AnswerKind,
    /// A 202 (still preparing) is asked again until it is not (GET only: asking again is
    /// only safe when nothing changes).
    pub polls: bool,
    /// A binary media type chosen by `Accept` beside a JSON answer (an inspection's PDF).
    pub alternative: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum AnswerKind {
    /// A JSON body of this type (`list_shaped`: the list envelope, for an operation that
    /// is not paged but answers in the list's shape).
    Json { body: TypeRef, list_shaped: bool },
    /// 200 (replaced) or 201 (created) with the same body: the caller learns which.
    Upsert { body: TypeRef },
    /// Bytes of this media type, asked for with `Accept`.
    Bytes { content_type: String },
    /// No body.
    #[default]
    Empty,
}

/// How one paginated operation's pages are walked.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "style")]
pub enum OperationPaging {
    /// The interface's cursor envelope (`{items_field: [item], paging_field: {...}}`).
    Cursor {
        item: TypeRef,
        items_field: String,
        paging_field: String,
        /// The paging property holding the next page's absolute URL.
        next_url_field: Option<String>,
        /// The paging property holding the raw cursor, sent back as `page_param`.
        cursor_field: Option<String>,
        /// The paging property echoing the page size.
        page_size_field: Option<String>,
        page_param: String,
        #[serde(default)]
        per_page_param: String,
    },
    /// A per-operation envelope with `links: {next, prev}` (`{items_field: [item], links}`).
    Links {
        envelope: TypeId,
        item: TypeRef,
        items_field: String,
        links_field: String,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Body {
    pub ty: TypeRef,
    pub content_type: String,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Response {
    pub status: u16,
    pub content_type: String,
    pub body: Option<TypeRef>,
    pub doc: String,
    pub not_shown: Option<String>,
}

#[cfg(test)]
mod tests {
    /// The small specs of `tests/specs/`: one logs in with a token, one uses a key pair.
    fn load(name: &str, text: &str) -> super::Interface {
        crate::load_str(name, text).unwrap_or_else(|d| panic!("{d}"))
    }

    #[test]
    fn the_login_is_found_or_its_absence_named() {
        let mut links = load(
            "links.yaml",
            include_str!("../../../tests/specs/links.yaml"),
        );
        let login = links.token_login().unwrap();
        assert_eq!((login.index, login.op.name.as_str()), (0, "login"));
        // A login no backend could build (check refuses it in a spec) is an error that
        // names the operation, never a client without its login.
        links.operations[0].body = None;
        let refused = links.token_login().unwrap_err();
        assert!(refused.contains("`login` must take a body"), "{refused}");
        let keys = load(
            "constructs.yaml",
            include_str!("../../../tests/specs/constructs.yaml"),
        );
        let refused = keys.token_login().unwrap_err();
        assert!(
            refused.contains("does not log in with a token"),
            "{refused}"
        );
    }
}
