//! `inspection mcp <interface>`: the interface's operations as MCP tools for an AI
//! assistant, from the generated tool table. Read-only unless allowed (`select.rs`), every
//! call made through the generated client (its validators, pacing and retries) from the
//! tool's arguments (`invoke.rs`), every answer sized for a context window and stripped of
//! sensitive fields (`shape.rs`); the protocol itself is the official SDK's (`server.rs`,
//! behind the `mcp` feature), over stdio or streamable HTTP on loopback.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use crate::call::{Args, Mode, Outcome};
use crate::exit::Failure;

pub mod command;
// What serves a call: only built with the protocol that carries it.
#[cfg(feature = "mcp")]
mod bearer;
#[cfg(feature = "mcp")]
mod body;
#[cfg(feature = "mcp")]
mod invoke;
#[cfg(feature = "mcp")]
mod origin;
#[cfg(feature = "mcp")]
mod refusal;
mod select;
#[cfg(feature = "mcp")]
mod server;
#[cfg(any(feature = "mcp", test))]
mod shape;

pub use select::Selection;

/// One operation as a tool (generated).
#[derive(Debug)]
pub struct Tool {
    pub name: &'static str,
    pub operation: &'static str,
    pub description: &'static str,
    /// The input's JSON Schema, as JSON text.
    pub schema: &'static str,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// The operation's parameters: the argument's name, the parameter's (they differ
    /// where the spec's name is one of the server's own arguments), and whether it goes
    /// in the path (else the query).
    pub params: &'static [(&'static str, &'static str, bool)],
    /// It takes a JSON body (the `body` argument).
    pub body: bool,
    pub paged: Option<Paged>,
    /// Fields of its records left out unless named in `fields`.
    pub large: &'static [&'static str],
    /// Paths of its records' sensitive fields: never in an answer.
    pub sensitive: &'static [&'static str],
    /// Its answer has a PDF form, offered as a resource.
    pub document: bool,
}

/// How a list's page is read: where its records are, and where the next page is named.
#[derive(Debug)]
pub struct Paged {
    pub items: &'static str,
    pub next: Next,
    /// The page size parameter and the largest size it takes: every page is asked at that
    /// size, so a cursor's place within a page means the same page again.
    pub page_size: Option<(&'static str, u32)>,
}

/// The path of the next page's cursor (sent back as the page parameter) or link.
#[derive(Debug)]
pub enum Next {
    Cursor(&'static [&'static str]),
    Link(&'static [&'static str]),
}

/// A call under way (sent between threads by the protocol's tasks).
pub type Calling<'a> = Pin<Box<dyn Future<Output = Result<Outcome, String>> + Send + 'a>>;

/// What the generated crate gives the server: calls by operation name.
pub trait Source: Send + Sync {
    fn call(&self, op: &'static str, args: Args, mode: Mode) -> Calling<'_>;
}

/// What the command line asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--allow-origin`: web pages that may call the HTTP server (normalized origins).
    pub allow_origins: Vec<String>,
    /// `--token-file`: the bearer token every HTTP request must carry (never printed).
    pub token: Option<Secret>,
    /// `--describe`: print the tool list and its size, serve nothing.
    pub describe: bool,
    pub selection: Selection,
    /// `--dynamic`: three tools (list, describe, call) instead of one per operation.
    pub dynamic: bool,
    /// `--listen ADDR`: streamable HTTP on this loopback address instead of stdio.
    pub listen: Option<SocketAddr>,
    /// The most bytes of JSON an answer holds.
    pub budget: usize,
}

/// A token read from `--token-file`; its Debug shows nothing of it.
#[derive(Clone)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// An answer's size at most, in bytes of JSON: about 15,000 tokens, under the 25,000
/// some clients refuse.
pub const BUDGET: usize = 60_000;

/// The tool list's size at most, in bytes of JSON, for `--describe` and the docs.
pub const LIST_BUDGET: usize = 64_000;

/// Serves `tools` of `interface` as `options` say, through `source`.
pub async fn run(
    interface: &'static str,
    tools: &'static [Tool],
    source: Arc<dyn Source>,
    options: &Options,
) -> Result<(), Failure> {
    let served = select::Served::new(interface, tools, options)?;
    if options.describe {
        let listed = served.listed();
        let text = serde_json::to_string(&listed).unwrap_or_default();
        return crate::output::Printer::for_stdout().print(&serde_json::json!({
            "interface": interface,
            "tools": listed,
            "count": listed.len(),
            "bytes": text.len(),
            "budget": LIST_BUDGET,
        }));
    }
    serve(served, source, options).await
}

#[cfg(feature = "mcp")]
async fn serve(
    served: select::Served,
    source: Arc<dyn Source>,
    options: &Options,
) -> Result<(), Failure> {
    server::serve(
        invoke::Server::new(served, source, options.budget),
        options.listen,
        options.allow_origins.clone(),
        options.token.as_ref().map(|t| t.0.clone()),
    )
    .await
}

#[cfg(not(feature = "mcp"))]
async fn serve(
    _served: select::Served,
    _source: Arc<dyn Source>,
    _options: &Options,
) -> Result<(), Failure> {
    Err(Failure::usage(
        "this `inspection` was built without its MCP server; install it with `--features mcp`",
    ))
}
