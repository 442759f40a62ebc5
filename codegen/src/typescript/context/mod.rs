//! What the TypeScript templates see: every name, type, descriptor and doc, computed here
//! from the IR, so a template only lays them out.

mod client;
mod decoders;
mod models;

use serde::Serialize;

use super::names::{self, Scope};
use super::types::{self, TypeNames};
use crate::ir::{AnswerKind, Interface, OperationPaging, TypeId, TypeRef};
pub use crate::templates::WebhooksCx;

/// The client of an interface, with this language's login and operations.
pub type ClientCx = crate::templates::ClientCx<LoginCx, OperationCx>;

use client::client_cx;
use models::{query_cx, type_cx};

/// One interface module (`src/v3/`).
pub type InterfaceCx =
    crate::templates::InterfaceCx<TypeCx, PageCx, QueriesCx, LoginCx, OperationCx>;

/// The query records of list operations (their parameters as one object), the registry
/// of descriptors by name, and the generated decoders the registry names.
#[derive(Serialize)]
pub struct QueriesCx {
    pub queries: Vec<RecordCx>,
    pub registry: Vec<RegistryEntry>,
    pub decoders: decoders::DecodersCx,
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

/// An entry of the registry: its key (a property), its descriptor in parts, and the
/// generated decoder of a record, union or page (its name in `decoders.ts`).
#[derive(Serialize)]
pub struct RegistryEntry {
    pub key: String,
    pub desc: types::EntryDesc,
    pub fast: Option<String>,
}

#[derive(Serialize)]
pub struct LoginCx {
    pub body_type: String,
    pub answer_type: String,
    pub answer_desc: String,
    pub token_field: String,
    pub header: String,
    pub scheme: String,
    pub request: RequestCx,
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
    pub checks: Vec<CheckCx>,
    pub request: RequestCx,
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
    pub request: RequestCx,
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
        /// `key: value` entries of the `rt.PagingPlan` literal.
        plan: Vec<String>,
    },
}

/// One value `this.core.check` validates before a call: `[path, desc, value]`.
#[derive(Serialize)]
pub struct CheckCx {
    /// The name errors give the value, quoted (`""` for the body and the query).
    pub path: String,
    pub desc: String,
    /// The parameter checked.
    pub param: String,
    /// The parameter is optional: checked as `{}` when not given.
    pub or_empty: bool,
}

/// The `rt.RequestSpec` object literal of a call: its values, ready to write, and the
/// flags deciding its optional entries.
#[derive(Serialize, Clone)]
pub struct RequestCx {
    /// The operation's spec name, quoted.
    pub op: String,
    /// The HTTP method, quoted.
    pub method: String,
    /// The path template, quoted.
    pub path: String,
    pub segments: Vec<SegmentCx>,
    /// The query parameters (none: the operation takes no query).
    pub query: Vec<QueryParamCx>,
    pub body: Option<BodyCx>,
    /// The content type asked for (`Accept`), quoted.
    pub accept: Option<String>,
    /// Sent without credentials.
    pub anonymous: bool,
    /// What a refusal (403) is explained by, quoted.
    pub hint: Option<String>,
    /// A 202 (still preparing) is asked again.
    pub poll: bool,
}

/// One segment of a request path: fixed text or a path parameter's value.
#[derive(Serialize, Clone)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SegmentCx {
    /// Fixed text, quoted.
    Text { text: String },
    /// A string-like parameter, sent as it is.
    Param { name: String },
    /// A number, sent in decimal.
    Number { name: String },
    /// A record reference, sent through the runtime (`_<external id>`, or its
    /// `self_keyword`, quoted).
    Ref {
        name: String,
        self_keyword: Option<String>,
    },
}

/// A query parameter of a request: its wire name and its form (`"text"` or `"json"`),
/// both quoted.
#[derive(Serialize, Clone)]
pub struct QueryParamCx {
    pub name: String,
    pub form: String,
}

/// The body of a request.
#[derive(Serialize, Clone)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BodyCx {
    /// JSON; `hidden`: the property paths of its sensitive strings, as a TypeScript
    /// literal, when it has some.
    Json { hidden: Option<String> },
    /// Bytes sent as they are, as the content type in the parameter `content_type`, else
    /// `default` (quoted).
    Bytes {
        content_type: String,
        default: String,
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
    pub request: RequestCx,
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
    let pages = pages(i);
    let decoder_names = decoders::DecoderNames::new(i, &type_names, &pages);
    let registry = registry(i, &decoder_names, &pages);
    let decoders = decoders::decoders(i, &decoder_names, &pages);
    let client = client_cx(i, &type_names, &query_names)?;
    Ok(InterfaceCx::new(
        i,
        "//",
        types,
        page,
        QueriesCx {
            queries,
            registry,
            decoders,
        },
        client,
    ))
}

/// The registry: every declared type by its spec name, then each page of records a list
/// answer names (`page<Item>`, `pages` its items), then each operation's query parameters
/// (`<operation>?`). Records, unions and pages name their generated decoder.
fn registry(i: &Interface, dn: &decoders::DecoderNames, pages: &[&TypeRef]) -> Vec<RegistryEntry> {
    let mut entries: Vec<RegistryEntry> = i
        .types
        .iter()
        .enumerate()
        .map(|(index, t)| RegistryEntry {
            key: names::property(&t.name),
            desc: types::type_entry(i, &t.kind),
            fast: dn.decoder(TypeId(index as u32)).map(str::to_string),
        })
        .collect();
    for (n, item) in pages.iter().enumerate() {
        if let Some(record) = types::page_record(i, item) {
            let page = TypeRef::Page(Box::new((*item).clone()));
            entries.push(RegistryEntry {
                key: names::string(&i.spelled(&page)),
                desc: types::EntryDesc::Record(record),
                fast: dn.page(n).map(str::to_string),
            });
        }
    }
    for op in i.operations.iter().filter(|op| !op.query.is_empty()) {
        entries.push(RegistryEntry {
            key: names::string(&types::query_key(&op.name)),
            desc: types::EntryDesc::Record(types::query_record(i, &op.query)),
            fast: None,
        });
    }
    entries
}

/// The item types of the pages of records the list answers name, each once, in the
/// operations' order.
fn pages(i: &Interface) -> Vec<&TypeRef> {
    let mut pages: Vec<&TypeRef> = Vec::new();
    for op in &i.operations {
        let answer = match &op.answer.kind {
            AnswerKind::Json { body, .. } => Some(body),
            _ => None,
        };
        let paged = match &op.paging {
            Some(OperationPaging::Cursor { item, .. }) => Some(item),
            _ => None,
        };
        for item in answer.into_iter().filter_map(page_item).chain(paged) {
            if !pages.contains(&item) {
                pages.push(item);
            }
        }
    }
    pages
}

/// The records of a list answer (`page<Item>`); a page is only ever an answer's type.
fn page_item(ty: &TypeRef) -> Option<&TypeRef> {
    match ty {
        TypeRef::Page(item) => Some(item),
        _ => None,
    }
}

fn page_cx(i: &Interface, local: &TypeNames) -> Option<PageCx> {
    let (items_field, paging_field, paging_type) = i.cursor_envelope()?;
    Some(PageCx {
        name: names::PAGE.to_string(),
        items: names::property(items_field),
        paging: names::property(paging_field),
        paging_type: local.named(paging_type),
    })
}
