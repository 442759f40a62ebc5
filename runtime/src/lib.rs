//! Runtime support for the generated inspection-service client.
//!
//! Nothing here knows about units, tasks or any other resource: the generated crate
//! describes the service, this crate supplies the machinery it shares: auth, pacing,
//! retries, paging, polling, validation, errors and model helpers.
#![warn(missing_docs)]

mod auth;
mod config;
mod error;
mod impls;
mod model;
mod origin;
mod pacing;
mod paging;
mod request;
mod retry;
mod transport;
mod validate;
mod webhook;

// What users of the generated client meet: its settings, errors, credentials, paging,
// validation and the model types its records use. Everything else is glue below.
pub use auth::Secret;
pub use bytes::Bytes;
pub use config::{Config, HttpSetup, Pacing};
pub use error::{ApiError, Cause, Error, Resume};
pub use futures_util::{Stream, StreamExt, TryStreamExt};
pub use model::{DateOrDateTime, Record, TimeOrRange, UnknownMember, UnknownValue};
pub use pacing::{ClientTurn, Pacer, SharedPacing};
pub use request::{Request, RequestOptions};
/// The HTTP crate underneath, for [`Config::http`] (proxies, certificates).
pub use reqwest;
pub use reqwest::Method;
pub use retry::RetryPolicy;
pub use tokio::io::{AsyncRead, AsyncWrite};
pub use transport::{BoxStream, Core, Fetched, Preview, Response};
pub use validate::{Validate, Violation, Violations};
pub use webhook::verify_webhook;
/// The versions of the ecosystem crates the client's types use, so a user needs no
/// guessing: `inspection_client::chrono::Utc::now()`.
pub use {bytes, chrono, futures_util as futures};

/// What generated code calls and users should not: serde helpers, paging drivers, the
/// validator, auth plumbing. Not part of the API; it changes with the generator.
#[doc(hidden)]
pub mod __private {
    pub use crate::auth::{Auth, TokenAuth, login_token};
    pub use crate::config::{InterfaceDefaults, env_var};
    pub use crate::model::{
        ClosedVisitor, DecodeRecord, DecodeUnion, EncodeFields, Fields, FromStrVisitor, Key,
        Tolerant, capture, decode_record, decode_union, decode_variant, deserialize_id,
        encode_present, encode_record, enveloped, field, pick_one_of, read_tag, required,
        serialize_tagged,
    };
    pub use crate::paging::{
        CursorPage, Direction, LinksPage, Page, describe_held, items, links_items, links_pages,
        links_pages_resumable, pages, pages_resumable,
    };
    pub use crate::request::format_date_time;
    pub use crate::transport::{LoginFn, decode};
    pub use crate::validate::{CharClass, Validator};
    pub use crate::webhook::parse_event;
    pub use crate::{
        __request_send, impl_alternative, impl_client, impl_decode, impl_encode, impl_enum,
        impl_envelope, impl_id, impl_pages, impl_record, impl_request,
    };
}

/// The answer of an upsert: whether the record was created (201) or replaced (200).
#[derive(Debug, Clone, PartialEq)]
pub enum Upserted<T> {
    /// The record did not exist and was created (201).
    Created(T),
    /// The record existed and was replaced (200).
    Replaced(T),
}

impl<T> Upserted<T> {
    /// Whether the record was created rather than replaced.
    pub fn is_created(&self) -> bool {
        matches!(self, Upserted::Created(_))
    }

    /// The record, created or replaced.
    pub fn into_inner(self) -> T {
        match self {
            Upserted::Created(t) | Upserted::Replaced(t) => t,
        }
    }

    /// The record, created or replaced, borrowed.
    pub fn get(&self) -> &T {
        match self {
            Upserted::Created(t) | Upserted::Replaced(t) => t,
        }
    }
}
