//! The call adapter: an operation's name, its arguments (path, query, body as JSON) and a
//! mode onto the generated builders, one match arm per operation.
//!
//! Rust cannot look an operation up by name as the Python and TypeScript runners do, so
//! this is generated from the IR, and a new operation in the spec is callable with no edit
//! by its two includers, which give the module `cx` beside it (the arguments, and a macro
//! per kind of answer): the command-line tool (`generated/cli/src/calls/`, with
//! `cli/src/call.rs`) and the Rust conformance runner, which compiles the same files
//! (with `tests/support/conformance/call.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{names, operations, types};
use crate::ir::{AnswerKind, Field, Interface, Operation, OperationPaging, TypeKind, TypeRef};

/// Where the adapters are written, a file per interface: inside the command-line tool's
/// crate, which must build from its own folder.
pub const ADAPTER_DIR: &str = "generated/cli/src/calls";

/// The adapter module of one interface: `pub async fn call(client, op, args, mode)`.
pub fn adapter(i: &Interface) -> TokenStream {
    let arms = i.operations.iter().map(|op| {
        let wire = op.name.as_str();
        let body = arm(i, op);
        quote!(#wire => { #body })
    });
    let unknown = format!("`{{other}}` is no {} operation or client action", i.name);
    let module = names::ident(&i.name);
    // The includer's names go through `cx::`, so a spec type of the same name cannot clash.
    quote! {
        //! Generated from the IR by `codegen/src/rust/adapter.rs`.
        use inspection_client::#module::*;
        use super::call as cx;

        /// Calls the operation `op` (by its spec name) with its arguments in `mode`.
        pub async fn call(
            client: &Client,
            op: &str,
            mut a: cx::Args,
            mode: cx::Mode,
        ) -> Result<cx::Outcome, String> {
            let outcome = match op {
                #(#arms)*
                other => match cx::presigned_action!(client, other, a) {
                    Some(outcome) => outcome,
                    None => return Err(format!(#unknown)),
                },
            };
            a.finish()?;
            Ok(outcome)
        }
    }
}

/// One operation's arm: the inputs the builder starts from, read into `p0, p1, ...` (names
/// no parameter can shadow), the optional ones set when the step gives them, then the call
/// `mode` asks for.
fn arm(i: &Interface, op: &Operation) -> TokenStream {
    let method = names::method_ident(&op.name);
    let mut reads = Vec::new();
    let mut args = Vec::new();
    let required = op
        .path_params
        .iter()
        .chain(op.query.iter().filter(|f| f.required));
    for (n, f) in required.enumerate() {
        let var = format_ident!("p{n}");
        let wire = f.name.as_str();
        let (ty, read) = match (n < op.path_params.len(), record_ref(i, f)) {
            (true, Some(read)) => (types::rust_type(i, &f.ty), read),
            (true, None) => (read_type(i, f), quote!(a.path(#wire)?)),
            (false, _) => (read_type(i, f), quote!(a.required_query(#wire)?)),
        };
        reads.push(quote!(let #var: #ty = #read;));
        args.push(quote!(#var));
    }
    let binary_body = op
        .body
        .as_ref()
        .is_some_and(|b| operations::is_binary(&b.ty));
    match &op.body {
        Some(_) if binary_body => {
            reads.push(quote!(let text: String = a.required("body_text")?;));
            args.push(quote!(text.into_bytes()));
        }
        Some(b) if !b.optional => args.push(quote!(a.body()?)),
        _ => {}
    }
    let mut setters: Vec<TokenStream> = op
        .query
        .iter()
        .filter(|f| !f.required)
        .map(|f| {
            let wire = f.name.as_str();
            let setter = names::field_ident(&f.name);
            let ty = read_type(i, f);
            quote!(let b = cx::set_if(b, a.query(#wire)?, |b, v: #ty| b.#setter(v));)
        })
        .collect();
    if op.body.as_ref().is_some_and(|b| b.optional) {
        setters.push(quote!(let b = cx::set_if(b, a.optional_body()?, |b, v| b.body(v));));
    }
    if binary_body {
        setters.push(
            quote!(let b = cx::set_if(b, a.take("content_type")?, |b, v: String| b.content_type(v));),
        );
    }
    let call = answer(op);
    quote! {
        #(#reads)*
        let b = client.#method(#(#args),*);
        #(#setters)*
        #call
    }
}

/// The type a value of `f` is read as from a step: its own, or the id's text for a record
/// reference outside a path (which the builder takes by `Into`, and which has no
/// `Deserialize` of its own).
fn read_type(i: &Interface, f: &Field) -> TokenStream {
    match record_ref(i, f) {
        Some(_) => quote!(String),
        None => types::rust_type(i, &f.ty),
    }
}

/// The read of a path parameter that names a record by id, by external id or as `self`
/// (a record reference), with the forms the reference takes.
fn record_ref(i: &Interface, f: &Field) -> Option<TokenStream> {
    let TypeRef::Named(n) = &f.ty else {
        return None;
    };
    let TypeKind::RecordRef(r) = &i.ty(*n).kind else {
        return None;
    };
    let ty = names::type_ident(&i.ty(*n).name);
    let wire = f.name.as_str();
    let external = if r.external {
        quote!(Some(#ty::external))
    } else {
        quote!(None)
    };
    let me = if r.self_keyword.is_some() {
        quote!(Some(#ty::Me))
    } else {
        quote!(None)
    };
    Some(quote!(a.record_ref(#wire, #external, #me)?))
}

/// The call, by what the operation answers: a macro of the includer's `cx` module, which
/// decides what `mode` may ask for and what becomes of the answer (the conformance runner
/// collects it for its expectations, the command-line tool prints or saves it): `list`
/// for a paged list, `alternative` for a JSON answer with a binary one, else `answer`,
/// told the kind (`json`, `empty`, `upsert`, `bytes`).
fn answer(op: &Operation) -> TokenStream {
    match (&op.paging, &op.answer.kind) {
        (Some(OperationPaging::Links { .. }), _) => quote!(cx::list!(op, a, b, mode, backward)),
        (Some(OperationPaging::Cursor { .. }), _) => quote!(cx::list!(op, a, b, mode)),
        (None, AnswerKind::Upsert { .. }) => quote!(cx::answer!(op, a, b, mode, upsert)),
        (None, AnswerKind::Bytes { .. }) => quote!(cx::answer!(op, a, b, mode, bytes)),
        (None, AnswerKind::Empty) => quote!(cx::answer!(op, a, b, mode, empty)),
        (None, _) if let Some(media) = &op.answer.alternative => {
            let [plain, to, _] = operations::alternative_methods(op);
            quote!(cx::alternative!(op, a, b, mode, #plain, #to, #media))
        }
        (None, AnswerKind::Json { .. }) => quote!(cx::answer!(op, a, b, mode, json)),
    }
}

#[cfg(test)]
mod tests {
    /// The links spec of `tests/specs/` with a record reference taken by path and by query.
    fn adapter_text() -> String {
        let spec = include_str!("../../../tests/specs/links.yaml")
            .replacen(
                "types:\n",
                "types:\n  NoteId:\n    id: { doc: A note's id. }\n  NoteRef:\n    \
                 record_ref: { doc: A note by id or external id., id_type: NoteId, external: true }\n",
                1,
            )
            .replacen(
                "operations:\n",
                "operations:\n  copy_note:\n    doc: Copies a note.\n    method: POST\n    \
                 path: /notes/{id}/copy\n    path_params:\n      id: { type: NoteRef, doc: Which. }\n    \
                 query:\n      into: { type: NoteRef, doc: Where., required: true }\n      \
                 after: { type: NoteRef, doc: After which. }\n    responses:\n      \
                 - { status: 200, body: Note, doc: The copy. }\n",
                1,
            );
        let i = crate::load_str("links.yaml", &spec).unwrap_or_else(|d| panic!("{d}"));
        super::adapter(&i).to_string()
    }

    #[test]
    fn a_record_reference_is_read_by_its_forms_in_a_path_and_as_text_in_a_query() {
        let text = adapter_text();
        assert!(
            text.contains(
                "let p0 : NoteRef = a . record_ref (\"id\" , Some (NoteRef :: external) , None) ?"
            ),
            "{text}"
        );
        assert!(
            text.contains("let p1 : String = a . required_query (\"into\") ?"),
            "{text}"
        );
        assert!(
            text.contains("a . query (\"after\") ? , | b , v : String | b . after (v)"),
            "{text}"
        );
    }
}
