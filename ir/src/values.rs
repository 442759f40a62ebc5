//! The small value types the spec format and the IR share: where a fact comes from, a
//! character class, a scalar kind, whether an operation needs credentials, an HTTP
//! method, and what a column of the sync's tables holds.

use serde::{Deserialize, Serialize};

/// Where a fact comes from. Anything not from the interface document is marked, and only
/// `public_docs` facts may make the client stricter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The interface document (the mark `seed`). The default.
    #[default]
    Seed,
    /// STATED in the service's public documentation.
    PublicDocs,
    /// A deduction, not stated anywhere: it may only make the client more tolerant.
    Inferred,
    /// Seen only in third-party code that calls the service.
    ThirdParty,
}

/// What a column of the sync's tables holds, each dialect's type following from it: the
/// generator's SQL model (`generated/sql`) and the command-line tool's sync, which writes
/// those tables, read it alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Text,
    Integer,
    /// A 32-bit integer: `integer` in PostgreSQL (a list element's position).
    Int32,
    Real,
    Boolean,
    /// An instant: `timestamptz` in PostgreSQL; ISO 8601 text in UTC in SQLite.
    Timestamp,
    Date,
    /// A string, integer or boolean (a scalar union) as its text.
    Scalar,
    /// Any JSON: a map, an array of scalars, a `json` field.
    Json,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CharClass {
    /// ASCII letters and digits.
    AsciiAlphanumeric,
    /// ASCII digits.
    AsciiDigits,
}

/// The one statement of each character class, which every backend and the docs spell.
impl CharClass {
    /// Its name in the spec and in generated descriptors (`ascii_alphanumeric`).
    pub fn wire(self) -> &'static str {
        match self {
            CharClass::AsciiAlphanumeric => "ascii_alphanumeric",
            CharClass::AsciiDigits => "ascii_digits",
        }
    }

    /// What it allows, in words (`ASCII letters and digits`).
    pub fn description(self) -> &'static str {
        match self {
            CharClass::AsciiAlphanumeric => "ASCII letters and digits",
            CharClass::AsciiDigits => "ASCII digits",
        }
    }

    /// Every character it allows, in order (`0`-`9`, then `A`-`Z`, then `a`-`z`).
    pub fn characters(self) -> Vec<char> {
        match self {
            CharClass::AsciiAlphanumeric => ('0'..='9').chain('A'..='Z').chain('a'..='z').collect(),
            CharClass::AsciiDigits => ('0'..='9').collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ScalarKind {
    String,
    Integer,
    Boolean,
    Number,
    Null,
}

impl ScalarKind {
    /// Its JSON Schema type name, as the spec spells it (`string`, `integer`, ...).
    pub fn json_type(self) -> &'static str {
        match self {
            ScalarKind::String => "string",
            ScalarKind::Integer => "integer",
            ScalarKind::Boolean => "boolean",
            ScalarKind::Number => "number",
            ScalarKind::Null => "null",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuthUse {
    #[default]
    Required,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Method {
    GET,
    POST,
    PUT,
    PATCH,
    DELETE,
}

impl Method {
    /// The method as HTTP writes it (`GET`); every backend spells it from here.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::GET => "GET",
            Method::POST => "POST",
            Method::PUT => "PUT",
            Method::PATCH => "PATCH",
            Method::DELETE => "DELETE",
        }
    }
}
