//! Support for string enums: an open enum keeps an unknown value, opaque, and writes it back
//! unchanged; a closed one refuses it, naming the values it knows.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Visitor};

/// A value of an open enum that this version of the client does not know.
///
/// It is deliberately opaque (smithy-rs does the same): code cannot match on a specific
/// unknown string, so it keeps compiling, and keeps meaning the same thing, when a later
/// release learns the value and gives it a variant of its own.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnknownValue(String);

impl UnknownValue {
    /// Wraps a value. Generated enums call this only for strings they do not know.
    #[doc(hidden)]
    pub fn new(value: impl Into<String>) -> Self {
        UnknownValue(value.into())
    }

    /// The value exactly as the service sent it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Deserializes any `T: From<&str>` from a JSON string without an intermediate `String`.
pub struct FromStrVisitor<T> {
    expecting: &'static str,
    marker: PhantomData<T>,
}

impl<T> FromStrVisitor<T> {
    /// `expecting` completes "invalid type: ..., expected {expecting}".
    pub fn new(expecting: &'static str) -> Self {
        FromStrVisitor {
            expecting,
            marker: PhantomData,
        }
    }
}

impl<T: for<'a> From<&'a str>> Visitor<'_> for FromStrVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok(T::from(v))
    }
}

/// Deserializes a closed enum from a JSON string: `parse` gives the variant of a known
/// value, and any other is refused with the values it could be.
pub struct ClosedVisitor<T> {
    expecting: &'static str,
    known: &'static [&'static str],
    parse: fn(&str) -> Option<T>,
}

impl<T> ClosedVisitor<T> {
    /// `expecting` completes "invalid type: ..., expected {expecting}".
    pub fn new(
        expecting: &'static str,
        known: &'static [&'static str],
        parse: fn(&str) -> Option<T>,
    ) -> Self {
        ClosedVisitor {
            expecting,
            known,
            parse,
        }
    }
}

impl<T> Visitor<'_> for ClosedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).ok_or_else(|| E::unknown_variant(v, self.known))
    }
}
