//! The Rust runner of the conformance scenarios (`tests/conformance/*.yaml`, documented
//! in `tests/conformance/README.md`): the file format, the expectations, the sandbox
//! controls, one adapter per interface from a step to the generated client, and the
//! webhook listener of the `listen` and `deliveries` actions.

pub mod call;
pub mod expect;
pub mod format;
pub mod legacy;
pub mod run;
pub mod sandbox;
pub mod v3;
pub mod webhooks;
