//! One operation's methods: their parameters in the order every client takes them, the
//! checks and the call their builder makes, and how the answer is read.

use crate::doc_text;
use crate::ir::{AnswerKind, Field, Input, Interface, Operation, Segment};
use crate::limits;

use super::super::models::Claimed;
use super::super::names::{self, Scope};
use super::super::types::{self, Types};
use super::paging::{self, PagedCx};
use super::{lower_first, reserved_parameter};

#[derive(serde::Serialize)]
pub struct OperationCx {
    /// The spec's name, a literal.
    pub name: String,
    pub method: String,
    /// The unexported method building its call (`getUnitCall`).
    pub builder: String,
    pub doc: String,
    /// The parameter lists (wrapped a parameter a line when long): the method's, the
    /// pages' and resumed walk's of a list, the builder's.
    pub sig: String,
    pub sig_pages: String,
    pub sig_from: String,
    pub sig_builder: String,
    /// The parameters of a links list's walk in either direction.
    pub sig_walk: String,
    /// The parameters of a download into a writer (`…To`): the method's, then `w`.
    pub sig_to: String,
    /// The names the builder is given.
    pub args: String,
    /// The struct of its optional query values, if it takes one.
    pub query: Option<String>,
    /// Statements of the builder after `call := &runtime.Call{...}`.
    pub build: Vec<String>,
    /// `call := &runtime.Call{...}`.
    pub call: String,
    /// `json`, `upsert`, `bytes`, `empty` or `paged`.
    pub kind: &'static str,
    pub returns: String,
    /// The answer's reader (`readUnit`).
    pub reader: String,
    pub paged: Option<PagedCx>,
    /// The alternative media type's method and the Accept value.
    pub alternative: Option<(String, String)>,
}

/// The struct of an operation's optional query values.
pub type QueryCx = crate::templates::QueryTypeCx<QueryFieldCx>;

#[derive(serde::Serialize)]
pub struct QueryFieldCx {
    pub name: String,
    pub ty: String,
    pub doc: String,
}

/// What an operation's methods take and its builder does, gathered input by input.
struct Inputs<'a> {
    types: &'a Types<'a>,
    params: Scope,
    declared: Vec<String>,
    args: Vec<String>,
    build: Vec<String>,
    checks: Vec<String>,
    path_values: Vec<String>,
}

impl<'a> Inputs<'a> {
    fn new(types: &'a Types<'a>) -> Self {
        Inputs {
            types,
            params: Scope::new(
                &[
                    "ctx", "opts", "call", "checks", "c", "err", "at", "answer", "page", "v", "ok",
                ],
                reserved_parameter,
            ),
            declared: Vec::new(),
            args: Vec::new(),
            build: Vec::new(),
            checks: Vec::new(),
            path_values: Vec::new(),
        }
    }

    /// A parameter of the field `f`, checked where its limits are documented.
    fn param(&mut self, f: &Field) -> String {
        let name = self.params.claim(&lower_first(&names::exported(&f.name)));
        self.declared
            .push(format!("{name} {}", self.types.go(&f.ty)));
        self.args.push(name.clone());
        let wire = names::string(&f.name);
        let check = limits::of_field(self.types, f, &name, &wire);
        self.checks.extend(check);
        name
    }

    fn path(&mut self, f: &Field) {
        let name = self.param(f);
        let value = self.params.claim(&format!("{name}Segment"));
        self.build.push(format!(
            "{value}, err := runtime.Segment({}, runtime.Text({name}, {}))",
            names::string(&f.name),
            self.types.writer(&f.ty)
        ));
        self.build
            .push("if err != nil {\n\treturn nil, err\n}".to_string());
        self.path_values.push(value);
    }

    fn required_query(&mut self, f: &Field) {
        let name = self.param(f);
        self.build.push(format!(
            "call.SetQuery({}, runtime.Text({name}, {}))",
            names::string(&f.name),
            self.types.writer(&f.ty)
        ));
    }

    /// The body: a value of its type, or an `Opt` of it when the body may be left out
    /// (nothing is sent then, not even a content type).
    fn body(&mut self, op: &Operation) {
        let Some(body) = &op.body else { return };
        self.args.push("body".to_string());
        let optional = body.optional;
        let value = if optional { "v" } else { "body" };
        let mut build = Vec::new();
        match op.json_body() {
            Some(ty) => {
                let go = self.types.go(ty);
                self.declared.push(if optional {
                    format!("body Opt[{go}]")
                } else {
                    format!("body {go}")
                });
                let check = limits::of_body(self.types, ty, value);
                self.checks.extend(check.map(|c| match optional {
                    true => format!("if v, ok := body.Get(); ok {{\n{}\n}}", types::indent(&c)),
                    false => c,
                }));
                build.push(format!(
                    "call.Body = runtime.JSON({value}, {})",
                    self.types.writer(ty)
                ));
            }
            None => {
                self.declared.push(if optional {
                    "body Opt[[]byte]".to_string()
                } else {
                    "body []byte".to_string()
                });
                build.push(format!("call.Body = {value}"));
            }
        }
        build.push(format!(
            "call.ContentType = {}",
            names::string(&body.content_type)
        ));
        if optional {
            let inner: Vec<String> = build.iter().map(|b| types::indent(b)).collect();
            build = vec![format!(
                "if v, ok := body.Get(); ok {{\n{}\n}}",
                inner.join("\n")
            )];
        }
        self.build.extend(build);
    }

    /// The optional query values, as one struct of `Opt`s the method takes as `query`.
    fn optional_query(&mut self, op: &Operation, fields: &[&Field], scope: &mut Scope) -> QueryCx {
        let q = query_cx(op, fields, self.types, scope);
        self.declared.push(format!("query {}", q.name));
        self.args.push("query".to_string());
        for (f, field) in fields.iter().zip(&q.fields) {
            let v = format!("query.{}", field.name);
            let wire = names::string(&f.name);
            if let Some(check) = limits::of_field(self.types, f, "v", &wire) {
                self.checks.push(format!(
                    "if v, ok := {v}.Get(); ok {{\n{}\n}}",
                    types::indent(&check)
                ));
            }
            self.build.push(format!(
                "if v, ok := {v}.Get(); ok {{\n\tcall.SetQuery({wire}, runtime.Text(v, {}))\n}}",
                self.types.writer(&f.ty)
            ));
        }
        q
    }

    /// The path from its segments: literal text and the escaped path values.
    fn path_expression(&self, op: &Operation) -> String {
        let mut parts = Vec::new();
        let mut text = String::new();
        for s in &op.call.segments {
            match s {
                Segment::Text { text: t } => text.push_str(&format!("/{t}")),
                Segment::Param { index } => {
                    text.push('/');
                    parts.push(names::string(&text));
                    text.clear();
                    parts.push(self.path_values[*index].clone());
                }
            }
        }
        if !text.is_empty() || parts.is_empty() {
            parts.push(names::string(&text));
        }
        parts.join(" + ")
    }

    /// The builder's statements: the checks first (nothing is built from a value that
    /// breaks a limit), then the path, query and body.
    fn statements(mut self, op: &Operation) -> Vec<String> {
        let path = self.path_expression(op);
        self.build.push(format!("call.Path = {path}"));
        if self.checks.is_empty() {
            return self.build;
        }
        // `c` is the checks inside: the generated checks all write to `c`.
        let mut lines = vec![
            "if c.validate {".to_string(),
            "\tvar checks runtime.Checks".to_string(),
            "\tc := &checks".to_string(),
        ];
        lines.extend(self.checks.iter().map(|c| types::indent(c)));
        lines.push("\tif err := checks.Err(); err != nil {\n\t\treturn nil, err\n\t}".to_string());
        lines.push("}".to_string());
        let mut all = vec![lines.join("\n")];
        all.extend(self.build);
        all
    }
}

pub(super) fn operation_cx(
    i: &Interface,
    op: &Operation,
    claimed: &Claimed,
    types: &Types,
    methods: &mut Scope,
    scope: &mut Scope,
    queries: &mut Vec<QueryCx>,
) -> OperationCx {
    let method = methods.claim(&names::exported(&op.name));
    let builder = methods.claim(&format!("{}Call", lower_first(&method)));
    let mut inputs = Inputs::new(types);
    let mut optional = Vec::new();
    for input in &op.call.inputs {
        match *input {
            Input::Path { index } => inputs.path(&op.path_params[index]),
            Input::Query { index } if op.query[index].required => {
                inputs.required_query(&op.query[index])
            }
            Input::Query { index } => optional.push(&op.query[index]),
            Input::Body => {}
        }
    }
    inputs.body(op);
    let mut query = None;
    if !optional.is_empty() {
        let q = inputs.optional_query(op, &optional, scope);
        query = Some(q.name.clone());
        queries.push(q);
    }
    let (kind, returns, reader, paged) = answer(i, op, types, claimed, &method, methods);
    let (declared, args) = (inputs.declared.clone(), inputs.args.join(", "));
    let mut build = inputs.statements(op);
    if let (false, AnswerKind::Bytes { content_type }) = (op.paging.is_some(), &op.answer.kind) {
        build.push(format!(
            "call.Header = http.Header{{\"Accept\": {{{}}}}}",
            names::string(content_type)
        ));
    }
    let alternative = op.answer.alternative.as_ref().map(|media| {
        let form = op.call.alternative.as_deref().unwrap_or("bytes");
        let name = methods.claim(&format!("{method}{}", names::exported(form)));
        (name, names::string(media))
    });
    let with = |before: &[&str], after: &[&str]| {
        signature(&crate::templates::params_around(before, &declared, after))
    };
    OperationCx {
        name: names::string(&op.name),
        sig: with(&["ctx context.Context"], &["opts ...CallOption"]),
        sig_pages: with(&[], &["opts ...CallOption"]),
        sig_from: with(&["at Resume"], &["opts ...CallOption"]),
        sig_builder: with(&[], &[]),
        sig_walk: with(&["at Resume", "backward bool"], &["opts []CallOption"]),
        sig_to: with(
            &["ctx context.Context"],
            &["w io.Writer", "opts ...CallOption"],
        ),
        call: call_literal(op),
        doc: doc_text::operation(i, op).text(),
        method,
        builder,
        args,
        query,
        build,
        kind,
        returns,
        reader,
        paged,
        alternative,
    }
}

/// A parameter list: on the line when short, else a parameter a line as gofmt keeps it.
fn signature(params: &[String]) -> String {
    let one = params.join(", ");
    if one.len() <= 80 {
        return one;
    }
    format!("\n\t{},\n", params.join(",\n\t"))
}

/// `call := ...` and the settings of the call, a statement each (lines stay short).
fn call_literal(op: &Operation) -> String {
    let mut lines = vec![format!(
        "call := &runtime.Call{{Operation: {}, Method: {}}}",
        names::string(&op.name),
        names::string(op.method.as_str())
    )];
    lines.push(format!("call.Template = {}", names::string(&op.path)));
    if matches!(op.method.as_str(), "GET" | "PUT" | "DELETE") {
        lines.push("call.Resend = true".to_string());
    }
    if op.answer.polls {
        lines.push("call.Poll = true".to_string());
    }
    if op.is_open() {
        lines.push("call.NoAuth = true // it logs in".to_string());
    }
    if op.manager_only {
        lines.push(format!(
            "call.Hint = {}",
            names::string(doc_text::MANAGER_ONLY_HINT)
        ));
    }
    lines.join("\n\t")
}

fn query_cx(op: &Operation, fields: &[&Field], types: &Types, scope: &mut Scope) -> QueryCx {
    let name = scope.claim(&format!("{}Query", names::exported(&op.name)));
    let mut field_scope = names::field_scope();
    QueryCx {
        doc: format!(
            "{name} holds the optional query values of {}; the zero value sends none.",
            names::exported(&op.name)
        ),
        fields: fields
            .iter()
            .map(|f| QueryFieldCx {
                name: field_scope.claim(&names::exported(&f.name)),
                ty: format!("Opt[{}]", types.go(&f.ty)),
                doc: f.doc.clone(),
            })
            .collect(),
        name,
    }
}

/// The answer's kind, its Go type and reader; a paged list's walk.
fn answer(
    i: &Interface,
    op: &Operation,
    types: &Types,
    claimed: &Claimed,
    method: &str,
    methods: &mut Scope,
) -> (&'static str, String, String, Option<PagedCx>) {
    if let Some(p) = i.paging(op) {
        let paged = paging::paged_cx(i, types, claimed, method, methods, p);
        let item = paged.item.clone();
        return ("paged", item, String::new(), Some(paged));
    }
    match &op.answer.kind {
        AnswerKind::Json { body, .. } => ("json", types.go(body), types.reader(body), None),
        AnswerKind::Upsert { body } => (
            "upsert",
            format!("Upserted[{}]", types.go(body)),
            types.reader(body),
            None,
        ),
        AnswerKind::Bytes { .. } => ("bytes", "[]byte".into(), String::new(), None),
        AnswerKind::Empty => ("empty", String::new(), String::new(), None),
    }
}
