//! What the Python templates see: every name, annotation, descriptor and doc, computed here
//! from the IR, so a template only lays them out.

use serde::Serialize;

use super::names::{self, Scope};
use super::types::{self, TypeNames};
use crate::doc_text::{self, Doc};
use crate::ir::{
    AnswerKind, Auth, AuthUse, Builtin, Field, Interface, Method, Operation, OperationPaging,
    TypeDef, TypeId, TypeKind, TypeRef,
};
use crate::templates;

pub fn header(source: &str) -> String {
    templates::header("#", source)
}

/// One interface package (`inspection_client/v3/`).
#[derive(Serialize)]
pub struct InterfaceCx {
    pub header: String,
    pub name: String,
    pub doc: String,
    pub types: Vec<TypeCx>,
    pub page: Option<PageCx>,
    /// Descriptor variables, declared before any is defined (types refer to each other).
    pub wire_decls: Vec<WireDecl>,
    /// `_w_X.define(...)` calls of records and unions.
    pub wire_defines: Vec<WireDefine>,
    /// Every public name of the models module, for `__all__`.
    pub exports: Vec<String>,
    pub client: ClientCx,
}

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
}

#[derive(Serialize)]
pub struct ClientCx {
    pub doc: String,
    pub info: Vec<String>,
    /// `headers` (an API key pair) or `token` (a login).
    pub auth: &'static str,
    pub key_params: Vec<KeyParamCx>,
    pub login: Option<LoginCx>,
    pub operations: Vec<OperationCx>,
    pub webhooks: Option<WebhooksCx>,
}

/// `parse_event`, when the interface delivers webhook events.
#[derive(Serialize)]
pub struct WebhooksCx {
    pub event: String,
    pub desc: String,
    pub doc: String,
}

#[derive(Serialize)]
pub struct KeyParamCx {
    pub name: String,
    pub header: String,
    pub sensitive: bool,
    pub doc: String,
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
    pub constant_args: Vec<String>,
    pub params: Vec<ParamCx>,
    /// Parameter names of the path values, in order.
    pub path_values: Vec<String>,
    /// `(wire literal, parameter)` of the query values.
    pub query_values: Vec<(String, String)>,
    pub has_query: bool,
    pub has_body: bool,
    /// The parameter naming a binary body's media type, when the body is sent as it is.
    pub content_type: Option<String>,
    /// `json`, `upsert`, `bytes`, `empty` or `paged`.
    pub call: &'static str,
    /// The descriptor a JSON answer is decoded with.
    pub answer_desc: Option<String>,
    /// The module constant of the paging plan, and its value.
    pub paging: Option<(String, String)>,
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

#[derive(Serialize, Clone)]
pub struct ParamCx {
    pub name: String,
    pub annotation: String,
    /// Keyword-only (query parameters).
    pub keyword: bool,
    /// The first keyword-only parameter (`*` goes before it).
    pub star: bool,
    /// ` = None`, or empty.
    pub default: String,
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

/// Every name an interface's modules declare, decided once, in a fixed order.
struct ModuleNames {
    types: Vec<String>,
    /// Per declared type: the attribute name of each field (records only; `oneOf` group
    /// fields after the record's own), and the `extra` attribute.
    attrs: Vec<Option<(Vec<String>, String)>>,
    /// Unknown-member class per union.
    unknown: Vec<Option<String>>,
    /// Per declared type used as a union member: the union's tag property and the tag
    /// values that select it (a dataclass may serve several tags, so it holds its own).
    tags: Vec<Vec<(String, Vec<String>)>>,
    page_attrs: Option<(String, String, String)>,
}

fn module_names(i: &Interface) -> ModuleNames {
    let mut scope = names::module_scope();
    let has_page = types::cursor_envelope(i).is_some();
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
    let attrs = i
        .types
        .iter()
        .enumerate()
        .map(|(index, t)| match &t.kind {
            TypeKind::Object(o) => {
                let mut fields = names::fields_scope(&taken);
                let mut list: Vec<String> = tags[index]
                    .iter()
                    .map(|(tag, _)| fields.claim(&names::snake(tag)))
                    .collect();
                list.extend(
                    o.fields
                        .iter()
                        .map(|f| fields.claim(&names::snake(&f.name))),
                );
                if let Some(one) = &o.one_of {
                    for v in &one.variants {
                        list.extend(
                            v.fields
                                .iter()
                                .map(|f| fields.claim(&names::snake(&f.name))),
                        );
                    }
                }
                Some((list, fields.claim("extra")))
            }
            _ => None,
        })
        .collect();
    let page_attrs = types::cursor_envelope(i).map(|(items, paging, _)| {
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

pub fn interface(i: &Interface) -> Result<InterfaceCx, String> {
    let names = module_names(i);
    let local = TypeNames {
        names: &names.types,
        prefix: "",
    };
    let mut types = Vec::new();
    let mut wire_decls = Vec::new();
    let mut wire_defines = Vec::new();
    let mut exports = Vec::new();
    for (index, t) in i.types.iter().enumerate() {
        let name = &names.types[index];
        exports.push(name.clone());
        let wire = local.wire(TypeId(index as u32));
        match &t.kind {
            TypeKind::Object(o) => {
                let (attrs, extra) = names.attrs[index].clone().unwrap_or_default();
                let response_side = t.usage.response_side();
                types.push(TypeCx::Record(record_cx(
                    i,
                    t,
                    name,
                    (&attrs, &extra),
                    &names.tags[index],
                    &local,
                    response_side,
                )));
                wire_decls.push(WireDecl {
                    name: wire.clone(),
                    expr: format!("_rt.RecordDesc({name})"),
                });
                let mut args = Vec::new();
                let mut attr = attrs.iter();
                for (tag, _) in &names.tags[index] {
                    let a = attr.next().cloned().unwrap_or_default();
                    args.push(format!(
                        "_rt.F({}, {}, _rt.Str(), req=True)",
                        names::string(tag),
                        names::string(&a)
                    ));
                }
                for f in &o.fields {
                    let a = attr.next().cloned().unwrap_or_default();
                    args.push(local.field(i, f, &a, false, response_side && !f.nullable));
                }
                let mut groups = Vec::new();
                if let Some(one) = &o.one_of {
                    for v in &one.variants {
                        for f in &v.fields {
                            let a = attr.next().cloned().unwrap_or_default();
                            args.push(local.field(i, f, &a, true, false));
                        }
                        let keys: Vec<String> =
                            v.fields.iter().map(|f| names::string(&f.name)).collect();
                        groups.push(format!(
                            "({}, ({},))",
                            names::string(&v.name),
                            keys.join(", ")
                        ));
                    }
                    args.push(format!(
                        "one_of=_rt.OneOf({}, ({},))",
                        names::string(&one.name),
                        groups.join(", ")
                    ));
                }
                args.push(format!("extra={}", names::string(&extra)));
                if let Some(env) = &o.envelope {
                    args.push(format!("envelope={}", names::string(env)));
                }
                wire_defines.push(WireDefine { name: wire, args });
            }
            TypeKind::Union(u) => {
                let unknown = names.unknown[index].clone();
                if let Some(unknown) = &unknown {
                    exports.push(unknown.clone());
                }
                types.push(union_cx(t, name, u, unknown.as_deref(), &local));
                wire_decls.push(WireDecl {
                    name: wire.clone(),
                    expr: format!(
                        "_rt.UnionDesc({}, {})",
                        names::string(&u.tag),
                        unknown.as_deref().unwrap_or("None")
                    ),
                });
                let variants: Vec<String> = u
                    .variants
                    .iter()
                    .map(|v| format!("{}: {}", names::string(&v.tag_value), local.wire(v.shape)))
                    .collect();
                wire_defines.push(WireDefine {
                    name: wire,
                    args: vec![format!("{{{}}}", variants.join(", "))],
                });
            }
            kind => {
                types.push(simple_cx(t, name, &local));
                if let Some(expr) = types::simple_desc(kind, name) {
                    wire_decls.push(WireDecl { name: wire, expr });
                }
            }
        }
    }
    let page = types::cursor_envelope(i).map(|(items, paging, paging_type)| {
        let (items_attr, paging_attr, extra) = names.page_attrs.clone().unwrap_or_default();
        exports.push("Page".into());
        PageCx {
            items: items_attr,
            items_wire: names::string(items),
            paging: paging_attr,
            paging_wire: names::string(paging),
            paging_type: local.named(paging_type),
            extra,
        }
    });
    exports.sort();
    Ok(InterfaceCx {
        header: header(&i.source_file),
        name: i.name.clone(),
        doc: doc_text::interface(i),
        types,
        page,
        wire_decls,
        wire_defines,
        exports,
        client: client_cx(i, &names)?,
    })
}

fn record_cx(
    i: &Interface,
    t: &TypeDef,
    name: &str,
    (attrs, extra): (&[String], &str),
    tags: &[(String, Vec<String>)],
    local: &TypeNames,
    response_side: bool,
) -> RecordCx {
    let TypeKind::Object(o) = &t.kind else {
        unreachable!("record_cx is called for objects")
    };
    let mut doc = Doc::new(&t.doc);
    if let Some(env) = &o.envelope {
        doc.push(format!(
            "The wrapping is inferred, not documented: an answer that is the bare record (no \
             `{env}` property) is read as if it were wrapped."
        ));
    }
    doc.not_shown(o.not_shown.as_deref()).source(o.source);
    let mut out = Vec::new();
    let mut attr = attrs.iter();
    for (tag, values) in tags {
        let literals: Vec<String> = values.iter().map(|v| names::string(v)).collect();
        let a = attr.next().cloned().unwrap_or_default();
        let mut d = Doc::new(&format!(
            "The union tag (`{tag}` on the wire){}.",
            if values.len() == 1 {
                ""
            } else {
                ": this record serves several tags"
            }
        ));
        if a == *tag {
            d = Doc::new(&format!(
                "The union tag{}.",
                if values.len() == 1 {
                    ""
                } else {
                    ": this record serves several tags"
                }
            ));
        }
        out.push(AttrCx {
            name: a,
            annotation: format!("Literal[{}]", literals.join(", ")),
            default: match literals.as_slice() {
                [one] => format!(" = {one}"),
                _ => String::new(),
            },
            doc: d.text(),
        });
    }
    for f in &o.fields {
        let a = attr.next().cloned().unwrap_or_default();
        let filled = response_side && !f.nullable;
        out.push(attr_cx(i, f, a, local, filled, f.required, !response_side));
    }
    if let Some(one) = &o.one_of {
        doc.push(format!(
            "{}\n\nExactly one of these groups is given (checked before sending): {}.",
            one.doc.trim(),
            one.variants
                .iter()
                .map(|v| v
                    .fields
                    .iter()
                    .map(|f| format!("`{}`", f.name))
                    .collect::<Vec<_>>()
                    .join(" + "))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        for v in &one.variants {
            for f in &v.fields {
                let a = attr.next().cloned().unwrap_or_default();
                out.push(attr_cx(i, f, a, local, false, false, true));
            }
        }
    }
    let extra_doc = if response_side {
        "Properties this spec does not list, as the service sent them; written back as they are."
            .to_string()
    } else {
        "Properties this spec does not list yet, sent as they are (the service may accept new \
         optional properties before the spec has them). One the spec lists is refused by \
         validation: set its own attribute."
            .to_string()
    };
    RecordCx {
        name: name.to_string(),
        doc: doc.text(),
        attrs: out,
        extra: extra.to_string(),
        extra_doc,
    }
}

/// One dataclass attribute: required ones have no default, optional ones are `UNSET`
/// until given, and response-side collections start empty (decoding fills them).
fn attr_cx(
    i: &Interface,
    f: &Field,
    name: String,
    local: &TypeNames,
    filled: bool,
    required: bool,
    show_limits: bool,
) -> AttrCx {
    let mut annotation = local.annotation(i, &f.ty, f.sensitive);
    let collection = matches!(f.ty, TypeRef::Array(_) | TypeRef::Map(_));
    if f.nullable {
        annotation.push_str(" | None");
    }
    let default = if required {
        if f.sensitive {
            " = _field(repr=False)".to_string()
        } else {
            String::new()
        }
    } else if filled && collection {
        let factory = if matches!(f.ty, TypeRef::Array(_)) {
            "list"
        } else {
            "dict"
        };
        format!(" = _field(default_factory={factory})")
    } else {
        annotation.push_str(" | Unset");
        if f.sensitive {
            " = _field(default=UNSET, repr=False)".to_string()
        } else {
            " = UNSET".to_string()
        }
    };
    let mut d = Doc::new(&f.doc);
    if f.name != name {
        d.push(format!("`{}` on the wire.", f.name));
    }
    if let Some(note) = types::note(&f.ty) {
        d.push(note.to_string());
    }
    if f.nullable && !f.required {
        d.push("Absent (`UNSET`) is not the same as `None` (a JSON `null`).".to_string());
    }
    if f.sensitive {
        d.push("Held in a `Secret`: never shown by `repr`, `str` or logs.".to_string());
    }
    if show_limits && let Some(limits) = doc_text::describe_limits(&f.constraints) {
        d.push(format!("Limits: {limits}."));
    }
    d.not_shown(f.not_shown.as_deref()).source(f.source);
    AttrCx {
        name,
        annotation,
        default,
        doc: d.text(),
    }
}

fn union_cx(
    t: &TypeDef,
    name: &str,
    u: &crate::ir::Union,
    unknown: Option<&str>,
    local: &TypeNames,
) -> TypeCx {
    let mut doc = Doc::new(&t.doc);
    doc.push(format!(
        "Discriminated by `{}`: narrow with `isinstance` or `match`.",
        u.tag
    ));
    let members: Vec<String> = u
        .variants
        .iter()
        .map(|v| {
            format!(
                "- `{}`: `{}`. {}",
                v.tag_value,
                local.named(v.shape),
                v.doc.trim()
            )
        })
        .collect();
    doc.push(format!("Members:\n\n{}", members.join("\n")));
    if let Some(unknown) = unknown {
        doc.push(format!(
            "A member with a tag this spec does not know is an `{unknown}`: it keeps the whole \
             object (`.raw`) and serialises back unchanged."
        ));
    }
    let mut classes: Vec<String> = u.variants.iter().map(|v| local.named(v.shape)).collect();
    classes.dedup();
    TypeCx::Union {
        name: name.to_string(),
        doc: doc.text(),
        members: classes,
        unknown: unknown.map(|n| UnknownCx {
            name: n.to_string(),
            tag: names::string(&u.tag),
            union: name.to_string(),
        }),
    }
}

fn simple_cx(t: &TypeDef, name: &str, local: &TypeNames) -> TypeCx {
    let name = name.to_string();
    match &t.kind {
        TypeKind::Enum(e) => {
            let mut doc = Doc::new(&t.doc);
            if e.open {
                doc.push(
                    "Open: the service may send values this spec does not list; fields typed \
                     with this enum then hold the value as a plain `str`."
                        .to_string(),
                );
            }
            doc.not_shown(e.not_shown.as_deref());
            let mut scope = names::scope(&["name", "value"]);
            TypeCx::Enum {
                name,
                doc: doc.text(),
                members: e
                    .values
                    .iter()
                    .map(|v| MemberCx {
                        name: scope.claim(&names::member(&v.wire)),
                        literal: names::string(&v.wire),
                        doc: v.doc.clone(),
                    })
                    .collect(),
            }
        }
        TypeKind::Id { max_length } => {
            let mut doc = Doc::new(&t.doc);
            doc.push(format!(
                "An opaque, case-sensitive id{}. A `NewType`, so it cannot be passed where \
                 another resource's id is expected: make one with `{name}(\"...\")`.",
                max_length
                    .map(|n| format!(" of at most {n} characters"))
                    .unwrap_or_default()
            ));
            TypeCx::Id {
                name,
                doc: doc.text(),
            }
        }
        TypeKind::RecordRef(r) => {
            let mut doc = Doc::new(&t.doc);
            doc.source(r.source);
            let mut target = vec![format!("\"{}\"", local.named(r.id_type))];
            if r.external {
                target.push("_rt.ExternalId".into());
            }
            if r.self_keyword.is_some() {
                target.push("_rt.SelfRef".into());
            }
            doc.push(format!(
                "An id{}{}.",
                if r.external {
                    ", `ExternalId(\"...\")` (sent as `_<external id>`)"
                } else {
                    ""
                },
                if r.self_keyword.is_some() {
                    ", or `SELF` (the caller)"
                } else {
                    ""
                }
            ));
            TypeCx::Alias {
                name,
                doc: doc.text(),
                target: format!("Union[{}]", target.join(", ")),
            }
        }
        TypeKind::ScalarUnion(kinds) => {
            let mut py: Vec<&str> = Vec::new();
            for k in kinds {
                let t = match k {
                    crate::ir::ScalarKind::String => "str",
                    crate::ir::ScalarKind::Integer => "int",
                    crate::ir::ScalarKind::Number => "float",
                    crate::ir::ScalarKind::Boolean => "bool",
                    crate::ir::ScalarKind::Null => "None",
                };
                if !py.contains(&t) {
                    py.push(t);
                }
            }
            let mut doc = Doc::new(&t.doc);
            doc.push(
                "Decoding never refuses another JSON kind here: it is passed through untouched."
                    .to_string(),
            );
            TypeCx::Alias {
                name,
                doc: doc.text(),
                target: format!("Union[{}]", py.join(", ")),
            }
        }
        TypeKind::Object(_) | TypeKind::Union(_) => {
            unreachable!("records and unions have their own contexts")
        }
    }
}

fn client_cx(i: &Interface, names: &ModuleNames) -> Result<ClientCx, String> {
    let m = TypeNames {
        names: &names.types,
        prefix: "_m.",
    };
    let mut members = names::client_scope();
    let mut constants = names::module_scope();
    for n in &names.types {
        constants.reserve(n);
    }
    let mut operations = Vec::new();
    for op in &i.operations {
        operations.push(operation_cx(i, op, names, &m, &mut members, &mut constants));
    }
    let (auth, key_params, login) = match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            let mut scope = names::params_scope();
            let params = headers
                .iter()
                .map(|h| KeyParamCx {
                    name: scope.claim(&names::snake(&h.name)),
                    header: names::string(&h.name),
                    sensitive: h.sensitive,
                    doc: h.doc.clone(),
                })
                .collect();
            ("headers", params, None)
        }
        Auth::TokenLogin {
            login_operation,
            token_field,
            header,
            scheme,
            doc,
            ..
        } => {
            let (index, op) = i
                .operations
                .iter()
                .enumerate()
                .find(|(_, o)| &o.name == login_operation)
                .ok_or_else(|| format!("the login operation `{login_operation}` is missing"))?;
            let body = op
                .body
                .as_ref()
                .ok_or_else(|| format!("the login operation `{login_operation}` has no body"))?;
            let AnswerKind::Json { body: answer, .. } = &op.answer.kind else {
                return Err(format!(
                    "the login operation `{login_operation}` answers no JSON record"
                ));
            };
            let token_attr = answer
                .named()
                .and_then(|id| attr_of(i, names, id, token_field))
                .ok_or_else(|| {
                    format!("the login answer of `{login_operation}` has no field `{token_field}`")
                })?;
            let login = LoginCx {
                body_type: m.annotation(i, &body.ty, false),
                answer_desc: m.desc(i, answer, &Default::default(), false),
                constant: operations[index].constant.clone(),
                token_field: names::string(token_field),
                token_attr: names::string(&token_attr),
                header: names::string(header),
                scheme: names::string(scheme),
                doc: format!(
                    "Logs in and returns a client that sends the token on every request and \
                     logs in again, once, when the service answers 401.\n\n{}",
                    doc.trim()
                ),
            };
            ("token", Vec::new(), Some(login))
        }
    };
    Ok(ClientCx {
        doc: format!(
            "A client of the {}.\n\nEvery request is checked against the documented limits \
             before it is sent (turn off with `ClientOptions(validate_requests=False)`), paced \
             under the rate limit (shared by every thread or task using this client), and \
             retried when that is safe: any method after a 429 (after `Retry-After`), \
             GET/PUT/DELETE after a 5xx, a timeout or a broken connection, never a POST or \
             PATCH that may have been applied.",
            i.title
        ),
        info: info_args(i),
        auth,
        key_params,
        login,
        operations,
        webhooks: i.webhooks.as_ref().map(|w| {
            let name = &i.ty(w.event).name;
            WebhooksCx {
                event: m.named(w.event),
                desc: m.wire(w.event),
                doc: format!(
                    "Reads a webhook delivery's JSON body as a `{name}`.\n\n{}\n\nAn event type \
                     this spec does not list is its `Unknown` member, kept whole, never an error; \
                     a body that is not JSON, or a known event whose payload does not fit, raises \
                     `DecodeError` with its JSON path. Check the delivery's authentication header \
                     first with `inspection_client.verify_webhook`.",
                    w.doc.trim()
                ),
            }
        }),
    })
}

/// The keyword arguments of `_rt.InterfaceInfo(...)`.
fn info_args(i: &Interface) -> Vec<String> {
    let mut parts = vec![format!("name={}", names::string(&i.name))];
    if let Some(r) = &i.rate_limit {
        parts.push(format!(
            "rate_limit=_rt.RateLimit({}, {})",
            r.requests, r.window_seconds
        ));
        parts.push(format!("limit_status={}", r.status));
        if let Some(h) = &r.retry_after_header {
            parts.push(format!("retry_after_header={}", names::string(h)));
        }
    }
    if let Some(f) = &i.error_message_field {
        parts.push(format!("error_message_field={}", names::string(f)));
    }
    let headers = i
        .default_accept
        .as_ref()
        .map(|a| format!("\"accept\": {}", names::string(a)))
        .unwrap_or_default();
    parts.push(format!("default_headers={{{headers}}}"));
    parts
}

fn method_name(m: Method) -> &'static str {
    match m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
    }
}

fn operation_cx(
    i: &Interface,
    op: &Operation,
    module: &ModuleNames,
    m: &TypeNames,
    members: &mut Scope,
    constants: &mut Scope,
) -> OperationCx {
    let method = members.claim(&names::snake(&op.name));
    let constant = constants.claim_private(&format!("_{}", names::snake(&op.name).to_uppercase()));
    let mut scope = names::params_scope();
    let mut params = Vec::new();
    let mut path_values = Vec::new();
    let mut path_params = Vec::new();
    for f in &op.path_params {
        let name = scope.claim(&names::snake(&f.name));
        params.push(ParamCx {
            name: name.clone(),
            annotation: m.annotation(i, &f.ty, false),
            keyword: false,
            star: false,
            default: String::new(),
            writer: false,
        });
        path_values.push(name);
        match i.named(&f.ty).map(|t| &t.kind) {
            Some(TypeKind::RecordRef(r)) => path_params.push(format!(
                "_rt.PathParam({}, None, {})",
                names::string(&f.name),
                r.self_keyword
                    .as_ref()
                    .map(|k| names::string(k))
                    .unwrap_or_else(|| "None".into())
            )),
            _ => path_params.push(format!(
                "_rt.PathParam({}, {})",
                names::string(&f.name),
                m.desc(i, &f.ty, &f.constraints, false)
            )),
        }
    }
    let binary = op
        .body
        .as_ref()
        .filter(|b| b.ty == TypeRef::Builtin(Builtin::Binary));
    if let Some(body) = &op.body {
        params.push(ParamCx {
            name: "body".into(),
            annotation: if binary.is_some() {
                "bytes | str".to_string()
            } else {
                m.annotation(i, &body.ty, false)
            },
            keyword: false,
            star: false,
            default: String::new(),
            writer: false,
        });
    }
    let mut query_values = Vec::new();
    let mut query_fields = Vec::new();
    let mut json_params = Vec::new();
    // Required query parameters first: Python wants them before the defaulted ones.
    let mut query: Vec<&Field> = op.query.iter().collect();
    query.sort_by_key(|f| !f.required);
    for f in query {
        let name = scope.claim(&names::snake(&f.name));
        let annotation = m.annotation(i, &f.ty, f.sensitive);
        params.push(ParamCx {
            name: name.clone(),
            annotation: if f.required {
                annotation
            } else {
                format!("{annotation} | None")
            },
            keyword: true,
            star: false,
            default: if f.required {
                String::new()
            } else {
                " = None".into()
            },
            writer: false,
        });
        query_values.push((names::string(&f.name), name));
    }
    // A binary body's media type, named after every parameter of the spec's.
    let content_type = binary.map(|b| {
        let name = scope.claim("content_type");
        params.push(ParamCx {
            name: name.clone(),
            annotation: "str".into(),
            keyword: true,
            star: false,
            default: format!(" = {}", names::string(&b.content_type)),
            writer: false,
        });
        name
    });
    for f in &op.query {
        query_fields.push(m.field(i, f, &f.name, false, false));
        if matches!(f.ty, TypeRef::JsonEncoded(_)) {
            json_params.push(names::string(&f.name));
        }
    }

    let segments: Vec<String> = op
        .path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let param = s.strip_prefix('{').and_then(|s| s.strip_suffix('}'));
            match param.and_then(|p| op.path_params.iter().position(|f| f.name == p)) {
                Some(pos) => pos.to_string(),
                None => names::string(s),
            }
        })
        .collect();
    let mut args = vec![
        format!("name={}", names::string(&op.name)),
        format!("method=\"{}\"", method_name(op.method)),
        format!("path={}", names::string(&op.path)),
        format!("segments={}", tuple(&segments)),
    ];
    if !path_params.is_empty() {
        args.push(format!("path_params={}", tuple(&path_params)));
    }
    if !query_fields.is_empty() {
        let json = if json_params.is_empty() {
            String::new()
        } else {
            format!("    json={},\n    ", tuple(&json_params))
        };
        args.push(format!(
            "query=_rt.Query(\n        {},\n    {json})",
            query_fields.join(",\n        ")
        ));
    }
    if let Some(body) = &op.body {
        args.push(format!(
            "body={}",
            m.desc(i, &body.ty, &Default::default(), false)
        ));
        if binary.is_some() {
            args.push(format!(
                "content_type={}",
                names::string(&body.content_type)
            ));
        }
    }

    // A download's writer, named after every parameter of the spec's (`out_` after one
    // named `out`).
    let out = scope.claim("out");
    let answer = &op.answer;
    let mut answer_desc = None;
    let mut paging_constant = None;
    let mut doc = doc_text::operation(i, op);
    if let (Some(body), Some(param)) = (binary, &content_type) {
        doc.push(format!(
            "The body is sent as it is (`bytes`; text is sent as its UTF-8 bytes), as \
             `Content-Type: {}` unless `{param}` says otherwise.",
            body.content_type
        ));
    }
    let (call, returns, returns_async) = match (&op.paging, &answer.kind) {
        (Some(paging), _) => {
            let (item, page) = match paging {
                OperationPaging::Cursor { item, .. } => {
                    let item = m.annotation(i, item, false);
                    let page = format!("_m.Page[{item}]");
                    (item, page)
                }
                OperationPaging::Links { envelope, item, .. } => {
                    (m.annotation(i, item, false), m.named(*envelope))
                }
            };
            doc.push(
                "Iterating over the result (`for` / `async for`) walks every record of every \
                 page, one page in memory at a time; `.pages()` gives the pages, `.first()` the \
                 first one. A walk that fails past its first page raises \
                 `PagingInterruptedError`; its `resume`, given as `resume=`, walks on from the \
                 page that failed."
                    .to_string(),
            );
            paging_constant = Some((
                constants.claim_private(&format!("{constant}_PAGES")),
                paging_plan(i, module, m, paging),
            ));
            (
                "paged",
                format!("_rt.Paged[{item}, {page}]"),
                format!("_rt.AsyncPaged[{item}, {page}]"),
            )
        }
        (None, AnswerKind::Json { body, .. }) => {
            answer_desc = Some(m.desc(i, body, &Default::default(), false));
            let value = m.annotation(i, body, false);
            ("json", value.clone(), value)
        }
        (None, AnswerKind::Upsert { body }) => {
            doc.push(
                "`created` tells whether the record was created (201) or replaced (200).".into(),
            );
            answer_desc = Some(m.desc(i, body, &Default::default(), false));
            let value = format!("_rt.Upserted[{}]", m.annotation(i, body, false));
            ("upsert", value.clone(), value)
        }
        (None, AnswerKind::Bytes { content_type }) => {
            args.push(format!("accept={}", names::string(content_type)));
            ("bytes", "bytes".to_string(), "bytes".to_string())
        }
        (None, AnswerKind::Empty) => ("empty", "None".to_string(), "None".to_string()),
    };
    if answer.polls {
        doc.push("A 202 (still preparing) is asked again with backoff, up to `max_polls`.".into());
        args.push("poll=True".into());
    }
    if op.auth == AuthUse::None {
        args.push("anonymous=True".into());
    }
    if op.manager_only {
        args.push(format!(
            "hint={}",
            names::string(doc_text::MANAGER_ONLY_HINT)
        ));
    }
    let alternative = answer.alternative.as_ref().map(|ct| {
        let suffix = if ct == "application/pdf" {
            "pdf"
        } else {
            "bytes"
        };
        AlternativeCx {
            method: members.claim(&format!("{method}_{suffix}")),
            doc: format!(
                "Like `{method}`, but asks for `{ct}` (`Accept: {ct}`) and returns its bytes, \
                 waiting out 202 answers."
            ),
            accept: names::string(ct),
        }
    });
    // `resume` is refused as a parameter name by the spec check: it is the list's own.
    let resume = (call == "paged").then(|| {
        let name = scope.claim("resume");
        params.push(ParamCx {
            name: name.clone(),
            annotation: "str | None".into(),
            keyword: true,
            star: false,
            default: " = None".into(),
            writer: false,
        });
        name
    });
    params.push(ParamCx {
        name: "options".into(),
        annotation: "_rt.CallOptions | None".into(),
        keyword: true,
        star: false,
        default: " = None".into(),
        writer: false,
    });
    if let Some(first) = params.iter_mut().find(|p| p.keyword) {
        first.star = true;
    }
    let download = |method: &str, what: &str, accept: Option<String>| {
        let mut with_out = params.clone();
        let at = with_out
            .iter()
            .position(|p| p.keyword)
            .unwrap_or(with_out.len());
        with_out.insert(
            at,
            ParamCx {
                name: out.clone(),
                annotation: String::new(),
                keyword: false,
                star: false,
                default: String::new(),
                writer: true,
            },
        );
        DownloadCx {
            method: method.to_string(),
            doc: format!(
                "Like `{what}`, but writes the answer to `{out}` as it arrives (a file opened \
                 `\"wb\"`, or any object with a binary `write`; for the `AsyncClient` also one \
                 whose `write` is a coroutine), in bounded memory whatever its size: \
                 `max_response_bytes` does not apply. Returns the number of bytes written; a \
                 download that breaks off is not asked again (`{out}` holds what came)."
            ),
            params: with_out,
            out: out.clone(),
            accept,
        }
    };
    let mut downloads = Vec::new();
    if call == "bytes" {
        downloads.push(download(
            &members.claim(&format!("{method}_to")),
            &method,
            None,
        ));
    }
    if let Some(alt) = &alternative {
        downloads.push(download(
            &members.claim(&format!("{}_to", alt.method)),
            &alt.method,
            Some(alt.accept.clone()),
        ));
    }
    OperationCx {
        method,
        doc: doc.text(),
        constant,
        constant_args: args,
        params,
        path_values,
        has_query: !query_values.is_empty(),
        query_values,
        has_body: op.body.is_some(),
        content_type,
        call,
        answer_desc,
        paging: paging_constant,
        returns,
        returns_async,
        alternative,
        resume,
        downloads,
    }
}

/// A Python tuple display of `items`: `()`, `(a,)`, `(a, b)`.
fn tuple(items: &[String]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// The attribute name of field `wire` of declared type `id` (a record). A record's
/// attributes are its union tags first, then its fields.
fn attr_of(i: &Interface, module: &ModuleNames, id: TypeId, wire: &str) -> Option<String> {
    let TypeKind::Object(o) = &i.ty(id).kind else {
        return None;
    };
    let pos = o.fields.iter().position(|f| f.name == wire)?;
    let tags = module.tags[id.index()].len();
    module.attrs[id.index()]
        .as_ref()?
        .0
        .get(tags + pos)
        .cloned()
}

/// The `_rt.PagingPlan(...)` of a paginated operation.
fn paging_plan(
    i: &Interface,
    module: &ModuleNames,
    m: &TypeNames,
    paging: &OperationPaging,
) -> String {
    let opt = |v: Option<String>| {
        v.map(|v| names::string(&v))
            .unwrap_or_else(|| "None".into())
    };
    match paging {
        OperationPaging::Cursor {
            item,
            next_url_field,
            cursor_field,
            page_size_field,
            page_param,
            per_page_param,
            ..
        } => {
            let (items_attr, paging_attr, _) = module.page_attrs.clone().unwrap_or_default();
            let paging_type = types::cursor_envelope(i).map(|(_, _, t)| t);
            let attr = |wire: &Option<String>| {
                wire.as_ref()
                    .and_then(|w| attr_of(i, module, paging_type?, w))
            };
            let per_page = (!per_page_param.is_empty()).then(|| per_page_param.clone());
            format!(
                "_rt.PagingPlan(\"cursor\", {}, {}, paging_attr={}, next_url_attr={}, cursor_attr={}, page_param={}, page_size_attr={}, per_page_param={})",
                m.desc(
                    i,
                    &TypeRef::Page(Box::new(item.clone())),
                    &Default::default(),
                    false
                ),
                names::string(&items_attr),
                names::string(&paging_attr),
                opt(attr(next_url_field)),
                opt(attr(cursor_field)),
                names::string(page_param),
                opt(attr(page_size_field)),
                opt(per_page),
            )
        }
        OperationPaging::Links {
            envelope,
            items_field,
            links_field,
            ..
        } => {
            let links_type = match &i.ty(*envelope).kind {
                TypeKind::Object(o) => o
                    .fields
                    .iter()
                    .find(|f| &f.name == links_field)
                    .and_then(|f| f.ty.named()),
                _ => None,
            };
            let link = |wire: &str| {
                links_type
                    .and_then(|t| attr_of(i, module, t, wire))
                    .unwrap_or_else(|| wire.to_string())
            };
            format!(
                "_rt.PagingPlan(\"links\", {}, {}, links_attr={}, next_attr={}, prev_attr={})",
                m.wire(*envelope),
                opt(attr_of(i, module, *envelope, items_field)),
                opt(attr_of(i, module, *envelope, links_field)),
                names::string(&link("next")),
                names::string(&link("prev")),
            )
        }
    }
}
