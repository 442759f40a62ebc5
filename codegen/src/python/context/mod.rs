//! What the Python templates see: every name, annotation, descriptor and doc, computed here
//! from the IR, so a template only lays them out.

mod client;
mod decoders;
mod models;
mod operation;

use serde::Serialize;

use super::names;
use super::types::{self, TypeNames};
use crate::ir::{Field, Interface, Object, TypeDef, TypeId, TypeKind, Union};
pub use crate::templates::WebhooksCx;

/// The client of an interface, with this language's login and operations.
pub type ClientCx = crate::templates::ClientCx<LoginCx, OperationCx>;

use client::client_cx;
use models::{record_cx, simple_cx, union_cx};

/// One interface package (`inspection_client/v3/`).
pub type InterfaceCx =
    crate::templates::InterfaceCx<TypeCx, PageCx, DescriptorsCx, LoginCx, OperationCx>;

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeCx {
    Record(RecordCx),
    Enum {
        name: String,
        doc: String,
        members: Vec<MemberCx>,
    },
    Union {
        name: String,
        doc: String,
        members: Vec<String>,
        unknown: Option<UnknownCx>,
    },
    Id {
        name: String,
        doc: String,
    },
    Alias {
        name: String,
        doc: String,
        target: String,
    },
}

#[derive(Serialize)]
pub struct RecordCx {
    pub name: String,
    pub doc: String,
    pub attrs: Vec<AttrCx>,
    /// The attribute holding properties the spec does not list, and its doc.
    pub extra: String,
    pub extra_doc: String,
}

#[derive(Serialize)]
pub struct AttrCx {
    pub name: String,
    pub annotation: String,
    /// ` = UNSET`, ` = _field(default_factory=list)`, or empty (required).
    pub default: String,
    pub doc: String,
}

#[derive(Serialize)]
pub struct MemberCx {
    pub name: String,
    pub literal: String,
    pub doc: String,
}

#[derive(Serialize)]
pub struct UnknownCx {
    pub name: String,
    pub tag: String,
    pub union: String,
}

#[derive(Serialize)]
pub struct PageCx {
    pub items: String,
    pub items_wire: String,
    pub paging: String,
    pub paging_wire: String,
    pub paging_type: String,
    pub extra: String,
}

#[derive(Serialize)]
pub struct WireDecl {
    pub name: String,
    pub expr: String,
}

#[derive(Serialize)]
pub struct WireDefine {
    pub name: String,
    pub args: Vec<String>,
    /// A union's `"tag value": descriptor` entries, laid out a line each as its one
    /// argument (then `args` is empty).
    pub members: Vec<String>,
}

#[derive(Serialize)]
pub struct LoginCx {
    pub body_type: String,
    pub answer_desc: String,
    pub constant: String,
    pub token_field: String,
    pub token_attr: String,
    pub header: String,
    pub scheme: String,
    pub doc: String,
}

#[derive(Serialize)]
pub struct OperationCx {
    pub method: String,
    pub doc: String,
    /// The module constant describing the operation.
    pub constant: String,
    /// What that constant (`_rt.Operation(...)`) is given.
    pub rt_operation: RtOperationCx,
    pub params: Vec<ParamCx>,
    /// Parameter names of the path values, in order.
    pub path_values: Vec<String>,
    pub query_values: Vec<QueryValueCx>,
    pub has_body: bool,
    /// The body may be left out (`None`): the request then goes without one.
    pub optional_body: bool,
    /// The parameter naming a binary body's media type, when the body is sent as it is.
    pub content_type: Option<String>,
    pub call: CallKind,
    /// The descriptor a JSON answer is decoded with.
    pub answer_desc: Option<String>,
    /// A paged list's paging plan.
    pub paging: Option<PagingCx>,
    /// The return annotation (sync and async alike except for paged lists).
    pub returns: String,
    pub returns_async: String,
    pub alternative: Option<AlternativeCx>,
    /// A paged list's parameter that starts it at a resume point.
    pub resume: Option<String>,
    /// The methods writing a binary answer (the operation's own, or its alternative's) to
    /// a writer as it arrives (one for a binary answer, one for an alternative).
    pub downloads: Vec<DownloadCx>,
}

/// What an operation's `_rt.Operation(...)` constant is given; every string a Python
/// expression (a literal or a descriptor).
#[derive(Serialize)]
pub struct RtOperationCx {
    pub name: String,
    pub method: String,
    pub path: String,
    /// The path's segments: a path value's index, or text.
    pub segments: Vec<String>,
    pub path_params: Vec<PathParamCx>,
    /// The query's field descriptors (`_rt.F(...)`), none when it has no query.
    pub query: Vec<String>,
    /// The wire names of the query values sent as JSON.
    pub json: Vec<String>,
    /// The body's descriptor.
    pub body: Option<String>,
    /// A binary body's default media type.
    pub content_type: Option<String>,
    /// A binary answer's `Accept`.
    pub accept: Option<String>,
    /// A 202 (still preparing) is asked again.
    pub poll: bool,
    /// Sent without credentials.
    pub anonymous: bool,
    /// The hint a 403 gets (manager-only operations).
    pub hint: Option<String>,
}

/// How a path value is checked (`_rt.PathParam(...)`).
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PathParamCx {
    /// Against its descriptor.
    Value { wire: String, desc: String },
    /// As a record reference (a record or its id), with the keyword naming the record
    /// itself, if any.
    Record {
        wire: String,
        self_keyword: Option<String>,
    },
}

/// A query value: its wire name (a literal) and the parameter holding it.
#[derive(Serialize)]
pub struct QueryValueCx {
    pub wire: String,
    pub name: String,
}

/// How an operation's answer is read: the core method its body calls.
#[derive(Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A JSON value, decoded through the operation's `answer_desc`.
    Json,
    /// The same, and whether it was created (201) or replaced (200).
    Upsert,
    /// The answer's bytes, kept whole.
    Bytes,
    /// No answer body.
    Empty,
    /// A paged list, walked as the operation's paging plan says.
    Paged,
}

/// A paged list's module constant (`_X_PAGES`) and the plan it holds.
#[derive(Serialize)]
pub struct PagingCx {
    pub constant: String,
    pub plan: PagingPlanCx,
}

/// What `_rt.PagingPlan(...)` is given; every string a Python expression, an absent one
/// written `None`.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PagingPlanCx {
    /// Pages of the shared envelope (`page`, its descriptor), found by a next-page URL or
    /// a cursor sent back as `page_param`.
    Cursor {
        page: String,
        items_attr: String,
        paging_attr: String,
        next_url_attr: Option<String>,
        cursor_attr: Option<String>,
        page_param: String,
        page_size_attr: Option<String>,
        per_page_param: String,
    },
    /// Pages of an operation's own envelope (its descriptor), whose links name the next.
    Links {
        envelope: String,
        items_attr: Option<String>,
        links_attr: Option<String>,
        next_attr: String,
        prev_attr: String,
    },
}

#[derive(Serialize, Clone)]
pub struct ParamCx {
    pub name: String,
    pub annotation: String,
    /// Keyword-only (query parameters).
    pub keyword: bool,
    /// The first keyword-only parameter (`*` goes before it).
    pub star: bool,
    /// The default value (a Python expression), if any.
    pub default: Option<String>,
    /// A download's writer: annotated by the template, as the clients differ.
    pub writer: bool,
}

#[derive(Serialize)]
pub struct AlternativeCx {
    pub method: String,
    pub doc: String,
    pub accept: String,
}

/// A method that writes a binary answer to a writer (`get_form_to`, `..._pdf_to`).
#[derive(Serialize)]
pub struct DownloadCx {
    pub method: String,
    pub doc: String,
    /// The operation's parameters with the writer before the keyword-only ones.
    pub params: Vec<ParamCx>,
    /// The writer parameter's name.
    pub out: String,
    /// The alternative's `Accept` (the request then polls), or none for the operation's own.
    pub accept: Option<String>,
}

/// Every name an interface's modules declare, decided once, in a fixed order (the dlt
/// module beside them reads them too).
pub(in crate::python) struct ModuleNames {
    pub(in crate::python) types: Vec<String>,
    /// Per declared type: a record's attribute names.
    attrs: Vec<Option<RecordAttrs>>,
    /// Unknown-member class per union.
    unknown: Vec<Option<String>>,
    /// Per declared type used as a union member: the union's tag property and the tag
    /// values that select it (a dataclass may serve several tags, so it holds its own).
    pub(in crate::python) tags: Vec<Vec<(String, Vec<String>)>>,
    page_attrs: Option<(String, String, String)>,
}

impl ModuleNames {
    /// The attribute name of field `wire` of declared type `id` (a record).
    pub(in crate::python) fn attr_of(
        &self,
        i: &Interface,
        id: TypeId,
        wire: &str,
    ) -> Option<String> {
        let TypeKind::Object(o) = &i.ty(id).kind else {
            return None;
        };
        let attrs = self.attrs[id.index()].as_ref()?;
        attrs
            .fields(o)
            .find(|(f, _)| f.name == wire)
            .map(|(_, attr)| attr.to_string())
    }

    /// A record's attribute names (empty for a type that is not one).
    pub(in crate::python) fn record(&self, id: TypeId) -> RecordAttrs {
        self.attrs[id.index()].clone().unwrap_or_default()
    }
}

/// A record's Python attribute names, each list made from and read with its source: the
/// union tags it carries, its fields, its exactly-one-of fields; and `extra`.
#[derive(Clone, Debug, Default)]
pub(in crate::python) struct RecordAttrs {
    tags: Vec<String>,
    fields: Vec<String>,
    one_of: Vec<String>,
    pub(super) extra: String,
}

impl RecordAttrs {
    /// Each union tag `(property, values)` with its attribute.
    pub(in crate::python) fn tags<'a>(
        &'a self,
        tags: &'a [(String, Vec<String>)],
    ) -> impl Iterator<Item = (&'a (String, Vec<String>), &'a str)> {
        debug_assert_eq!(tags.len(), self.tags.len());
        tags.iter().zip(self.tags.iter().map(String::as_str))
    }

    /// Each field of the record with its attribute.
    pub(in crate::python) fn fields<'a>(
        &'a self,
        o: &'a Object,
    ) -> impl Iterator<Item = (&'a Field, &'a str)> {
        debug_assert_eq!(o.fields.len(), self.fields.len());
        o.fields.iter().zip(self.fields.iter().map(String::as_str))
    }

    /// Each exactly-one-of field, variant by variant, with its attribute.
    pub(in crate::python) fn one_of<'a>(
        &'a self,
        o: &'a Object,
    ) -> impl Iterator<Item = (&'a Field, &'a str)> {
        let fields = o
            .one_of
            .iter()
            .flat_map(|one| one.variants.iter().flat_map(|v| v.fields.iter()));
        fields.zip(self.one_of.iter().map(String::as_str))
    }
}

pub(in crate::python) fn module_names(i: &Interface) -> ModuleNames {
    let mut scope = names::module_scope();
    let has_page = i.cursor_envelope().is_some();
    if has_page {
        scope.reserve("Page");
    }
    // Spec types first, so their names change only when they collide with our own.
    let types: Vec<String> = i
        .types
        .iter()
        .map(|t| scope.claim(&names::camel(&t.name)))
        .collect();
    let unknown = i
        .types
        .iter()
        .zip(&types)
        .map(|(t, name)| match &t.kind {
            TypeKind::Union(u) if u.open => Some(scope.claim(&format!("Unknown{name}"))),
            _ => None,
        })
        .collect::<Vec<_>>();
    let mut taken: Vec<String> = types.clone();
    taken.extend(unknown.iter().flatten().cloned());
    if has_page {
        taken.push("Page".into());
    }
    let tags = union_tags(i);
    let attrs = i
        .types
        .iter()
        .zip(&tags)
        .map(|(t, tags)| match &t.kind {
            TypeKind::Object(o) => Some(record_attrs(o, tags, &taken)),
            _ => None,
        })
        .collect();
    let page_attrs = i.cursor_envelope().map(|(items, paging, _)| {
        let mut fields = names::fields_scope(&taken);
        (
            fields.claim(&names::snake(items)),
            fields.claim(&names::snake(paging)),
            fields.claim("extra"),
        )
    });
    ModuleNames {
        types,
        attrs,
        unknown,
        tags,
        page_attrs,
    }
}

/// Per declared type: the tag property of each union it is a member of, and the tag values
/// that select it.
fn union_tags(i: &Interface) -> Vec<Vec<(String, Vec<String>)>> {
    let mut tags: Vec<Vec<(String, Vec<String>)>> = vec![Vec::new(); i.types.len()];
    for t in &i.types {
        if let TypeKind::Union(u) = &t.kind {
            for v in &u.variants {
                let list = &mut tags[v.shape.index()];
                match list.iter_mut().find(|(tag, _)| *tag == u.tag) {
                    Some((_, values)) if !values.contains(&v.tag_value) => {
                        values.push(v.tag_value.clone())
                    }
                    Some(_) => {}
                    None => list.push((u.tag.clone(), vec![v.tag_value.clone()])),
                }
            }
        }
    }
    tags
}

/// A record's attribute names, distinct from the module's names in `taken`: its union tags,
/// its fields, its exactly-one-of fields, then `extra` (claimed in that order).
fn record_attrs(o: &Object, tags: &[(String, Vec<String>)], taken: &[String]) -> RecordAttrs {
    let mut scope = names::fields_scope(taken);
    let mut claim = |wire: &str| scope.claim(&names::snake(wire));
    let tags = tags.iter().map(|(tag, _)| claim(tag)).collect();
    let fields = o.fields.iter().map(|f| claim(&f.name)).collect();
    let one_of = o
        .one_of
        .iter()
        .flat_map(|one| one.variants.iter().flat_map(|v| v.fields.iter()))
        .map(|f| claim(&f.name))
        .collect();
    RecordAttrs {
        tags,
        fields,
        one_of,
        extra: scope.claim("extra"),
    }
}

pub fn interface(i: &Interface) -> Result<InterfaceCx, String> {
    let names = module_names(i);
    let local = TypeNames {
        names: &names.types,
        prefix: "",
    };
    let mut models = Models::default();
    for (index, t) in i.types.iter().enumerate() {
        models.declare(i, t, index, &names, &local);
    }
    let page = page_cx(i, &names, &local);
    if page.is_some() {
        models.descriptors.exports.push("Page".into());
    }
    models.descriptors.exports.sort();
    models.descriptors.page_decoder = i.cursor_envelope().map(|envelope| {
        decoders::page(
            envelope,
            names.page_attrs.clone().unwrap_or_default(),
            &local,
        )
    });
    models.descriptors.decoders = decoders::decoders(i, &names, &local);
    let client = client_cx(i, &names)?;
    Ok(InterfaceCx::new(
        i,
        "#",
        models.types,
        page,
        models.descriptors,
        client,
    ))
}

/// What the models module declares, type by type: the contexts, and the wire descriptors
/// and public names.
#[derive(Default)]
struct Models {
    types: Vec<TypeCx>,
    descriptors: DescriptorsCx,
}

/// The wire descriptors of the models module and its public names.
#[derive(Default, Serialize)]
pub struct DescriptorsCx {
    /// Descriptor variables, declared before any is defined (types refer to each other).
    pub wire_decls: Vec<WireDecl>,
    /// `_w_X.define(...)` calls of records and unions.
    pub wire_defines: Vec<WireDefine>,
    /// The generated decoders, read with before the descriptors.
    pub decoders: Vec<decoders::DecoderCx>,
    /// `Page`'s decoder, given its items' decoder.
    pub page_decoder: Option<decoders::RecordDecoderCx>,
    /// Every public name of the models module, for `__all__`.
    pub exports: Vec<String>,
}

impl Models {
    /// The declared type `t`, the `index`th.
    fn declare(
        &mut self,
        i: &Interface,
        t: &TypeDef,
        index: usize,
        names: &ModuleNames,
        local: &TypeNames,
    ) {
        let name = &names.types[index];
        self.descriptors.exports.push(name.clone());
        let wire = local.wire(TypeId(index as u32));
        match &t.kind {
            TypeKind::Object(o) => {
                let attrs = names.record(TypeId(index as u32));
                let tags = &names.tags[index];
                let response_side = t.usage.response_side();
                self.types.push(TypeCx::Record(record_cx(
                    i,
                    t,
                    name,
                    &attrs,
                    tags,
                    local,
                    response_side,
                )));
                self.descriptors.wire_decls.push(WireDecl {
                    name: wire.clone(),
                    expr: format!("_rt.RecordDesc({name})"),
                });
                let args = models::record_wire_args(i, o, &attrs, tags, local, response_side);
                self.descriptors.wire_defines.push(WireDefine {
                    name: wire,
                    args,
                    members: Vec::new(),
                });
            }
            TypeKind::Union(u) => {
                let unknown = names.unknown[index].clone();
                if let Some(unknown) = &unknown {
                    self.descriptors.exports.push(unknown.clone());
                }
                self.types
                    .push(union_cx(t, name, u, unknown.as_deref(), local));
                self.union_wire(u, wire, unknown.as_deref(), local);
            }
            kind => {
                self.types.push(simple_cx(t, name, local));
                if let Some(expr) = types::simple_desc(kind, name) {
                    self.descriptors
                        .wire_decls
                        .push(WireDecl { name: wire, expr });
                }
            }
        }
    }

    /// A union's descriptor: its tag and unknown-member class, then its members by tag value.
    fn union_wire(&mut self, u: &Union, wire: String, unknown: Option<&str>, local: &TypeNames) {
        self.descriptors.wire_decls.push(WireDecl {
            name: wire.clone(),
            expr: format!(
                "_rt.UnionDesc({}, {})",
                names::string(&u.tag),
                unknown.unwrap_or("None")
            ),
        });
        let variants: Vec<String> = u
            .variants
            .iter()
            .map(|v| format!("{}: {}", names::string(&v.tag_value), local.wire(v.shape)))
            .collect();
        self.descriptors.wire_defines.push(WireDefine {
            name: wire,
            args: Vec::new(),
            members: variants,
        });
    }
}

/// The cursor interface's `Page`, with its attribute names.
fn page_cx(i: &Interface, names: &ModuleNames, local: &TypeNames) -> Option<PageCx> {
    i.cursor_envelope().map(|(items, paging, paging_type)| {
        let (items_attr, paging_attr, extra) = names.page_attrs.clone().unwrap_or_default();
        PageCx {
            items: items_attr,
            items_wire: names::string(items),
            paging: paging_attr,
            paging_wire: names::string(paging),
            paging_type: local.named(paging_type),
            extra,
        }
    })
}
