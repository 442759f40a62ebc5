//! Semantic checks: turns a parsed spec file into the checked IR, or into every problem
//! found, each with its place and a fix.

use std::collections::BTreeMap;

use heck::{ToSnakeCase, ToUpperCamelCase};
use serde_saphyr::Spanned;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::ir::{self, Builtin, TypeRef};
use crate::spec::{self, OrderedMap};

/// Checks one parsed file and resolves it into an [`ir::Interface`].
pub fn check(file: &str, spec: &spec::SpecFile) -> Result<ir::Interface, Diagnostics> {
    let mut cx = Checker {
        file,
        diags: Vec::new(),
        ids: BTreeMap::new(),
        kinds: Vec::new(),
    };
    let interface = cx.interface(spec);
    if cx.diags.is_empty() {
        Ok(interface)
    } else {
        cx.diags.sort_by_key(|d| (d.line, d.column));
        Err(Diagnostics(cx.diags))
    }
}

/// What kind of thing a declared name is, for checks that depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Enum,
    Union,
    ScalarUnion,
    Id,
    RecordRef,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Enum => "an enum",
            Kind::Union => "a union",
            Kind::ScalarUnion => "a scalar union",
            Kind::Id => "an id",
            Kind::RecordRef => "a record reference",
        }
    }
}

struct Checker<'a> {
    file: &'a str,
    diags: Vec<Diagnostic>,
    /// Each declared name's index in the IR's `types` (its first declaration).
    ids: BTreeMap<String, ir::TypeId>,
    /// What kind of type each index is (`None` for a repeated declaration).
    kinds: Vec<Option<Kind>>,
}

/// Where a type expression may appear; some forms are allowed in one place only.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    Field,
    Query,
    Body,
    Response,
}

impl<'a> Checker<'a> {
    /// The id of a declared name. An undeclared one (already reported as unknown) gets an
    /// id past the end, which only an IR that is never returned can hold.
    fn id_of(&self, name: &str) -> ir::TypeId {
        self.ids.get(name).copied().unwrap_or(ir::TypeId(u32::MAX))
    }

    fn kind_of(&self, id: ir::TypeId) -> Option<Kind> {
        self.kinds.get(id.index()).copied().flatten()
    }

    fn kind_named(&self, name: &str) -> Option<Kind> {
        self.kind_of(*self.ids.get(name)?)
    }

    /// A links-paged operation answers an object whose `items_field` is a list and which
    /// holds the interface's links field: else its pages could not be walked.
    fn links_envelopes(&mut self, ops: &OrderedMap<spec::OperationDef>, i: &ir::Interface) {
        let Some(ir::Pagination::Links { links_field, .. }) = &i.pagination else {
            return;
        };
        for (name, op) in ops.iter() {
            let Some(items) = op.items_field.as_ref().filter(|_| op.paginated) else {
                continue;
            };
            let envelope = op
                .responses
                .iter()
                .filter(|r| (200..300).contains(&r.status.value))
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

    fn error<T>(&mut self, at: &Spanned<T>, message: impl Into<String>, help: impl Into<String>) {
        self.error_at(at.referenced, message, help);
    }

    fn error_at(
        &mut self,
        at: serde_saphyr::Location,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.diags.push(Diagnostic {
            file: self.file.to_string(),
            line: at.line() as u32,
            column: at.column() as u32,
            message: message.into(),
            help: help.into(),
        });
    }

    fn interface(&mut self, spec: &spec::SpecFile) -> ir::Interface {
        let def = &spec.interface;
        if def.name.value.to_snake_case() != def.name.value || def.name.value.is_empty() {
            self.error(
                &def.name,
                format!("interface name `{}` is not snake_case", def.name.value),
                format!("rename it `{}`", def.name.value.to_snake_case()),
            );
        }
        let starts_well = def.name.value.starts_with(|c: char| c.is_ascii_lowercase());
        if !def.name.value.is_empty() && !starts_well {
            self.error(
                &def.name,
                format!(
                    "interface name `{}` does not start with a letter",
                    def.name.value
                ),
                "it names a module in every language: start it with a lowercase letter",
            );
        } else if let Some(language) = crate::backend::refusing_module_name(&def.name.value) {
            self.error(
                &def.name,
                format!(
                    "interface name `{}` cannot name a module in {language}",
                    def.name.value
                ),
                "it is a reserved word there, or a module the package has already: rename it",
            );
        }
        self.declare_types(&spec.types);

        let mut types: Vec<ir::TypeDef> = spec
            .types
            .iter()
            .map(|(name, def)| self.type_def(name, def))
            .collect();
        self.merge_common_fields(&spec.types, &mut types);

        let pagination = def.pagination.as_ref().map(|p| self.pagination(p));
        if let Some(spec::PaginationDef::Cursor(c)) = &def.pagination {
            self.paging_fields(&types, &c.paging_type, [&c.next_url_field, &c.cursor_field]);
        }
        let links = matches!(pagination, Some(ir::Pagination::Links { .. }));
        let operations = self.operations(&spec.operations, pagination.is_some(), links);
        let auth = self.auth(&def.auth, &spec.operations);
        let error_body = def
            .error_body
            .as_ref()
            .and_then(|b| self.type_expr(&b.ty, Position::Body));

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
            rate_limit: def.rate_limit.as_ref().map(|r| ir::RateLimit {
                requests: r.requests,
                window_seconds: r.window_seconds,
                max_requests: r.max_requests,
                scope: r.scope.clone(),
                status: r.status,
                retry_after_header: r.retry_after_header.clone(),
                doc: r.doc.clone(),
            }),
            error_body,
            errors: self.status_docs(&def.errors),
            headers: headers(&def.headers),
            limits: def
                .limits
                .iter()
                .map(|(name, l)| ir::Limit {
                    name: name.value.clone(),
                    value: l.value.clone(),
                    doc: l.doc.clone(),
                    source: l.source,
                })
                .collect(),
            versioning: def.versioning.clone(),
            not_shown: def.not_shown.clone(),
            error_message_field: None, // decided by `ir::resolve`
            default_accept: None,
            types,
            operations,
        };
        mark_usage(&mut interface);
        if self.diags.is_empty() {
            self.links_envelopes(&spec.operations, &interface);
        }
        if self.diags.is_empty() {
            ir::resolve(&mut interface);
        }
        interface
    }

    fn declare_types(&mut self, types: &OrderedMap<spec::TypeDef>) {
        self.kinds = vec![None; types.iter().count()];
        for (index, ((name, def), first)) in types.iter().zip(repeated(types)).enumerate() {
            if let Some(first) = first {
                self.error(
                    name,
                    format!(
                        "type `{}` is declared twice (first at {})",
                        name.value,
                        place(first)
                    ),
                    "give each type a unique name, or merge the two declarations",
                );
                continue;
            }
            if Builtin::from_name(&name.value).is_some() {
                self.error(
                    name,
                    format!("type name `{}` is a builtin type", name.value),
                    "choose another name for the declared type",
                );
            } else if name.value.to_upper_camel_case() != name.value {
                self.error(
                    name,
                    format!("type name `{}` is not UpperCamelCase", name.value),
                    format!("rename it `{}`", name.value.to_upper_camel_case()),
                );
            }
            let kind = match def {
                spec::TypeDef::Object(_) => Kind::Object,
                spec::TypeDef::Enum(_) => Kind::Enum,
                spec::TypeDef::Union(_) => Kind::Union,
                spec::TypeDef::ScalarUnion(_) => Kind::ScalarUnion,
                spec::TypeDef::Id(_) => Kind::Id,
                spec::TypeDef::RecordRef(_) => Kind::RecordRef,
            };
            // Types are converted in declaration order, so the index is the IR's.
            let id = u32::try_from(index).unwrap_or(u32::MAX);
            self.ids.insert(name.value.clone(), ir::TypeId(id));
            self.kinds[index] = Some(kind);
        }
    }

    fn type_def(&mut self, name: &Spanned<String>, def: &spec::TypeDef) -> ir::TypeDef {
        let (doc, kind) = match def {
            spec::TypeDef::Object(o) => (o.doc.clone(), ir::TypeKind::Object(self.object(o))),
            spec::TypeDef::Enum(e) => (e.doc.clone(), ir::TypeKind::Enum(self.enumeration(e))),
            spec::TypeDef::Union(u) => (
                u.doc.clone(),
                ir::TypeKind::Union(self.union(&name.value, u)),
            ),
            spec::TypeDef::ScalarUnion(s) => {
                let mut kinds = Vec::new();
                for k in &s.of {
                    if kinds.contains(&k.value) {
                        self.error(
                            k,
                            format!("`{:?}` is listed twice in `of`", k.value).to_lowercase(),
                            "list each JSON kind once",
                        );
                    }
                    kinds.push(k.value);
                }
                if kinds.len() < 2 {
                    self.error(
                        name,
                        format!("scalar union `{}` needs at least two kinds", name.value),
                        "list two or more kinds under `of`, or use the builtin type directly",
                    );
                }
                (s.doc.clone(), ir::TypeKind::ScalarUnion(kinds))
            }
            spec::TypeDef::Id(i) => (
                i.doc.clone(),
                ir::TypeKind::Id {
                    max_length: i.max_length,
                },
            ),
            spec::TypeDef::RecordRef(r) => {
                match self.kind_named(&r.id_type.value) {
                    Some(Kind::Id) => {}
                    Some(other) => self.error(
                        &r.id_type,
                        format!(
                            "`id_type` of `{}` is `{}`, which is {}, not an id",
                            name.value,
                            r.id_type.value,
                            other.describe()
                        ),
                        "name an `id:` type",
                    ),
                    None => self.unknown_type(&r.id_type, &r.id_type.value),
                }
                (
                    r.doc.clone(),
                    ir::TypeKind::RecordRef(ir::RecordRef {
                        id_type: self.id_of(&r.id_type.value),
                        external: r.external,
                        self_keyword: r.self_keyword.clone(),
                        source: r.source,
                    }),
                )
            }
        };
        ir::TypeDef {
            name: name.value.clone(),
            doc,
            kind,
            usage: ir::Usage::default(),
        }
    }

    fn object(&mut self, o: &spec::ObjectDef) -> ir::Object {
        let fields = self.fields(&o.fields);
        let one_of = o.one_of.as_ref().map(|one| {
            let mut names: BTreeMap<String, ()> =
                fields.iter().map(|f| (f.name.clone(), ())).collect();
            let mut variants = Vec::new();
            self.unique_keys(&one.variants, "variant", "one_of");
            for (vname, v) in one.variants.iter() {
                let vfields = self.fields(&v.fields);
                for ((fname, _), f) in v.fields.iter().zip(&vfields) {
                    if names.insert(f.name.clone(), ()).is_some() {
                        self.error(
                            fname,
                            format!("field `{}` is declared twice in this object", f.name),
                            "each field name may appear once across the object and its one_of",
                        );
                    }
                }
                variants.push(ir::OneOfVariant {
                    name: vname.value.clone(),
                    doc: v.doc.clone(),
                    fields: vfields,
                });
            }
            if variants.len() < 2 {
                self.error(
                    &one.name,
                    "a one_of needs at least two variants",
                    "add variants, or make the fields ordinary fields",
                );
            }
            ir::OneOf {
                name: one.name.value.clone(),
                type_name: one.type_name.value.clone(),
                doc: one.doc.clone(),
                variants,
            }
        });
        ir::Object {
            fields,
            keep_unknown: o.keep_unknown,
            one_of,
            not_shown: o.not_shown.clone(),
            source: o.source,
        }
    }

    fn enumeration(&mut self, e: &spec::EnumDef) -> ir::Enum {
        self.unique_keys(&e.values, "value", "enum");
        let mut idents: BTreeMap<String, &Spanned<String>> = BTreeMap::new();
        for (value, _) in e.values.iter() {
            let ident = value.value.to_upper_camel_case();
            if let Some(prev) = idents.get(&ident)
                && prev.value != value.value
            {
                let msg = format!(
                    "enum values `{}` and `{}` map to the same identifier `{ident}`",
                    prev.value, value.value
                );
                self.error(value, msg, "rename one of the values");
            }
            if ident == "Unknown" && e.open {
                self.error(
                    value,
                    "an open enum cannot have a value named `unknown`",
                    "the generated `Unknown` variant keeps values the client does not know",
                );
            }
            idents.insert(ident, value);
        }
        ir::Enum {
            open: e.open,
            values: e
                .values
                .iter()
                .map(|(k, doc)| ir::EnumValue {
                    wire: k.value.clone(),
                    doc: doc.clone(),
                })
                .collect(),
            not_shown: e.not_shown.clone(),
        }
    }

    fn union(&mut self, name: &str, u: &spec::UnionDef) -> ir::Union {
        let mut variants = Vec::new();
        for ((tag_value, v), first) in u.variants.iter().zip(repeated(&u.variants)) {
            if let Some(first) = first {
                self.error(
                    tag_value,
                    format!(
                        "discriminator value `{}` is listed twice in union `{name}` (first at {})",
                        tag_value.value,
                        place(first)
                    ),
                    "each tag value selects one variant: remove one entry (several tag values may share a shape, not the reverse)",
                );
                continue;
            }
            match self.kind_named(&v.shape.value) {
                Some(Kind::Object) => {}
                Some(other) => self.error(
                    &v.shape,
                    format!(
                        "variant `{}` of union `{name}` has shape `{}`, which is {}, not an object",
                        tag_value.value,
                        v.shape.value,
                        other.describe()
                    ),
                    "a union variant carries an object: declare an `object:` type for its shape",
                ),
                None => self.unknown_type(&v.shape, &v.shape.value),
            }
            variants.push(ir::Variant {
                tag_value: tag_value.value.clone(),
                shape: self.id_of(&v.shape.value),
                doc: v.doc.clone(),
            });
        }
        if variants.is_empty() {
            self.error(
                &u.tag,
                format!("union `{name}` has no variants"),
                "list its variants by tag value",
            );
        }
        ir::Union {
            tag: u.tag.value.clone(),
            variants,
            open: false, // decided by `ir::resolve` from where the union is used
        }
    }

    /// Gives each union shape the union's common fields (first), and checks that a shape
    /// neither repeats the tag nor serves two unions with different common fields.
    fn merge_common_fields(
        &mut self,
        specs: &OrderedMap<spec::TypeDef>,
        types: &mut [ir::TypeDef],
    ) {
        let mut owner: BTreeMap<String, String> = BTreeMap::new();
        for (uname, def) in specs.iter() {
            let spec::TypeDef::Union(u) = def else {
                continue;
            };
            let common = self.fields(&u.common_fields);
            for (_, v) in u.variants.iter() {
                let shape_name = &v.shape.value;
                if let Some(prev) = owner.get(shape_name) {
                    if prev != &uname.value {
                        let msg = format!(
                            "shape `{shape_name}` is used by unions `{prev}` and `{}`",
                            uname.value
                        );
                        self.error(&v.shape, msg, "declare a separate shape per union");
                        continue;
                    }
                    continue; // another tag value of the same union shares this shape
                }
                owner.insert(shape_name.clone(), uname.value.clone());
                let Some(shape) = types.iter_mut().find(|t| &t.name == shape_name) else {
                    continue;
                };
                let ir::TypeKind::Object(obj) = &mut shape.kind else {
                    continue;
                };
                if let Some(f) = obj.fields.iter().find(|f| f.name == u.tag.value) {
                    let msg = format!(
                        "shape `{shape_name}` declares the union's tag `{}` as a field",
                        f.name
                    );
                    self.error(
                        &v.shape,
                        msg,
                        "remove the field from the shape: the union reads and writes the tag",
                    );
                }
                for c in common.iter().rev() {
                    if obj.fields.iter().any(|f| f.name == c.name) {
                        let msg = format!(
                            "shape `{shape_name}` repeats the common field `{}` of union `{}`",
                            c.name, uname.value
                        );
                        self.error(&v.shape, msg, "remove it from the shape");
                    } else {
                        obj.fields.insert(0, c.clone());
                    }
                }
            }
        }
    }

    /// The fields of a record: each name once, each a distinct identifier.
    fn fields(&mut self, fields: &OrderedMap<spec::FieldDef>) -> Vec<ir::Field> {
        let names: Vec<&Spanned<String>> = fields.iter().map(|(k, _)| k).collect();
        self.identifiers(&names, "field", &[]);
        self.fields_at(fields, Position::Field)
    }

    fn fields_at(
        &mut self,
        fields: &OrderedMap<spec::FieldDef>,
        position: Position,
    ) -> Vec<ir::Field> {
        self.unique_keys(fields, "field", "object");
        fields
            .iter()
            .filter_map(|(name, f)| self.field(name, f, position))
            .collect()
    }

    fn field(
        &mut self,
        name: &Spanned<String>,
        f: &spec::FieldDef,
        position: Position,
    ) -> Option<ir::Field> {
        let ty = self.type_expr(&f.ty, position)?;
        let constraints = self.constraints(name, f, &ty);
        Some(ir::Field {
            name: name.value.clone(),
            doc: f.doc.clone(),
            ty,
            required: f.required,
            nullable: f.nullable,
            sensitive: f.sensitive,
            constraints,
            not_shown: f.not_shown.clone(),
            source: f.source,
        })
    }

    /// Checks that each constraint fits the field's type.
    fn constraints(
        &mut self,
        name: &Spanned<String>,
        f: &spec::FieldDef,
        ty: &TypeRef,
    ) -> ir::Constraints {
        let is_string = match ty {
            TypeRef::Builtin(b) => b.is_string_like(),
            TypeRef::Named(n) => matches!(self.kind_of(*n), Some(Kind::Id | Kind::RecordRef)),
            _ => false,
        };
        // Ranges are checked as whole numbers: `number` fields take none.
        let is_number = matches!(ty, TypeRef::Builtin(b) if b.is_integer());
        let is_array = matches!(ty, TypeRef::Array(_));
        let shown = &f.ty.value;
        let field = &name.value;

        let misplaced =
            |cx: &mut Self, at: serde_saphyr::Location, key: &str, fits: &str, fix: &str| {
                cx.error_at(
                    at,
                    format!("`{key}` applies to {fits}, but field `{field}` is `{shown}`"),
                    fix.to_string(),
                );
            };
        for (key, at) in [("max_length", &f.max_length), ("length", &f.length)] {
            if let Some(at) = at
                && !is_string
            {
                misplaced(
                    self,
                    at.referenced,
                    key,
                    "strings",
                    "remove it, or use `min`/`max` for a number's range",
                );
            }
        }
        if let Some(at) = &f.chars
            && !is_string
        {
            misplaced(self, at.referenced, "chars", "strings", "remove it");
        }
        for (key, at) in [("min", &f.min), ("max", &f.max)] {
            if let Some(at) = at
                && !is_number
            {
                misplaced(
                    self,
                    at.referenced,
                    key,
                    "integers",
                    "remove it, or use `max_length`/`length` for a string",
                );
            }
        }
        for (key, at) in [("max_items", &f.max_items), ("min_items", &f.min_items)] {
            if let Some(at) = at
                && !is_array
            {
                misplaced(self, at.referenced, key, "arrays", "remove it");
            }
        }
        if let (Some(min), Some(max)) = (&f.min, &f.max)
            && min.value > max.value
        {
            self.error(
                min,
                format!(
                    "`min` {} is greater than `max` {} on field `{field}`",
                    min.value, max.value
                ),
                "swap or correct the bounds",
            );
        }
        ir::Constraints {
            max_length: f.max_length.as_ref().map(|s| s.value),
            length: f.length.as_ref().map(|s| s.value),
            min: f.min.as_ref().map(|s| s.value),
            max: f.max.as_ref().map(|s| s.value),
            chars: f.chars.as_ref().map(|c| ir::CharRule {
                allow: c.value.allow,
                forbid: c.value.forbid.clone(),
            }),
            max_items: f.max_items.as_ref().map(|s| s.value),
            min_items: f.min_items.as_ref().map(|s| s.value),
        }
    }

    /// Parses `name`, `array<T>`, `map<T>` and `page<T>`, resolving names.
    fn type_expr(&mut self, expr: &Spanned<String>, position: Position) -> Option<TypeRef> {
        match parse_type_expr(&expr.value) {
            Ok(parsed) => self.resolve(expr, parsed, position, true),
            Err(why) => {
                self.error(
                    expr,
                    format!("`{}` is not a type expression: {why}", expr.value),
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
                    if b == Builtin::Binary && position != Position::Response {
                        self.error(
                            at,
                            "`binary` is only a response body type",
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

    fn unknown_type(&mut self, at: &Spanned<String>, name: &str) {
        let candidates = self
            .ids
            .keys()
            .map(String::as_str)
            .chain(Builtin::ALL.iter().map(|(n, _)| *n));
        let help = match closest(name, candidates) {
            Some(near) => format!(
                "did you mean `{near}`? Otherwise declare `{name}` under `types:` or use a builtin"
            ),
            None => format!(
                "declare `{name}` under `types:`, or use a builtin ({})",
                Builtin::ALL
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        self.error(at, format!("unknown type `{name}`"), help);
    }

    /// Names become identifiers in snake_case: each must give one, and no two the same.
    /// `reserved` are names generated code uses itself.
    fn identifiers(&mut self, names: &[&Spanned<String>], what: &str, reserved: &[&str]) {
        let mut seen: BTreeMap<String, &Spanned<String>> = BTreeMap::new();
        for name in names {
            let ident = name.value.to_snake_case();
            if ident.is_empty() || !ident.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                self.error(
                    name,
                    format!("{what} `{}` gives no identifier (`{ident}`)", name.value),
                    "use letters, digits and `_` (the wire name may differ only in case style)",
                );
                continue;
            }
            if reserved.contains(&ident.as_str()) {
                self.error(
                    name,
                    format!(
                        "{what} `{}` is named like the generated code's own `{ident}`",
                        name.value
                    ),
                    format!("rename it; {} are reserved", reserved.join(", ")),
                );
            }
            if let Some(prev) = seen.get(&ident) {
                if prev.value != name.value {
                    let msg = format!(
                        "{what}s `{}` and `{}` both become `{ident}`",
                        prev.value, name.value
                    );
                    self.error(name, msg, "rename one of them");
                }
            } else {
                seen.insert(ident, name);
            }
        }
    }

    fn unique_keys<V>(&mut self, map: &OrderedMap<V>, what: &str, within: &str) {
        for ((key, _), first) in map.iter().zip(repeated(map)) {
            if let Some(first) = first {
                self.error(
                    key,
                    format!(
                        "{what} `{}` is listed twice in this {within} (first at {})",
                        key.value,
                        place(first)
                    ),
                    format!("remove or rename one of the two {what}s"),
                );
            }
        }
    }

    fn status_docs(&mut self, map: &OrderedMap<String>) -> Vec<ir::StatusDoc> {
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
                ir::Pagination::Cursor {
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
                }
            }
            spec::PaginationDef::Links {
                doc,
                links_field,
                after_param,
                before_param,
                limit_param,
                max_limit,
                source,
            } => ir::Pagination::Links {
                doc: doc.clone(),
                links_field: links_field.clone(),
                after_param: after_param.clone(),
                before_param: before_param.clone(),
                limit_param: limit_param.clone(),
                max_limit: *max_limit,
                source: *source,
            },
        }
    }

    /// The paging fields that lead to the next page must exist on the paging type.
    fn paging_fields(
        &mut self,
        types: &[ir::TypeDef],
        paging_type: &Spanned<String>,
        fields: [&Option<Spanned<String>>; 2],
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

    fn auth(&mut self, a: &spec::AuthDef, ops: &OrderedMap<spec::OperationDef>) -> ir::Auth {
        match a {
            spec::AuthDef::ApiKeyHeaders {
                doc,
                headers: h,
                unauthorized_status,
            } => ir::Auth::ApiKeyHeaders {
                doc: doc.clone(),
                headers: headers(h),
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

    fn operations(
        &mut self,
        ops: &OrderedMap<spec::OperationDef>,
        has_pagination: bool,
        links_pagination: bool,
    ) -> Vec<ir::Operation> {
        let mut routes: BTreeMap<(String, String), &Spanned<String>> = BTreeMap::new();
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
            if name.value.to_snake_case() != name.value {
                self.error(
                    name,
                    format!("operation name `{}` is not snake_case", name.value),
                    format!("rename it `{}`", name.value.to_snake_case()),
                );
            }
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
                routes.insert(route, name);
            }
            if let Some(ir_op) = self.operation(name, op, has_pagination, links_pagination) {
                out.push(ir_op);
            }
        }
        out
    }

    fn operation(
        &mut self,
        name: &Spanned<String>,
        op: &spec::OperationDef,
        has_pagination: bool,
        links_pagination: bool,
    ) -> Option<ir::Operation> {
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
        let params: Vec<&Spanned<String>> = op
            .path_params
            .iter()
            .chain(op.query.iter())
            .map(|(k, _)| k)
            .collect();
        // Path and query parameters become fields of one builder: checked together, once.
        self.identifiers(&params, "parameter", &["core", "body"]);
        let path_params = self.fields_at(&op.path_params, Position::Field);
        let query = self.fields_at(&op.query, Position::Query);
        let body = op.body.as_ref().and_then(|b| {
            Some(ir::Body {
                ty: self.type_expr(&b.ty, Position::Body)?,
                content_type: b.content_type.clone().unwrap_or_else(json),
                doc: b.doc.clone(),
            })
        });
        let mut responses = Vec::new();
        for r in &op.responses {
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
            responses.push(ir::Response {
                status: r.status.value,
                content_type: r.content_type.clone().unwrap_or_else(json),
                body,
                doc: r.doc.clone(),
                not_shown: r.not_shown.clone(),
            });
        }
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
        Some(ir::Operation {
            name: name.value.clone(),
            doc: op.doc.clone(),
            method: op.method,
            path: path.clone(),
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
        })
    }
}

/// For each entry of `map`, the first entry with the same key when this one repeats it.
fn repeated<V>(map: &OrderedMap<V>) -> Vec<Option<&Spanned<String>>> {
    let mut first: BTreeMap<&str, &Spanned<String>> = BTreeMap::new();
    map.iter()
        .map(|(key, _)| match first.get(key.value.as_str()) {
            Some(prev) => Some(*prev),
            None => {
                first.insert(&key.value, key);
                None
            }
        })
        .collect()
}

/// `line:col` of a name, for "first at" notes.
fn place(at: &Spanned<String>) -> String {
    format!("{}:{}", at.referenced.line(), at.referenced.column())
}

fn json() -> String {
    "application/json".to_string()
}

fn headers(map: &OrderedMap<spec::HeaderDef>) -> Vec<ir::Header> {
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

#[derive(Debug, PartialEq)]
enum Parsed {
    Name(String),
    Array(Box<Parsed>),
    Map(Box<Parsed>),
    Page(Box<Parsed>),
    Json(Box<Parsed>),
}

fn parse_type_expr(s: &str) -> Result<Parsed, String> {
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
            return Ok(wrap(Box::new(parse_type_expr(inner)?)));
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

/// The candidate nearest to `name` by edit distance, if it is close enough to be a typo.
fn closest<'c>(name: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .map(|c| (edit_distance(&name.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Marks each type with the side(s) of the wire that reach it.
fn mark_usage(interface: &mut ir::Interface) {
    let mut request: Vec<ir::TypeId> = Vec::new();
    let mut response: Vec<ir::TypeId> = Vec::new();
    for op in &interface.operations {
        for f in op.path_params.iter().chain(&op.query) {
            request.extend(f.ty.named());
        }
        if let Some(b) = &op.body {
            request.extend(b.ty.named());
        }
        for r in &op.responses {
            if let Some(b) = &r.body {
                response.extend(b.named());
            }
        }
    }
    if let Some(ir::Pagination::Cursor { paging_type, .. }) = &interface.pagination {
        response.push(*paging_type);
    }
    if let Some(t) = &interface.error_body {
        response.extend(t.named());
    }
    let reach = |roots: Vec<ir::TypeId>, types: &[ir::TypeDef]| -> Vec<bool> {
        let mut seen = vec![false; types.len()];
        let mut stack = roots;
        while let Some(id) = stack.pop() {
            // Ids past the end belong to names already reported as unknown.
            let Some(t) = types.get(id.index()) else {
                continue;
            };
            if !std::mem::replace(&mut seen[id.index()], true) {
                stack.extend(referenced_types(t));
            }
        }
        seen
    };
    let req = reach(request, &interface.types);
    let resp = reach(response, &interface.types);
    for (t, (req, resp)) in interface.types.iter_mut().zip(req.into_iter().zip(resp)) {
        t.usage.request = req;
        t.usage.response = resp;
    }
}

fn referenced_types(t: &ir::TypeDef) -> Vec<ir::TypeId> {
    match &t.kind {
        ir::TypeKind::Object(o) => o
            .fields
            .iter()
            .chain(
                o.one_of
                    .iter()
                    .flat_map(|one| one.variants.iter().flat_map(|v| &v.fields)),
            )
            .filter_map(|f| f.ty.named())
            .collect(),
        ir::TypeKind::Union(u) => u.variants.iter().map(|v| v.shape).collect(),
        ir::TypeKind::RecordRef(r) => vec![r.id_type],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_expressions_nest() {
        assert_eq!(
            parse_type_expr("array<map<Unit>>"),
            Ok(Parsed::Array(Box::new(Parsed::Map(Box::new(
                Parsed::Name("Unit".into())
            )))))
        );
        assert!(parse_type_expr("array<Unit").is_err());
        assert!(parse_type_expr("Un it").is_err());
    }

    #[test]
    fn placeholders_are_read_in_order() {
        assert_eq!(
            path_placeholders("/units/{unit_id}/x/{y}"),
            Ok(vec!["unit_id".to_string(), "y".to_string()])
        );
        assert!(path_placeholders("/units/{unit_id").is_err());
        assert!(path_placeholders("/units/{}").is_err());
    }

    #[test]
    fn typos_find_their_type() {
        let names = ["Unit", "Task", "Inspection"];
        assert_eq!(closest("Untit", names.into_iter()), Some("Unit"));
        assert_eq!(closest("Zebra", names.into_iter()), None);
    }
}
