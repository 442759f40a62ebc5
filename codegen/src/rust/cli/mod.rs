//! The command-line tool `inspection` (`generated/cli/`): a binary crate on the generated
//! client and the hand-written `cli/` crate. Per interface it states what only the spec
//! knows: each operation as a subcommand (flags from its path and query parameters and a
//! flat body's fields, typed, with their docs and limits as help), how a client is made
//! from the credentials, and the export the spec declares. The calls themselves go
//! through the call adapter (`adapter.rs`), compiled into the same crate.

use heck::ToKebabCase;
use proc_macro2::TokenStream;
use quote::quote;

mod clients;
mod export;
mod import;
mod mcp;
mod sync;
mod table;

use super::{adapter, names};
use crate::ir::{Api, Interface, Operation, Paging};
use crate::output::OutputFile;

pub const CRATE_DIR: &str = "generated/cli";

/// Subcommands the tool adds beside the operations of an interface, and at its root.
pub(super) const TAKEN_COMMANDS: &[&str] = &["auth-check", "help"];
/// (`status` is `sync`'s own subcommand beside the interfaces': `sync status DATABASE`;
/// `describe` the hidden one tools read.)
const ROOT_COMMANDS: &[&str] = &[
    "export",
    "sync",
    "status",
    "describe",
    "import",
    "mcp",
    "completions",
    "help",
    "calls",
];

/// Interface names the tool cannot use: its own subcommands and modules, and Rust's.
/// Whether an operation named `name` would be one of an interface's own subcommands.
pub fn reserved_operation(name: &str) -> bool {
    TAKEN_COMMANDS.contains(&name.to_kebab_case().as_str())
}

/// The tool's own commands, which no interface may be named.
pub const OWN_NAMES: &[&[&str]] = &[ROOT_COMMANDS];

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
            interface_rs(i, &api.version)?,
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

[features]
# `inspection sync` into a SQLite file (the default) or PostgreSQL.
default = ["sqlite"]
sqlite = ["inspection-cli-runtime/sqlite"]
postgres = ["inspection-cli-runtime/postgres"]
# `inspection mcp`: the MCP server (the official Rust SDK).
mcp = ["inspection-cli-runtime/mcp"]

[dependencies]
chrono = { version = "0.4.45", default-features = false, features = ["std", "serde"] }
inspection-cli-runtime = { path = "../../cli", version = "0.1.0", default-features = false }
# Imported as `inspection_client` whatever the crate's published name.
inspection-client = { package = "CRATE", path = "../rust", version = "VERSION" }
# The client's code that the tool shares (making a client from variables) names it.
inspection-runtime = { path = "../../runtime", version = "0.1.0" }
serde_json = "1.0.154"
"#
        .replace("VERSION", &api.version)
        .replace("CRATE", &api.packages.rust_crate)
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
fn interface_rs(i: &Interface, version: &str) -> Result<TokenStream, String> {
    let module = names::ident(&i.name);
    let name = i.name.as_str();
    let about = i.title.as_str();
    let ops = table::operation_table(i)?;
    let (connect, dry_core) = clients::clients(i)?;
    let auth_check = clients::auth_check(i);
    let (tool_fields, tool_items) = tools(i, version, &module)?;
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
            #tool_fields
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
        #tool_items
    })
}

/// The interface's tools beyond its operations (the export, sync and import the spec
/// declares, and the MCP server): their fields of `Interface`, and the items behind them.
fn tools(
    i: &Interface,
    version: &str,
    module: &proc_macro2::Ident,
) -> Result<(TokenStream, TokenStream), String> {
    let some = |made: Option<Result<(TokenStream, TokenStream), String>>| match made {
        Some(made) => made.map(|(field, items)| (quote!(Some(#field)), items)),
        None => Ok((quote!(None), quote!())),
    };
    let (export, export_items) = some(i.export.as_ref().map(|e| export::export(i, e)))?;
    let (sync, sync_items) = some(i.sync.as_ref().map(|s| sync::sync(i, s, version)))?;
    let (import, import_items) = some(i.import.as_ref().map(|d| import::import(i, d, module)))?;
    let (mcp, mcp_items) = some(Some(mcp::mcp(i, module)))?;
    Ok((
        quote!(export: #export, sync: #sync, import: #import, mcp: #mcp,),
        quote!(#export_items #sync_items #import_items #mcp_items),
    ))
}

/// A list's page size parameter (by its spec name) and the largest size it takes, from
/// the interface's paging.
pub(super) fn page_size<'o>(i: &Interface, op: &'o Operation) -> Option<(&'o str, u32)> {
    let (param, max) = match i.paging(op)? {
        Paging::Cursor { settings, .. } => (&settings.per_page_param, settings.max_per_page),
        Paging::Links { settings, .. } => (&settings.limit_param, settings.max_limit),
    };
    op.query
        .iter()
        .find(|q| &q.name == param)
        .map(|q| (q.name.as_str(), max))
}
