//! The export's part of an interface's module: a `Source` over the client (the list's
//! pages from a resume point and a time, each record's document through the API, the
//! records' pre-signed link to it) and the function that runs `inspection export`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::page_size;
use super::table::{alternative_flag, first_sentence};
use crate::ir::{AnswerKind, Builtin, Interface, Operation, Paging, TypeRef};
use crate::rust::{names, operations, types};

/// The export: an `Export` field of the interface, and the items behind it (a `Source`
/// over the client and the function that runs it).
pub(super) fn export(
    i: &Interface,
    e: &crate::ir::Export,
) -> Result<(TokenStream, TokenStream), String> {
    let op = i
        .operations
        .iter()
        .find(|o| o.name == e.list)
        .ok_or_else(|| format!("generator bug: no export list `{}`", e.list))?;
    let pages = list_pages(i, op, Some((&e.since_param, e.since_field.as_deref())))?;
    let (document, extension, flag, media) = match &e.document {
        Some(name) => document(i, name)?,
        None => (
            quote!(Box::pin(async { Ok(0) })),
            quote!(None),
            quote!(None),
            String::new(),
        ),
    };
    let has_link = e.document_link.is_some();
    let about = about(i, e, &extension, &media);
    let help = first_sentence(&e.doc);
    let field = quote!(cli::app::Export {
        about: #help,
        document_flag: #flag,
        document_link: #has_link,
        run: export,
    });
    let items = quote! {
        /// What `inspection export` walks (the spec's `export`).
        struct Export(Client);

        impl cli::export::Source for Export {
            fn about(&self) -> cli::export::About {
                #about
            }
            fn quota(&self) -> Option<(u32, std::time::Duration)> {
                self.0.core().config().pacing_limit()
            }
            fn pages(
                &self,
                since: Option<chrono::DateTime<chrono::Utc>>,
                resume: Option<inspection_client::runtime::Resume>,
                page_size: Option<u32>,
            ) -> cli::export::Pages {
                #pages
            }
            fn document<'a>(&'a self, id: &'a str, out: &'a mut cli::export::File) -> cli::export::Writing<'a> {
                let _ = (&id, &out);
                #document
            }
            fn core(&self) -> &inspection_client::runtime::Core {
                self.0.core()
            }
        }

        /// Runs `inspection export`, then prints what it did.
        fn export<'a>(
            cx: &'a cli::app::Context,
            options: &'a cli::export::Options,
        ) -> cli::app::Running<'a> {
            Box::pin(async move {
                let source = Export(connect(cx).await?);
                let summary = cli::export::run(&source, options).await?;
                cli::output::Printer::for_stdout().print(&summary)
            })
        }
    };
    Ok((field, items))
}

/// What the export walks (`cli::export::About`): the interface, the list, the records'
/// fields, the document's extension and the records' link to it.
fn about(
    i: &Interface,
    e: &crate::ir::Export,
    extension: &TokenStream,
    media: &str,
) -> TokenStream {
    let link = match &e.document_link {
        Some(link) => {
            let (field, secs) = (link.field.as_str(), link.lifetime_secs);
            quote!(Some(cli::export::Link {
                field: #field,
                lifetime: std::time::Duration::from_secs(#secs),
                media_type: #media,
            }))
        }
        None => quote!(None),
    };
    let (interface, list_name, id_field, watermark) = (
        i.name.as_str(),
        e.list.as_str(),
        e.id_field.as_str(),
        e.watermark_field.as_str(),
    );
    quote! {
        cli::export::About {
            interface: #interface,
            list: #list_name,
            id_field: #id_field,
            watermark_field: #watermark,
            document_extension: #extension,
            document_link: #link,
        }
    }
}

/// The body of a `pages` (the export's, a sync list's): the list from `resume`, after
/// `since` by the filter `since` names (the parameter, and its field for a JSON-encoded
/// one; none: the whole list), `page_size` records a page, its records as JSON.
pub(super) fn list_pages(
    i: &Interface,
    op: &Operation,
    since: Option<(&str, Option<&str>)>,
) -> Result<TokenStream, String> {
    let list = names::method_ident(&op.name);
    let (page_ty, items_field) = match i.paging(op) {
        Some(Paging::Cursor { settings, .. }) => match &op.answer.kind {
            AnswerKind::Json { body, .. } => {
                (types::rust_type(i, body), settings.items_field.as_str())
            }
            _ => return Err(format!("generator bug: `{}` answers no page", op.name)),
        },
        Some(Paging::Links {
            envelope,
            items_field,
            ..
        }) => (types::rust_type(i, &TypeRef::Named(envelope)), items_field),
        None => return Err(format!("generator bug: `{}` is not paged", op.name)),
    };
    let items = names::field_ident(items_field);
    let size = page_size(i, op).map(|(param, max)| {
        let setter = names::field_ident(param);
        let max = proc_macro2::Literal::u32_unsuffixed(max);
        quote!(.#setter(page_size.unwrap_or(#max).try_into().unwrap_or(#max)))
    });
    // A list without a page size parameter takes none.
    let unsized_list = size.is_none().then(|| quote!(let _ = page_size;));
    let since = match since {
        Some((param, field)) => since_filter(op, param, field),
        // A list without a date filter takes no time.
        None => quote!(let _ = since;),
    };
    Ok(quote! {
        #unsized_list
        let b = self.0.#list() #size;
        #since
        let b = match resume { Some(at) => b.resume(at), None => b };
        cli::export::pages_of(b.pages_resumable(), |page: #page_ty| page.#items)
    })
}

/// `b` with the list's "after" filter set to `since`, when given.
fn since_filter(op: &Operation, param: &str, field: Option<&str>) -> TokenStream {
    let since_setter = names::field_ident(param);
    let range = op
        .query
        .iter()
        .find(|q| q.name == param)
        .is_some_and(|q| matches!(q.ty, TypeRef::Builtin(Builtin::DateTimeOrRange)));
    let set = match field {
        // A time-or-range parameter takes the time as "since"; a date-time one as it is.
        None if range => quote!(b.#since_setter(t.into())),
        None => quote!(b.#since_setter(t)),
        Some(field) => quote! {
            match cli::serde_json::from_value(cli::serde_json::json!({ #field: t })) {
                Ok(value) => b.#since_setter(value),
                Err(e) => return cli::export::failed(e),
            }
        },
    };
    quote!(let b = match since { Some(t) => #set, None => b };)
}

/// A record's document: the call that writes it, its file extension, the flag that asks
/// for it (the name of the builder method of a binary alternative, or `document`) and its
/// media type.
fn document(
    i: &Interface,
    name: &str,
) -> Result<(TokenStream, TokenStream, TokenStream, String), String> {
    let op = i
        .operations
        .iter()
        .find(|o| o.name == name)
        .ok_or_else(|| format!("generator bug: no document operation `{name}`"))?;
    let method = names::method_ident(&op.name);
    let (to, media) = match (&op.answer.alternative, &op.answer.kind) {
        (Some(media), _) => (
            operations::alternative_methods(op)[1].clone(),
            media.clone(),
        ),
        (None, AnswerKind::Bytes { content_type }) => {
            (format_ident!("send_to"), content_type.clone())
        }
        _ => return Err(format!("generator bug: `{name}` answers no bytes")),
    };
    let extension = media.rsplit('/').next().unwrap_or("bin").to_string();
    let flag = match op.answer.alternative {
        Some(_) => alternative_flag(op),
        None => "documents",
    };
    Ok((
        quote!(Box::pin(self.0.#method(id.to_string()).#to(out))),
        quote!(Some(#extension)),
        quote!(Some(#flag)),
        media,
    ))
}
