//! The generator's IR: the checked, language-neutral model every backend renders from,
//! and what `generated/ir.json` holds. A crate of its own, serde only (the `schema`
//! feature adds JSON Schema derives for the spec format's editor schema), so that the
//! sandbox reads the IR through the very types the generator writes, without the
//! generator.
//!
//! Everything here is resolved: type references are [`TypeId`]s into the interface's
//! `types`, union shapes carry their common fields, each type knows whether requests,
//! responses or both use it, and the generator's resolve pass has decided what is about
//! the service's meaning (each operation's answer plan, paging and call plan, the error
//! message field, openness). Backends never see spans or raw YAML, and decide nothing but
//! how to say it in their language. `cargo xtask codegen --dump-ir` prints it as JSON.
//!
//! Here the API and each interface (auth, paging styles, limits); the declared types in
//! `types`, the operations in `operations`, the small value types the spec format shares
//! in `values` (all re-exported).

pub mod diff;
mod import;
mod operations;
mod packages;
mod positions;
mod types;
mod values;

use serde::{Deserialize, Serialize};

pub use import::*;
pub use operations::*;
pub use packages::*;
pub use positions::*;
pub use types::*;
pub use values::*;

/// Every interface of the spec, in file-name order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Api {
    /// The version every generated package takes (`spec/VERSION`).
    pub version: String,
    /// The names the packages are published under (`spec/packages.yaml`).
    #[serde(default)]
    pub packages: Packages,
    pub interfaces: Vec<Interface>,
}

/// The version of a spec folder without a `VERSION` file.
pub const DEFAULT_VERSION: &str = "0.1.0";

impl Api {
    /// The interfaces at the default version.
    pub fn new(interfaces: Vec<Interface>) -> Self {
        Api {
            version: DEFAULT_VERSION.to_string(),
            packages: Packages::default(),
            interfaces,
        }
    }

    pub fn type_count(&self) -> usize {
        self.interfaces.iter().map(|i| i.types.len()).sum()
    }

    pub fn operation_count(&self) -> usize {
        self.interfaces.iter().map(|i| i.operations.len()).sum()
    }

    /// The interface of this name.
    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.name == name)
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
    /// What the command-line tool's `export` pulls, when the spec declares it.
    #[serde(default)]
    pub export: Option<Export>,
    /// What the command-line tool's `sync` keeps in a database, when the spec declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<Sync>,
    /// What the command-line tool's `import` feeds from a file's rows, when the spec
    /// declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<Import>,
    /// Every declared type; a [`TypeId`] is an index into this list.
    pub types: Vec<TypeDef>,
    pub operations: Vec<Operation>,
    /// Where the spec file declares each type, field, member and operation (see
    /// [`Interface::position`]).
    #[serde(default, skip_serializing_if = "Positions::is_empty")]
    pub positions: Positions,
}

/// A token login, resolved: the operation that logs in (and its index), the body it sends
/// and the JSON record it answers, which holds the token; and from the interface's auth,
/// the answer's field that holds it, how it is sent (`<header>: <scheme> <token>`) and the
/// login's doc.
#[derive(Debug)]
pub struct TokenLogin<'a> {
    pub index: usize,
    pub op: &'a Operation,
    pub body: &'a Body,
    pub answer: &'a TypeRef,
    pub token_field: &'a str,
    pub header: &'a str,
    pub scheme: &'a str,
    pub doc: &'a str,
}

impl Interface {
    /// The list envelope of a cursor-paged interface: its items field, its paging field and
    /// the paging field's type. `None` for other paging.
    pub fn cursor_envelope(&self) -> Option<(&str, &str, TypeId)> {
        self.cursor_paging().map(|c| {
            (
                c.items_field.as_str(),
                c.paging_field.as_str(),
                c.paging_type,
            )
        })
    }

    /// The cursor paging settings, when the interface pages by cursor.
    pub fn cursor_paging(&self) -> Option<&CursorPaging> {
        match &self.pagination {
            Some(Pagination::Cursor(c)) => Some(c),
            _ => None,
        }
    }

    /// How `op`'s pages are walked: its own part with the interface's settings. `None`
    /// for an operation that is not paged.
    pub fn paging<'a>(&'a self, op: &'a Operation) -> Option<Paging<'a>> {
        Some(match (op.paging.as_ref()?, self.pagination.as_ref()?) {
            (OperationPaging::Cursor { item }, Pagination::Cursor(settings)) => {
                Paging::Cursor { item, settings }
            }
            (
                OperationPaging::Links {
                    envelope,
                    item,
                    items_field,
                },
                Pagination::Links(settings),
            ) => Paging::Links {
                envelope: *envelope,
                item,
                items_field,
                settings,
            },
            // `resolve` plans an operation's paging from its interface's style only.
            _ => return None,
        })
    }

    /// The login of a token-login interface. `check` refuses a login operation that is
    /// missing, takes no body or answers no record, so for an accepted spec this is an
    /// error only when the interface does not log in; a backend passes the error on.
    pub fn token_login(&self) -> Result<TokenLogin<'_>, String> {
        let Auth::TokenLogin {
            login_operation,
            token_field,
            header,
            scheme,
            doc,
            ..
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
            token_field,
            header,
            scheme,
            doc,
        })
    }

    /// A type reference as the spec spells it (`Inspection`, `array<string>`,
    /// `page<Unit>`): by names, so comparable across two IRs and fit for a registry key.
    pub fn spelled(&self, ty: &TypeRef) -> String {
        match ty {
            TypeRef::Builtin(b) => b.name().to_string(),
            TypeRef::Named(id) => self.ty(*id).name.clone(),
            TypeRef::Array(t) => format!("array<{}>", self.spelled(t)),
            TypeRef::Map(t) => format!("map<{}>", self.spelled(t)),
            TypeRef::Page(t) => format!("page<{}>", self.spelled(t)),
            TypeRef::JsonEncoded(t) => format!("json<{}>", self.spelled(t)),
        }
    }

    /// Whether `op` may answer `status`, by its own list of errors or the interface's.
    pub fn lists(&self, op: &Operation, status: u16) -> bool {
        op.lists(status) || self.errors.iter().any(|e| e.status == status)
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

/// The bulk export of an interface (checked: the list is paged and takes no required
/// input, `since` is a date-time it takes, the records have both fields, the document
/// operation takes the record's id alone and answers bytes).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Export {
    pub doc: String,
    /// The list operation's name.
    pub list: String,
    /// The query parameter that asks for records after a time, and for a JSON-encoded
    /// one the field of it that does.
    pub since_param: String,
    pub since_field: Option<String>,
    pub id_field: String,
    pub watermark_field: String,
    /// The operation answering a record's document.
    pub document: Option<String>,
    /// The records' pre-signed link to the same document, when they carry one.
    #[serde(default)]
    pub document_link: Option<DocumentLink>,
}

/// The lists `inspection sync` keeps in the user's database (checked: each list is paged
/// and takes no required input, its records are records with the id field, a filter is a
/// date-time the list takes and the watermark a date-time field of the records).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sync {
    pub doc: String,
    pub lists: Vec<SyncList>,
}

/// One list a sync walks into a table of its records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SyncList {
    /// The list operation's name (`list_units`).
    pub list: String,
    /// The records' type and id field.
    pub record: TypeId,
    pub id_field: String,
    pub current: Current,
}

/// How a synced list stays current.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Current {
    /// Records after the watermark, by the list's filter (`since_param`, or its field
    /// `since_field` for a JSON-encoded one). `changes`: the watermark is an update time,
    /// so a changed record is listed again; otherwise only new ones are.
    Filter {
        since_param: String,
        since_field: Option<String>,
        watermark_field: String,
        changes: bool,
    },
    /// No filter: every run walks the whole list.
    Walk,
}

impl Sync {
    /// The names of every type a sync's tables are made from: each list's records and
    /// every type their fields reach (nested records, members, elements).
    pub fn types(&self, i: &Interface) -> std::collections::BTreeSet<String> {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo: Vec<TypeId> = self.lists.iter().map(|l| l.record).collect();
        while let Some(id) = todo.pop() {
            let ty = i.ty(id);
            if !seen.insert(ty.name.clone()) {
                continue;
            }
            match &ty.kind {
                TypeKind::Object(o) => todo.extend(o.wire_fields().filter_map(|f| f.ty.named())),
                TypeKind::Union(u) => todo.extend(u.variants.iter().map(|v| v.shape)),
                _ => {}
            }
        }
        seen
    }
}

impl SyncList {
    /// The table a list fills: its name without `list_` (`list_user_groups` fills
    /// `user_groups`).
    pub fn table(&self) -> &str {
        self.list.strip_prefix("list_").unwrap_or(&self.list)
    }
}

/// A record's field holding a pre-signed link to its document (checked: a url field of
/// the records; the export also names the document operation, its fallback). The link
/// needs no credential: the tool fetches it with none.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DocumentLink {
    pub doc: String,
    pub field: String,
    /// Seconds a link lives from the answer that carried it.
    pub lifetime_secs: u64,
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

/// How an interface's lists are paged: every paginated operation walks its pages by
/// these settings (the operation adds only what is its own, [`OperationPaging`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "style")]
pub enum Pagination {
    Cursor(CursorPaging),
    Links(LinksPaging),
}

/// One operation's paging joined with its interface's settings ([`Interface::paging`]).
#[derive(Debug, Clone, Copy)]
pub enum Paging<'a> {
    Cursor {
        item: &'a TypeRef,
        settings: &'a CursorPaging,
    },
    Links {
        envelope: TypeId,
        item: &'a TypeRef,
        items_field: &'a str,
        settings: &'a LinksPaging,
    },
}

/// A cursor in a paging object beside the items: lists are
/// `{<items_field>: [...], <paging_field>: {...}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CursorPaging {
    pub doc: String,
    /// Query parameter: the page to ask for (the cursor sent back).
    pub page_param: String,
    /// Query parameter: page size.
    pub per_page_param: String,
    pub max_per_page: u32,
    pub default_per_page: Option<u32>,
    pub items_field: String,
    pub paging_field: String,
    pub paging_type: TypeId,
    /// The paging property holding the next page's absolute URL.
    pub next_url_field: Option<String>,
    /// The paging property holding the raw cursor, sent back as `page_param`.
    pub cursor_field: Option<String>,
    /// The paging property echoing the page size.
    pub page_size_field: Option<String>,
    /// Where the paging field names come from.
    #[serde(default)]
    pub source: Source,
}

// The spec writes links paging exactly as the IR holds it (`pagination: {links: ...}`), so
// the spec format reads this type as it is.
/// Next/previous links in the body; lists are `{<items_field>: [...], links: {prev, next}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LinksPaging {
    pub doc: String,
    /// Envelope field holding the links object.
    pub links_field: String,
    /// Query parameter: records after this id.
    pub after_param: String,
    /// Query parameter: records before this id.
    pub before_param: String,
    /// Query parameter: page size.
    pub limit_param: String,
    /// Largest page size.
    pub max_limit: u32,
    #[serde(default)]
    pub source: Source,
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
