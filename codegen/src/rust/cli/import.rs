//! The import's part of an interface's module: the targets the spec declares as static
//! data (each with its operation and its columns, read from the IR's
//! `ImportTarget::columns`), an `Import` source over the client (calls through the call
//! adapter, each target's find as a walk of its list) and the function that runs
//! `inspection import`.

use proc_macro2::TokenStream;
use quote::quote;

use super::export::list_pages;
use super::table::first_sentence;
use crate::ir::{CellKind, Import, ImportTarget, Interface, Operation, Place};

/// The import: an `Import` field of the interface, and the items behind it.
pub(super) fn import(
    i: &Interface,
    import: &Import,
    module: &proc_macro2::Ident,
) -> Result<(TokenStream, TokenStream), String> {
    let interface = i.name.as_str();
    let about = first_sentence(&import.doc);
    let mut targets = Vec::new();
    let mut named = Vec::new();
    let mut finds = Vec::new();
    for (n, t) in import.targets.iter().enumerate() {
        let (name, doc) = (t.name.as_str(), first_sentence(&t.doc));
        named.push(quote!((#name, #doc)));
        targets.push(target(i, t)?);
        if let Some(f) = &t.find {
            let list = operation(i, &f.list)?;
            let pages = list_pages(i, list, Some((&f.since_param, None)))?;
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            finds.push(quote!(#n => {
                let (since, resume, page_size) = (Some(since), None, None::<u32>);
                #pages
            }));
        }
    }
    let found = if finds.is_empty() {
        quote!(cli::import::no_find(target))
    } else {
        quote!(match target {
            #(#finds)*
            _ => cli::import::no_find(target),
        })
    };
    let field = quote!(cli::app::Import { about: #about, targets: &[#(#named),*], run: import });
    let source = source(module, &found);
    let items = quote! {
        /// What `inspection import` feeds (the spec's `import`).
        static IMPORT: cli::import::Import = cli::import::Import {
            interface: #interface,
            targets: &[#(#targets),*],
        };

        #source
    };
    Ok((field, items))
}

fn operation<'i>(i: &'i Interface, name: &str) -> Result<&'i Operation, String> {
    i.operations
        .iter()
        .find(|o| o.name == name)
        .ok_or_else(|| format!("generator bug: no operation `{name}`"))
}

/// One target as `cli::import::Target`: its operation, key and columns.
fn target(i: &Interface, t: &ImportTarget) -> Result<TokenStream, String> {
    let op = operation(i, &t.operation)?;
    let (name, doc, operation) = (t.name.as_str(), first_sentence(&t.doc), op.name.as_str());
    let (idempotent, creates) = (t.idempotent, op.method.as_str() == "POST");
    let key = t.key.iter().map(String::as_str);
    let row = option(t.row.as_deref());
    let columns = t.columns(i).into_iter().map(|c| {
        let (name, required) = (c.name.as_str(), c.required);
        let (place, kind) = (place(c.place), kind(c.kind));
        let variant = option(c.variant.as_deref());
        quote!(cli::import::Column { name: #name, place: #place, kind: #kind, required: #required, variant: #variant })
    });
    let find = match &t.find {
        Some(f) => {
            let matches = f.matches.iter().map(|(c, p)| quote!((#c, #p)));
            quote!(Some(cli::import::Find { matches: &[#(#matches),*] }))
        }
        None => quote!(None),
    };
    Ok(quote! {
        cli::import::Target {
            name: #name,
            about: #doc,
            operation: #operation,
            idempotent: #idempotent,
            creates: #creates,
            key: &[#(#key),*],
            row: #row,
            columns: &[#(#columns),*],
            find: #find,
        }
    })
}

/// The `Import` source over the client, and the function that runs the import.
fn source(module: &proc_macro2::Ident, found: &TokenStream) -> TokenStream {
    quote! {
        /// The client `inspection import` calls through.
        struct Import(Client);

        impl cli::import::Source for Import {
            fn call(
                &self,
                op: &'static str,
                args: cli::call::Args,
                mode: cli::call::Mode,
            ) -> cli::import::Calling<'_> {
                Box::pin(crate::calls::#module::call(&self.0, op, args, mode))
            }
            fn found(
                &self,
                target: usize,
                since: chrono::DateTime<chrono::Utc>,
            ) -> cli::export::Pages {
                let _ = &since;
                #found
            }
            fn core(&self) -> &inspection_client::runtime::Core {
                self.0.core()
            }
        }

        /// Runs `inspection import`: a check or a dry run reads no credentials.
        fn import<'a>(
            cx: &'a cli::app::Context,
            options: &'a cli::import::Options,
        ) -> cli::app::Running<'a> {
            Box::pin(async move {
                let client = if options.sends() {
                    connect(cx).await?
                } else {
                    Client::from_core(dry_core(cx)?)
                };
                cli::import::run(&IMPORT, &Import(client), options).await
            })
        }
    }
}

fn option(text: Option<&str>) -> TokenStream {
    match text {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    }
}

fn place(place: Place) -> TokenStream {
    match place {
        Place::Path => quote!(cli::import::Place::Path),
        Place::Query => quote!(cli::import::Place::Query),
        Place::Body => quote!(cli::import::Place::Body),
    }
}

fn kind(kind: CellKind) -> TokenStream {
    let name = match kind {
        CellKind::Text => quote!(Text),
        CellKind::Integer => quote!(Integer),
        CellKind::Number => quote!(Number),
        CellKind::Boolean => quote!(Boolean),
        CellKind::Date => quote!(Date),
        CellKind::DateTime => quote!(DateTime),
        CellKind::DateOrDateTime => quote!(DateOrDateTime),
        CellKind::Scalar => quote!(Scalar),
        CellKind::Json => quote!(Json),
        CellKind::Map => quote!(Map),
    };
    quote!(cli::import::CellKind::#name)
}
