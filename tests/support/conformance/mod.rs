//! The Rust runner of the conformance scenarios (`tests/conformance/*.yaml`, documented
//! in `tests/conformance/README.md`): the file format, the expectations, the sandbox
//! controls, one adapter per interface from a step to the generated client (generated), and the
//! webhook listener of the `listen` and `deliveries` actions.

pub mod call;
pub mod events;
pub mod expect;
pub mod format;
pub mod run;
pub mod sandbox;
pub mod tool;

#[path = "../cli_process.rs"]
pub mod process;
pub mod webhooks;

// The adapters are generated from the IR (`codegen/src/rust/adapter.rs`), so every
// operation of the spec is callable from a scenario without an edit here; the
// command-line tool compiles the same files with its own `call` module. Formatted by the
// generator, not rustfmt.
#[path = "../../../generated/cli/src/calls/legacy.rs"]
#[rustfmt::skip]
pub mod legacy;
#[path = "../../../generated/cli/src/calls/v3.rs"]
#[rustfmt::skip]
pub mod v3;
