//! The checks of a value's documented limits, for the backends that write them out as
//! code (Go, Java): which limits reach a value of a type, down its lists and maps, is
//! walked here once; each language spells the checks ([`Spelling`]).

use crate::ir::{Builtin, Constraints, Field, Interface, TypeId, TypeKind, TypeRef};

/// A value a check reads: its expression, the expression of its path, and how many lists
/// and maps it is inside (which numbers the variables of a nested check).
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub value: &'a str,
    pub path: &'a str,
    pub depth: usize,
}

impl<'a> At<'a> {
    /// A value inside no list or map.
    pub fn top(value: &'a str, path: &'a str) -> Self {
        At {
            value,
            path,
            depth: 0,
        }
    }
}

/// A string's documented limits: its lengths, and its characters' rule as the allowed
/// class's wire name (none: any) and the forbidden characters (empty: none).
pub struct Text<'a> {
    pub max_length: Option<u32>,
    pub length: Option<u32>,
    pub allow: Option<&'a str>,
    pub forbid: &'a str,
}

/// How a language writes each check; every method gives the statement(s) as text.
pub trait Spelling {
    /// The interface whose types the values are of.
    fn interface(&self) -> &Interface;
    /// A string's (or URL's) documented length and characters (one at least documented).
    fn string(&self, text: Text, secret: bool, at: At) -> String;
    /// A number's bounds (`builtin`: which number), at least one of them documented.
    fn range(&self, builtin: Builtin, limits: &Constraints, at: At) -> String;
    /// A value of the named type `id` (of kind `kind`): its own check, if it has one.
    fn named(&self, id: TypeId, kind: &TypeKind, secret: bool, at: At) -> Option<String>;
    /// The name and path of an item of the list (`list`) or a value of the map at `at`.
    fn element(&self, list: bool, at: At) -> (String, String);
    /// A list's count (when documented) and its items' check `each`; none when neither.
    fn list(&self, limits: &Constraints, each: Option<String>, at: At) -> Option<String>;
    /// A map whose every value is checked by `each`.
    fn map(&self, each: String, at: At) -> String;
}

/// The check of a field's `value` at `path`, by its type and documented limits.
pub fn of_field(s: &impl Spelling, f: &Field, value: &str, path: &str) -> Option<String> {
    check(s, &f.ty, &f.constraints, f.sensitive, At::top(value, path))
}

/// The check of a request's whole body `value` (of `ty`), at the root's path (`""`).
pub fn of_body(s: &impl Spelling, ty: &TypeRef, value: &str) -> Option<String> {
    let at = At::top(value, "\"\"");
    check(s, ty, &Constraints::default(), false, at)
}

/// The check of a value (of `ty`, with a field's `limits`, `secret` when it must not
/// show) at `at`; none where nothing is documented.
pub fn check(
    s: &impl Spelling,
    ty: &TypeRef,
    limits: &Constraints,
    secret: bool,
    at: At,
) -> Option<String> {
    match ty {
        TypeRef::Builtin(Builtin::String | Builtin::Url) => {
            let documented =
                limits.max_length.is_some() || limits.length.is_some() || limits.chars.is_some();
            let chars = limits.chars.as_ref();
            let text = Text {
                max_length: limits.max_length,
                length: limits.length,
                allow: chars.map(|rule| rule.allow.wire()),
                forbid: chars.map_or("", |rule| &rule.forbid),
            };
            documented.then(|| s.string(text, secret, at))
        }
        TypeRef::Builtin(b @ (Builtin::Integer | Builtin::Int32 | Builtin::Number)) => {
            let bounded = limits.min.is_some() || limits.max.is_some();
            bounded.then(|| s.range(*b, limits, at))
        }
        TypeRef::Builtin(_) | TypeRef::Page(_) => None,
        TypeRef::Named(id) => s.named(*id, &s.interface().ty(*id).kind, secret, at),
        TypeRef::Array(item) => {
            let each = inside(s, true, item, limits, secret, at);
            s.list(limits, each, at)
        }
        TypeRef::Map(item) => inside(s, false, item, limits, secret, at).map(|e| s.map(e, at)),
        TypeRef::JsonEncoded(inner) => check(s, inner, limits, secret, at),
    }
}

/// The check of each item (of type `item`) of the list (`list`) or map at `at`.
fn inside(
    s: &impl Spelling,
    list: bool,
    item: &TypeRef,
    limits: &Constraints,
    secret: bool,
    at: At,
) -> Option<String> {
    let (value, path) = s.element(list, at);
    let inner = At {
        value: &value,
        path: &path,
        depth: at.depth + 1,
    };
    check(s, item, limits, secret, inner)
}
