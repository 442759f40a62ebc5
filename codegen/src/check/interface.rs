//! The interface as a whole: its name, auth, pagination, rate limit, headers and error
//! statuses, around the types and operations it holds.

use heck::ToSnakeCase;
use serde_saphyr::Spanned;

use crate::ir::{self, TypeRef};
use crate::spec::{self, OrderedMap};

use super::type_expr::Position;
use super::usage::mark_usage;
use super::{Checker, Kind, clip};

impl<'a> Checker<'a> {
    pub(super) fn interface(&mut self, spec: &spec::SpecFile) -> ir::Interface {
        let def = &spec.interface;
        self.interface_name(&def.name);
        self.declare_scalars(&spec.scalars, &spec.types);
        let types = self.types(&spec.types);
        let pagination = self.interface_pagination(def, &types);
        let links = matches!(pagination, Some(ir::Pagination::Links { .. }));
        let operations = self.operations(&spec.operations, pagination.is_some(), links);
        let auth = self.auth(&def.auth, &spec.operations);
        let error_body = def
            .error_body
            .as_ref()
            .and_then(|b| self.type_expr(&b.ty, Position::Body));
        let webhooks = def.webhooks.as_ref().and_then(|w| self.webhooks(w));

        let mut interface = ir::Interface {
            name: def.name.value.clone(),
            title: def.title.clone(),
            doc: def.doc.clone(),
            source_file: self.file.to_string(),
            base_url: ir::BaseUrl {
                placeholder: def.base_url.placeholder.clone(),
                example: def.base_url.example.clone(),
                doc: def.base_url.doc.clone(),
            },
            auth,
            pagination,
            rate_limit: def.rate_limit.as_ref().map(rate_limit),
            error_body,
            errors: self.status_docs(&def.errors),
            headers: self.headers(&def.headers),
            limits: limits(&def.limits),
            versioning: def.versioning.clone(),
            not_shown: def.not_shown.clone(),
            error_message_field: None, // decided by `ir::resolve`
            default_accept: None,
            webhooks,
            export: None, // checked below, once the answers are resolved
            sync: None,
            import: None,
            types,
            operations,
            positions: super::positions::positions(spec),
        };
        mark_usage(&mut interface);
        self.resolve_checked(spec, &mut interface);
        interface
    }

    /// The interface's name names a module in every language.
    fn interface_name(&mut self, name: &Spanned<String>) {
        if name.value.to_snake_case() != name.value || name.value.is_empty() {
            self.error(
                name,
                format!("interface name `{}` is not snake_case", name.value),
                format!("rename it `{}`", name.value.to_snake_case()),
            );
        }
        let starts_well = name.value.starts_with(|c: char| c.is_ascii_lowercase());
        if !name.value.is_empty() && !starts_well {
            self.error(
                name,
                format!(
                    "interface name `{}` does not start with a letter",
                    name.value
                ),
                "it names a module in every language: start it with a lowercase letter",
            );
        } else if let Some(language) = crate::backend::refusing_module_name(&name.value) {
            self.error(
                name,
                format!(
                    "interface name `{}` cannot name a module in {language}",
                    name.value
                ),
                "it is a reserved word there, or a module the package has already: rename it",
            );
        }
    }

    /// Every declared type, declared first so that types may name each other in any order,
    /// with a union's common fields merged into its members.
    fn types(&mut self, defs: &OrderedMap<spec::TypeDef>) -> Vec<ir::TypeDef> {
        self.declare_types(defs);
        let mut types: Vec<ir::TypeDef> = defs
            .iter()
            .map(|(name, def)| self.type_def(name, def))
            .collect();
        self.merge_common_fields(defs, &mut types);
        types
    }

    /// The interface's pagination; cursor paging's fields must be on its paging type.
    fn interface_pagination(
        &mut self,
        def: &spec::InterfaceDef,
        types: &[ir::TypeDef],
    ) -> Option<ir::Pagination> {
        let pagination = def.pagination.as_ref().map(|p| self.pagination(p));
        if let Some(spec::PaginationDef::Cursor(c)) = &def.pagination {
            self.paging_fields(
                types,
                &c.paging_type,
                [&c.next_url_field, &c.cursor_field, &c.page_size_field],
            );
        }
        pagination
    }

    /// The checks that need the whole interface, then the resolve pass and the export
    /// (which reads the resolved answers): each only while no diagnostic was pushed.
    fn resolve_checked(&mut self, spec: &spec::SpecFile, interface: &mut ir::Interface) {
        let def = &spec.interface;
        if self.diags.is_empty() {
            self.links_envelopes(&spec.operations, interface);
            self.login_answer(&def.auth, interface);
            self.page_sizes(&spec.operations, interface);
        }
        if self.diags.is_empty() {
            ir::resolve(interface);
            interface.export = def.export.as_ref().and_then(|e| self.export(e, interface));
            interface.sync = def.sync.as_ref().and_then(|s| self.sync(s, interface));
            self.sync_tables(interface);
            interface.import = def.import.as_ref().and_then(|d| self.import(d, interface));
        }
    }

    pub(super) fn status_docs(&mut self, map: &OrderedMap<String>) -> Vec<ir::StatusDoc> {
        self.unique_keys(map, "status", "list of statuses");
        let mut out = Vec::new();
        for (status, doc) in map.iter() {
            match status.value.parse::<u16>() {
                Ok(s) if (100..600).contains(&s) => out.push(ir::StatusDoc {
                    status: s,
                    doc: doc.clone(),
                }),
                _ => self.error(
                    status,
                    format!("`{}` is not an HTTP status", status.value),
                    "use a number from 100 to 599, quoted (\"404\")",
                ),
            }
        }
        out
    }

    fn pagination(&mut self, p: &spec::PaginationDef) -> ir::Pagination {
        match p {
            spec::PaginationDef::Cursor(c) => {
                let paging_type = &c.paging_type;
                match self.kind_named(&paging_type.value) {
                    Some(Kind::Object) => {}
                    Some(other) => {
                        let msg = format!(
                            "paging type `{}` is {}, not an object",
                            paging_type.value,
                            other.describe()
                        );
                        self.error(paging_type, msg, "declare the paging record as an object");
                    }
                    None => self.unknown_type(paging_type, &paging_type.value),
                }
                ir::Pagination::Cursor(ir::CursorPaging {
                    doc: c.doc.clone(),
                    page_param: c.page_param.clone(),
                    per_page_param: c.per_page_param.clone(),
                    max_per_page: c.max_per_page,
                    default_per_page: c.default_per_page,
                    items_field: c.items_field.clone(),
                    paging_field: c.paging_field.clone(),
                    paging_type: self.id_of(&paging_type.value),
                    next_url_field: c.next_url_field.as_ref().map(|f| f.value.clone()),
                    cursor_field: c.cursor_field.as_ref().map(|f| f.value.clone()),
                    page_size_field: c.page_size_field.as_ref().map(|f| f.value.clone()),
                    source: c.source,
                })
            }
            spec::PaginationDef::Links(links) => ir::Pagination::Links(links.clone()),
        }
    }

    /// The paging fields that lead to the next page must exist on the paging type.
    fn paging_fields(
        &mut self,
        types: &[ir::TypeDef],
        paging_type: &Spanned<String>,
        fields: [&Option<Spanned<String>>; 3],
    ) {
        let Some(ir::TypeKind::Object(o)) = types
            .iter()
            .find(|t| t.name == paging_type.value)
            .map(|t| &t.kind)
        else {
            return;
        };
        for field in fields.into_iter().flatten() {
            if !o.fields.iter().any(|f| f.name == field.value) {
                self.error(
                    field,
                    format!(
                        "paging type `{}` has no field `{}`",
                        paging_type.value, field.value
                    ),
                    "declare the field on the paging type, or fix the name",
                );
            }
        }
    }

    /// A links-paged operation answers an object whose `items_field` is a list and which
    /// holds the interface's links field: else its pages could not be walked.
    /// A paged list's page size parameter allows exactly the paging section's
    /// `max_per_page` (a walk asks for that many; the clients check it before sending), so
    /// the limit has one value however many lists state it.
    fn page_sizes(&mut self, ops: &OrderedMap<spec::OperationDef>, i: &ir::Interface) {
        let Some(ir::CursorPaging {
            per_page_param,
            max_per_page,
            ..
        }) = i.cursor_paging()
        else {
            return;
        };
        for (name, def) in ops.iter().filter(|(_, def)| def.paginated) {
            let Some((wire, param)) = def.query.iter().find(|(w, _)| w.value == *per_page_param)
            else {
                continue;
            };
            let max = i
                .operations
                .iter()
                .find(|o| o.name == name.value)
                .and_then(|o| o.query.iter().find(|q| q.name == wire.value))
                .and_then(|q| q.constraints.max);
            if max != Some(i64::from(*max_per_page)) {
                let allows = max.map_or("no maximum".to_string(), |m| format!("at most {m}"));
                self.error(
                    &param.ty,
                    format!(
                        "the page size `{}` of `{}` allows {allows}, but the paging section's \
                         `max_per_page` is {max_per_page}",
                        wire.value, name.value
                    ),
                    "give the page size parameters a named scalar with the paging section's maximum",
                );
            }
        }
    }

    fn links_envelopes(&mut self, ops: &OrderedMap<spec::OperationDef>, i: &ir::Interface) {
        let Some(ir::Pagination::Links(ir::LinksPaging { links_field, .. })) = &i.pagination else {
            return;
        };
        for (name, op) in ops.iter() {
            let Some(items) = op.items_field.as_ref().filter(|_| op.paginated) else {
                continue;
            };
            let envelope = op
                .responses
                .iter()
                .filter(|r| ir::is_success(r.status.value))
                .find_map(|r| r.body.as_ref())
                .and_then(|b| self.ids.get(&b.value))
                .and_then(|id| i.types.get(id.index()));
            let fields = match envelope.map(|t| &t.kind) {
                Some(ir::TypeKind::Object(o)) => &o.fields,
                _ => {
                    self.error(
                        name,
                        format!(
                            "links-paginated operation `{}` does not answer a declared object",
                            name.value
                        ),
                        "answer the envelope record that holds the items and the links",
                    );
                    continue;
                }
            };
            let has_list = fields
                .iter()
                .any(|f| f.name == items.value && matches!(f.ty, TypeRef::Array(_)));
            if !has_list {
                self.error(
                    items,
                    format!(
                        "the answer of `{}` has no list field `{}`",
                        name.value, items.value
                    ),
                    "name the envelope property that holds the records (an `array<T>`)",
                );
            }
            if !fields.iter().any(|f| &f.name == links_field) {
                self.error(
                    items,
                    format!(
                        "the answer of `{}` has no `{links_field}` field to page by",
                        name.value
                    ),
                    "add the links field to the envelope record",
                );
            }
        }
    }

    fn auth(&mut self, a: &spec::AuthDef, ops: &OrderedMap<spec::OperationDef>) -> ir::Auth {
        match a {
            spec::AuthDef::ApiKeyHeaders {
                doc,
                headers: h,
                unauthorized_status,
            } => ir::Auth::ApiKeyHeaders {
                doc: doc.clone(),
                headers: {
                    // Each key is a parameter of the client's constructor, named after it.
                    let names: Vec<_> = h.iter().map(|(k, _)| k).collect();
                    self.identifiers(&names, "key header", &[]);
                    self.headers(h)
                },
                unauthorized_status: *unauthorized_status,
            },
            spec::AuthDef::TokenLogin {
                doc,
                login_operation,
                token_field,
                header,
                scheme,
                source,
            } => {
                if let Some(problem) = header_name_problem(header) {
                    // The token header has no position of its own; its login is beside it.
                    self.error(
                        login_operation,
                        format!("the token header `{}` {problem}", clip(header)),
                        HEADER_NAME_HELP,
                    );
                }
                if !ops.iter().any(|(n, _)| n.value == login_operation.value) {
                    self.error(
                        login_operation,
                        format!(
                            "login operation `{}` is not declared",
                            login_operation.value
                        ),
                        "name an operation declared under `operations:`",
                    );
                }
                ir::Auth::TokenLogin {
                    doc: doc.clone(),
                    login_operation: login_operation.value.clone(),
                    token_field: token_field.clone(),
                    header: header.clone(),
                    scheme: scheme.clone(),
                    source: *source,
                }
            }
        }
    }
}

fn rate_limit(r: &spec::RateLimitDef) -> ir::RateLimit {
    ir::RateLimit {
        requests: r.requests,
        window_seconds: r.window_seconds,
        max_requests: r.max_requests,
        scope: r.scope.clone(),
        status: r.status,
        retry_after_header: r.retry_after_header.clone(),
        doc: r.doc.clone(),
    }
}

fn limits(map: &OrderedMap<spec::LimitDef>) -> Vec<ir::Limit> {
    map.iter()
        .map(|(name, l)| ir::Limit {
            name: name.value.clone(),
            value: l.value.clone(),
            doc: l.doc.clone(),
            source: l.source,
        })
        .collect()
}

const HEADER_NAME_HELP: &str = "a header name is one or more of the letters, digits and \
     ! # $ % & ' * + - . ^ _ ` | ~ (RFC 9110 `token`), e.g. `api-key-id`";

/// Why `name` cannot name an HTTP header (RFC 9110 field names are `token`s), if it cannot.
fn header_name_problem(name: &str) -> Option<&'static str> {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() {
        Some("is empty")
    } else if !name.chars().all(token) {
        Some("holds a character a header name cannot (a space, a colon, a quote, ...)")
    } else {
        None
    }
}

impl Checker<'_> {
    /// The headers of `map`, each name checked: a client could not send a header with
    /// a space or a colon in its name (the Rust one would fail when it is built).
    fn headers(&mut self, map: &OrderedMap<spec::HeaderDef>) -> Vec<ir::Header> {
        for (name, _) in map.iter() {
            if let Some(problem) = header_name_problem(&name.value) {
                self.error(
                    name,
                    format!("header `{}` {problem}", clip(&name.value)),
                    HEADER_NAME_HELP,
                );
            }
        }
        header_list(map)
    }
}

fn header_list(map: &OrderedMap<spec::HeaderDef>) -> Vec<ir::Header> {
    map.iter()
        .map(|(name, h)| ir::Header {
            name: name.value.clone(),
            doc: h.doc.clone(),
            value: h.value.clone(),
            sensitive: h.sensitive,
            source: h.source,
        })
        .collect()
}

impl Checker<'_> {
    /// The event union of the webhooks: a declared, open union (a delivery of a type the
    /// spec does not know must be kept, never refused).
    fn webhooks(&mut self, def: &spec::WebhooksDef) -> Option<ir::Webhooks> {
        let name = &def.event.value;
        match self.kind_named(name) {
            None => {
                self.unknown_type(&def.event, name);
                None
            }
            Some(Kind::Union) => Some(ir::Webhooks {
                doc: def.doc.clone(),
                event: self.id_of(name),
                source: def.source,
            }),
            Some(other) => {
                self.error(
                    &def.event,
                    format!(
                        "the webhook event `{name}` is {}, not a union",
                        other.describe()
                    ),
                    "declare the events as a union tagged by the event type",
                );
                None
            }
        }
    }
}

impl Checker<'_> {
    /// A token login's operation must send a body and answer a JSON record holding the
    /// token field: every client reads the token from there.
    fn login_answer(&mut self, auth: &spec::AuthDef, interface: &ir::Interface) {
        let spec::AuthDef::TokenLogin {
            login_operation,
            token_field,
            ..
        } = auth
        else {
            return;
        };
        let Some(op) = interface
            .operations
            .iter()
            .find(|o| o.name == login_operation.value)
        else {
            return; // Reported as not declared.
        };
        let holds_token = op.responses.iter().any(|r| {
            r.is_success()
                && r.body
                    .as_ref()
                    .and_then(|b| interface.named(b))
                    .is_some_and(|t| match &t.kind {
                        ir::TypeKind::Object(o) => o.fields.iter().any(|f| &f.name == token_field),
                        _ => false,
                    })
        });
        if op.body.is_none() || !holds_token {
            self.error(
                login_operation,
                format!(
                    "login operation `{}` must take a body and answer a record with the field `{token_field}`",
                    login_operation.value
                ),
                "give it a body, and a 2xx response whose body type has the token field",
            );
        }
    }
}
