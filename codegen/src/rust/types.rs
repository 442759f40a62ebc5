//! Rust types for spec type references, and how a field wraps them.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::names;
use crate::ir::{Builtin, Field, Interface, TypeKind, TypeRef};

pub fn rust_type(i: &Interface, ty: &TypeRef) -> TokenStream {
    match ty {
        TypeRef::Builtin(b) => builtin(*b),
        TypeRef::Named(n) => {
            let id = names::type_ident(&i.ty(*n).name);
            quote!(#id)
        }
        TypeRef::Array(inner) => {
            let inner = rust_type(i, inner);
            quote!(Vec<#inner>)
        }
        TypeRef::Map(inner) if **inner == TypeRef::Builtin(Builtin::Json) => {
            quote!(serde_json::Map<String, serde_json::Value>)
        }
        TypeRef::Map(inner) => {
            let inner = rust_type(i, inner);
            quote!(std::collections::BTreeMap<String, #inner>)
        }
        TypeRef::Page(inner) => {
            let inner = rust_type(i, inner);
            quote!(Page<#inner>)
        }
        // Held typed; encoded as JSON text only when sent.
        TypeRef::JsonEncoded(inner) => rust_type(i, inner),
    }
}

fn builtin(b: Builtin) -> TokenStream {
    match b {
        Builtin::String | Builtin::Url => quote!(String),
        Builtin::Integer => quote!(i64),
        Builtin::Int32 => quote!(i32),
        Builtin::Boolean => quote!(bool),
        Builtin::Number => quote!(f64),
        Builtin::Date => quote!(chrono::NaiveDate),
        Builtin::DateTime => quote!(chrono::DateTime<chrono::Utc>),
        Builtin::DateOrDateTime => quote!(::inspection_runtime::DateOrDateTime),
        Builtin::DateTimeOrRange => quote!(::inspection_runtime::TimeOrRange),
        Builtin::Json => quote!(serde_json::Value),
        Builtin::Binary => quote!(Vec<u8>),
    }
}

/// How a field is held in its struct, which follows from whether it is required, whether it
/// may be null, and which side of the wire the struct is on.
pub enum Shape {
    /// Always present: `T`.
    Plain,
    /// Always present, may be null: `Option<T>`, written as `null`.
    NullablePresent,
    /// A collection in a response: absent or null reads as empty.
    Collection,
    /// May be absent: `Option<T>`, omitted when `None`.
    Optional,
    /// May be absent or null: `Option<Option<T>>`.
    OptionalNullable,
}

pub fn shape(f: &Field, response_side: bool) -> Shape {
    let collection = matches!(f.ty, TypeRef::Array(_) | TypeRef::Map(_));
    match (f.required, f.nullable) {
        (true, false) => Shape::Plain,
        (true, true) => Shape::NullablePresent,
        (false, false) if collection && response_side => Shape::Collection,
        (false, false) => Shape::Optional,
        (false, true) => Shape::OptionalNullable,
    }
}

/// The Rust type a struct holds for field `f`: its type, wrapped as its shape says.
pub fn held_type(i: &Interface, f: &Field, response_side: bool) -> TokenStream {
    let ty = rust_type(i, &f.ty);
    match shape(f, response_side) {
        Shape::Plain | Shape::Collection => ty,
        Shape::NullablePresent | Shape::Optional => quote!(Option<#ty>),
        Shape::OptionalNullable => quote!(Option<Option<#ty>>),
    }
}

/// How a record's generated `Deserialize` reads a field's value (see `decode.rs`).
pub enum Read {
    /// The field's type as serde reads it.
    Value,
    /// A response's collection: `null` reads as empty.
    NullAsEmpty,
    /// May be absent or null: a present property is `Some`, `null` included.
    Present,
    /// A response's required date-time, read tolerantly.
    DateTime,
    /// A response's optional (or nullable) date-time, read tolerantly.
    DateTimeOpt,
    /// A response's optional, nullable date-time: present is `Some`, `null` included.
    DateTimePresent,
}

pub fn read(f: &Field, response_side: bool) -> Read {
    let date_time = response_side && matches!(f.ty, TypeRef::Builtin(Builtin::DateTime));
    match (shape(f, response_side), date_time) {
        (Shape::Collection, _) => Read::NullAsEmpty,
        (Shape::OptionalNullable, false) => Read::Present,
        (Shape::OptionalNullable, true) => Read::DateTimePresent,
        (Shape::Plain, true) => Read::DateTime,
        (_, true) => Read::DateTimeOpt,
        _ => Read::Value,
    }
}

/// A parameter a caller passes for field `f`, as a constructor, client method or setter
/// takes it: its name, its type (`impl Into<..>` for strings, ids and
/// date-or-date-times), the value to store (`name` or `name.into()`), and whether that
/// value converts.
pub fn arg(i: &Interface, f: &Field) -> (Ident, TokenStream, TokenStream, bool) {
    let ident = names::field_ident(&f.name);
    let (ty, into) = arg_type(i, f);
    let value = if into {
        quote!(#ident.into())
    } else {
        quote!(#ident)
    };
    (ident, ty, value, into)
}

/// The argument type a caller passes for a value of `f`: strings, ids and
/// date-or-date-times by `Into`; `true` when the argument needs `.into()`.
fn arg_type(i: &Interface, f: &Field) -> (TokenStream, bool) {
    match &f.ty {
        TypeRef::Builtin(Builtin::String | Builtin::Url) => (quote!(impl Into<String>), true),
        TypeRef::Builtin(Builtin::DateOrDateTime) => (
            quote!(impl Into<::inspection_runtime::DateOrDateTime>),
            true,
        ),
        TypeRef::Builtin(Builtin::DateTimeOrRange) => {
            (quote!(impl Into<::inspection_runtime::TimeOrRange>), true)
        }
        TypeRef::Named(n)
            if matches!(i.ty(*n).kind, TypeKind::Id { .. } | TypeKind::RecordRef(_)) =>
        {
            let ty = names::type_ident(&i.ty(*n).name);
            (quote!(impl Into<#ty>), true)
        }
        other => (rust_type(i, other), false),
    }
}
