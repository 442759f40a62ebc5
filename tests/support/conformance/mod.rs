//! The Rust runner of the conformance scenarios (`tests/conformance/*.yaml`, documented
//! in `tests/conformance/README.md`): the file format, the expectations, the sandbox
//! controls, one adapter per interface from a step to the generated client (generated), and the
//! webhook listener of the `listen` and `deliveries` actions.

pub mod call;
pub mod expect;
pub mod format;
pub mod run;
pub mod sandbox;
pub mod webhooks;

// The adapters are generated from the IR (`codegen/src/rust/adapter.rs`), so every
// operation of the spec is callable from a scenario without an edit here. Formatted by
// the generator, not rustfmt.
#[path = "../../../generated/conformance/rust/legacy.rs"]
#[rustfmt::skip]
pub mod legacy;
#[path = "../../../generated/conformance/rust/v3.rs"]
#[rustfmt::skip]
pub mod v3;
