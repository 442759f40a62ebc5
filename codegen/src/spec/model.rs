//! The serde model of one spec file (`spec/*.yaml`).
//!
//! These types mirror the YAML one to one; nothing here is resolved or checked beyond what
//! serde itself enforces (unknown keys are refused). Names and type references are
//! [`Spanned`] so that `check` can point at `file:line:col`. `spec/spec.schema.json` is
//! generated from these types, so every doc comment here is also the editor's hover text.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::ordered::OrderedMap;
use super::tools::{ExportDef, ImportDef, SyncDef, WebhooksDef};

/// The value types the IR shares (`inspection-ir`), with their JSON Schema derives.
pub use inspection_ir::{AuthUse, CharClass, LinksPaging, Method, ScalarKind, Source};

/// One interface of the service: its transport facts, its types and its operations.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// Transport-level facts: base URL, auth, paging, rate limit, errors, versioning.
    pub interface: InterfaceDef,
    /// Named scalars: a builtin with its limits, declared once (the VIN, a 255-character
    /// name) and used as the whole type of many fields, which take its limits.
    #[serde(default)]
    pub scalars: OrderedMap<ScalarDef>,
    /// Named types, in the order they should appear in generated code.
    #[serde(default)]
    pub types: OrderedMap<TypeDef>,
    /// Operations by name (snake_case; it becomes the client method's name).
    #[serde(default)]
    pub operations: OrderedMap<OperationDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InterfaceDef {
    /// Module name of the interface in generated code (`v3`, `legacy`).
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Human title of the interface.
    pub title: String,
    /// What the interface is, for the generated module's docs.
    pub doc: String,
    /// The base URL the user supplies.
    pub base_url: BaseUrlDef,
    /// How requests authenticate.
    pub auth: AuthDef,
    /// How list endpoints page (absent when nothing pages).
    #[serde(default)]
    pub pagination: Option<PaginationDef>,
    /// The documented rate limit.
    #[serde(default)]
    pub rate_limit: Option<RateLimitDef>,
    /// The JSON body of error responses.
    #[serde(default)]
    pub error_body: Option<TypeUse>,
    /// Statuses every operation may answer, with their meaning.
    #[serde(default)]
    pub errors: OrderedMap<String>,
    /// Headers sent on every request (such as a versioned `Accept`).
    #[serde(default)]
    pub headers: OrderedMap<HeaderDef>,
    /// Limits that belong to no single field (pre-signed URL lifetime, ...).
    #[serde(default)]
    pub limits: OrderedMap<LimitDef>,
    /// Versioning facts and the compatibility policy.
    pub versioning: String,
    /// Facts the interface document says are "not shown": kept visible, never guessed.
    #[serde(default)]
    pub not_shown: Vec<String>,
    /// Event deliveries the service POSTs to a listener (absent when it sends none).
    #[serde(default)]
    pub webhooks: Option<WebhooksDef>,
    /// What `inspection export` pulls from this interface (absent: no export).
    #[serde(default)]
    pub export: Option<ExportDef>,
    /// What `inspection sync` keeps in the user's database (absent: no sync).
    #[serde(default)]
    pub sync: Option<SyncDef>,
    /// What `inspection import` feeds from a file's rows (absent: no import).
    #[serde(default)]
    pub import: Option<ImportDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaseUrlDef {
    /// The placeholder the document uses, such as `{base_url}`.
    pub placeholder: String,
    /// An example value.
    pub example: String,
    /// What the base URL is.
    pub doc: String,
}

/// A header sent with requests.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeaderDef {
    /// What the header carries.
    pub doc: String,
    /// A fixed value, when the header always carries the same one.
    #[serde(default)]
    pub value: Option<String>,
    /// A secret: redacted from Debug output, logs and errors.
    #[serde(default)]
    pub sensitive: bool,
    #[serde(default)]
    pub source: Source,
}

/// A documented limit that is not a field constraint.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitDef {
    /// The value as the document gives it (`48 hours`).
    pub value: String,
    pub doc: String,
    #[serde(default)]
    pub source: Source,
}

/// The authentication scheme of an interface.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum AuthDef {
    /// A fixed pair of headers (key id and secret) on every request.
    ApiKeyHeaders {
        doc: String,
        /// The headers, by name.
        headers: OrderedMap<HeaderDef>,
        /// The status answered when a header is missing or the pair is not valid.
        unauthorized_status: u16,
    },
    /// A username/password login that returns a token, sent on later requests.
    TokenLogin {
        doc: String,
        /// The operation that logs in.
        #[schemars(with = "String")]
        login_operation: Spanned<String>,
        /// The response field that holds the token.
        token_field: String,
        /// The header that carries the token.
        header: String,
        /// What precedes the token in the header value (`Token`).
        scheme: String,
        #[serde(default)]
        source: Source,
    },
}

/// How list endpoints page.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PaginationDef {
    /// An opaque cursor passed back as a query parameter; lists answer `{items, paging}`.
    Cursor(Box<CursorPagingDef>),
    /// Next/previous links in the body; lists are `{<items_field>: [...], links: {prev, next}}`.
    Links(LinksPaging),
}

/// Cursor paging: an opaque cursor passed back as a query parameter.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CursorPagingDef {
    pub doc: String,
    /// Query parameter that carries the cursor.
    pub page_param: String,
    /// Query parameter that sets the page size.
    pub per_page_param: String,
    /// Largest page size the service accepts.
    pub max_per_page: u32,
    /// Default page size, when documented.
    #[serde(default)]
    pub default_per_page: Option<u32>,
    /// Envelope field holding the records.
    pub items_field: String,
    /// Envelope field holding the paging object.
    pub paging_field: String,
    /// The type of the paging object.
    #[schemars(with = "String")]
    pub paging_type: Spanned<String>,
    /// Paging field holding the next page's URL (followed as given), if any.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub next_url_field: Option<Spanned<String>>,
    /// Paging field holding the raw cursor (sent back as `page_param`), if any.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub cursor_field: Option<Spanned<String>>,
    /// Paging field echoing the page size, if any: a page with fewer records is the last.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub page_size_field: Option<Spanned<String>>,
    /// Where the names of the paging fields come from (they may be inferred).
    #[serde(default)]
    pub source: Source,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateLimitDef {
    /// Requests allowed per window.
    pub requests: u32,
    /// Window length in seconds.
    pub window_seconds: u32,
    /// Highest quota the service grants on request, if any.
    #[serde(default)]
    pub max_requests: Option<u32>,
    /// What the quota is counted per (`IP address`).
    pub scope: String,
    /// Status answered when the quota is exceeded.
    pub status: u16,
    /// Header telling when requests are allowed again.
    #[serde(default)]
    pub retry_after_header: Option<String>,
    pub doc: String,
}

/// A reference to a type with a doc line.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeUse {
    /// A type expression: a builtin, a named type, `array<T>`, `map<T>` or `page<T>`.
    #[serde(rename = "type")]
    #[schemars(with = "String")]
    pub ty: Spanned<String>,
    pub doc: String,
}

/// A named type. Exactly one kind key.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TypeDef {
    /// A record with named fields.
    Object(Box<ObjectDef>),
    /// A set of string values.
    Enum(EnumDef),
    /// Objects discriminated by a tag property; several tag values may share one shape.
    Union(UnionDef),
    /// A value that is one of several JSON scalar kinds (`string` or `integer`).
    ScalarUnion(ScalarUnionDef),
    /// An opaque identifier of one resource (its own newtype).
    Id(IdDef),
    /// A path reference to a record: its id, an external id (`_<external id>`) or `self`.
    RecordRef(RecordRefDef),
}

/// How a path may name a record (the legacy interface's `:id`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordRefDef {
    pub doc: String,
    /// The id type of the record.
    #[schemars(with = "String")]
    pub id_type: Spanned<String>,
    /// Accepts an external id, sent as `_<external id>`.
    #[serde(default)]
    pub external: bool,
    /// The keyword that names the caller's own record (`self`), if any.
    #[serde(default)]
    pub self_keyword: Option<String>,
    #[serde(default)]
    pub source: Source,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectDef {
    pub doc: String,
    /// Fields, in wire order.
    #[serde(default)]
    pub fields: OrderedMap<FieldDef>,
    /// A record envelope (`{location: ...}`): the field that holds the record. The envelope
    /// is inferred, so an answer without this property is read as the bare record.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub envelope: Option<Spanned<String>>,
    /// A group of alternative fields of which exactly one variant must be given.
    #[serde(default)]
    pub one_of: Option<OneOfDef>,
    /// What the document leaves out about this record.
    #[serde(default)]
    pub not_shown: Option<String>,
    #[serde(default)]
    pub source: Source,
}

/// Exactly one of several field sets (e.g. a task's assignee).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OneOfDef {
    /// Name of the field that holds the choice in generated code.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Name of the generated enum.
    #[schemars(with = "String")]
    pub type_name: Spanned<String>,
    pub doc: String,
    /// Variants by name; each carries the fields it adds.
    pub variants: OrderedMap<OneOfVariantDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OneOfVariantDef {
    pub doc: String,
    pub fields: OrderedMap<FieldDef>,
}

/// Declares a struct of the spec with the limits of a single value after its own fields: a
/// named scalar and a field take the same ones (`Checker::with_scalar` moves a scalar's
/// onto each field of its type), written once here.
macro_rules! with_value_limits {
    ($(#[$attr:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        $(#[$attr])*
        pub struct $name {
            $($fields)*
            /// Longest string accepted (characters).
            #[serde(default)]
            #[schemars(with = "Option<u32>")]
            pub max_length: Option<Spanned<u32>>,
            /// Exact string length (characters).
            #[serde(default)]
            #[schemars(with = "Option<u32>")]
            pub length: Option<Spanned<u32>>,
            /// Smallest number accepted.
            #[serde(default)]
            #[schemars(with = "Option<i64>")]
            pub min: Option<Spanned<i64>>,
            /// Largest number accepted.
            #[serde(default)]
            #[schemars(with = "Option<i64>")]
            pub max: Option<Spanned<i64>>,
            /// Which characters a string may hold.
            #[serde(default)]
            #[schemars(with = "Option<CharRuleDef>")]
            pub chars: Option<Spanned<CharRuleDef>>,
        }
    };
}

with_value_limits! {
    /// A builtin type with its limits, named so that many fields share them; a field whose
    /// `type` names it is of the builtin with these limits (and may not restate one).
    #[derive(Debug, Clone, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct ScalarDef {
        /// The builtin it is: `string`, `url`, `integer`, `int32`, `int64` or `number`.
        #[serde(rename = "type")]
        #[schemars(with = "String")]
        pub ty: Spanned<String>,
        /// What values of it are, for readers of the spec (each field keeps its own doc).
        pub doc: String,
    }
}

with_value_limits! {
    /// A field of an object, a query parameter or a path parameter.
    #[derive(Debug, Clone, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct FieldDef {
        /// A type expression: a builtin (`string`, `integer`, `int32`, `int64`, `boolean`,
        /// `number`, `date`, `date-time`, `date-or-date-time`, `date-time-or-range`, `url`,
        /// `json`, `binary`), a named type, `array<T>`, `map<T>`, or for query parameters
        /// `json<T>` (the value sent as JSON text).
        #[serde(rename = "type")]
        #[schemars(with = "String")]
        pub ty: Spanned<String>,
        pub doc: String,
        /// Always present (responses) or must be given (requests).
        #[serde(default)]
        pub required: bool,
        /// May be `null` (distinct from absent).
        #[serde(default)]
        pub nullable: bool,
        /// A secret: redacted from Debug output, logs and errors.
        #[serde(default)]
        pub sensitive: bool,
        /// Longest array accepted.
        #[serde(default)]
        #[schemars(with = "Option<u32>")]
        pub max_items: Option<Spanned<u32>>,
        /// Fewest array items accepted.
        #[serde(default)]
        #[schemars(with = "Option<u32>")]
        pub min_items: Option<Spanned<u32>>,
        /// What the document leaves out about this field.
        #[serde(default)]
        pub not_shown: Option<String>,
        #[serde(default)]
        pub source: Source,
    }
}

/// A character rule, such as the VIN's: letters and digits, but never I, O or Q.
#[derive(Debug, Clone, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CharRuleDef {
    /// The class of characters allowed.
    pub allow: CharClass,
    /// Characters refused even though the class allows them.
    #[serde(default)]
    pub forbid: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnumDef {
    pub doc: String,
    /// Open enums keep values they do not know (responses); closed ones refuse them.
    pub open: bool,
    /// Values (as sent on the wire) and their docs.
    pub values: OrderedMap<String>,
    #[serde(default)]
    pub not_shown: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnionDef {
    pub doc: String,
    /// The property whose value selects the variant.
    #[schemars(with = "String")]
    pub tag: Spanned<String>,
    /// Fields every variant carries besides the tag, listed once here.
    #[serde(default)]
    pub common_fields: OrderedMap<FieldDef>,
    /// Variants by tag value. Several tag values may name the same shape.
    pub variants: OrderedMap<VariantDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariantDef {
    /// The object type carried by this variant (without the tag property).
    #[schemars(with = "String")]
    pub shape: Spanned<String>,
    pub doc: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScalarUnionDef {
    pub doc: String,
    /// The JSON kinds accepted.
    #[schemars(with = "Vec<ScalarKind>")]
    pub of: Vec<Spanned<ScalarKind>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdDef {
    pub doc: String,
    /// Longest id accepted on input.
    #[serde(default)]
    pub max_length: Option<u32>,
    /// The interface also takes the id written as a JSON integer (`true` where its examples
    /// show both); by default an id is a string and a number in its place is refused.
    #[serde(default)]
    pub accepts_integers: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OperationDef {
    pub doc: String,
    /// HTTP method.
    pub method: Method,
    /// Path relative to the base URL, with `{param}` placeholders.
    #[schemars(with = "String")]
    pub path: Spanned<String>,
    /// Path parameters, by name.
    #[serde(default)]
    pub path_params: OrderedMap<FieldDef>,
    /// Query parameters, by wire name.
    #[serde(default)]
    pub query: OrderedMap<FieldDef>,
    /// The request body.
    #[serde(default)]
    pub body: Option<BodyDef>,
    /// Follows the interface's pagination.
    #[serde(default)]
    pub paginated: bool,
    /// For links pagination: the envelope property that holds the records.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub items_field: Option<Spanned<String>>,
    /// Successful responses (several may share a status and differ by content type).
    pub responses: Vec<ResponseDef>,
    /// Statuses this operation may answer beyond the interface-wide ones.
    #[serde(default)]
    pub errors: OrderedMap<String>,
    /// `none` when the operation needs no credentials.
    #[serde(default)]
    pub auth: AuthUse,
    /// Only users with the manager role may call it.
    #[serde(default)]
    pub manager_only: bool,
    /// Internal to the service; generated, but marked.
    #[serde(default)]
    pub internal: bool,
    #[serde(default)]
    pub not_shown: Option<String>,
    #[serde(default)]
    pub source: Source,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodyDef {
    /// A type expression (usually a named object).
    #[serde(rename = "type")]
    #[schemars(with = "String")]
    pub ty: Spanned<String>,
    /// Media type; `application/json` unless given.
    #[serde(default)]
    pub content_type: Option<String>,
    #[serde(default)]
    pub doc: Option<String>,
    /// The request may come with no body at all (a body the interface document does not
    /// show); clients then take it as an optional input. JSON bodies only.
    #[serde(default)]
    #[schemars(with = "bool")]
    pub optional: Option<Spanned<bool>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResponseDef {
    /// HTTP status.
    #[schemars(with = "u16")]
    pub status: Spanned<u16>,
    /// Media type; `application/json` unless given. Alternatives for one status are chosen
    /// by the request's `Accept` header.
    #[serde(default)]
    pub content_type: Option<String>,
    /// Body type expression (`page<T>` for a list envelope); absent for no body.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub body: Option<Spanned<String>>,
    pub doc: String,
    #[serde(default)]
    pub not_shown: Option<String>,
}
