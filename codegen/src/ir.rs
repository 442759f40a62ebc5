//! The checked, language-neutral model every backend renders from.
//!
//! Everything here is resolved: type references point at declared types, union shapes
//! carry their common fields, and each type knows whether requests, responses or both use
//! it. Backends never see spans or raw YAML.

pub use crate::spec::{AuthUse, CharClass, Method, ScalarKind, Source};

/// Every interface of the spec, in file-name order.
#[derive(Debug, Clone)]
pub struct Api {
    pub interfaces: Vec<Interface>,
}

impl Api {
    pub fn type_count(&self) -> usize {
        self.interfaces.iter().map(|i| i.types.len()).sum()
    }

    pub fn operation_count(&self) -> usize {
        self.interfaces.iter().map(|i| i.operations.len()).sum()
    }
}

#[derive(Debug, Clone)]
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
    pub types: Vec<TypeDef>,
    pub operations: Vec<Operation>,
}

impl Interface {
    pub fn find_type(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name)
    }
}

#[derive(Debug, Clone)]
pub struct BaseUrl {
    pub placeholder: String,
    pub example: String,
    pub doc: String,
}

#[derive(Debug, Clone)]
pub struct Header {
    pub name: String,
    pub doc: String,
    pub value: Option<String>,
    pub sensitive: bool,
    pub source: Source,
}

#[derive(Debug, Clone)]
pub struct Limit {
    pub name: String,
    pub value: String,
    pub doc: String,
    pub source: Source,
}

#[derive(Debug, Clone)]
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

#[derive(Debug, Clone)]
pub enum Pagination {
    Cursor {
        doc: String,
        page_param: String,
        per_page_param: String,
        max_per_page: u32,
        default_per_page: Option<u32>,
        items_field: String,
        paging_field: String,
        paging_type: String,
        next_url_field: Option<String>,
        cursor_field: Option<String>,
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

#[derive(Debug, Clone)]
pub struct RateLimit {
    pub requests: u32,
    pub window_seconds: u32,
    pub max_requests: Option<u32>,
    pub scope: String,
    pub status: u16,
    pub retry_after_header: Option<String>,
    pub doc: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusDoc {
    pub status: u16,
    pub doc: String,
}

/// Which side of the wire uses a type. Request types are validated and closed; response
/// types are lenient and open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub request: bool,
    pub response: bool,
}

#[derive(Debug, Clone)]
pub struct TypeDef {
    pub name: String,
    pub doc: String,
    pub kind: TypeKind,
    pub usage: Usage,
}

#[derive(Debug, Clone)]
pub enum TypeKind {
    Object(Object),
    Enum(Enum),
    Union(Union),
    ScalarUnion(Vec<ScalarKind>),
    Id { max_length: Option<u32> },
    RecordRef(RecordRef),
}

/// A path reference: an id, an external id (`_<external id>`), or a self keyword.
#[derive(Debug, Clone)]
pub struct RecordRef {
    pub id_type: String,
    pub external: bool,
    pub self_keyword: Option<String>,
    pub source: Source,
}

#[derive(Debug, Clone)]
pub struct Object {
    pub fields: Vec<Field>,
    pub keep_unknown: bool,
    pub one_of: Option<OneOf>,
    pub not_shown: Option<String>,
    pub source: Source,
}

#[derive(Debug, Clone)]
pub struct OneOf {
    /// Field name in generated code.
    pub name: String,
    /// Name of the generated choice type.
    pub type_name: String,
    pub doc: String,
    pub variants: Vec<OneOfVariant>,
}

#[derive(Debug, Clone)]
pub struct OneOfVariant {
    pub name: String,
    pub doc: String,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone)]
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

#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharRule {
    pub allow: CharClass,
    pub forbid: String,
}

#[derive(Debug, Clone)]
pub struct Enum {
    pub open: bool,
    pub values: Vec<EnumValue>,
    pub not_shown: Option<String>,
}

#[derive(Debug, Clone)]
pub struct EnumValue {
    pub wire: String,
    pub doc: String,
}

#[derive(Debug, Clone)]
pub struct Union {
    /// The discriminating property.
    pub tag: String,
    pub variants: Vec<Variant>,
}

#[derive(Debug, Clone)]
pub struct Variant {
    pub tag_value: String,
    pub shape: String,
    pub doc: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeRef {
    Builtin(Builtin),
    Named(String),
    Array(Box<TypeRef>),
    Map(Box<TypeRef>),
    /// The interface's list envelope around records of this type.
    Page(Box<TypeRef>),
    /// A query value sent as the JSON text of this type.
    JsonEncoded(Box<TypeRef>),
}

impl TypeRef {
    /// Named types this reference mentions, outermost first.
    pub fn named(&self) -> Option<&str> {
        match self {
            TypeRef::Named(n) => Some(n),
            TypeRef::Array(t) | TypeRef::Map(t) | TypeRef::Page(t) | TypeRef::JsonEncoded(t) => {
                t.named()
            }
            TypeRef::Builtin(_) => None,
        }
    }
}

#[derive(Debug, Clone)]
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
}

#[derive(Debug, Clone)]
pub struct Body {
    pub ty: TypeRef,
    pub content_type: String,
    pub doc: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: String,
    pub body: Option<TypeRef>,
    pub doc: String,
    pub not_shown: Option<String>,
}
