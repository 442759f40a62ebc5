//! The checks of a value's documented limits, for the backends that write them out as
//! code (Go, Java): which limits reach a value of a type, down its lists and maps, is
//! walked here once; each language spells the checks ([`Spelling`]).

use crate::ir::{Builtin, Constraints, Field, Interface, TypeId, TypeKind, TypeRef};

/// A value a check reads: its expression and the expression of its path.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub value: &'a str,
    pub path: &'a str,
}

/// How a language writes each check; every method gives the statement(s) as text.
pub trait Spelling {
    /// The interface whose types the values are of.
    fn interface(&self) -> &Interface;
    /// A string's (or URL's) documented length and characters (one at least documented).
    fn string(&self, limits: &Constraints, secret: bool, at: At) -> String;
    /// A number's bounds (`builtin`: which number), at least one of them documented.
    fn range(&self, builtin: Builtin, limits: &Constraints, at: At) -> String;
    /// A value of the named type `id` (of kind `kind`): its own check, if it has one.
    fn named(&self, id: TypeId, kind: &TypeKind, secret: bool, at: At) -> Option<String>;
    /// The name and path of an item of a list (`list`) or a value of a map at `depth`.
    fn element(&self, list: bool, path: &str, depth: usize) -> (String, String);
    /// A list's count (when documented) and its items' check `each`; none when neither.
    fn list(
        &self,
        limits: &Constraints,
        each: Option<String>,
        at: At,
        depth: usize,
    ) -> Option<String>;
    /// A map whose every value is checked by `each`.
    fn map(&self, each: String, at: At, depth: usize) -> String;
}

/// The check of a field's `value` at `path`, by its type and documented limits.
pub fn of_field(s: &impl Spelling, f: &Field, value: &str, path: &str) -> Option<String> {
    check(s, &f.ty, &f.constraints, f.sensitive, At { value, path }, 0)
}

/// The check of a request's whole body `value` (of `ty`), at the root's path (`""`).
pub fn of_body(s: &impl Spelling, ty: &TypeRef, value: &str) -> Option<String> {
    let at = At {
        value,
        path: "\"\"",
    };
    check(s, ty, &Constraints::default(), false, at, 0)
}

/// The check of a value (of `ty`, with a field's `limits`, `secret` when it must not
/// show) at `at`; none where nothing is documented. `depth` numbers the variables of
/// nested lists and maps.
pub fn check(
    s: &impl Spelling,
    ty: &TypeRef,
    limits: &Constraints,
    secret: bool,
    at: At,
    depth: usize,
) -> Option<String> {
    match ty {
        TypeRef::Builtin(Builtin::String | Builtin::Url) => {
            let documented =
                limits.max_length.is_some() || limits.length.is_some() || limits.chars.is_some();
            documented.then(|| s.string(limits, secret, at))
        }
        TypeRef::Builtin(b @ (Builtin::Integer | Builtin::Int32 | Builtin::Number)) => {
            let bounded = limits.min.is_some() || limits.max.is_some();
            bounded.then(|| s.range(*b, limits, at))
        }
        TypeRef::Builtin(_) | TypeRef::Page(_) => None,
        TypeRef::Named(id) => s.named(*id, &s.interface().ty(*id).kind, secret, at),
        TypeRef::Array(item) => {
            let (value, path) = s.element(true, at.path, depth);
            let inner = At {
                value: &value,
                path: &path,
            };
            let each = check(s, item, limits, secret, inner, depth + 1);
            s.list(limits, each, at, depth)
        }
        TypeRef::Map(item) => {
            let (value, path) = s.element(false, at.path, depth);
            let inner = At {
                value: &value,
                path: &path,
            };
            let each = check(s, item, limits, secret, inner, depth + 1);
            each.map(|e| s.map(e, at, depth))
        }
        TypeRef::JsonEncoded(inner) => check(s, inner, limits, secret, at, depth),
    }
}
