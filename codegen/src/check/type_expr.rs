//! Type expressions (`name`, `array<T>`, `map<T>`, `page<T>`, `json<T>`): parsed, then
//! resolved against builtins and declared names.

use serde_saphyr::Spanned;

use crate::ir::{Builtin, TypeRef};

use super::Checker;

/// Where a type expression may appear; some forms are allowed in one place only.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Position {
    Field,
    Query,
    Body,
    Response,
}

impl<'a> Checker<'a> {
    /// Parses `name`, `array<T>`, `map<T>` and `page<T>`, resolving names.
    pub(super) fn type_expr(
        &mut self,
        expr: &Spanned<String>,
        position: Position,
    ) -> Option<TypeRef> {
        match parse_type_expr(&expr.value, 0) {
            Ok(parsed) => self.resolve(expr, parsed, position, true),
            Err(why) => {
                self.error(
                    expr,
                    format!("`{}` is not a type expression: {why}", super::clip(&expr.value)),
                    "write a builtin, a declared type name, `array<T>`, `map<T>`, `page<T>` (responses) or `json<T>` (query parameters)",
                );
                None
            }
        }
    }

    fn resolve(
        &mut self,
        at: &Spanned<String>,
        parsed: Parsed,
        position: Position,
        outermost: bool,
    ) -> Option<TypeRef> {
        Some(match parsed {
            Parsed::Name(name) => {
                if let Some(b) = Builtin::from_name(&name) {
                    let whole_body =
                        outermost && matches!(position, Position::Response | Position::Body);
                    if b == Builtin::Binary && !whole_body {
                        self.error(
                            at,
                            "`binary` is only a whole request or response body",
                            "use `string` for text fields",
                        );
                    }
                    TypeRef::Builtin(b)
                } else if let Some(id) = self.ids.get(&name) {
                    TypeRef::Named(*id)
                } else {
                    self.unknown_type(at, &name);
                    return None;
                }
            }
            Parsed::Array(inner) => {
                TypeRef::Array(Box::new(self.resolve(at, *inner, position, false)?))
            }
            Parsed::Map(inner) => {
                TypeRef::Map(Box::new(self.resolve(at, *inner, position, false)?))
            }
            Parsed::Page(inner) => {
                if position != Position::Response || !outermost {
                    self.error(
                        at,
                        "`page<T>` is only allowed as a whole response body",
                        "use `array<T>` inside records and request bodies",
                    );
                }
                TypeRef::Page(Box::new(self.resolve(at, *inner, position, false)?))
            }
            Parsed::Json(inner) => {
                if position != Position::Query || !outermost {
                    self.error(
                        at,
                        "`json<T>` is only allowed as a whole query parameter type",
                        "use `T` itself in records and bodies",
                    );
                }
                TypeRef::JsonEncoded(Box::new(self.resolve(at, *inner, position, false)?))
            }
        })
    }
}

#[derive(Debug, PartialEq)]
enum Parsed {
    Name(String),
    Array(Box<Parsed>),
    Map(Box<Parsed>),
    Page(Box<Parsed>),
    Json(Box<Parsed>),
}

/// How deep `array<map<...>>` may nest: far beyond any real type, and shallow enough that
/// no later pass (resolution, rendering in every language) can run out of stack.
const MAX_NESTING: usize = 16;

fn parse_type_expr(s: &str, depth: usize) -> Result<Parsed, String> {
    if depth > MAX_NESTING {
        return Err(format!("it nests deeper than {MAX_NESTING} levels"));
    }
    let s = s.trim();
    for (prefix, wrap) in [
        ("array<", Parsed::Array as fn(Box<Parsed>) -> Parsed),
        ("map<", Parsed::Map),
        ("page<", Parsed::Page),
        ("json<", Parsed::Json),
    ] {
        if let Some(rest) = s.strip_prefix(prefix) {
            let inner = rest
                .strip_suffix('>')
                .ok_or_else(|| format!("`{prefix}` is never closed with `>`"))?;
            return Ok(wrap(Box::new(parse_type_expr(inner, depth + 1)?)));
        }
    }
    if s.is_empty() {
        return Err("it is empty".to_string());
    }
    if !s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err("a name holds only letters, digits, `-` and `_`".to_string());
    }
    Ok(Parsed::Name(s.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_expressions_nest() {
        assert_eq!(
            parse_type_expr("array<map<Unit>>", 0),
            Ok(Parsed::Array(Box::new(Parsed::Map(Box::new(
                Parsed::Name("Unit".into())
            )))))
        );
        assert!(parse_type_expr("array<Unit", 0).is_err());
        assert!(parse_type_expr("Un it", 0).is_err());
        // Deep nesting is refused, never a stack overflow in a later pass.
        let deep = format!("{}Unit{}", "array<".repeat(5000), ">".repeat(5000));
        let why = parse_type_expr(&deep, 0).unwrap_err();
        assert!(why.contains("deeper than 16"), "{why}");
        let ok = format!("{}Unit{}", "array<".repeat(16), ">".repeat(16));
        assert!(parse_type_expr(&ok, 0).is_ok());
    }
}
