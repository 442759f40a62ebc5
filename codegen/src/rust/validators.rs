//! `Validate` impls for request-side records, and the checks of one field or parameter,
//! generated from the spec's constraints.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::names;
use super::types::{Shape, shape};
use crate::ir::{
    Builtin, CharClass, CharRule, Field, Interface, TypeDef, TypeId, TypeKind, TypeRef,
};

/// One `impl Validate` per request-side object (its `one_of` choice and variants too).
pub fn validators(i: &Interface) -> TokenStream {
    let mut out = TokenStream::new();
    for t in i.types.iter().filter(|t| t.usage.request) {
        let TypeKind::Object(o) = &t.kind else {
            continue;
        };
        let checks = struct_checks(i, &o.fields);
        let one_of = o.one_of.as_ref().map(|one| {
            let ident = names::field_ident(&one.name);
            // Flattened on the wire, so its fields are checked at the top level.
            quote!(::inspection_runtime::Validate::collect_violations(&self.#ident, v);)
        });
        let extras = names::record_member(o, "additional_properties");
        let listed = o.wire_fields().map(|f| f.name.as_str());
        let extra = quote! {
            #one_of
            v.additional(&self.#extras, &[#(#listed),*]);
        };
        out.extend(impl_validate(
            &names::type_ident(&t.name),
            &checks,
            Some(extra),
        ));
        if let Some(one) = &o.one_of {
            let choice = names::type_ident(&one.type_name);
            let arms = one.variants.iter().map(|var| {
                let vi = names::variant_ident(&var.name);
                quote!(Self::#vi(fields) => ::inspection_runtime::Validate::collect_violations(fields, v),)
            });
            out.extend(quote! {
                impl ::inspection_runtime::Validate for #choice {
                    fn collect_violations(&self, v: &mut ::inspection_runtime::__private::Validator) {
                        match self {
                            #(#arms)*
                        }
                    }
                }
            });
            for var in &one.variants {
                let name =
                    quote::format_ident!("{}{}", one.type_name, names::variant_name(&var.name));
                out.extend(impl_validate(&name, &struct_checks(i, &var.fields), None));
            }
        }
    }
    out
}

/// The checks of a struct's own fields (`self.<field>`).
fn struct_checks(i: &Interface, fields: &[Field]) -> Vec<TokenStream> {
    fields
        .iter()
        .map(|f| {
            let ident = names::field_ident(&f.name);
            field_checks(i, f, &access(f, quote!(self.#ident)))
        })
        .collect()
}

fn impl_validate(
    name: &proc_macro2::Ident,
    checks: &[TokenStream],
    extra: Option<TokenStream>,
) -> TokenStream {
    let body = if checks.iter().all(TokenStream::is_empty) && extra.is_none() {
        quote!(let _ = v;)
    } else {
        quote!(#(#checks)* #extra)
    };
    quote! {
        impl ::inspection_runtime::Validate for #name {
            fn collect_violations(&self, v: &mut ::inspection_runtime::__private::Validator) {
                #body
            }
        }
    }
}

/// How a checked value is held: `T`, `Option<T>` or `Option<Option<T>>` at `place`.
pub enum Access {
    Plain(TokenStream),
    Optional(TokenStream),
    OptionalNullable(TokenStream),
}

impl Access {
    /// `Option<&T>`.
    fn value(&self) -> TokenStream {
        match self {
            Access::Plain(p) => quote!(Some(&#p)),
            Access::Optional(p) => quote!(#p.as_ref()),
            Access::OptionalNullable(p) => quote!(#p.as_ref().and_then(Option::as_ref)),
        }
    }

    /// `Option<&str>`, for strings (`deref`) or ids (`as_str`).
    fn text(&self, is_string: bool) -> TokenStream {
        match (self, is_string) {
            (Access::Plain(p), _) => quote!(Some(#p.as_str())),
            (Access::Optional(p), true) => quote!(#p.as_deref()),
            (Access::OptionalNullable(p), true) => quote!(#p.as_ref().and_then(|x| x.as_deref())),
            (_, false) => {
                let value = self.value();
                quote!(#value.map(|x| x.as_str()))
            }
        }
    }
}

/// How a struct field is held, from its shape on the request side.
pub fn access(f: &Field, place: TokenStream) -> Access {
    match shape(f, false) {
        Shape::Plain => Access::Plain(place),
        Shape::NullablePresent | Shape::Optional | Shape::Collection => Access::Optional(place),
        Shape::OptionalNullable => Access::OptionalNullable(place),
    }
}

/// The checks of one field or parameter; empty when it has none.
pub fn field_checks(i: &Interface, f: &Field, access: &Access) -> TokenStream {
    let value = access.value();
    let mut out = text_checks(i, f, access);
    out.extend(bound_checks(f, &value));
    out.extend(nested_checks(i, f, &value));
    out
}

/// The length and character checks of a string, an id or a record reference.
fn text_checks(i: &Interface, f: &Field, access: &Access) -> TokenStream {
    let value = access.value();
    let wire = f.name.as_str();
    let c = &f.constraints;
    let named = i.named(&f.ty);
    let id_max = match named.map(|t| &t.kind) {
        Some(TypeKind::Id { max_length, .. }) => *max_length,
        _ => None,
    };
    let is_string = matches!(f.ty, TypeRef::Builtin(Builtin::String | Builtin::Url));
    let is_record_ref = matches!(named.map(|t| &t.kind), Some(TypeKind::RecordRef(_)));
    // A record reference is checked in the form it is sent (`_<external id>`, `self`).
    let (prelude, as_str) = if is_record_ref {
        (
            quote!(let text = #value.map(|x| x.to_string());),
            quote!(text.as_deref()),
        )
    } else {
        (quote!(), access.text(is_string))
    };
    let mut checks = TokenStream::new();
    if let Some(max) = c.max_length.or(id_max) {
        let max = Literal::usize_unsuffixed(max as usize);
        checks.extend(quote!(v.max_length(#wire, #as_str, #max);));
    }
    if let Some(n) = c.length {
        let n = Literal::usize_unsuffixed(n as usize);
        checks.extend(quote!(v.length(#wire, #as_str, #n);));
    }
    if let Some(rule) = &c.chars {
        checks.extend(chars_check(f, rule, &as_str));
    }
    if is_record_ref && !checks.is_empty() {
        quote!({ #prelude #checks })
    } else {
        checks
    }
}

/// The check of the characters a text may hold (`as_str` is its `Option<&str>`).
fn chars_check(f: &Field, rule: &CharRule, as_str: &TokenStream) -> TokenStream {
    let wire = f.name.as_str();
    let class = match rule.allow {
        CharClass::AsciiAlphanumeric => {
            quote!(::inspection_runtime::__private::CharClass::AsciiAlphanumeric)
        }
        CharClass::AsciiDigits => {
            quote!(::inspection_runtime::__private::CharClass::AsciiDigits)
        }
    };
    let forbid = rule.forbid.as_str();
    // A secret's characters never reach a message, as in the other languages.
    let check = if f.sensitive {
        quote!(secret_chars)
    } else {
        quote!(chars)
    };
    quote!(v.#check(#wire, #as_str, #class, #forbid);)
}

/// The range check of a number and the item count check of a list (`value` is its
/// `Option<&T>`).
fn bound_checks(f: &Field, value: &TokenStream) -> TokenStream {
    let wire = f.name.as_str();
    let c = &f.constraints;
    let mut out = TokenStream::new();
    if c.min.is_some() || c.max.is_some() {
        let widen = match f.ty {
            TypeRef::Builtin(Builtin::Int32) => quote!(#value.map(|x| i64::from(*x))),
            _ => quote!(#value.copied()),
        };
        let min = option(c.min.map(Literal::i64_unsuffixed));
        let max = option(c.max.map(Literal::i64_unsuffixed));
        out.extend(quote!(v.range(#wire, #widen, #min, #max);));
    }
    if c.min_items.is_some() || c.max_items.is_some() {
        let min = option(c.min_items.map(|n| Literal::usize_unsuffixed(n as usize)));
        let max = option(c.max_items.map(|n| Literal::usize_unsuffixed(n as usize)));
        out.extend(quote!(v.items(#wire, #value.map(|x| x.len()), #min, #max);));
    }
    out
}

/// The checks of a nested request record (or list of them), which carries limits of its
/// own; a JSON-encoded query value is checked as the record it encodes.
fn nested_checks(i: &Interface, f: &Field, value: &TokenStream) -> TokenStream {
    let wire = f.name.as_str();
    let nested_object = |id: TypeId| {
        let t = i.ty(id);
        t.usage.request && matches!(t.kind, TypeKind::Object(_))
    };
    let target = match &f.ty {
        TypeRef::JsonEncoded(inner) => inner.as_ref(),
        other => other,
    };
    match target {
        TypeRef::Named(n) if nested_object(*n) => {
            quote!(if let Some(x) = #value { v.nested(#wire, x); })
        }
        TypeRef::Array(inner)
            if inner.named().is_some_and(nested_object) && matches!(**inner, TypeRef::Named(_)) =>
        {
            quote!(if let Some(x) = #value { v.each(#wire, x); })
        }
        _ => quote!(),
    }
}

fn option<T: quote::ToTokens>(v: Option<T>) -> TokenStream {
    match v {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    }
}

/// Whether a type gets an `impl Validate` (used to decide what builders can check).
pub fn has_validate(t: &TypeDef) -> bool {
    t.usage.request && matches!(t.kind, TypeKind::Object(_))
}
