//! The dlt source of each interface that declares a sync (`inspection_client.dlt`, the
//! package's `dlt` extra): a `@dlt.source` taking the client's credentials through
//! `dlt.secrets`, one shared client, and a resource per list the sync declaration names,
//! with its primary key, its incremental (the list's filter and watermark, the lookback
//! as dlt's `lag`) and its columns from the spec (`tables`), fed by row converters of the
//! client's decoded records (`rows`); the inspections' documents as files beside the load.

mod names;
mod rows;
mod tables;

use serde::Serialize;

use super::context::{InterfaceCx, ModuleNames, OperationCx, PagingPlanCx};
use super::names as py;
use crate::ir::{Api, Auth, Builtin, Current, Interface, SyncList, TypeKind, TypeRef};
use crate::output::OutputFile;
use crate::templates::{self, Embedded};

/// The templates of the `dlt` subpackage.
pub const TEMPLATES: &[Embedded] = templates::embed!("python":
    "dlt_init.py" = "dlt_init.py.jinja",
    "dlt_source.py" = "dlt_source.py.jinja",
);

/// The `dlt` subpackage of the package in `dir` (`generated/python/src/inspection_client`):
/// its `__init__.py` and a module per interface with a sync; none without one.
pub fn files(
    api: &Api,
    env: &minijinja::Environment<'static>,
    dir: &str,
    interfaces: &[(&Interface, ModuleNames, &InterfaceCx)],
) -> Result<Vec<OutputFile>, String> {
    let mut sources = Vec::new();
    let mut out = Vec::new();
    for (i, names, cx) in interfaces.iter().filter(|(i, ..)| i.sync.is_some()) {
        let source = source_cx(api, i, names, cx)?;
        out.push(OutputFile::new(
            format!("{dir}/{}/{}.py", py::DLT_MODULE, i.name),
            super::tidy(templates::render(env, "dlt_source.py", &source)?),
        ));
        sources.push(InitSourceCx {
            interface: i.name.clone(),
            title: i.title.clone(),
            export: format!("{}_source", i.name),
        });
    }
    if sources.is_empty() {
        return Ok(out);
    }
    let init = InitCx {
        header: templates::header("#", "spec/"),
        module: api.packages.python_module.clone(),
        distribution: api.packages.python_distribution.clone(),
        sources,
    };
    out.push(OutputFile::new(
        format!("{dir}/{}/__init__.py", py::DLT_MODULE),
        super::tidy(templates::render(env, "dlt_init.py", &init)?),
    ));
    Ok(out)
}

#[derive(Serialize)]
struct InitCx {
    header: String,
    module: String,
    distribution: String,
    sources: Vec<InitSourceCx>,
}

#[derive(Serialize)]
struct InitSourceCx {
    interface: String,
    title: String,
    /// The name the package exports the source under (`v3_source`).
    export: String,
}

/// One interface's dlt module.
#[derive(Serialize)]
struct SourceCx {
    header: String,
    interface: String,
    title: String,
    module: String,
    distribution: String,
    /// dlt's name of the source (its schema and its config section).
    name: String,
    doc: String,
    auth: AuthCx,
    /// Whether a list reads new records only (so the source takes a lookback).
    lookback: bool,
    /// Whether a list has a filter (so the source takes a start).
    since: bool,
    rows: rows::RowsCx,
    resources: Vec<ResourceCx>,
    documents: Option<DocumentsCx>,
}

/// How the source makes its client.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum AuthCx {
    /// `Client(base_url, ApiKey(...), options=...)`, each key a secret parameter.
    Key { params: Vec<String> },
    /// `Client.login(base_url, Body.from_json({...}), options=...)`, each string of the
    /// login body a secret parameter (`json` is the body's literal, the parameters in it).
    Login {
        params: Vec<String>,
        body: String,
        json: String,
    },
    /// A login body that is not all text: the source takes it whole.
    Body { body: String },
}

/// A resource: one synced list.
#[derive(Serialize)]
struct ResourceCx {
    /// The Python function (in the source's body) and dlt's name of the resource and table.
    function: String,
    name: String,
    doc: String,
    /// The module constant holding its table's hints.
    hints: String,
    /// The primary key (a literal).
    key: String,
    /// A page of its walk (`_rt.ResumablePage[...]`).
    page: String,
    columns: Vec<String>,
    nested: Vec<NestedCx>,
    /// The client method walking the list, and the arguments every call gives it.
    method: String,
    args: Vec<String>,
    resume: String,
    row: String,
    /// How it stays current: a filter, or none (walked whole, replaced).
    filter: Option<FilterCx>,
}

#[derive(Serialize)]
struct NestedCx {
    /// The table's name (a literal), its path below the list's table (a tuple literal).
    name: String,
    path: String,
    parent: String,
    columns: Vec<String>,
}

/// A list read by its filter from the incremental's start.
#[derive(Serialize)]
struct FilterCx {
    /// The incremental's parameter and its cursor (the watermark's wire name).
    param: String,
    cursor: String,
    /// The argument that gives the list the start (`after` the start's variable).
    arg: String,
    /// The lag: the lookback for a filter seeing new records, a second for one seeing
    /// changes (as `inspection sync` reads from a second before).
    lag: String,
    watermark_attr: String,
    sees: &'static str,
}

/// The documents resource: each record's document saved beside the load.
#[derive(Serialize)]
struct DocumentsCx {
    function: String,
    name: String,
    /// The resource whose rows it reads.
    of: String,
    id_key: String,
    link_key: Option<String>,
    media: String,
    extension: String,
    /// The client method writing a record's document through the API, and the id's type.
    method: String,
    id_annotation: String,
}

fn source_cx(
    api: &Api,
    i: &Interface,
    names: &ModuleNames,
    cx: &InterfaceCx,
) -> Result<SourceCx, String> {
    let sync = i
        .sync
        .as_ref()
        .ok_or("generator bug: a dlt source without a sync")?;
    let (models, renames) = tables::model(i);
    let mut scope = py::scope(&[
        "base_url",
        "lookback_days",
        "since",
        "documents",
        "options",
        "shared",
        "lookback",
        "resources",
        "walk",
        "dlt",
    ]);
    let mut resources = Vec::new();
    for (list, tables) in sync.lists.iter().zip(&models) {
        resources.push(resource_cx(i, names, cx, list, tables, &mut scope)?);
    }
    let documents = documents_cx(i, cx, &resources, &mut scope);
    let filters = || resources.iter().filter_map(|r| r.filter.as_ref());
    let lookback = filters().any(|f| f.sees == "new");
    let since = filters().next().is_some();
    let name = format!("{}_{}", api.packages.python_module, i.name);
    let auth = auth_cx(i, cx, &mut scope)?;
    let doc = source_doc(
        i,
        &name,
        &auth,
        &resources,
        [lookback, since],
        documents.as_ref(),
    );
    Ok(SourceCx {
        header: templates::header("#", &i.source_file),
        interface: i.name.clone(),
        title: i.title.clone(),
        module: api.packages.python_module.clone(),
        distribution: api.packages.python_distribution.clone(),
        name,
        doc,
        auth,
        lookback,
        since,
        rows: rows::rows(i, names, &renames),
        resources,
        documents,
    })
}

/// The source function's docstring: what it loads, where its credentials come from, how
/// each kind of list stays current, and its parameters.
fn source_doc(
    i: &Interface,
    name: &str,
    auth: &AuthCx,
    resources: &[ResourceCx],
    [lookback, since]: [bool; 2],
    documents: Option<&DocumentsCx>,
) -> String {
    let lists: Vec<String> = resources
        .iter()
        .map(|r| match &r.filter {
            Some(f) => format!(
                "- ``{}``: ``{}``, from the newest ``{}`` less the lag by its filter, merged",
                r.name,
                r.method,
                f.cursor.trim_matches('"')
            ),
            None => format!("- ``{}``: ``{}``, read whole, replaced", r.name, r.method),
        })
        .collect();
    let sync = format!("Resources (each its table):\n\n{}", lists.join("\n"));
    let secrets = match auth {
        AuthCx::Key { params } | AuthCx::Login { params, .. } => params
            .iter()
            .map(|p| format!("``{p}``"))
            .collect::<Vec<_>>()
            .join(", "),
        AuthCx::Body { .. } => "none (the login body is given as ``credentials``)".into(),
    };
    let client = match auth {
        AuthCx::Key { .. } => "the key sent with each request",
        _ => "one login, renewed when the token expires",
    };
    let mut doc = format!(
        "The {title}: every list of the spec's sync declaration, a resource each.\n\n{sync}\n\n\
         Credentials come from dlt's secrets: {secrets}, under ``[sources.{name}]`` in \
         ``secrets.toml`` or as ``SOURCES__{upper}__<NAME>`` in the environment; ``base_url`` \
         from the config the same way. One client, made on the first request, serves every \
         resource: one pacer under the rate limit, {client}.\n\n\
         A list with a filter is merged by its id, each record's nested rows replaced with it; \
         its incremental reads from the last watermark less a lag (a second for a filter that \
         sees changes). A list without one is read whole and replaces its table each run. A \
         run cut short on purpose (``add_limit``) keeps where a filtered list's walk goes on; \
         the next run goes on from that page.",
        title = i.title,
        upper = name.to_uppercase(),
    );
    if lookback {
        doc.push_str(
            "\n\n``lookback_days``: the lag of a filter that sees new records only (a record \
             changed later than that after it was created is not read again).",
        );
    }
    if since {
        doc.push_str("\n\n``since``: where a first run starts the filtered lists (every record when ``None``).");
    }
    if let Some(d) = documents {
        doc.push_str(&format!(
            "\n\n``documents``: a folder where each of ``{}``'s documents is saved as a file \
             (``<id>.{}``), listed by the ``{}`` resource.",
            d.of,
            d.extension.trim_matches('"'),
            d.name
        ));
    }
    doc.push_str("\n\n``options``: the client's settings (timeouts, retries, the rate limit).");
    doc
}

/// The source's credentials: a key's headers, or a login's text fields.
fn auth_cx(i: &Interface, cx: &InterfaceCx, scope: &mut py::Scope) -> Result<AuthCx, String> {
    match &i.auth {
        Auth::ApiKeyHeaders { .. } => Ok(AuthCx::Key {
            params: cx
                .client
                .key_params
                .iter()
                .map(|k| scope.claim(&k.name))
                .collect(),
        }),
        Auth::TokenLogin { .. } => {
            let login = cx
                .client
                .login
                .as_ref()
                .ok_or("generator bug: a token login without its context")?;
            let body = &i.token_login()?.body.ty;
            let mut params = Vec::new();
            match login_json(i, body, scope, &mut params, 0) {
                Some(json) if !params.is_empty() => Ok(AuthCx::Login {
                    params,
                    body: login.body_type.clone(),
                    json,
                }),
                _ => Ok(AuthCx::Body {
                    body: login.body_type.clone(),
                }),
            }
        }
    }
}

/// The login body as a Python dict literal whose strings are parameters (each claimed
/// and pushed on `params`); `None` when its required fields are not all strings or such
/// records.
fn login_json(
    i: &Interface,
    ty: &TypeRef,
    scope: &mut py::Scope,
    params: &mut Vec<String>,
    depth: u8,
) -> Option<String> {
    let TypeKind::Object(o) = &i.named(ty)?.kind else {
        return None;
    };
    if depth > 8 || o.one_of.is_some() {
        return None;
    }
    let mut entries = Vec::new();
    for f in o.fields.iter().filter(|f| f.required) {
        let value = if matches!(f.ty, TypeRef::Builtin(Builtin::String)) {
            let name = scope.claim(&py::snake(&f.name));
            params.push(name.clone());
            name
        } else {
            login_json(i, &f.ty, scope, params, depth + 1)?
        };
        entries.push(format!("{}: {value}", py::string(&f.name)));
    }
    Some(format!("{{{}}}", entries.join(", ")))
}

fn operation<'a>(cx: &'a InterfaceCx, i: &Interface, name: &str) -> Option<&'a OperationCx> {
    let index = i.operations.iter().position(|o| o.name == name)?;
    cx.client.operations.get(index)
}

/// The Python parameter of `op` sending the query value `wire`.
fn query_param(op: &OperationCx, wire: &str) -> Option<String> {
    let literal = py::string(wire);
    op.query_values
        .iter()
        .find(|q| q.wire == literal)
        .map(|q| q.name.clone())
}

fn resource_cx(
    i: &Interface,
    names: &ModuleNames,
    cx: &InterfaceCx,
    list: &SyncList,
    tables: &[tables::Table],
    scope: &mut py::Scope,
) -> Result<ResourceCx, String> {
    let missing = || {
        format!(
            "generator bug: the sync's list `{}` has no method",
            list.list
        )
    };
    let op = operation(cx, i, &list.list).ok_or_else(missing)?;
    let resume = op.resume.clone().ok_or_else(missing)?;
    let mut args = Vec::new();
    if let Some((param, size)) = page_size(i, op) {
        args.push(format!("{param}={size}"));
    }
    let name = names::identifier(list.table());
    let root = tables.first().ok_or_else(missing)?;
    let filter = match &list.current {
        Current::Walk => None,
        Current::Filter {
            since_param,
            since_field,
            watermark_field,
            changes,
        } => Some(filter_cx(
            i,
            names,
            op,
            list,
            since_param,
            since_field.as_deref(),
            watermark_field,
            *changes,
            scope,
        )?),
    };
    let page = op
        .returns
        .strip_prefix("_rt.Paged[")
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|r| r.split_once(", "))
        .map(|(item, page)| format!("_rt.ResumablePage[{page}, {item}]"))
        .ok_or_else(missing)?;
    Ok(ResourceCx {
        function: scope.claim(&py::snake(list.table())),
        hints: format!("_{}", py::snake(&name).to_uppercase()),
        key: py::string(&list.id_field),
        page,
        name,
        doc: root.doc.clone(),
        columns: root.columns.iter().map(column).collect(),
        nested: tables[1..]
            .iter()
            .map(|t| NestedCx {
                name: py::string(&t.name),
                path: tuple(&t.path),
                parent: py::string(t.parent.as_deref().unwrap_or_default()),
                columns: t.columns.iter().map(column).collect(),
            })
            .collect(),
        method: op.method.clone(),
        args,
        resume,
        row: rows::function(names, list.record),
        filter,
    })
}

/// The list's page size parameter and its largest value (fewer requests of the quota).
fn page_size(i: &Interface, op: &OperationCx) -> Option<(String, u32)> {
    match op.paging.as_ref().map(|p| &p.plan)? {
        PagingPlanCx::Cursor { .. } => {
            let c = i.cursor_paging()?;
            Some((query_param(op, &c.per_page_param)?, c.max_per_page))
        }
        PagingPlanCx::Links { .. } => {
            let crate::ir::Pagination::Links(l) = i.pagination.as_ref()? else {
                return None;
            };
            Some((query_param(op, &l.limit_param)?, l.max_limit))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn filter_cx(
    i: &Interface,
    names: &ModuleNames,
    op: &OperationCx,
    list: &SyncList,
    since_param: &str,
    since_field: Option<&str>,
    watermark_field: &str,
    changes: bool,
    scope: &mut py::Scope,
) -> Result<FilterCx, String> {
    let bug = |what: &str| format!("generator bug: the sync's list `{}`: {what}", list.list);
    let param = query_param(op, since_param).ok_or_else(|| bug("no filter parameter"))?;
    let arg = match since_field {
        None => format!("{param}=after"),
        Some(field) => {
            let ir_op = i.operations.iter().find(|o| o.name == list.list);
            let ty = ir_op
                .and_then(|o| o.query.iter().find(|q| q.name == since_param))
                .and_then(|q| q.ty.named())
                .ok_or_else(|| bug("no filter type"))?;
            let attr = names
                .attr_of(i, ty, field)
                .ok_or_else(|| bug("no filter field"))?;
            let class = format!("_m.{}", names.types[ty.index()]);
            format!("{param}=None if after is None else {class}({attr}=after)")
        }
    };
    let watermark_attr = names
        .attr_of(i, list.record, watermark_field)
        .ok_or_else(|| bug("no watermark field"))?;
    Ok(FilterCx {
        param: scope.claim(&py::snake(watermark_field)),
        cursor: py::string(watermark_field),
        arg,
        lag: if changes {
            "1.0".into()
        } else {
            "lookback".into()
        },
        watermark_attr,
        sees: if changes { "changed" } else { "new" },
    })
}

/// A Python tuple of strings.
fn tuple(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|p| py::string(p)).collect();
    match items.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// A column's hint: `_s.Col(name, type, doc, ...)`, on one line when short, else an
/// argument a line (the doc in pieces), for the template to indent.
fn column(c: &tables::Column) -> String {
    let (data_type, precision) = c.data_type.dlt();
    let mut args = vec![py::string(&c.name), py::string(data_type)];
    let mut flags = Vec::new();
    if !c.nullable {
        flags.push("nullable=False".to_string());
    }
    if let Some(p) = precision {
        flags.push(format!("precision={p}"));
    }
    if c.primary_key {
        flags.push("primary_key=True".to_string());
    }
    let one = [&args[..], &[py::string(&c.description)], &flags[..]].concat();
    let line = format!("_s.Col({})", one.join(", "));
    if line.len() <= 96 {
        return line;
    }
    args.push(pieces(&c.description, 72).join("\n    "));
    args.extend(flags);
    format!("_s.Col(\n    {},\n)", args.join(",\n    "))
}

/// `text` as string literals of at most about `width` characters each (Python joins
/// adjacent literals), broken before a space.
fn pieces(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for (n, word) in text.split(' ').enumerate() {
        let word = if n == 0 {
            word.to_string()
        } else {
            format!(" {word}")
        };
        if !current.is_empty() && current.len() + word.len() > width {
            out.push(std::mem::take(&mut current));
        }
        current.push_str(&word);
    }
    out.push(current);
    out.iter().map(|p| py::string(p)).collect()
}

/// The documents resource, when the export names a document of a synced list's records
/// that the client can write to a file.
fn documents_cx(
    i: &Interface,
    cx: &InterfaceCx,
    resources: &[ResourceCx],
    scope: &mut py::Scope,
) -> Option<DocumentsCx> {
    let export = i.export.as_ref()?;
    let document = operation(cx, i, export.document.as_deref()?)?;
    let download = document.downloads.first()?;
    let id = download.params.first()?;
    let list = i
        .sync
        .as_ref()?
        .lists
        .iter()
        .position(|l| l.list == export.list)?;
    let of = &resources[list];
    let media = download
        .accept
        .as_deref()
        .map(|a| a.trim_matches('"').to_string())
        .unwrap_or_else(|| "application/octet-stream".into());
    let extension = match media.as_str() {
        "application/pdf" => "pdf",
        _ => "bin",
    };
    let name = format!("{}_documents", of.name);
    Some(DocumentsCx {
        function: scope.claim(&py::snake(&name)),
        name,
        of: of.function.clone(),
        id_key: py::string(&export.id_field),
        link_key: export.document_link.as_ref().map(|l| py::string(&l.field)),
        media: py::string(&media),
        extension: py::string(extension),
        method: download.method.clone(),
        id_annotation: id.annotation.clone(),
    })
}
