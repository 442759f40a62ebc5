//! A request builder per operation: required inputs up front, optional ones by method,
//! limits checked before anything is sent, and a `send` shaped by the documented answers.

use heck::ToUpperCamelCase;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{docs, names, types, validators};
use crate::doc_text::Doc;
use crate::ir::{
    Answer, AnswerKind, Builtin, Field, Input, Interface, Method, Operation, Paging, Segment,
    TypeKind, TypeRef,
};

/// The builders' struct names, in the operations' order: each operation's name in
/// UpperCamelCase, or with `Request` appended when a model type, the module's own names or
/// an earlier operation's builder has it (a builder `Login` beside a body type `Login`
/// would shadow it in client.rs). Computed once per interface: each name depends on those
/// before it.
pub fn builder_names(i: &Interface) -> Vec<Ident> {
    // `Self` is the one keyword an UpperCamelCase name can be (an operation `self`).
    let mut scope = crate::scope::Scope::new(names::TAKEN_TYPES, |n| n == "Self");
    for t in &i.types {
        scope.reserve(&names::type_ident(&t.name).to_string());
    }
    i.operations
        .iter()
        .map(|o| {
            let wanted = o.name.to_upper_camel_case();
            let name = if scope.is_free(&wanted) {
                scope.claim(&wanted)
            } else {
                scope.claim(&format!("{wanted}Request"))
            };
            format_ident!("{name}")
        })
        .collect()
}

/// The text form of a query value `expr: &T`.
/// `expr` is the value itself, or with `by_ref` a reference to it.
fn query_text(i: &Interface, ty: &TypeRef, expr: TokenStream, by_ref: bool) -> TokenStream {
    let reference = if by_ref {
        quote!(#expr)
    } else {
        quote!(&#expr)
    };
    match ty {
        TypeRef::Builtin(Builtin::String | Builtin::Url) => quote!(#expr.clone()),
        TypeRef::Builtin(Builtin::DateTime) => {
            quote!(::inspection_runtime::__private::format_date_time(#reference))
        }
        TypeRef::Builtin(Builtin::Date) => quote!(#expr.format("%Y-%m-%d").to_string()),
        TypeRef::Named(n) => match &i.ty(*n).kind {
            TypeKind::Id { .. } | TypeKind::Enum(_) => quote!(#expr.as_str().to_string()),
            _ => quote!(#expr.to_string()),
        },
        // Our own derived types always serialise; an empty value would only mean a bug.
        TypeRef::JsonEncoded(_) => quote!(serde_json::to_string(#reference).unwrap_or_default()),
        _ => quote!(#expr.to_string()),
    }
}

fn method_tokens(m: Method) -> TokenStream {
    let method = format_ident!("{}", m.as_str());
    quote!(::inspection_runtime::Method::#method)
}

/// The body parameter of the method that starts the builder, and the builder fields it
/// sets (a binary body's content type too).
fn body_arg(i: &Interface, op: &Operation) -> (Option<TokenStream>, Vec<TokenStream>) {
    let Some(body) = &op.body else {
        return (None, Vec::new());
    };
    if body.optional {
        // Set on the builder.
        return (None, vec![quote!(body: None)]);
    }
    if is_binary(&body.ty) {
        let ct = body.content_type.as_str();
        let inits = vec![
            quote!(body: body.into()),
            quote!(content_type: #ct.to_string()),
        ];
        (Some(quote!(body: impl Into<Vec<u8>>)), inits)
    } else {
        let ty = types::rust_type(i, &body.ty);
        (Some(quote!(body: #ty)), vec![quote!(body)])
    }
}

/// The client method that starts the builder.
pub fn client_method(i: &Interface, op: &Operation, builder: &Ident) -> TokenStream {
    let name = names::method_ident(&op.name);
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for input in &op.call.inputs {
        let field = match *input {
            Input::Path { index } => &op.path_params[index],
            Input::Query { index } => &op.query[index],
            Input::Body => {
                let (param, body_inits) = body_arg(i, op);
                params.extend(param);
                inits.extend(body_inits);
                continue;
            }
        };
        if !field.required && matches!(input, Input::Query { .. }) {
            // Set on the builder.
            let ident = names::field_ident(&field.name);
            inits.push(quote!(#ident: None));
            continue;
        }
        let (ident, ty, value, into) = types::arg(i, field);
        params.push(quote!(#ident: #ty));
        inits.push(if into {
            quote!(#ident: #value)
        } else {
            quote!(#ident)
        });
    }
    if op.paging.is_some() {
        inits.push(quote!(resume: None));
    }
    let doc = crate::doc_text::operation(i, op).attrs();
    quote! {
        #doc
        pub fn #name(&self, #(#params),*) -> #builder {
            #builder {
                core: self.core.clone(),
                request_options: Default::default(),
                #(#inits,)*
            }
        }
    }
}

/// An operation's request builder: its struct, setters, `to_request`, and the `send`
/// methods `impl_request!` adds.
pub fn builder(i: &Interface, op: &Operation, name: &Ident) -> TokenStream {
    let page_param = page_param(i, op);
    let builder_struct = builder_struct(i, op, name);
    let setters = query_setters(i, op);
    let body_setter = body_setter(i, op);
    let content_type_setter = content_type_setter(op);
    let to_request = to_request(i, op, page_param.as_ref());
    let resume = page_param.is_some().then(|| quote!(resume,));
    let send = send_kind(i, &op.answer);
    let alternative = alternative_impl(op, name);
    let paging = paging_methods(i, op, name);
    quote! {
        #builder_struct

        impl #name {
            #(#setters)*
            #body_setter
            #content_type_setter
            #to_request
        }

        ::inspection_runtime::__private::impl_request!(#name, #resume #send);
        #alternative
        #paging
    }
}

/// The page parameter `resume_at` fills in when a walk resumes: `Some("page")` for a
/// cursor, `None` for links; no value at all when the operation is not paged.
fn page_param(i: &Interface, op: &Operation) -> Option<TokenStream> {
    match i.paging(op)? {
        Paging::Cursor { settings, .. } => {
            let p = settings.page_param.as_str();
            Some(quote!(Some(#p)))
        }
        Paging::Links { .. } => Some(quote!(None)),
    }
}

/// The builder's struct: the client's core, the request options, and every input.
fn builder_struct(i: &Interface, op: &Operation, name: &Ident) -> TokenStream {
    let struct_doc = format!(
        " The `{}` request: set optional inputs, then `send` it (see [`Client::{}`]).",
        op.name,
        names::method_ident(&op.name)
    );
    let fields = builder_fields(i, op);
    quote! {
        #[doc = #struct_doc]
        #[derive(Clone, Debug)]
        #[must_use = "a request does nothing until it is sent"]
        pub struct #name {
            core: ::inspection_runtime::Core,
            request_options: ::inspection_runtime::RequestOptions,
            #(#fields)*
        }
    }
}

/// The builder's input fields: path parameters, query parameters (optional ones as
/// `Option`), the body (and its content type when binary), and the page to resume at.
fn builder_fields(i: &Interface, op: &Operation) -> Vec<TokenStream> {
    let mut fields = Vec::new();
    for f in &op.path_params {
        let ident = names::field_ident(&f.name);
        let ty = types::rust_type(i, &f.ty);
        fields.push(quote!(#ident: #ty,));
    }
    for f in &op.query {
        let ident = names::field_ident(&f.name);
        let ty = types::rust_type(i, &f.ty);
        fields.push(if f.required {
            quote!(#ident: #ty,)
        } else {
            quote!(#ident: Option<#ty>,)
        });
    }
    if let Some(body) = &op.body {
        let ty = types::rust_type(i, &body.ty);
        fields.push(match body.optional {
            true => quote!(body: Option<#ty>,),
            false => quote!(body: #ty,),
        });
        if is_binary(&body.ty) {
            fields.push(quote!(content_type: String,));
        }
    }
    // `resume` is reserved for this (check refuses a parameter of that name).
    if op.paging.is_some() {
        fields.push(quote!(resume: Option<::inspection_runtime::Resume>,));
    }
    fields
}

/// The setter of an optional body (sent only when set).
fn body_setter(i: &Interface, op: &Operation) -> Option<TokenStream> {
    op.body.as_ref().filter(|b| b.optional).map(|b| {
        let ty = types::rust_type(i, &b.ty);
        let mut doc = Doc::new(b.doc.as_deref().unwrap_or("The request body."));
        doc.push("Optional: the request goes without a body unless this is set.".into());
        let doc = doc.attrs();
        quote! {
            #doc
            pub fn body(mut self, body: #ty) -> Self {
                self.body = Some(body);
                self
            }
        }
    })
}

/// The setter of a binary body's media type, when the body is binary.
fn content_type_setter(op: &Operation) -> Option<TokenStream> {
    op.body.as_ref().filter(|b| is_binary(&b.ty)).map(|b| {
        let doc = format!(
            " The body's media type (`Content-Type`); `{}` unless set.",
            b.content_type
        );
        quote! {
            #[doc = #doc]
            pub fn content_type(mut self, content_type: impl Into<String>) -> Self {
                self.content_type = content_type.into();
                self
            }
        }
    })
}

/// A chainable setter per optional query parameter.
fn query_setters(i: &Interface, op: &Operation) -> Vec<TokenStream> {
    op.query
        .iter()
        .filter(|f| !f.required)
        .map(|f| {
            let (ident, ty, value, _) = types::arg(i, f);
            let mut doc = docs::field(f, true);
            doc.push(format!("Sent as the `{}` query parameter.", f.name));
            let doc = doc.attrs();
            quote! {
                #doc
                pub fn #ident(mut self, #ident: #ty) -> Self {
                    self.#ident = Some(#value);
                    self
                }
            }
        })
        .collect()
}

/// `to_request`: the checks, then the request with its path, query, headers and body.
fn to_request(i: &Interface, op: &Operation, page_param: Option<&TokenStream>) -> TokenStream {
    let validate = validate_call(i, op);
    let method = method_tokens(op.method);
    let template = op.path.as_str();
    let name = op.name.as_str();
    let segments = path_segments(i, op);
    let queries = op.query.iter().map(|f| query_pair(i, f));
    let accept = match &op.answer.kind {
        AnswerKind::Bytes { content_type } => {
            let ct = content_type.as_str();
            quote!(.accept(#ct))
        }
        _ => quote!(),
    };
    let anonymous = (op.auth == crate::ir::AuthUse::None).then(|| quote!(.anonymous()));
    let hint = op.manager_only.then(|| {
        let hint = crate::doc_text::MANAGER_ONLY_HINT;
        quote!(.hint(#hint))
    });
    let finish = finish_request(op, page_param);
    quote! {
        /// The request exactly as `send` puts it on the wire, after the documented limits
        /// are checked (unless the client turned validation off).
        pub fn to_request(&self) -> Result<::inspection_runtime::Request, ::inspection_runtime::Error> {
            #validate
            let request = ::inspection_runtime::Request::new(#method, #template)
                .operation(#name)
                #(#segments)*
                #(#queries)*
                #accept
                #anonymous
                #hint
                .options(self.request_options.clone());
            #finish
        }
    }
}

/// The checks of path and query parameters, then of the body, run through the client's
/// validator; nothing when no input has a documented limit.
fn validate_call(i: &Interface, op: &Operation) -> TokenStream {
    let mut checks = Vec::new();
    for f in &op.path_params {
        let ident = names::field_ident(&f.name);
        checks.push(validators::field_checks(
            i,
            f,
            &validators::Access::Plain(quote!(self.#ident)),
        ));
    }
    for f in &op.query {
        let ident = names::field_ident(&f.name);
        let place = quote!(self.#ident);
        let access = if f.required {
            validators::Access::Plain(place)
        } else {
            validators::Access::Optional(place)
        };
        checks.push(validators::field_checks(i, f, &access));
    }
    if let Some(body) = &op.body
        && i.named(&body.ty).is_some_and(validators::has_validate)
    {
        checks.push(match body.optional {
            true => quote! {
                if let Some(body) = &self.body {
                    ::inspection_runtime::Validate::collect_violations(body, v);
                }
            },
            false => quote!(::inspection_runtime::Validate::collect_violations(&self.body, v);),
        });
    }
    let checks: Vec<TokenStream> = checks.into_iter().filter(|c| !c.is_empty()).collect();
    if checks.is_empty() {
        quote!()
    } else {
        quote!(self.core.validate(|v| { #(#checks)* })?;)
    }
}

/// One `.segment(..)` per piece of the path: its text, or a path parameter's value.
fn path_segments(i: &Interface, op: &Operation) -> Vec<TokenStream> {
    op.call
        .segments
        .iter()
        .map(|segment| match segment {
            Segment::Param { index } => {
                let param = &op.path_params[*index];
                let ident = names::field_ident(&param.name);
                let is_string = match &param.ty {
                    TypeRef::Builtin(b) => b.is_string_like(),
                    TypeRef::Named(n) => matches!(i.ty(*n).kind, TypeKind::Id { .. }),
                    _ => false,
                };
                if is_string {
                    quote!(.segment(self.#ident.as_str()))
                } else {
                    quote!(.segment(self.#ident.to_string()))
                }
            }
            Segment::Text { text } => quote!(.segment(#text)),
        })
        .collect()
}

/// The `.query(..)` of one query parameter, its value as text (`None` when unset).
fn query_pair(i: &Interface, f: &Field) -> TokenStream {
    let wire = f.name.as_str();
    let ident = names::field_ident(&f.name);
    if f.required {
        let text = query_text(i, &f.ty, quote!(self.#ident), false);
        return quote!(.query(#wire, Some(#text)));
    }
    match &f.ty {
        TypeRef::Builtin(Builtin::String | Builtin::Url) => {
            quote!(.query(#wire, self.#ident.clone()))
        }
        TypeRef::Builtin(Builtin::DateTime) => quote!(.query(
            #wire,
            self.#ident.as_ref().map(::inspection_runtime::__private::format_date_time)
        )),
        ty => {
            let text = query_text(i, ty, quote!(x), true);
            quote!(.query(#wire, self.#ident.as_ref().map(|x| #text)))
        }
    }
}

/// The end of `to_request`: the page to resume at and the body, each when there is one.
fn finish_request(op: &Operation, page_param: Option<&TokenStream>) -> TokenStream {
    if op.body.as_ref().is_some_and(|b| b.optional) {
        let resumed =
            page_param.map(|p| quote!(let request = request.resume_at(self.resume.as_ref(), #p)?;));
        return quote! {
            #resumed
            match &self.body {
                Some(body) => request.json(body),
                None => Ok(request),
            }
        };
    }
    let attach = if op.body.as_ref().is_some_and(|b| is_binary(&b.ty)) {
        quote!(.bytes(self.body.clone(), &self.content_type))
    } else {
        quote!(.json(&self.body))
    };
    match (page_param, op.body.is_some()) {
        (Some(param), true) => {
            quote!(request.resume_at(self.resume.as_ref(), #param)? #attach)
        }
        (Some(param), false) => quote!(request.resume_at(self.resume.as_ref(), #param)),
        (None, true) => quote!(request #attach),
        (None, false) => quote!(Ok(request)),
    }
}

/// The answer's kind and type as `impl_request!` takes them (`json_ready, Unit`), which
/// decides how `send` reads the answer.
fn send_kind(i: &Interface, answer: &Answer) -> TokenStream {
    let ready = |plain: &str| match answer.polls {
        true => format_ident!("{plain}_ready"),
        false => format_ident!("{plain}"),
    };
    match &answer.kind {
        AnswerKind::Json { body, .. } => {
            let (kind, ty) = (ready("json"), types::rust_type(i, body));
            quote!(#kind, #ty)
        }
        AnswerKind::Upsert { body } => {
            let (kind, ty) = (ready("upsert"), types::rust_type(i, body));
            quote!(#kind, #ty)
        }
        AnswerKind::Bytes { content_type } => {
            let (kind, ct) = (ready("bytes"), content_type.as_str());
            quote!(#kind, #ct)
        }
        AnswerKind::Empty => {
            let kind = ready("empty");
            quote!(#kind)
        }
    }
}

/// The methods asking for an operation's alternative answer, when it has one.
fn alternative_impl(op: &Operation, name: &Ident) -> Option<TokenStream> {
    op.answer.alternative.as_ref().map(|ct| {
        let ct = ct.as_str();
        let [plain, to, stream] = alternative_methods(op);
        quote!(::inspection_runtime::__private::impl_alternative!(#name, #ct, #plain, #to, #stream);)
    })
}

/// The walks of a paged operation's builder `name`.
fn paging_methods(i: &Interface, op: &Operation, name: &proc_macro2::Ident) -> TokenStream {
    let walks = match i.paging(op) {
        Some(Paging::Cursor { item, settings }) => {
            let page = types::rust_type(i, &TypeRef::Page(Box::new(item.clone())));
            let item = types::rust_type(i, item);
            let (page_param, per_page) = (
                settings.page_param.as_str(),
                settings.per_page_param.as_str(),
            );
            quote!(cursor, #page, #item, #page_param, #per_page)
        }
        Some(Paging::Links { envelope, item, .. }) => {
            let envelope = names::type_ident(&i.ty(envelope).name);
            let item = types::rust_type(i, item);
            quote!(links, #envelope, #item)
        }
        None => return quote!(),
    };
    quote!(::inspection_runtime::__private::impl_pages!(#name, #walks);)
}

/// The builder method asking for an operation's alternative answer: the form's name the
/// IR plans (`pdf`).
fn alternative_method(op: &Operation) -> Ident {
    names::ident(op.call.alternative.as_deref().unwrap_or("bytes"))
}

/// The three builder methods of an operation's alternative answer: the bytes, into an
/// `AsyncWrite` (`_to`), as a stream of chunks (`_stream`).
pub fn alternative_methods(op: &Operation) -> [Ident; 3] {
    let method = alternative_method(op);
    ["", "_to", "_stream"].map(|suffix| format_ident!("{method}{suffix}"))
}

/// A body sent as bytes (its format left open), with a content type the caller may set.
pub fn is_binary(ty: &TypeRef) -> bool {
    matches!(ty, TypeRef::Builtin(Builtin::Binary))
}
