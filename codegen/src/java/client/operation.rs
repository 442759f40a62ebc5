//! The context of one operation: its method's parameters, the checks and the request
//! `Operations` builds, and how its answer is read.

use crate::doc_text;
use crate::ir::{
    AnswerKind, AuthUse, Body, Builtin, Field, Input, Interface, Operation, Segment, TypeKind,
    TypeRef,
};
use crate::java::names::{self, Scope};
use crate::java::types::{self, Types};
use crate::limits;

use super::{ClientNames, declarations, wrapped};
use crate::java::models::upper_first;

#[derive(serde::Serialize)]
pub struct OperationCx {
    pub name: String,
    pub constant: String,
    pub method: String,
    pub doc: String,
    /// `new Operation(...)`.
    pub descriptor: String,
    /// The method's parameters, in the order every client takes them.
    pub params: Vec<ParamCx>,
    /// Statements refusing a `null` required argument.
    pub requires: Vec<String>,
    /// The javadoc `@param` tags of the parameters.
    pub tags: Vec<String>,
    /// The parameters declared, and with `String resume` after them.
    pub decl: String,
    pub decl_resume: String,
    /// The parameters of `Operations`' builder method (the operation and the core first).
    pub builder_decl: String,
    /// The query class of the optional query parameters, when there are any (taken out
    /// into [`ClientCx::queries`] once made).
    #[serde(skip)]
    pub query: Option<QueryCx>,
    /// With optional query values: the overload leaving them all out, as its declared
    /// parameters, the arguments it passes on (an empty query in its place) and its tags.
    pub without_query: Option<WithoutQuery>,
    /// Statements of `Operations`' builder method after `Call call = new Call(...)`.
    pub build: Vec<String>,
    pub checks: Vec<String>,
    /// `json`, `upsert`, `bytes`, `empty` or `paged`.
    pub call: &'static str,
    /// The answer's Java type (`Unit`, `Upserted<Unit>`, `byte[]`, `Void`; a paged list's
    /// record and page types).
    pub returns: String,
    pub page_type: String,
    /// The reader of the answer (`Unit::decode`) or the `Walk.Plan` expression.
    pub reader: String,
    pub optional_body: bool,
    /// The alternative media type's method (`getInspectionPdf`), its media type, and its
    /// download's method (`getInspectionPdfTo`).
    pub alternative: Option<(String, String, String)>,
    /// For an answer of bytes: the method writing them to a stream (`getFormTo`).
    pub download: Option<String>,
}

#[derive(serde::Serialize)]
pub struct WithoutQuery {
    pub decl: String,
    pub decl_resume: String,
    pub args: String,
    pub tags: Vec<String>,
}

#[derive(serde::Serialize)]
pub struct ParamCx {
    pub ty: String,
    pub name: String,
    pub doc: String,
}

/// The class of an operation's optional query values.
pub type QueryCx = crate::templates::QueryTypeCx<QueryFieldCx>;

#[derive(serde::Serialize)]
pub struct QueryFieldCx {
    pub name: String,
    pub ty: String,
    pub wire: String,
    pub doc: String,
    pub text: String,
    pub check: Option<String>,
}

/// What an operation's method takes and its request holds, gathered input by input.
#[derive(Default)]
struct Inputs {
    params: Vec<ParamCx>,
    requires: Vec<String>,
    checks: Vec<String>,
    path_values: Vec<String>,
    query_text: Vec<String>,
}

impl Inputs {
    fn param(&mut self, ty: String, name: &str, doc: String) {
        self.params.push(ParamCx {
            ty,
            name: name.to_string(),
            doc,
        });
    }

    fn require(&mut self, name: &str, what: &str) {
        self.requires.push(format!(
            "Objects.requireNonNull({name}, {});",
            names::string(what)
        ));
    }

    /// A checked value: its documented limits, at `path` (the wire name).
    fn check(&mut self, types: &Types, f: &Field, value: &str) {
        let path = names::string(&f.name);
        if let Some(c) = limits::of_field(types, f, value, &path) {
            self.checks.push(c);
        }
    }

    fn path(&mut self, types: &Types, f: &Field, scope: &mut Scope) {
        let name = scope.claim(&names::member(&f.name));
        self.param(
            types.java(&f.ty, false),
            &name,
            format!("the `{}` path value", f.name),
        );
        self.require(&name, &f.name);
        self.check(types, f, &name);
        self.path_values.push(path_text(types, &f.ty, &name));
    }

    fn required_query(&mut self, types: &Types, f: &Field, scope: &mut Scope) {
        let name = scope.claim(&names::member(&f.name));
        self.param(
            types.java(&f.ty, false),
            &name,
            format!("the `{}` query value", f.name),
        );
        if !types::is_primitive(&f.ty) {
            self.require(&name, &f.name);
        }
        self.check(types, f, &name);
        self.query_text.push(format!(
            "call.query({}, {});",
            names::string(&f.name),
            query_value(types, &f.ty, &name)
        ));
    }

    fn body(&mut self, types: &Types, body: &Body) {
        let binary = body.ty == TypeRef::Builtin(Builtin::Binary);
        let ty = if binary {
            "byte[]".to_string()
        } else {
            types.java(&body.ty, false)
        };
        let check = limits::of_body(types, &body.ty, "body");
        if binary {
            self.param(ty, "body", "the body, sent as it is".into());
            self.require("body", "body");
            let doc = format!(
                "its media type, or {{@code null}} for `{}`",
                body.content_type
            );
            self.param("String".into(), "contentType", doc);
            return;
        }
        if body.optional {
            self.param(
                ty,
                "body",
                "the request body, or {@code null} to send none".into(),
            );
            self.checks
                .extend(check.map(|c| format!("if (body != null) {{ {c} }}")));
        } else {
            self.param(ty, "body", "the request body".into());
            self.require("body", "body");
            self.checks.extend(check);
        }
    }

    /// The query class of the optional query parameters, taken as the method's `query`.
    fn query_class(
        &mut self,
        types: &Types,
        op: &Operation,
        fields: &[&Field],
        scope: &mut Scope,
    ) -> QueryCx {
        let class = scope.claim(&format!("{}Query", names::type_name(&op.name)));
        let mut field_scope = names::member_scope();
        let fields: Vec<QueryFieldCx> = fields
            .iter()
            .map(|f| {
                let name = field_scope.claim(&names::member(&f.name));
                let v = format!("query.{name}");
                let path = names::string(&f.name);
                QueryFieldCx {
                    ty: types.java(&f.ty, true),
                    wire: path.clone(),
                    doc: f.doc.clone(),
                    text: query_value(types, &f.ty, &v),
                    check: limits::of_field(types, f, &v, &path),
                    name,
                }
            })
            .collect();
        self.param(class.clone(), "query", "the optional query values".into());
        self.require("query", "query");
        for f in &fields {
            let v = format!("query.{}", f.name);
            if let Some(c) = &f.check {
                self.checks.push(format!("if ({v} != null) {{ {c} }}"));
            }
            self.query_text.push(format!(
                "if ({v} != null) {{ call.query({}, {}); }}",
                f.wire, f.text
            ));
        }
        QueryCx {
            name: class,
            doc: format!("The optional query parameters of `{}`.", op.name),
            fields,
        }
    }

    /// The statements building the request after `new Call(op)`.
    fn build(&self, types: &Types, op: &Operation) -> Vec<String> {
        let mut build: Vec<String> = op
            .call
            .segments
            .iter()
            .map(|s| match s {
                Segment::Text { text } => format!("call.text({});", names::string(text)),
                Segment::Param { index } => format!(
                    "call.segment({}, {});",
                    names::string(&op.path_params[*index].name),
                    self.path_values[*index]
                ),
            })
            .collect();
        build.extend(self.query_text.iter().cloned());
        if let Some(body) = &op.body {
            let set = match body.ty {
                TypeRef::Builtin(Builtin::Binary) => format!(
                    "call.bytes(body, contentType != null ? contentType : {});",
                    names::string(&body.content_type)
                ),
                _ => format!("call.json({});", types.encode(&body.ty, "body", 0)),
            };
            build.push(if body.optional {
                format!("if (body != null) {{ {set} }}")
            } else {
                set
            });
        }
        build
    }
}

/// The overload of a method with optional query values that leaves them all out.
fn without_query(params: &[ParamCx], class: &str) -> WithoutQuery {
    let kept: Vec<&ParamCx> = params.iter().filter(|p| p.name != "query").collect();
    let mut declared: Vec<String> = kept
        .iter()
        .map(|p| format!("{} {}", p.ty, p.name))
        .collect();
    let decl = declarations(&declared);
    declared.push("String resume".to_string());
    WithoutQuery {
        decl,
        decl_resume: declarations(&declared),
        args: params
            .iter()
            .map(|p| match p.name.as_str() {
                "query" => format!("{class}.builder().build()"),
                name => name.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        tags: kept
            .iter()
            .map(|p| format!("@param {} {}", p.name, p.doc))
            .collect(),
    }
}

/// The method's inputs in the plan's order: path values, required query values and the
/// body, then the optional query values as one query class, then an optional body.
fn inputs(op: &Operation, types: &Types, scope: &mut Scope) -> (Inputs, Option<QueryCx>) {
    let mut params_scope = names::member_scope();
    for taken in [
        "query",
        "resume",
        "call",
        "out",
        "core",
        "body",
        "contentType",
    ] {
        params_scope.claim(taken);
    }
    let mut inputs = Inputs::default();
    let mut optional_query: Vec<&Field> = Vec::new();
    for input in &op.call.inputs {
        match *input {
            Input::Path { index } => inputs.path(types, &op.path_params[index], &mut params_scope),
            Input::Query { index } if op.query[index].required => {
                inputs.required_query(types, &op.query[index], &mut params_scope)
            }
            Input::Query { index } => optional_query.push(&op.query[index]),
            Input::Body => match &op.body {
                Some(body) if !body.optional => inputs.body(types, body),
                _ => {}
            },
        }
    }
    let query =
        (!optional_query.is_empty()).then(|| inputs.query_class(types, op, &optional_query, scope));
    if let Some(body) = op.body.as_ref().filter(|b| b.optional) {
        inputs.body(types, body);
    }
    (inputs, query)
}

pub(super) fn operation_cx(
    i: &Interface,
    op: &Operation,
    n: &ClientNames,
    types: &Types,
    members: &mut Scope,
    constants: &mut Scope,
    scope: &mut Scope,
) -> OperationCx {
    let method = members.claim(&names::member(&op.name));
    let constant = constants.claim(&names::constant(&op.name));
    let (inputs, query) = inputs(op, types, scope);
    let build = inputs.build(types, op);
    let (call, returns, page_type, reader) = super::answer::answer(i, op, n, types);
    let mut doc = doc_text::operation(i, op);
    if call == "paged" {
        doc.push(
            "Iterating the result walks every record of every page, a page at a time; a walk \
             that fails past its first page throws a `PagingInterruptedException` whose \
             `resume()`, given to this method's `resume`, walks on from the page that failed."
                .to_string(),
        );
    }
    let alternative = op.answer.alternative.as_ref().map(|media| {
        let form = op.call.alternative.as_deref().unwrap_or("bytes");
        let name = members.claim(&format!("{method}{}", upper_first(&names::member(form))));
        let to = members.claim(&format!("{name}To"));
        (name, names::string(media), to)
    });
    let download = (call == "bytes").then(|| members.claim(&format!("{method}To")));
    let Inputs {
        params,
        requires,
        checks,
        ..
    } = inputs;
    let declared: Vec<String> = params
        .iter()
        .map(|p| format!("{} {}", p.ty, p.name))
        .collect();
    let with = |before: &[&str], after: &[&str]| {
        declarations(&crate::templates::params_around(before, &declared, after))
    };
    let without_query = query.as_ref().map(|q| without_query(&params, &q.name));
    OperationCx {
        without_query,
        tags: params
            .iter()
            .map(|p| format!("@param {} {}", p.name, p.doc))
            .collect(),
        decl: with(&[], &[]),
        decl_resume: with(&[], &["String resume"]),
        builder_decl: with(&["Operation op", "Core core"], &[]),
        name: names::string(&op.name),
        constant,
        method,
        doc: doc.text(),
        descriptor: descriptor(op),
        params,
        requires,
        query,
        build,
        checks,
        call,
        returns,
        page_type,
        reader,
        optional_body: op.body.as_ref().is_some_and(|b| b.optional),
        alternative,
        download,
    }
}

fn descriptor(op: &Operation) -> String {
    let accept = match (&op.paging, &op.answer.kind) {
        (None, AnswerKind::Bytes { content_type }) => names::string(content_type),
        _ => "null".to_string(),
    };
    let hint = if op.manager_only {
        names::string(doc_text::MANAGER_ONLY_HINT)
    } else {
        "null".to_string()
    };
    wrapped(
        "new Operation",
        &[
            names::string(&op.name),
            names::string(op.method.as_str()),
            names::string(&op.path),
            accept,
            op.answer.polls.to_string(),
            (op.auth == AuthUse::None).to_string(),
            hint,
        ],
        4,
    )
}

/// A path value's text: the id, reference or value it wraps; a builtin's text.
fn path_text(types: &Types, ty: &TypeRef, v: &str) -> String {
    match ty {
        TypeRef::Named(_) => format!("{v}.value()"),
        _ => query_value(types, ty, v),
    }
}

/// A query value's text, as every client sends it.
pub(super) fn query_value(types: &Types, ty: &TypeRef, v: &str) -> String {
    let i = types.interface;
    match ty {
        TypeRef::Builtin(Builtin::String | Builtin::Url) => v.to_string(),
        TypeRef::Builtin(Builtin::DateTime) => format!("Dates.format({v})"),
        TypeRef::Builtin(Builtin::Json) => format!("{v}.toJson()"),
        TypeRef::Builtin(_) => format!("String.valueOf({v})"),
        TypeRef::JsonEncoded(inner) => format!("{}.toJson()", types.encode(inner, v, 0)),
        TypeRef::Named(id) => match &i.ty(*id).kind {
            TypeKind::Object(_) | TypeKind::Union(_) => format!("{v}.toJsonValue().toJson()"),
            _ => format!("{v}.value()"),
        },
        _ => format!("{v}.toString()"),
    }
}
