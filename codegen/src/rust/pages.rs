//! The list envelopes: the cursor `Page` of an interface paged by cursor, and the paging
//! methods of the records a links-paged interface's lists come in.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{names, types};
use crate::ir::{CursorPaging, Field, Interface, Paging, TypeDef, TypeId, TypeKind};

/// The list envelope of a cursor-paged interface.
pub fn page(interface: &Interface) -> TokenStream {
    let Some(CursorPaging {
        items_field,
        paging_field,
        paging_type,
        next_url_field,
        cursor_field,
        page_size_field,
        ..
    }) = interface.cursor_paging()
    else {
        return quote!();
    };
    let paging_type = interface.ty(*paging_type);
    let paging_fields = match &paging_type.kind {
        TypeKind::Object(o) => o.fields.as_slice(),
        _ => &[],
    };
    let page_struct = page_struct(items_field, paging_field, paging_type);
    let next_page = next_page_methods(
        paging_fields,
        paging_field,
        [next_url_field, cursor_field, page_size_field],
    );
    let items = names::field_ident(items_field);
    let paging = names::field_ident(paging_field);
    quote! {
        #page_struct

        impl<T: serde::de::DeserializeOwned + Send + 'static> ::inspection_runtime::__private::Page for Page<T> {
            type Item = T;

            fn into_items(self) -> Vec<T> {
                self.#items
            }

            fn len(&self) -> usize {
                self.#items.len()
            }
        }

        impl<T: serde::de::DeserializeOwned + Send + 'static> ::inspection_runtime::__private::CursorPage for Page<T> {
            #next_page

            fn held(&self) -> String {
                ::inspection_runtime::__private::describe_held(
                    self.#items.len(),
                    #paging_field,
                    self.#paging.as_ref().and_then(|p| serde_json::to_value(p).ok()),
                )
            }
        }
    }
}

/// `Page<T>`: the records, the paging object, and the properties the spec does not list.
fn page_struct(items_field: &str, paging_field: &str, paging_type: &TypeDef) -> TokenStream {
    let items = names::field_ident(items_field);
    let paging = names::field_ident(paging_field);
    let paging_ty = names::type_ident(&paging_type.name);
    let extras = if [items_field, paging_field].contains(&"additional_properties") {
        format_ident!("additional_properties_")
    } else {
        format_ident!("additional_properties")
    };
    let doc = format!(
        "One page of a list: the records (`{items_field}`) and the paging object \
         (`{paging_field}`) that leads to the next page."
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub struct Page<T> {
            /// The records of this page, in the order the service sent them.
            pub #items: Vec<T>,
            /// Where the next page is, if there is one.
            pub #paging: Option<#paging_ty>,
            /// Properties of the list answer the spec does not list, as the service sent them.
            pub #extras: serde_json::Map<String, serde_json::Value>,
        }

        ::inspection_runtime::__private::impl_encode!(Page<T>, [
            field(#items, #items_field),
            optional(#paging, #paging_field),
            flatten(#extras),
        ]);

        // Read in one pass, as every record is (`decode::record`); absent lists are empty.
        ::inspection_runtime::__private::impl_decode!(Page<T>, #extras, [
            (#items, #items_field, value, default),
            (#paging, #paging_field, value, default),
        ]);
    }
}

/// The `CursorPage` methods that read where the next page is from the paging object:
/// `[next URL, cursor, page size]` name its fields, each when the spec has one.
fn next_page_methods(
    paging_fields: &[Field],
    paging_field: &str,
    [next_url_field, cursor_field, page_size_field]: [&Option<String>; 3],
) -> TokenStream {
    let paging = names::field_ident(paging_field);
    let field_named = |name: &Option<String>| {
        name.as_ref()
            .and_then(|n| paging_fields.iter().find(|f| &f.name == n))
    };
    // `Option<&str>` of a paging field.
    let read = |name: &Option<String>| match field_named(name) {
        Some(f) => text_of(quote!(self.#paging.as_ref()?), f),
        None => quote!(None),
    };
    let next_url = read(next_url_field);
    let cursor = read(cursor_field);
    let marked_last = marked_last(
        &paging,
        [field_named(next_url_field), field_named(cursor_field)],
    );
    let page_size = page_size(&paging, field_named(page_size_field));
    quote! {
        fn next_url(&self) -> Option<&str> {
            #next_url
        }

        fn next_cursor(&self) -> Option<&str> {
            #cursor
        }

        fn marked_last(&self) -> bool {
            #marked_last
        }

        fn page_size(&self) -> Option<u64> {
            #page_size
        }
    }
}

/// Whether a page is marked the last: `null` in a property that leads on (the next URL or
/// cursor, among `leads`) says so.
fn marked_last(paging: &proc_macro2::Ident, leads: [Option<&Field>; 2]) -> TokenStream {
    let nulls = leads
        .into_iter()
        .flatten()
        .filter(|f| matches!(types::shape(f, true), types::Shape::OptionalNullable))
        .map(|f| {
            let ident = names::field_ident(&f.name);
            quote!(matches!(&self.#paging, Some(p) if matches!(p.#ident, Some(None))))
        })
        .collect::<Vec<_>>();
    if nulls.is_empty() {
        quote!(false)
    } else {
        quote!(#(#nulls)||*)
    }
}

/// `Option<u64>` of the page size the paging object reports, if it has such a field.
fn page_size(paging: &proc_macro2::Ident, field: Option<&Field>) -> TokenStream {
    let Some(f) = field else {
        return quote!(None);
    };
    let ident = names::field_ident(&f.name);
    let value = match types::shape(f, true) {
        types::Shape::Plain => quote!(Some(p.#ident)),
        types::Shape::OptionalNullable => quote!(p.#ident.flatten()),
        _ => quote!(p.#ident),
    };
    quote! {
        let p = self.#paging.as_ref()?;
        #value.and_then(|n| u64::try_from(n).ok())
    }
}

/// `Page` and `LinksPage` for the envelope of every links-paginated list (each envelope once).
pub fn links_envelopes(i: &Interface) -> TokenStream {
    let mut seen: Vec<TypeId> = Vec::new();
    let mut out = TokenStream::new();
    for op in &i.operations {
        let Some(Paging::Links {
            envelope,
            item,
            items_field,
            settings,
        }) = i.paging(op)
        else {
            continue;
        };
        if seen.contains(&envelope) {
            continue;
        }
        seen.push(envelope);
        let links_field = &settings.links_field;
        let TypeKind::Object(env) = &i.ty(envelope).kind else {
            continue;
        };
        let items = names::field_ident(items_field);
        let (next, prev) = match env.fields.iter().find(|f| &f.name == links_field) {
            Some(links) => (link(i, links, "next"), link(i, links, "prev")),
            None => (quote!(None), quote!(None)),
        };
        let name = names::type_ident(&i.ty(envelope).name);
        let item = types::rust_type(i, item);
        out.extend(quote! {
            impl ::inspection_runtime::__private::Page for #name {
                type Item = #item;

                fn into_items(self) -> Vec<#item> {
                    self.#items
                }

                fn len(&self) -> usize {
                    self.#items.len()
                }
            }

            impl ::inspection_runtime::__private::LinksPage for #name {
                fn next_link(&self) -> Option<&str> {
                    #next
                }

                fn prev_link(&self) -> Option<&str> {
                    #prev
                }
            }
        });
    }
    out
}

/// `Option<&str>` of the link `which` inside the envelope's links field.
fn link(i: &Interface, links: &Field, which: &str) -> TokenStream {
    let Some(TypeKind::Object(o)) = i.named(&links.ty).map(|t| &t.kind) else {
        return quote!(None);
    };
    let Some(f) = o.fields.iter().find(|f| f.name == which) else {
        return quote!(None);
    };
    let container = names::field_ident(&links.name);
    let holder = match types::shape(links, true) {
        types::Shape::Plain => quote!(self.#container),
        _ => quote!(self.#container.as_ref()?),
    };
    text_of(holder, f)
}

/// `Option<&str>` of the string field `f` of the response record `holder`, whatever its
/// shape (inside a function returning `Option`, so `?` may end the path early).
fn text_of(holder: TokenStream, f: &Field) -> TokenStream {
    let ident = names::field_ident(&f.name);
    match types::shape(f, true) {
        types::Shape::Plain => quote!(Some(#holder.#ident.as_str())),
        types::Shape::OptionalNullable => quote!(#holder.#ident.as_ref()?.as_deref()),
        _ => quote!(#holder.#ident.as_deref()),
    }
}
