//! Runtime support for the generated inspection-service client.
//!
//! Nothing here knows about units, tasks or any other resource: the generated crate
//! describes the service, this crate supplies the machinery it shares: auth, pacing,
//! retries, paging, polling, validation, errors and model helpers.

pub mod auth;
pub mod config;
pub mod error;
pub mod model;
pub mod origin;
pub mod pacing;
pub mod paging;
pub mod request;
pub mod retry;
pub mod transport;
pub mod validate;
pub mod webhook;

pub use auth::{Auth, Secret};
pub use bytes::Bytes;
pub use config::{Config, HttpSetup, InterfaceDefaults, Pacing};
pub use error::{ApiError, Cause, Error};
pub use futures_util::{Stream, StreamExt, TryStreamExt};
pub use paging::{BoxStream, Resume};
pub use request::{Request, RequestOptions};
/// The HTTP crate underneath, for [`Config::http`] (proxies, certificates).
pub use reqwest;
pub use reqwest::Method;
pub use retry::RetryPolicy;
pub use tokio::io::AsyncWrite;
pub use transport::{Core, Response};
pub use validate::{CharClass, Validate, Validator, Violation, Violations};
pub use webhook::verify_webhook;
/// The versions of the ecosystem crates the client's types use, so a user needs no
/// guessing: `inspection_client::chrono::Utc::now()`.
pub use {bytes, chrono, futures_util as futures};

/// The answer of an upsert: whether the record was created (201) or replaced (200).
#[derive(Debug, Clone, PartialEq)]
pub enum Upserted<T> {
    Created(T),
    Replaced(T),
}

impl<T> Upserted<T> {
    pub fn is_created(&self) -> bool {
        matches!(self, Upserted::Created(_))
    }

    pub fn into_inner(self) -> T {
        match self {
            Upserted::Created(t) | Upserted::Replaced(t) => t,
        }
    }

    pub fn get(&self) -> &T {
        match self {
            Upserted::Created(t) | Upserted::Replaced(t) => t,
        }
    }
}
