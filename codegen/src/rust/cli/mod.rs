//! The command-line tool `inspection` (`generated/cli/`): a binary crate on the generated
//! client and the hand-written `cli/` crate. Per interface it states what only the spec
//! knows: each operation as a subcommand (flags from its path and query parameters and a
//! flat body's fields, typed, with their docs and limits as help), how a client is made
//! from the credentials, and the export the spec declares. The calls themselves go
//! through the call adapter (`adapter.rs`), compiled into the same crate.

use std::collections::BTreeSet;

use heck::ToKebabCase;
use proc_macro2::TokenStream;
use quote::quote;

mod export;

use super::{adapter, client, names, operations};
use crate::doc_text;
use crate::ir::{
    AnswerKind, Api, Auth, Builtin, Field, Interface, LinksPaging, Operation, OperationPaging,
    Pagination, TypeKind, TypeRef,
};
use crate::output::OutputFile;

pub const CRATE_DIR: &str = "generated/cli";

/// The flags the tool adds itself: the tool's crate builds its command tree from this same
/// file, so an operation's flag renamed off these (`--query-quiet`) cannot clash.
#[path = "../../../../cli/src/flags.rs"]
mod tool_flags;

/// The flags the tool gives an operation's subcommand beyond its parameters: on every
/// subcommand, for its body and answer, and an alternative form's own.
fn own_flags(op: &Operation) -> Vec<String> {
    let sends = match &op.body {
        Some(b) if operations::is_binary(&b.ty) => tool_flags::Sends::Bytes,
        Some(_) => tool_flags::Sends::Json,
        None => tool_flags::Sends::Nothing,
    };
    let answers = answers(op);
    let mut flags: Vec<String> = tool_flags::EVERY_OPERATION
        .iter()
        .chain(&tool_flags::for_operation(sends, answers))
        .map(|f| f.to_string())
        .collect();
    if answers == tool_flags::Answers::Alternative {
        flags.push(alternative_flag(op).to_string());
    }
    flags
}

/// What an operation answers, as the tool's flags see it (and its table's `Answer`).
fn answers(op: &Operation) -> tool_flags::Answers {
    match &op.answer.kind {
        _ if op.paging.is_some() => tool_flags::Answers::Paged,
        AnswerKind::Bytes { .. } => tool_flags::Answers::Bytes,
        AnswerKind::Json { .. } if op.answer.alternative.is_some() => {
            tool_flags::Answers::Alternative
        }
        _ => tool_flags::Answers::Json,
    }
}

/// Subcommands the tool adds beside the operations of an interface, and at its root.
const TAKEN_COMMANDS: &[&str] = &["auth-check", "help"];
const ROOT_COMMANDS: &[&str] = &["export", "completions", "help", "calls"];

/// Interface names the tool cannot use: its own subcommands and modules, and Rust's.
/// Whether an operation named `name` would be one of an interface's own subcommands.
pub fn reserved_operation(name: &str) -> bool {
    TAKEN_COMMANDS.contains(&name.to_kebab_case().as_str())
}

/// The tool's own commands, which no interface may be named.
pub fn own_names() -> Vec<&'static str> {
    ROOT_COMMANDS.to_vec()
}

pub fn reserved_module(name: &str) -> bool {
    ROOT_COMMANDS.contains(&name) || super::reserved_module(name)
}

/// The crate: `Cargo.toml`, `src/main.rs`, a module per interface; the call adapters
/// under `src/calls/` are written by the Rust backend beside them.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    let mut files = vec![OutputFile::new(
        format!("{CRATE_DIR}/Cargo.toml"),
        cargo_toml(api),
    )];
    files.push(super::rust_file(
        format!("{CRATE_DIR}/src/main.rs"),
        "spec/",
        main_rs(api),
    )?);
    files.push(super::rust_file(
        format!("{}/mod.rs", adapter::ADAPTER_DIR),
        "spec/",
        calls_rs(api),
    )?);
    for i in &api.interfaces {
        files.push(super::rust_file(
            format!("{CRATE_DIR}/src/{}.rs", i.name),
            &i.source_file,
            interface_rs(i)?,
        )?);
    }
    Ok(files)
}

fn cargo_toml(api: &Api) -> String {
    format!(
        "{}{}",
        super::header("spec/").replace("// ", "# "),
        r#"[package]
name = "inspection-cli"
version = "VERSION"
edition = "2024"
# `File::try_lock`, which holds an export folder.
rust-version = "1.89"
license = "MIT OR Apache-2.0"
description = "The `inspection` command-line tool for the inspection service, generated from its spec."
publish = false

[[bin]]
name = "inspection"
path = "src/main.rs"

[dependencies]
chrono = { version = "0.4.45", default-features = false, features = ["std", "serde"] }
inspection-cli-runtime = { path = "../../cli", version = "0.1.0" }
inspection-client = { path = "../rust", version = "VERSION" }
# The client's code that the tool shares (making a client from variables) names it.
inspection-runtime = { path = "../../runtime", version = "0.1.0" }
serde_json = "1.0.154"
"#
        .replace("VERSION", &api.version)
    )
}

fn main_rs(api: &Api) -> TokenStream {
    let mods = api.interfaces.iter().map(|i| {
        let name = names::ident(&i.name);
        quote!(#[rustfmt::skip] mod #name;)
    });
    let interfaces = api.interfaces.iter().map(|i| {
        let name = names::ident(&i.name);
        quote!(#name::INTERFACE)
    });
    quote! {
        //! `inspection`: every operation of the inspection service from the shell, and an
        //! export that survives being killed. Generated from the spec by
        //! `codegen/src/rust/cli.rs`; docs/cli.md is its manual.
        #![forbid(unsafe_code)]

        #[rustfmt::skip]
        mod calls;
        #(#mods)*

        use inspection_cli_runtime::app;

        static INTERFACES: &[app::Interface] = &[#(#interfaces),*];

        fn main() -> std::process::ExitCode {
            app::main("inspection", env!("CARGO_PKG_VERSION"), INTERFACES)
        }
    }
}

fn calls_rs(api: &Api) -> TokenStream {
    let mods = api.interfaces.iter().map(|i| {
        let name = names::ident(&i.name);
        quote!(pub mod #name;)
    });
    quote! {
        //! The call adapter of each interface (`codegen/src/rust/adapter.rs`), over the
        //! tool's `call` module. The Rust conformance runner compiles the same files.
        pub use inspection_cli_runtime::call;
        #(#mods)*
    }
}

/// An interface's module: its table of operations, and how it runs, checks credentials
/// and exports.
fn interface_rs(i: &Interface) -> Result<TokenStream, String> {
    let module = names::ident(&i.name);
    let name = i.name.as_str();
    let about = i.title.as_str();
    let ops = operation_table(i)?;
    let (connect, dry_core) = clients(i)?;
    let auth_check = auth_check(i);
    let (export_field, export_items) = match &i.export {
        Some(e) => {
            let (field, items) = export::export(i, e)?;
            (quote!(Some(#field)), items)
        }
        None => (quote!(None), quote!()),
    };
    Ok(quote! {
        //! The subcommands of this interface, made from the spec.
        use inspection_cli_runtime as cli;
        use inspection_client::#module::*;
        use cli::command::{Answer, Body, Kind, Operation, Param, Place};

        /// This interface, for `main`.
        pub const INTERFACE: cli::app::Interface = cli::app::Interface {
            name: #name,
            about: #about,
            operations: OPERATIONS,
            run,
            auth_check,
            export: #export_field,
        };

        /// Every operation, in the spec's order.
        const OPERATIONS: &[Operation] = &[#(#ops),*];

        #connect
        #dry_core

        /// Runs an operation's subcommand: a dry run shows the request without credentials
        /// or login; otherwise the client is made from them and the call is sent.
        fn run<'a>(
            cx: &'a cli::app::Context,
            op: &'static Operation,
            m: &'a cli::clap::ArgMatches,
        ) -> cli::app::Running<'a> {
            Box::pin(async move {
                let args = cli::command::args(op, m)?;
                let client = if cli::command::is_dry_run(m) {
                    Client::from_core(dry_core(cx)?)
                } else {
                    connect(cx).await?
                };
                let mode = cli::command::mode(op, m, client.core());
                crate::calls::#module::call(&client, op.name, args, mode)
                    .await
                    .map_err(cli::exit::Failure::usage)?
                    .0
            })
        }

        #auth_check
        #export_items
    })
}

/// `connect` (the client from the credentials, logging in where the interface does) and
/// `dry_core` (a core for previews: the base URL, and credentials as placeholders).
fn clients(i: &Interface) -> Result<(TokenStream, TokenStream), String> {
    // A login whose body is not all text cannot come from variables: the tool still
    // builds, and says so when asked to log in.
    let (vars, connect) = client::from_vars(i, &quote!(Client)).unwrap_or_else(|| {
        let message = format!(
            "the `{}` login cannot be made from variables (its body holds more than text); \
             use the library's `Client::login`",
            i.name
        );
        let connect = quote! {
            let _ = (var, config);
            Err(inspection_client::Error::Config(#message.to_string()))
        };
        (vec![client::base_url_var(i)], connect)
    });
    let url_var = vars.first().ok_or("generator bug: no base URL variable")?;
    let placeholders: Vec<TokenStream> = match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => headers
            .iter()
            .zip(&vars[1..])
            .map(|(h, var)| {
                let name = h.name.to_ascii_lowercase();
                if h.sensitive {
                    quote!((#name, "<secret>".to_string(), true))
                } else {
                    quote!((#name, cx.vars.get(#var).unwrap_or_else(|_| "<not set>".into()), false))
                }
            })
            .collect(),
        Auth::TokenLogin { header, scheme, .. } => {
            let name = header.to_ascii_lowercase();
            let value = format!("{scheme} <token>");
            vec![quote!((#name, #value.to_string(), true))]
        }
    };
    let connect = quote! {
        /// The client, from the environment or the profile (logging in where the interface
        /// does).
        async fn connect(cx: &cli::app::Context) -> Result<Client, inspection_client::Error> {
            let var = |name: &str| cx.vars.get(name);
            let config = cx.config(Client::default_config());
            #connect
        }
    };
    let dry_core = quote! {
        /// A core for previews: the base URL, and credentials that are placeholders (a
        /// dry run reads no secret and does not log in).
        fn dry_core(
            cx: &cli::app::Context,
        ) -> Result<inspection_client::runtime::Core, inspection_client::Error> {
            cx.dry_core(#url_var, &[#(#placeholders),*], Client::default_config())
        }
    };
    Ok((connect, dry_core))
}

/// `auth-check`: one small call, the first list that needs no input, asked for one record.
fn auth_check(i: &Interface) -> TokenStream {
    let list = i.operations.iter().find(|op| {
        op.paging.is_some() && op.path_params.is_empty() && op.query.iter().all(|q| !q.required)
    });
    let call = match list {
        Some(op) => {
            let method = names::method_ident(&op.name);
            let one = page_size(i, op)
                .map(|(setter, _)| quote!(.#setter(1)))
                .unwrap_or_default();
            quote!(client.#method() #one .send().await?;)
        }
        // Making the client (a login) is the check.
        None => quote!(),
    };
    let name = i.name.as_str();
    quote! {
        /// Makes the client and one small authenticated call.
        fn auth_check(cx: &cli::app::Context) -> cli::app::Running<'_> {
            Box::pin(async move {
                let client = connect(cx).await?;
                #call
                cli::app::auth_ok(#name, client.core().base_url().as_str())
            })
        }
    }
}

/// The setter of a list's page size and the largest it takes, from the interface's paging.
pub(super) fn page_size(i: &Interface, op: &Operation) -> Option<(proc_macro2::Ident, u32)> {
    let (param, max) = match (&i.pagination, &op.paging) {
        (
            Some(Pagination::Cursor { max_per_page, .. }),
            Some(OperationPaging::Cursor { per_page_param, .. }),
        ) => (per_page_param.as_str(), *max_per_page),
        (
            Some(Pagination::Links(LinksPaging {
                limit_param,
                max_limit,
                ..
            })),
            _,
        ) => (limit_param.as_str(), *max_limit),
        _ => return None,
    };
    op.query
        .iter()
        .any(|q| q.name == param)
        .then(|| (names::field_ident(param), max))
}

/// The rows of the operation table, with flags made distinct.
fn operation_table(i: &Interface) -> Result<Vec<TokenStream>, String> {
    let mut commands = BTreeSet::new();
    let mut rows = Vec::new();
    for op in &i.operations {
        let command = op.name.to_kebab_case();
        if TAKEN_COMMANDS.contains(&command.as_str()) || !commands.insert(command.clone()) {
            return Err(format!(
                "the operation `{}` would be the subcommand `{command}`, which `{}` has already; rename it",
                op.name, i.name
            ));
        }
        rows.push(operation_row(i, op, &command));
    }
    Ok(rows)
}

fn operation_row(i: &Interface, op: &Operation, command: &str) -> TokenStream {
    let name = op.name.as_str();
    let about = first_sentence(&op.doc);
    let doc = doc_text::operation(i, op).text();
    let mut flags = Flags::default();
    flags.taken.extend(own_flags(op));
    let mut params = Vec::new();
    for f in &op.path_params {
        params.push(flags.param(i, f, quote!(Place::Path), "path", true));
    }
    for f in &op.query {
        params.push(flags.param(i, f, quote!(Place::Query), "query", f.required));
    }
    let body = match &op.body {
        None => quote!(Body::None),
        Some(b) if operations::is_binary(&b.ty) => quote!(Body::Bytes),
        Some(b) => {
            let fields = flat_fields(i, &b.ty);
            for f in &fields {
                params.push(flags.body_field(i, f));
            }
            let (required, optional) = (fields.is_empty() && !b.optional, b.optional);
            let mut secrets = Vec::new();
            secret_paths(i, &b.ty, "", 0, &mut secrets);
            quote!(Body::Json { required: #required, optional: #optional, secrets: &[#(#secrets),*] })
        }
    };
    let answer = answer(op);
    let (about, doc) = (long_literal(&about), long_literal(&doc));
    quote! {
        Operation {
            name: #name,
            command: #command,
            about: #about,
            doc: #doc,
            params: &[#(#params),*],
            body: #body,
            answer: #answer,
        }
    }
}

fn answer(op: &Operation) -> TokenStream {
    match (answers(op), &op.answer.kind) {
        (tool_flags::Answers::Paged, _) => quote!(Answer::Paged),
        (tool_flags::Answers::Bytes, _) => quote!(Answer::Bytes),
        (tool_flags::Answers::Alternative, _) => {
            let flag = alternative_flag(op);
            quote!(Answer::Alternative(#flag))
        }
        (tool_flags::Answers::Json, AnswerKind::Upsert { .. }) => quote!(Answer::Upsert),
        (tool_flags::Answers::Json, AnswerKind::Empty) => quote!(Answer::Empty),
        (tool_flags::Answers::Json, _) => quote!(Answer::Json),
    }
}

/// The flags of one subcommand, kept distinct from each other and from the tool's own.
#[derive(Default)]
struct Flags {
    taken: BTreeSet<String>,
}

impl Flags {
    /// A flag named after `name`; on a clash, `<place>-<name>`, then a number.
    fn claim(&mut self, name: &str, place: &str) -> String {
        let plain = name.to_kebab_case();
        let mut flag = plain.clone();
        if self.taken.contains(&flag) {
            flag = format!("{place}-{plain}");
        }
        let mut n = 2;
        while self.taken.contains(&flag) {
            flag = format!("{place}-{plain}-{n}");
            n += 1;
        }
        self.taken.insert(flag.clone());
        flag
    }

    fn param(
        &mut self,
        i: &Interface,
        f: &Field,
        place: TokenStream,
        word: &str,
        required: bool,
    ) -> TokenStream {
        let flag = self.claim(&f.name, word);
        row(i, f, &flag, place, required)
    }

    /// A flat body's field as a flag (never required: `--body` may give it).
    fn body_field(&mut self, i: &Interface, f: &Field) -> TokenStream {
        let flag = self.claim(&f.name, "body");
        row(i, f, &flag, quote!(Place::Body), false)
    }
}

fn row(i: &Interface, f: &Field, flag: &str, place: TokenStream, required: bool) -> TokenStream {
    let name = f.name.as_str();
    let kind = kind(i, &f.ty);
    let mut help = first_sentence(&f.doc);
    if let Some(limits) = doc_text::describe_limits(&f.constraints) {
        help.push_str(&format!(" Limits: {limits}."));
    }
    if matches!(
        f.ty,
        TypeRef::Builtin(Builtin::DateTime | Builtin::DateOrDateTime)
    ) {
        help.push_str(" ISO 8601 (2026-01-31T08:00:00Z).");
    }
    let help = long_literal(&help);
    quote! {
        Param { flag: #flag, name: #name, place: #place, kind: #kind, required: #required, help: #help }
    }
}

/// How a value of `ty` is given on the command line.
fn kind(i: &Interface, ty: &TypeRef) -> TokenStream {
    match ty {
        TypeRef::Builtin(b) if b.is_integer() => quote!(Kind::Integer),
        TypeRef::Builtin(Builtin::Number) => quote!(Kind::Number),
        TypeRef::Builtin(Builtin::Boolean) => quote!(Kind::Boolean),
        TypeRef::Builtin(Builtin::Json) => quote!(Kind::Json),
        TypeRef::Builtin(Builtin::DateTime) => quote!(Kind::DateTime),
        TypeRef::Builtin(_) => quote!(Kind::Text),
        TypeRef::Named(id) => match &i.ty(*id).kind {
            TypeKind::Enum(e) if !e.open => {
                let values = e.values.iter().map(|v| v.wire.as_str());
                quote!(Kind::Choice(&[#(#values),*]))
            }
            TypeKind::Enum(_) | TypeKind::Id { .. } => quote!(Kind::Text),
            TypeKind::RecordRef(r) => {
                let (external, me) = (r.external, r.self_keyword.is_some());
                quote!(Kind::Ref { external: #external, me: #me })
            }
            _ => quote!(Kind::Json),
        },
        _ => quote!(Kind::Json),
    }
}

/// The fields of a body that flags can give: those of a plain record (no envelope, no
/// exactly-one-of group) whose value is a scalar, an enum or an id.
fn flat_fields<'i>(i: &'i Interface, ty: &TypeRef) -> Vec<&'i Field> {
    let Some(TypeKind::Object(o)) = i.named(ty).map(|t| &t.kind) else {
        return Vec::new();
    };
    if o.envelope.is_some() || o.one_of.is_some() {
        return Vec::new();
    }
    o.fields
        .iter()
        .filter(|f| !f.sensitive)
        .filter(|f| match &f.ty {
            TypeRef::Builtin(b) => !matches!(
                b,
                Builtin::Json | Builtin::Binary | Builtin::DateTimeOrRange
            ),
            TypeRef::Named(id) => matches!(i.ty(*id).kind, TypeKind::Enum(_) | TypeKind::Id { .. }),
            _ => false,
        })
        .collect()
}

/// The JSON paths (`user.password`) of every sensitive field reached from `ty` through
/// nested records.
fn secret_paths(i: &Interface, ty: &TypeRef, prefix: &str, depth: u8, out: &mut Vec<String>) {
    let Some(TypeKind::Object(o)) = i.named(ty).map(|t| &t.kind) else {
        return;
    };
    if depth > 8 {
        return;
    }
    for f in o.wire_fields() {
        let path = format!("{prefix}{}", f.name);
        if f.sensitive {
            out.push(path);
        } else {
            secret_paths(i, &f.ty, &format!("{path}."), depth + 1, out);
        }
    }
}

/// The flag that asks for an operation's alternative form: the form's name the IR plans
/// (`pdf`), as the Rust method is named after it too.
pub(super) fn alternative_flag(op: &Operation) -> &str {
    op.call.alternative.as_deref().unwrap_or("bytes")
}

/// The first sentence of a doc, on one line.
pub(super) fn first_sentence(doc: &str) -> String {
    let line = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.find(". ") {
        Some(end) => line[..=end].to_string(),
        None => line,
    }
}

/// A string literal, as `concat!` of pieces when long, so no generated line runs far.
fn long_literal(text: &str) -> TokenStream {
    const PIECE: usize = 80;
    if text.len() <= PIECE {
        return quote!(#text);
    }
    let mut pieces = Vec::new();
    let mut rest = text;
    while rest.len() > PIECE {
        let mut cut = PIECE;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        // End a piece after a space where one is near, for a readable diff.
        if let Some(space) = rest[..cut].rfind(' ').filter(|s| *s > PIECE / 2) {
            cut = space + 1;
        }
        pieces.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    pieces.push(rest);
    quote!(concat!(#(#pieces),*))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_that_clashes_is_renamed_by_its_place_then_numbered() {
        let mut flags = Flags::default();
        flags.taken.insert("output".into());
        assert_eq!(flags.claim("referenceNumber", "query"), "reference-number");
        assert_eq!(
            flags.claim("reference_number", "body"),
            "body-reference-number"
        );
        assert_eq!(flags.claim("output", "query"), "query-output");
        assert_eq!(flags.claim("output", "query"), "query-output-2");
    }

    #[test]
    fn a_long_literal_is_cut_into_pieces_that_join_back() {
        let text = "word ".repeat(60);
        let tokens = long_literal(&text).to_string();
        assert!(tokens.starts_with("concat !"), "{tokens}");
        let joined: String = syn::parse2::<syn::ExprMacro>(long_literal(&text))
            .unwrap()
            .mac
            .parse_body_with(
                syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated,
            )
            .unwrap()
            .iter()
            .map(|l| l.value())
            .collect();
        assert_eq!(joined, text);
    }
}
