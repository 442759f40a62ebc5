//! The MCP server's part of an interface's module: a tool per operation as static data
//! (its name, a short description from the spec's doc and limits, its input as a JSON
//! Schema made from the IR, MCP's annotations, how its list pages, which fields of its
//! records are large or sensitive) and an `Mcp` source over the client, which calls
//! through the call adapter. `cli/src/mcp/` serves the table; nothing here knows MCP.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value, json};

use super::table::{first_sentence, long_literal};
use crate::doc_text;
use crate::ir::{
    Builtin, Constraints, CursorPaging, Field, Interface, Method, Operation, Paging, TypeKind,
    TypeRef,
};

/// Arguments every tool may take beside the operation's own.
pub const OWN_ARGUMENTS: &[&str] = &["body", "cursor", "max_items", "fields"];

/// A parameter's argument name: its spec name, unless every tool's own argument has it
/// (`cursor_param` for a parameter `cursor`).
fn argument(name: &str) -> String {
    let mut arg = name.to_string();
    while OWN_ARGUMENTS.contains(&arg.as_str()) {
        arg.push_str("_param");
    }
    arg
}

/// A tool's name: the operation's, or for one over the 64 characters clients take, its
/// first 55 and a hash of the whole (distinct, and the same on every run).
fn tool_name(operation: &str) -> String {
    if operation.len() <= 64 {
        return operation.to_string();
    }
    let hash = operation.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut cut = 55;
    while !operation.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}_{:08x}", &operation[..cut], hash as u32)
}

/// The `Mcp` field of the interface and the items behind it.
pub(super) fn mcp(
    i: &Interface,
    module: &proc_macro2::Ident,
) -> Result<(TokenStream, TokenStream), String> {
    let mut tools = Vec::new();
    for op in &i.operations {
        if op.internal || op.is_open() {
            continue;
        }
        tools.push(tool(i, op)?);
    }
    let name = i.name.as_str();
    let field = quote!(cli::app::Mcp {
        tools: MCP_TOOLS,
        run: mcp
    });
    let items = quote! {
        /// The tools `inspection mcp` serves, one per operation.
        static MCP_TOOLS: &[cli::mcp::Tool] = &[#(#tools),*];

        /// The client `inspection mcp` calls through.
        struct Mcp(Client);

        impl cli::mcp::Source for Mcp {
            fn call(
                &self,
                op: &'static str,
                args: cli::call::Args,
                mode: cli::call::Mode,
            ) -> cli::mcp::Calling<'_> {
                Box::pin(crate::calls::#module::call(&self.0, op, args, mode))
            }
        }

        /// Runs `inspection mcp`: serves the tools over the credentials of this run.
        fn mcp<'a>(
            cx: &'a cli::app::Context,
            options: &'a cli::mcp::Options,
        ) -> cli::app::Running<'a> {
            Box::pin(async move {
                let source: std::sync::Arc<dyn cli::mcp::Source> = if options.describe {
                    std::sync::Arc::new(Mcp(Client::from_core(dry_core(cx)?)))
                } else {
                    std::sync::Arc::new(Mcp(connect(cx).await?))
                };
                cli::mcp::run(#name, MCP_TOOLS, source, options).await
            })
        }
    };
    Ok((field, items))
}

/// One operation as `cli::mcp::Tool`.
fn tool(i: &Interface, op: &Operation) -> Result<TokenStream, String> {
    let (name, operation) = (tool_name(&op.name), op.name.as_str());
    let description = description(i, op);
    let hidden = paging_params(i, op);
    let schema = serde_json::to_string(&input_schema(i, op, &hidden)?)
        .map_err(|e| format!("generator bug: {e}"))?;
    let (schema, description) = (long_literal(&schema), long_literal(&description));
    let read_only = op.method == Method::GET;
    let destructive = op.method == Method::DELETE;
    let idempotent = crate::ir::idempotent_method(op.method);
    let places = op
        .path_params
        .iter()
        .map(|f| (f, true))
        .chain(
            op.query
                .iter()
                .filter(|q| !hidden.contains(&q.name.as_str()))
                .map(|f| (f, false)),
        )
        .map(|(f, path)| {
            let (arg, spec) = (argument(&f.name), f.name.as_str());
            quote!((#arg, #spec, #path))
        });
    let body = op.json_body().is_some();
    let page_size = match op.paging.as_ref().and(super::page_size(i, op)) {
        Some((param, max)) => quote!(Some((#param, #max))),
        None => quote!(None),
    };
    let paged = match i.paging(op) {
        Some(Paging::Cursor { settings, .. }) => {
            let CursorPaging {
                items_field,
                paging_field,
                cursor_field,
                next_url_field,
                ..
            } = settings;
            let next = match (cursor_field, next_url_field) {
                (Some(c), _) => quote!(cli::mcp::Next::Cursor(&[#paging_field, #c])),
                (None, Some(n)) => quote!(cli::mcp::Next::Link(&[#paging_field, #n])),
                (None, None) => quote!(cli::mcp::Next::Link(&[])),
            };
            quote!(Some(cli::mcp::Paged { items: #items_field, next: #next, page_size: #page_size }))
        }
        Some(Paging::Links {
            items_field,
            settings,
            ..
        }) => {
            let links_field = &settings.links_field;
            quote!(Some(cli::mcp::Paged { items: #items_field, next: cli::mcp::Next::Link(&[#links_field, "next"]), page_size: #page_size }))
        }
        None => quote!(None),
    };
    let record = answer_record(op);
    let large = record.map(|r| large_fields(i, r)).unwrap_or_default();
    let sensitive = record.map(|r| sensitive_paths(i, r)).unwrap_or_default();
    let document = op.answer.alternative.is_some();
    Ok(quote! {
        cli::mcp::Tool {
            name: #name,
            operation: #operation,
            description: #description,
            schema: #schema,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            params: &[#(#places),*],
            body: #body,
            paged: #paged,
            large: &[#(#large),*],
            sensitive: &[#(#sensitive),*],
            document: #document,
        }
    })
}

/// The first sentence of the operation's doc, what a list answers and how it pages, and
/// what "not shown" leaves unknown: short, for a client that holds many tools.
fn description(i: &Interface, op: &Operation) -> String {
    let mut text = first_sentence(&op.doc);
    if op.paging.is_some() {
        text.push_str(" Answers one page: `items` and `next_cursor` (pass it as `cursor` for the next); `max_items` sizes a page.");
    }
    if let Some(record) = answer_record(op) {
        let large = large_fields(i, record);
        if !large.is_empty() {
            text.push_str(&format!(
                " Leaves out {} unless named in `fields`.",
                large.join(", ")
            ));
        }
    }
    if op.answer.alternative.is_some() {
        text.push_str(" Its PDF is offered as a resource.");
    }
    if let Some(not_shown) = &op.not_shown {
        text.push_str(&format!(
            " Not shown in the interface document: {}",
            first_sentence(not_shown)
        ));
    }
    text
}

/// The query parameters the server sets itself: a cursor list's page, and the page size.
fn paging_params<'o>(i: &Interface, op: &'o Operation) -> Vec<&'o str> {
    if op.paging.is_none() {
        return Vec::new();
    }
    let mut hidden: Vec<&str> = super::page_size(i, op)
        .map(|(p, _)| p)
        .into_iter()
        .collect();
    if let Some(Paging::Cursor { settings, .. }) = i.paging(op) {
        hidden.extend(
            op.query
                .iter()
                .filter(|q| q.name == settings.page_param)
                .map(|q| q.name.as_str()),
        );
    }
    hidden
}

/// The tool's input: the operation's path and query parameters, its JSON body as `body`,
/// and for a list `cursor` and `max_items`; `fields` for any answer of records.
fn input_schema(i: &Interface, op: &Operation, hidden: &[&str]) -> Result<Value, String> {
    let mut defs = BTreeMap::new();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in op.path_params.iter().chain(&op.query) {
        if hidden.contains(&f.name.as_str()) {
            continue;
        }
        properties.insert(argument(&f.name), field(i, f, &mut defs));
        if f.required {
            required.push(Value::from(argument(&f.name)));
        }
    }
    if let Some(body) = op.json_body() {
        let doc = op
            .body
            .as_ref()
            .and_then(|b| b.doc.clone())
            .unwrap_or_else(|| "The request body.".into());
        let mut schema = of(i, body, &Constraints::default(), &mut defs);
        described(&mut schema, &doc);
        properties.insert("body".into(), schema);
        if !op.body.as_ref().is_some_and(|b| b.optional) {
            required.push("body".into());
        }
    }
    if op.paging.is_some() {
        properties.insert("cursor".into(), json!({"type": "string", "description": "`next_cursor` of the previous page; none for the first."}));
        properties.insert("max_items".into(), json!({"type": "integer", "minimum": 1, "description": "Records on this page at most (the answer may stop earlier to stay small)."}));
    }
    if answer_record(op).is_some() {
        properties.insert("fields".into(), json!({"type": "array", "items": {"type": "string"}, "description": "Only these fields of each record, as dotted paths (`unit.reference_number`); large fields left out by default are given when named."}));
    }
    let mut schema =
        json!({"type": "object", "properties": properties, "additionalProperties": false});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    if !defs.is_empty() {
        schema["$defs"] = Value::Object(defs.into_iter().collect());
    }
    Ok(schema)
}

fn field(i: &Interface, f: &Field, defs: &mut BTreeMap<String, Value>) -> Value {
    let mut schema = of(i, &f.ty, &f.constraints, defs);
    let mut doc = first_sentence(&f.doc);
    if let Some(limits) = doc_text::describe_limits(&f.constraints) {
        doc.push_str(&format!(" Limits: {limits}."));
    }
    described(&mut schema, &doc);
    schema
}

fn described(schema: &mut Value, doc: &str) {
    if let Value::Object(map) = schema
        && !map.contains_key("$ref")
    {
        map.insert("description".into(), Value::from(doc));
    }
}

/// The JSON Schema of a type: declared objects once in `$defs`.
fn of(i: &Interface, ty: &TypeRef, c: &Constraints, defs: &mut BTreeMap<String, Value>) -> Value {
    let mut schema = match ty {
        TypeRef::Builtin(b) => builtin(*b),
        TypeRef::Array(t) => {
            json!({"type": "array", "items": of(i, t, &Constraints::default(), defs)})
        }
        // A map of any JSON says so (`true`), rather than an empty schema that reads as
        // an oversight to a strict client.
        TypeRef::Map(t) if **t == TypeRef::Builtin(Builtin::Json) => {
            json!({"type": "object", "additionalProperties": true})
        }
        TypeRef::Map(t) => {
            json!({"type": "object", "additionalProperties": of(i, t, &Constraints::default(), defs)})
        }
        TypeRef::JsonEncoded(t) => of(i, t, &Constraints::default(), defs),
        TypeRef::Page(_) => json!({}),
        TypeRef::Named(id) => named(i, *id, defs),
    };
    limits(&mut schema, c);
    schema
}

fn builtin(b: Builtin) -> Value {
    match b {
        Builtin::String | Builtin::Binary => json!({"type": "string"}),
        Builtin::Url => json!({"type": "string", "format": "uri"}),
        Builtin::Integer | Builtin::Int32 => json!({"type": "integer"}),
        Builtin::Number => json!({"type": "number"}),
        Builtin::Boolean => json!({"type": "boolean"}),
        Builtin::Date => json!({"type": "string", "format": "date"}),
        Builtin::DateTime => json!({"type": "string", "format": "date-time"}),
        Builtin::DateOrDateTime | Builtin::DateTimeOrRange => json!({"type": "string"}),
        Builtin::Json => one_of_types(&["object", "array", "string", "number", "boolean", "null"]),
    }
}

fn named(i: &Interface, id: crate::ir::TypeId, defs: &mut BTreeMap<String, Value>) -> Value {
    let t = i.ty(id);
    match &t.kind {
        TypeKind::Enum(e) => {
            let values: Vec<&str> = e.values.iter().map(|v| v.wire.as_str()).collect();
            json!({"type": "string", "enum": values})
        }
        TypeKind::Id {
            max_length,
            accepts_integers,
        } => {
            let mut s = if *accepts_integers {
                one_of_types(&["string", "integer"])
            } else {
                json!({"type": "string"})
            };
            if let Some(max) = max_length {
                s["maxLength"] = Value::from(*max);
            }
            s
        }
        TypeKind::RecordRef(_) => one_of_types(&["string", "integer"]),
        TypeKind::ScalarUnion(_) => one_of_types(&["string", "number", "boolean"]),
        TypeKind::Union(_) => json!({"type": "object"}),
        TypeKind::Object(o) => {
            if !defs.contains_key(&t.name) {
                defs.insert(t.name.clone(), Value::Null);
                let mut properties = Map::new();
                let mut required = Vec::new();
                for f in &o.fields {
                    properties.insert(f.name.clone(), field(i, f, defs));
                    if f.required {
                        required.push(Value::from(f.name.as_str()));
                    }
                }
                let mut s = json!({"type": "object", "description": first_sentence(&t.doc), "properties": properties});
                if let Some(one) = &o.one_of {
                    let mut choices = Vec::new();
                    for v in &one.variants {
                        let names: Vec<&str> = v
                            .fields
                            .iter()
                            .filter(|f| f.required)
                            .map(|f| f.name.as_str())
                            .collect();
                        for f in &v.fields {
                            s["properties"][&f.name] = field(i, f, defs);
                        }
                        choices.push(json!({"required": names}));
                    }
                    s["oneOf"] = Value::Array(choices);
                    s["description"] = Value::from(format!(
                        "{} {}",
                        first_sentence(&t.doc),
                        first_sentence(&one.doc)
                    ));
                }
                if !required.is_empty() {
                    s["required"] = Value::Array(required);
                }
                defs.insert(t.name.clone(), s);
            }
            json!({"$ref": format!("#/$defs/{}", t.name)})
        }
    }
}

/// A value of any of `types`, as `anyOf` branches of one type each: a `type` array is
/// legal JSON Schema, but a client that maps schemas onto a one-type dialect drops it.
fn one_of_types(types: &[&str]) -> Value {
    let branches: Vec<Value> = types.iter().map(|t| json!({"type": t})).collect();
    json!({"anyOf": branches})
}

fn limits(schema: &mut Value, c: &Constraints) {
    let Value::Object(map) = schema else { return };
    let mut set = |key: &str, value: Option<i64>| {
        if let Some(v) = value {
            map.insert(key.into(), Value::from(v));
        }
    };
    set("maxLength", c.max_length.map(i64::from));
    set("minLength", c.length.map(i64::from));
    set("minimum", c.min);
    set("maximum", c.max);
    set("maxItems", c.max_items.map(i64::from));
    set("minItems", c.min_items.map(i64::from));
    if let Some(n) = c.length {
        map.insert("maxLength".into(), Value::from(n));
    }
}

/// The record type of an operation's answer: a list's item, or a JSON answer's type.
fn answer_record(op: &Operation) -> Option<&TypeRef> {
    match (&op.paging, &op.answer.kind) {
        (Some(paging), _) => Some(paging.item()),
        (
            None,
            crate::ir::AnswerKind::Json { body, .. } | crate::ir::AnswerKind::Upsert { body },
        ) => Some(body),
        _ => None,
    }
}

/// The fields of a record that are lists of records (an inspection's results, photos):
/// left out of an answer unless asked for.
fn large_fields(i: &Interface, record: &TypeRef) -> Vec<String> {
    let Some(TypeKind::Object(o)) = i.named(record).map(|t| &t.kind) else {
        return Vec::new();
    };
    o.fields
        .iter()
        .filter(|f| matches!(&f.ty, TypeRef::Array(t) if matches!(**t, TypeRef::Named(_))))
        .map(|f| f.name.clone())
        .collect()
}

/// The paths of a record's sensitive fields, nested records' among them (one level).
fn sensitive_paths(i: &Interface, record: &TypeRef) -> Vec<String> {
    let Some(TypeKind::Object(o)) = i.named(record).map(|t| &t.kind) else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    for f in o.wire_fields() {
        if f.sensitive {
            paths.push(f.name.clone());
        } else if let Some(TypeKind::Object(inner)) = i.named(&f.ty).map(|t| &t.kind) {
            paths.extend(
                inner
                    .wire_fields()
                    .filter(|g| g.sensitive)
                    .map(|g| format!("{}.{}", f.name, g.name)),
            );
        }
    }
    paths
}
