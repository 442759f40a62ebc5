//! What every generated `inspection` command-line tool shares; it knows no record of the
//! service. The generated crate (`generated/cli`) states each interface's operations (a
//! table of flags), the call adapter (which builder each operation is) and its export;
//! this crate turns the command line into a call, prints the answer, reads credentials,
//! maps failures to exit codes, runs the resumable export, the sync into a database and
//! the import of a file's rows.

pub mod app;
pub mod call;
pub mod command;
pub mod credentials;
pub mod exit;
pub mod export;
pub mod flags;
#[cfg(test)]
mod fuzz;
pub mod import;
pub mod logs;
pub mod mcp;
pub mod output;
pub mod pace;
pub mod state;
pub mod sync;

pub use clap;
pub use serde_json;
