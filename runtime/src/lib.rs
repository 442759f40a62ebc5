//! Runtime support for the generated inspection-service client.
//!
//! Nothing here knows about units, tasks or any other resource: the generated crate
//! describes the service, this crate supplies the machinery it shares.

pub mod model;
