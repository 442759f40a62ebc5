//! The operations of an interface: inputs, the resolved answer plan and paging, bodies
//! and responses.

use serde::{Deserialize, Serialize};

use super::{AuthUse, Field, Method, Source, StatusDoc, TypeId, TypeRef};

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
    /// How a client calls it: the path's segments, the name of its alternative answer's
    /// form (resolved from `path` and `answer`).
    #[serde(default)]
    pub call: CallPlan,
}

impl Operation {
    /// Whether `status` is among the errors this operation answers beyond its interface's.
    pub fn lists(&self, status: u16) -> bool {
        self.errors.iter().any(|e| e.status == status)
    }

    /// Whether it is called without the interface's credentials (a login).
    pub fn is_open(&self) -> bool {
        self.auth == AuthUse::None
    }

    /// The body's type when the body is JSON (a binary one, such as a device log, is
    /// taken as sent).
    pub fn json_body(&self) -> Option<&TypeRef> {
        let body = self.body.as_ref()?;
        body.is_json().then_some(&body.ty)
    }
}

/// How a client calls an operation, planned once so that no backend splits the path
/// again or names a form after its media type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallPlan {
    /// The path after the base URL, segment by segment (each sent as one
    /// percent-encoded segment).
    pub segments: Vec<Segment>,
    /// The caller's inputs in the order every language takes them: path parameters (as
    /// the spec declares them), required query parameters, the body, then optional query
    /// parameters (a language that gathers the query into one object puts it where the
    /// first query parameter stands).
    #[serde(default)]
    pub inputs: Vec<Input>,
    /// The name of the alternative answer's form, which each language spells into its
    /// methods (Rust `pdf`, `pdf_to`, `pdf_stream`; TypeScript `getInspectionPdf`):
    /// `pdf` for `application/pdf`, `bytes` for any other media type.
    pub alternative: Option<String>,
}

/// One input of a call (see [`CallPlan::inputs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Input {
    /// The path parameter at this index of `path_params`.
    Path { index: usize },
    /// The query parameter at this index of `query`.
    Query { index: usize },
    /// The request body.
    Body,
}

/// One segment of an operation's path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Segment {
    /// Literal text (`units`).
    Text { text: String },
    /// The path parameter at this index of `path_params`.
    Param { index: usize },
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
    /// The interface's cursor envelope (`{items_field: [item], paging_field: {...}}`,
    /// walked by [`crate::CursorPaging`]).
    Cursor { item: TypeRef },
    /// A per-operation envelope with the interface's links (`{items_field: [item], links}`,
    /// walked by [`crate::LinksPaging`]).
    Links {
        envelope: TypeId,
        item: TypeRef,
        items_field: String,
    },
}

impl OperationPaging {
    /// The type of one record of the list.
    pub fn item(&self) -> &TypeRef {
        match self {
            OperationPaging::Cursor { item } | OperationPaging::Links { item, .. } => item,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Body {
    pub ty: TypeRef,
    pub content_type: String,
    pub doc: Option<String>,
    /// The service also takes the request with no body at all; a client then sends none
    /// unless given one.
    #[serde(default)]
    pub optional: bool,
}

impl Body {
    /// Whether the body is sent as JSON (see [`is_json_media`]).
    pub fn is_json(&self) -> bool {
        is_json_media(&self.content_type)
    }
}

/// Whether a media type (a `Content-Type` value, parameters allowed) is JSON:
/// `application/json` or any `+json` type (`application/problem+json`), in any case. The
/// one place this is decided, for the generator, the clients' plans and the sandbox.
pub fn is_json_media(content_type: &str) -> bool {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    media == "application/json" || media.ends_with("+json")
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Response {
    pub status: u16,
    pub content_type: String,
    pub body: Option<TypeRef>,
    pub doc: String,
    pub not_shown: Option<String>,
}

impl Response {
    /// A success answer (see [`is_success`]).
    pub fn is_success(&self) -> bool {
        is_success(self.status)
    }
}

/// Whether a status is a success (2xx): the one place the generator, the IR's readers and
/// the sandbox's watch decide it.
pub fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}
