//! Operations: names, routes, path and query parameters, bodies, responses, paging.

use std::collections::BTreeMap;

use heck::ToSnakeCase;
use serde_saphyr::Spanned;

use crate::ir::{self, TypeRef};
use crate::spec::{self, OrderedMap};

use super::Checker;
use super::names::{place, repeated};
use super::type_expr::Position;

/// The members of every request builder (Rust): a parameter's setter named like one would
/// not compile.
const BUILDER_MEMBERS: &[&str] = &[
    "core",
    "request_options",
    "body",
    "resume",
    "to_request",
    "send",
    "send_to",
    "send_stream",
    "pages",
    "stream",
    "pdf",
    "pdf_to",
    "pdf_stream",
    "bytes",
    "bytes_to",
    "bytes_stream",
];

impl<'a> Checker<'a> {
    pub(super) fn operations(
        &mut self,
        ops: &OrderedMap<spec::OperationDef>,
        has_pagination: bool,
        links_pagination: bool,
    ) -> Vec<ir::Operation> {
        let mut routes: BTreeMap<(String, String), &Spanned<String>> = BTreeMap::new();
        // Each path shape as first written: one shape must name its parameters alike in
        // every operation (OpenAPI and the sandbox's router take two spellings for two
        // paths that clash).
        let mut shapes: BTreeMap<String, (&str, &Spanned<String>)> = BTreeMap::new();
        let mut out = Vec::new();
        for ((name, op), first) in ops.iter().zip(repeated(ops)) {
            if let Some(first) = first {
                self.error(
                    name,
                    format!(
                        "operation `{}` is declared twice (first at {})",
                        name.value,
                        place(first)
                    ),
                    "give each operation a unique name",
                );
                continue;
            }
            self.operation_name(name);
            self.route(name, op, &mut routes, &mut shapes);
            if let Some(ir_op) = self.operation(name, op, has_pagination, links_pagination) {
                out.push(ir_op);
            }
        }
        out
    }

    /// An operation's name is snake_case and none the outputs use themselves.
    fn operation_name(&mut self, name: &Spanned<String>) {
        if name.value.to_snake_case() != name.value {
            self.error(
                name,
                format!("operation name `{}` is not snake_case", name.value),
                format!("rename it `{}`", name.value.to_snake_case()),
            );
        } else if let Some(language) = crate::backend::refusing_operation_name(&name.value) {
            self.error(
                name,
                format!(
                    "operation name `{}` is one the {language} output uses itself",
                    name.value
                ),
                "rename it",
            );
        }
    }

    /// An operation's method and path are no other's, and its path names its parameters
    /// as every other operation on the same path shape does.
    fn route<'s>(
        &mut self,
        name: &'s Spanned<String>,
        op: &'s spec::OperationDef,
        routes: &mut BTreeMap<(String, String), &'s Spanned<String>>,
        shapes: &mut BTreeMap<String, (&'s str, &'s Spanned<String>)>,
    ) {
        let route = (format!("{:?}", op.method), normalize_path(&op.path.value));
        if let Some(prev) = routes.get(&route) {
            let msg = format!(
                "operation `{}` repeats {} {} of operation `{}`",
                name.value, route.0, op.path.value, prev.value
            );
            self.error(
                &op.path,
                msg,
                "remove one of the two operations, or fix its method or path",
            );
        } else {
            routes.insert(route.clone(), name);
            match shapes.get(&route.1) {
                Some((path, prev)) if *path != op.path.value => {
                    let msg = format!(
                        "operation `{}` writes the path {} as {}, where operation `{}` \
                     writes {}",
                        name.value, route.1, op.path.value, prev.value, path
                    );
                    self.error(
                        &op.path,
                        msg,
                        format!(
                            "name its parameters as `{}` does: `{path}` (OpenAPI and \
                         routers take the two for different paths that clash)",
                            prev.value
                        ),
                    );
                }
                Some(_) => {}
                None => {
                    shapes.insert(route.1, (op.path.value.as_str(), name));
                }
            }
        }
    }

    /// Only a JSON body may be optional: a client sends bytes as given, so a body of bytes
    /// has no absent form to offer.
    fn optional_body(&mut self, def: &spec::BodyDef, body: &ir::Body) {
        let Some(optional) = def.optional.as_ref().filter(|o| o.value) else {
            return;
        };
        if !matches!(body.ty, ir::TypeRef::Builtin(ir::Builtin::Binary)) && body.is_json() {
            return;
        }
        self.error(
            optional,
            format!("a `{}` body cannot be optional", body.content_type),
            "only a JSON body may be `optional: true`; drop the key",
        );
    }

    fn operation(
        &mut self,
        name: &Spanned<String>,
        op: &spec::OperationDef,
        has_pagination: bool,
        links_pagination: bool,
    ) -> Option<ir::Operation> {
        self.operation_path(name, op);
        let body = op.body.as_ref().and_then(|b| {
            let body = ir::Body {
                ty: self.type_expr(&b.ty, Position::Body)?,
                content_type: b.content_type.clone().unwrap_or_else(json),
                doc: b.doc.clone(),
                optional: b.optional.as_ref().is_some_and(|o| o.value),
            };
            self.optional_body(b, &body);
            Some(body)
        });
        self.parameter_names(op, body.as_ref());
        let path_params = self.fields_at(&op.path_params, Position::Field);
        let query = self.fields_at(&op.query, Position::Query);
        let responses = self.responses(&op.responses)?;
        self.operation_paging(name, op, &responses, has_pagination, links_pagination);
        Some(ir::Operation {
            name: name.value.clone(),
            doc: op.doc.clone(),
            method: op.method,
            path: op.path.value.clone(),
            path_params,
            query,
            body,
            paginated: op.paginated,
            items_field: op.items_field.as_ref().map(|f| f.value.clone()),
            responses,
            errors: self.status_docs(&op.errors),
            auth: op.auth,
            manager_only: op.manager_only,
            internal: op.internal,
            not_shown: op.not_shown.clone(),
            source: op.source,
            answer: ir::Answer::default(), // decided by `ir::resolve`
            paging: None,
            call: ir::CallPlan::default(), // planned by `ir::resolve`
        })
    }

    /// The path: it starts with `/`, is well formed, and its placeholders and `path_params`
    /// name each other.
    fn operation_path(&mut self, name: &Spanned<String>, op: &spec::OperationDef) {
        let path = &op.path.value;
        if !path.starts_with('/') {
            self.error(
                &op.path,
                format!("path `{path}` does not start with `/`"),
                "write it relative to the base URL, starting with `/`",
            );
        }
        let placeholders = match path_placeholders(path) {
            Ok(p) => p,
            Err(why) => {
                self.error(
                    &op.path,
                    format!("path `{path}` is malformed: {why}"),
                    "write parameters as `{name}`",
                );
                Vec::new()
            }
        };
        for p in &placeholders {
            if !op.path_params.iter().any(|(k, _)| &k.value == p) {
                self.error(
                    &op.path,
                    format!("path parameter `{{{p}}}` of operation `{}` has no entry under `path_params`", name.value),
                    format!("add `{p}: {{ type: string, doc: ... }}` under `path_params`, or fix the placeholder's spelling"),
                );
            }
        }
        for (k, _) in op.path_params.iter() {
            if !placeholders.contains(&k.value) {
                self.error(
                    k,
                    format!(
                        "path parameter `{}` does not appear in path `{path}`",
                        k.value
                    ),
                    format!("add `{{{}}}` to the path, or remove the parameter", k.value),
                );
            }
        }
    }

    /// Path and query parameters become fields and setters of one builder: checked
    /// together, once, and never named like the builder's own members (a binary body
    /// also has `content_type`).
    fn parameter_names(&mut self, op: &spec::OperationDef, body: Option<&ir::Body>) {
        let params: Vec<&Spanned<String>> = op
            .path_params
            .iter()
            .chain(op.query.iter())
            .map(|(k, _)| k)
            .collect();
        let binary_body = body.is_some_and(|b| b.ty == ir::TypeRef::Builtin(ir::Builtin::Binary));
        let mut reserved = BUILDER_MEMBERS.to_vec();
        if binary_body {
            reserved.push("content_type");
        }
        self.identifiers(&params, "parameter", &reserved);
    }

    /// The responses, or `None` at the first whose body type is refused.
    fn responses(&mut self, responses: &[spec::ResponseDef]) -> Option<Vec<ir::Response>> {
        let mut out = Vec::new();
        for r in responses {
            if !(100..600).contains(&r.status.value) {
                self.error(
                    &r.status,
                    format!("`{}` is not an HTTP status", r.status.value),
                    "use a number from 100 to 599",
                );
            }
            let body = match &r.body {
                Some(b) => Some(self.type_expr(b, Position::Response)?),
                None => None,
            };
            out.push(ir::Response {
                status: r.status.value,
                content_type: r.content_type.clone().unwrap_or_else(json),
                body,
                doc: r.doc.clone(),
                not_shown: r.not_shown.clone(),
            });
        }
        Some(out)
    }

    /// A paginated operation: links paging names its `items_field`; cursor paging needs the
    /// interface's `pagination` and a `page<T>` answer.
    fn operation_paging(
        &mut self,
        name: &Spanned<String>,
        op: &spec::OperationDef,
        responses: &[ir::Response],
        has_pagination: bool,
        links_pagination: bool,
    ) {
        if op.paginated && links_pagination {
            if op.items_field.is_none() {
                self.error(
                    name,
                    format!(
                        "links-paginated operation `{}` names no `items_field`",
                        name.value
                    ),
                    "add `items_field:` with the envelope property that holds the records",
                );
            }
        } else if op.paginated {
            let pages = responses
                .iter()
                .any(|r| matches!(r.body, Some(TypeRef::Page(_))));
            if !has_pagination {
                self.error(
                    name,
                    format!(
                        "operation `{}` is paginated, but the interface declares no `pagination`",
                        name.value
                    ),
                    "declare `interface.pagination`, or remove `paginated`",
                );
            } else if !pages {
                self.error(
                    name,
                    format!(
                        "operation `{}` is paginated but no response is a `page<T>`",
                        name.value
                    ),
                    "answer `page<T>` with the record type",
                );
            }
        }
    }
}

fn json() -> String {
    "application/json".to_string()
}

/// A path with its parameter names erased, so `/a/{x}` and `/a/{y}` compare equal.
fn normalize_path(path: &str) -> String {
    let mut out = String::new();
    let mut in_param = false;
    for ch in path.chars() {
        match ch {
            '{' => {
                in_param = true;
                out.push_str("{}");
            }
            '}' => in_param = false,
            _ if !in_param => out.push(ch),
            _ => {}
        }
    }
    out
}

/// The `{name}` placeholders of a path, in order.
pub fn path_placeholders(path: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let end = after.find('}').ok_or("a `{` is never closed")?;
        let name = &after[..end];
        if name.is_empty() || name.contains('{') {
            return Err("a placeholder has no name".to_string());
        }
        out.push(name.to_string());
        rest = &after[end + 1..];
    }
    if rest.contains('}') {
        return Err("a `}` has no matching `{`".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_read_in_order() {
        assert_eq!(
            path_placeholders("/units/{unit_id}/x/{y}"),
            Ok(vec!["unit_id".to_string(), "y".to_string()])
        );
        assert!(path_placeholders("/units/{unit_id").is_err());
        assert!(path_placeholders("/units/{}").is_err());
    }
}
