//! The sync's part of an interface's module: the schema the tool's sync writes (the SQL
//! backend's tables as static data, the statements that make them from
//! `generated/sql`), a `Source` over the client (each list's pages from a resume point
//! and a time) and the function that runs `inspection sync`.

use proc_macro2::TokenStream;
use quote::quote;

use super::export::list_pages;
use super::table::first_sentence;
use crate::ir::{Current, Interface, Sync};
use crate::sql::ddl::{self, Dialect};
use crate::sql::tables::{self, Kind, Only, Table};

/// The sync: a `Sync` field of the interface, and the items behind it.
pub(super) fn sync(
    i: &Interface,
    s: &Sync,
    spec_version: &str,
) -> Result<(TokenStream, TokenStream), String> {
    let tables = tables::tables(i).map_err(|c| format!("generator bug: {}", c.message))?;
    let (arms, lists) = lists(i, s, &tables)?;
    let table_items = tables.iter().map(table);
    let sqlite = format!("../../sql/{}.sqlite.sql", i.name);
    let postgres = format!("../../sql/{}.postgres.sql", i.name);
    let (interface, help) = (i.name.as_str(), first_sentence(&s.doc));
    let field = quote!(cli::app::Sync { about: #help, run: sync });
    let (sync_struct, make, documents) = source_struct(&tables);
    let items = quote! {
        /// What `inspection sync` writes (the spec's `sync`, as `generated/sql`'s tables).
        static SCHEMA: cli::sync::schema::Schema = cli::sync::schema::Schema {
            interface: #interface,
            spec_version: #spec_version,
            lists: &[#(#lists),*],
            tables: &[#(#table_items),*],
            create: [include_str!(#sqlite), include_str!(#postgres)],
            ir: include_str!("../../ir.json"),
        };

        /// What `inspection sync` walks (the spec's `sync`).
        #sync_struct

        impl cli::sync::Source for Sync {
            fn schema(&self) -> &'static cli::sync::schema::Schema {
                &SCHEMA
            }
            fn pages(
                &self,
                list: usize,
                since: Option<chrono::DateTime<chrono::Utc>>,
                resume: Option<inspection_client::runtime::Resume>,
                page_size: Option<u32>,
            ) -> cli::export::Pages {
                match list {
                    #(#arms)*
                    _ => cli::sync::no_list(list),
                }
            }
            fn quota(&self) -> Option<(u32, std::time::Duration)> {
                self.0.core().config().pacing_limit()
            }
            fn core(&self) -> &inspection_client::runtime::Core {
                self.0.core()
            }
            fn documents(&self) -> Option<&dyn cli::export::Source> {
                #documents
            }
        }

        /// Runs `inspection sync`, and says what it did.
        fn sync<'a>(
            cx: &'a cli::app::Context,
            options: &'a cli::sync::Options,
        ) -> cli::app::Synced<'a> {
            Box::pin(async move {
                cli::sync::preflight(&SCHEMA, options)?;
                let source = #make;
                cli::sync::run(&source, options).await
            })
        }
    };
    Ok((field, items))
}

/// The `Sync` source's struct, how it is made, and its `documents`: the export's source
/// answers the documents of the list whose records have one.
fn source_struct(tables: &[Table]) -> (TokenStream, TokenStream, TokenStream) {
    if tables.iter().any(|t| t.document) {
        (
            quote!(
                struct Sync(Client, Export);
            ),
            quote!({
                let client = connect(cx).await?;
                Sync(client.clone(), Export(client))
            }),
            quote!(Some(&self.1)),
        )
    } else {
        (
            quote!(
                struct Sync(Client);
            ),
            quote!(Sync(connect(cx).await?)),
            quote!(None),
        )
    }
}

/// Each list's arm of `pages` (its walk) and its entry in the schema.
fn lists(
    i: &Interface,
    s: &Sync,
    tables: &[Table],
) -> Result<(Vec<TokenStream>, Vec<TokenStream>), String> {
    let mut arms = Vec::new();
    let mut lists = Vec::new();
    for (n, list) in s.lists.iter().enumerate() {
        let op = i
            .operations
            .iter()
            .find(|o| o.name == list.list)
            .ok_or_else(|| format!("generator bug: no sync list `{}`", list.list))?;
        let since = match &list.current {
            Current::Filter {
                since_param,
                since_field,
                ..
            } => Some((since_param.as_str(), since_field.as_deref())),
            Current::Walk => None,
        };
        let pages = list_pages(i, op, since)?;
        arms.push(quote!(#n => { #pages }));
        let table = tables
            .iter()
            .position(|t| t.parent.is_none() && t.name == crate::sql::names::sql_name(list.table()))
            .ok_or_else(|| format!("generator bug: no table for `{}`", list.list))?;
        let current = match &list.current {
            Current::Filter {
                watermark_field,
                changes,
                ..
            } => quote!(cli::sync::schema::Current::Filter {
                watermark: #watermark_field,
                changes: #changes,
            }),
            Current::Walk => quote!(cli::sync::schema::Current::Walk),
        };
        let name = list.list.as_str();
        lists.push(
            quote!(cli::sync::schema::List { list: #name, table: #table, current: #current }),
        );
    }
    Ok((arms, lists))
}

fn table(t: &Table) -> TokenStream {
    let name = t.name.as_str();
    let parent = match t.parent {
        Some(p) => quote!(Some(#p)),
        None => quote!(None),
    };
    let path = strs(&t.path);
    let table_only = only(t.only.as_ref());
    let keys: Vec<&str> = t.keys.iter().map(|k| k.name.as_str()).collect();
    let id: Vec<String> = t
        .keys
        .iter()
        .filter(|k| k.kind == tables::KeyKind::Id)
        .flat_map(|k| k.path.clone())
        .collect();
    let id = strs(&id);
    let document = t.document;
    let columns = t.columns.iter().map(|c| {
        let (name, kind, path, only) = (
            c.name.as_str(),
            kind(c.kind),
            strs(&c.path),
            only(c.only.as_ref()),
        );
        let [sqlite, postgres] = Dialect::ALL.map(|d| ddl::column(d, c));
        quote!(cli::sync::schema::Column {
            name: #name,
            kind: #kind,
            path: #path,
            only: #only,
            definition: [#sqlite, #postgres],
        })
    });
    quote! {
        cli::sync::schema::Table {
            name: #name,
            parent: #parent,
            path: #path,
            only: #table_only,
            keys: &[#(#keys),*],
            id: #id,
            columns: &[#(#columns),*],
            document: #document,
        }
    }
}

fn strs(items: &[String]) -> TokenStream {
    quote!(&[#(#items),*])
}

fn only(only: Option<&Only>) -> TokenStream {
    match only {
        Some(o) => {
            let (tag, members) = (strs(&o.tag), strs(&o.members));
            quote!(Some(cli::sync::schema::Only { tag: #tag, members: #members }))
        }
        None => quote!(None),
    }
}

fn kind(kind: Kind) -> TokenStream {
    match kind {
        Kind::Text => quote!(cli::sync::schema::Kind::Text),
        Kind::Integer | Kind::Int32 => quote!(cli::sync::schema::Kind::Integer),
        Kind::Real => quote!(cli::sync::schema::Kind::Real),
        Kind::Boolean => quote!(cli::sync::schema::Kind::Boolean),
        Kind::Timestamp => quote!(cli::sync::schema::Kind::Timestamp),
        Kind::Date => quote!(cli::sync::schema::Kind::Date),
        Kind::Scalar => quote!(cli::sync::schema::Kind::Scalar),
        Kind::Json => quote!(cli::sync::schema::Kind::Json),
    }
}
