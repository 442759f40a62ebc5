//! The table of an interface's subcommands: one row per operation, with its flags (from
//! its path and query parameters and a flat body's fields, typed, renamed off the tool's
//! own flags and each other), its body and answer, and its docs and limits as help.

use std::collections::BTreeSet;

use heck::ToKebabCase;
use proc_macro2::TokenStream;
use quote::quote;

use super::TAKEN_COMMANDS;
use crate::doc_text;
use crate::ir::{AnswerKind, Builtin, Field, Interface, Operation, TypeKind, TypeRef};
use crate::rust::operations;

/// The flags the tool adds itself: the tool's crate builds its command tree from this same
/// file, so an operation's flag renamed off these (`--query-quiet`) cannot clash.
#[path = "../../../../cli/src/flags.rs"]
mod tool_flags;

/// The flags the tool gives an operation's subcommand beyond its parameters: on every
/// subcommand, for its body and answer, and an alternative form's own.
fn own_flags(op: &Operation) -> Vec<String> {
    let sends = match &op.body {
        Some(b) if operations::is_binary(&b.ty) => tool_flags::Sends::Bytes,
        Some(_) => tool_flags::Sends::Json,
        None => tool_flags::Sends::Nothing,
    };
    let answers = answers(op);
    let mut flags: Vec<String> = tool_flags::EVERY_OPERATION
        .iter()
        .chain(&tool_flags::for_operation(sends, answers))
        .map(|f| f.to_string())
        .collect();
    if answers == tool_flags::Answers::Alternative {
        flags.push(alternative_flag(op).to_string());
    }
    flags
}

/// What an operation answers, as the tool's flags see it (and its table's `Answer`).
fn answers(op: &Operation) -> tool_flags::Answers {
    match &op.answer.kind {
        _ if op.paging.is_some() => tool_flags::Answers::Paged,
        AnswerKind::Bytes { .. } => tool_flags::Answers::Bytes,
        AnswerKind::Json { .. } if op.answer.alternative.is_some() => {
            tool_flags::Answers::Alternative
        }
        _ => tool_flags::Answers::Json,
    }
}

/// The rows of the operation table, with flags made distinct.
pub(super) fn operation_table(i: &Interface) -> Result<Vec<TokenStream>, String> {
    let mut commands = BTreeSet::new();
    let mut rows = Vec::new();
    for op in &i.operations {
        let command = op.name.to_kebab_case();
        if TAKEN_COMMANDS.contains(&command.as_str()) || !commands.insert(command.clone()) {
            return Err(format!(
                "the operation `{}` would be the subcommand `{command}`, which `{}` has already; rename it",
                op.name, i.name
            ));
        }
        rows.push(operation_row(i, op, &command));
    }
    Ok(rows)
}

fn operation_row(i: &Interface, op: &Operation, command: &str) -> TokenStream {
    let name = op.name.as_str();
    let about = first_sentence(&op.doc);
    let doc = doc_text::operation(i, op).text();
    let mut flags = Flags::default();
    flags.taken.extend(own_flags(op));
    let mut params = Vec::new();
    for f in &op.path_params {
        params.push(flags.param(i, f, quote!(Place::Path), "path", true));
    }
    for f in &op.query {
        params.push(flags.param(i, f, quote!(Place::Query), "query", f.required));
    }
    let body = match &op.body {
        None => quote!(Body::None),
        Some(b) if operations::is_binary(&b.ty) => quote!(Body::Bytes),
        Some(b) => {
            let fields = flat_fields(i, &b.ty);
            for f in &fields {
                params.push(flags.body_field(i, f));
            }
            let (required, optional) = (fields.is_empty() && !b.optional, b.optional);
            let mut secrets = Vec::new();
            secret_paths(i, &b.ty, "", 0, &mut secrets);
            quote!(Body::Json { required: #required, optional: #optional, secrets: &[#(#secrets),*] })
        }
    };
    let answer = answer(op);
    let (about, doc) = (long_literal(&about), long_literal(&doc));
    quote! {
        Operation {
            name: #name,
            command: #command,
            about: #about,
            doc: #doc,
            params: &[#(#params),*],
            body: #body,
            answer: #answer,
        }
    }
}

fn answer(op: &Operation) -> TokenStream {
    match (answers(op), &op.answer.kind) {
        (tool_flags::Answers::Paged, _) => quote!(Answer::Paged),
        (tool_flags::Answers::Bytes, _) => quote!(Answer::Bytes),
        (tool_flags::Answers::Alternative, _) => {
            let flag = alternative_flag(op);
            quote!(Answer::Alternative(#flag))
        }
        (tool_flags::Answers::Json, AnswerKind::Upsert { .. }) => quote!(Answer::Upsert),
        (tool_flags::Answers::Json, AnswerKind::Empty) => quote!(Answer::Empty),
        (tool_flags::Answers::Json, _) => quote!(Answer::Json),
    }
}

/// The flags of one subcommand, kept distinct from each other and from the tool's own.
#[derive(Default)]
struct Flags {
    taken: BTreeSet<String>,
}

impl Flags {
    /// A flag named after `name`; on a clash, `<place>-<name>`, then a number.
    fn claim(&mut self, name: &str, place: &str) -> String {
        let plain = name.to_kebab_case();
        let mut flag = plain.clone();
        if self.taken.contains(&flag) {
            flag = format!("{place}-{plain}");
        }
        let mut n = 2;
        while self.taken.contains(&flag) {
            flag = format!("{place}-{plain}-{n}");
            n += 1;
        }
        self.taken.insert(flag.clone());
        flag
    }

    fn param(
        &mut self,
        i: &Interface,
        f: &Field,
        place: TokenStream,
        word: &str,
        required: bool,
    ) -> TokenStream {
        let flag = self.claim(&f.name, word);
        row(i, f, &flag, place, required)
    }

    /// A flat body's field as a flag (never required: `--body` may give it).
    fn body_field(&mut self, i: &Interface, f: &Field) -> TokenStream {
        let flag = self.claim(&f.name, "body");
        row(i, f, &flag, quote!(Place::Body), false)
    }
}

fn row(i: &Interface, f: &Field, flag: &str, place: TokenStream, required: bool) -> TokenStream {
    let name = f.name.as_str();
    let kind = kind(i, &f.ty);
    let mut help = first_sentence(&f.doc);
    if let Some(limits) = doc_text::describe_limits(&f.constraints) {
        help.push_str(&format!(" Limits: {limits}."));
    }
    if matches!(
        f.ty,
        TypeRef::Builtin(Builtin::DateTime | Builtin::DateOrDateTime)
    ) {
        help.push_str(" ISO 8601 (2026-01-31T08:00:00Z).");
    }
    let help = long_literal(&help);
    quote! {
        Param { flag: #flag, name: #name, place: #place, kind: #kind, required: #required, help: #help }
    }
}

/// How a value of `ty` is given on the command line.
fn kind(i: &Interface, ty: &TypeRef) -> TokenStream {
    match ty {
        TypeRef::Builtin(b) if b.is_integer() => quote!(Kind::Integer),
        TypeRef::Builtin(Builtin::Number) => quote!(Kind::Number),
        TypeRef::Builtin(Builtin::Boolean) => quote!(Kind::Boolean),
        TypeRef::Builtin(Builtin::Json) => quote!(Kind::Json),
        TypeRef::Builtin(Builtin::DateTime) => quote!(Kind::DateTime),
        TypeRef::Builtin(_) => quote!(Kind::Text),
        TypeRef::Named(id) => match &i.ty(*id).kind {
            TypeKind::Enum(e) if !e.open => {
                let values = e.values.iter().map(|v| v.wire.as_str());
                quote!(Kind::Choice(&[#(#values),*]))
            }
            TypeKind::Enum(_) | TypeKind::Id { .. } => quote!(Kind::Text),
            TypeKind::RecordRef(r) => {
                let (external, me) = (r.external, r.self_keyword.is_some());
                quote!(Kind::Ref { external: #external, me: #me })
            }
            _ => quote!(Kind::Json),
        },
        _ => quote!(Kind::Json),
    }
}

/// The fields of a body that flags can give: those of a plain record (no envelope, no
/// exactly-one-of group) whose value is a scalar, an enum or an id.
fn flat_fields<'i>(i: &'i Interface, ty: &TypeRef) -> Vec<&'i Field> {
    let Some(TypeKind::Object(o)) = i.named(ty).map(|t| &t.kind) else {
        return Vec::new();
    };
    if o.envelope.is_some() || o.one_of.is_some() {
        return Vec::new();
    }
    o.fields
        .iter()
        .filter(|f| !f.sensitive)
        .filter(|f| match &f.ty {
            TypeRef::Builtin(b) => !matches!(
                b,
                Builtin::Json | Builtin::Binary | Builtin::DateTimeOrRange
            ),
            TypeRef::Named(id) => matches!(i.ty(*id).kind, TypeKind::Enum(_) | TypeKind::Id { .. }),
            _ => false,
        })
        .collect()
}

/// The JSON paths (`user.password`) of every sensitive field reached from `ty` through
/// nested records.
fn secret_paths(i: &Interface, ty: &TypeRef, prefix: &str, depth: u8, out: &mut Vec<String>) {
    let Some(TypeKind::Object(o)) = i.named(ty).map(|t| &t.kind) else {
        return;
    };
    if depth > 8 {
        return;
    }
    for f in o.wire_fields() {
        let path = format!("{prefix}{}", f.name);
        if f.sensitive {
            out.push(path);
        } else {
            secret_paths(i, &f.ty, &format!("{path}."), depth + 1, out);
        }
    }
}

/// The flag that asks for an operation's alternative form: the form's name the IR plans
/// (`pdf`), as the Rust method is named after it too.
pub(super) fn alternative_flag(op: &Operation) -> &str {
    op.call.alternative.as_deref().unwrap_or("bytes")
}

/// The first sentence of a doc, on one line.
pub(super) fn first_sentence(doc: &str) -> String {
    let line = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.find(". ") {
        Some(end) => line[..=end].to_string(),
        None => line,
    }
}

/// A string literal, as `concat!` of pieces when long, so no generated line runs far.
pub(super) fn long_literal(text: &str) -> TokenStream {
    const PIECE: usize = 80;
    if text.len() <= PIECE {
        return quote!(#text);
    }
    let mut pieces = Vec::new();
    let mut rest = text;
    while rest.len() > PIECE {
        let mut cut = PIECE;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        // End a piece after a space where one is near, for a readable diff.
        if let Some(space) = rest[..cut].rfind(' ').filter(|s| *s > PIECE / 2) {
            cut = space + 1;
        }
        pieces.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    pieces.push(rest);
    quote!(concat!(#(#pieces),*))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_that_clashes_is_renamed_by_its_place_then_numbered() {
        let mut flags = Flags::default();
        flags.taken.insert("output".into());
        assert_eq!(flags.claim("referenceNumber", "query"), "reference-number");
        assert_eq!(
            flags.claim("reference_number", "body"),
            "body-reference-number"
        );
        assert_eq!(flags.claim("output", "query"), "query-output");
        assert_eq!(flags.claim("output", "query"), "query-output-2");
    }

    #[test]
    fn a_long_literal_is_cut_into_pieces_that_join_back() {
        let text = "word ".repeat(60);
        let tokens = long_literal(&text).to_string();
        assert!(tokens.starts_with("concat !"), "{tokens}");
        let joined: String = syn::parse2::<syn::ExprMacro>(long_literal(&text))
            .unwrap()
            .mac
            .parse_body_with(
                syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated,
            )
            .unwrap()
            .iter()
            .map(|l| l.value())
            .collect();
        assert_eq!(joined, text);
    }
}
