//! The checks of a value's documented limits, for the backends that write them out as
//! code (Go, Java): which limits reach a value of a type, down its lists and maps, is
//! walked here once; each language spells the checks ([`Spelling`]).

use crate::ir::{Builtin, Constraints, Field, Interface, TypeId, TypeKind, TypeRef};

/// How a language writes each check; every method gives the statement(s) as text.
pub trait Spelling {
    /// The interface whose types the values are of.
    fn interface(&self) -> &Interface;
    /// A string's (or URL's) documented length and characters, when any is documented.
    fn string(&self, limits: &Constraints, secret: bool, value: &str, path: &str)
    -> Option<String>;
    /// A number's bounds (`builtin`: which number), at least one of them documented.
    fn range(&self, builtin: Builtin, limits: &Constraints, value: &str, path: &str) -> String;
    /// A value of the named type `id` (of kind `kind`): its own check, if it has one.
    fn named(
        &self,
        id: TypeId,
        kind: &TypeKind,
        secret: bool,
        value: &str,
        path: &str,
    ) -> Option<String>;
    /// The name and path of an item of a list (`list`) or a value of a map at `depth`.
    fn element(&self, list: bool, path: &str, depth: usize) -> (String, String);
    /// A list's count (when documented) and its items' check `each`; none when neither.
    fn list(
        &self,
        limits: &Constraints,
        each: Option<String>,
        value: &str,
        path: &str,
        depth: usize,
    ) -> Option<String>;
    /// A map whose every value is checked by `each`.
    fn map(&self, each: String, value: &str, path: &str, depth: usize) -> String;
}

/// The check of a field's `value` at `path`, by its type and documented limits.
pub fn of_field(s: &impl Spelling, f: &Field, value: &str, path: &str) -> Option<String> {
    check(s, &f.ty, &f.constraints, f.sensitive, value, path, 0)
}

/// The check of `value` (of `ty`, with a field's `limits`, `secret` when its value must
/// not show) at the path expression `path`; none where nothing is documented. `depth`
/// numbers the variables of nested lists and maps.
pub fn check(
    s: &impl Spelling,
    ty: &TypeRef,
    limits: &Constraints,
    secret: bool,
    value: &str,
    path: &str,
    depth: usize,
) -> Option<String> {
    match ty {
        TypeRef::Builtin(Builtin::String | Builtin::Url) => s.string(limits, secret, value, path),
        TypeRef::Builtin(b @ (Builtin::Integer | Builtin::Int32 | Builtin::Number)) => {
            let bounded = limits.min.is_some() || limits.max.is_some();
            bounded.then(|| s.range(*b, limits, value, path))
        }
        TypeRef::Builtin(_) | TypeRef::Page(_) => None,
        TypeRef::Named(id) => s.named(*id, &s.interface().ty(*id).kind, secret, value, path),
        TypeRef::Array(item) => {
            let (x, at) = s.element(true, path, depth);
            let each = check(s, item, limits, secret, &x, &at, depth + 1);
            s.list(limits, each, value, path, depth)
        }
        TypeRef::Map(item) => {
            let (x, at) = s.element(false, path, depth);
            let each = check(s, item, limits, secret, &x, &at, depth + 1);
            each.map(|e| s.map(e, value, path, depth))
        }
        TypeRef::JsonEncoded(inner) => check(s, inner, limits, secret, value, path, depth),
    }
}
