//! How the tool makes an interface's client: from the credentials' variables (logging in
//! where the interface does), for a dry run from the base URL alone, and the small call
//! `auth-check` makes.

use proc_macro2::TokenStream;
use quote::quote;

use super::page_size;
use crate::ir::{Auth, Interface};
use crate::rust::{client, names};

/// `connect` (the client from the credentials, logging in where the interface does) and
/// `dry_core` (a core for previews: the base URL, and credentials as placeholders).
pub(super) fn clients(i: &Interface) -> Result<(TokenStream, TokenStream), String> {
    // A login whose body is not all text cannot come from variables: the tool still
    // builds, and says so when asked to log in.
    let (vars, connect) = client::from_vars(i, &quote!(Client)).unwrap_or_else(|| {
        let message = format!(
            "the `{}` login cannot be made from variables (its body holds more than text); \
             use the library's `Client::login`",
            i.name
        );
        let connect = quote! {
            let _ = (var, config);
            Err(inspection_client::Error::Config(#message.to_string()))
        };
        (vec![client::base_url_var(i)], connect)
    });
    let url_var = vars.first().ok_or("generator bug: no base URL variable")?;
    let placeholders: Vec<TokenStream> = match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => headers
            .iter()
            .zip(&vars[1..])
            .map(|(h, var)| {
                let name = h.name.to_ascii_lowercase();
                if h.sensitive {
                    quote!((#name, "<secret>".to_string(), true))
                } else {
                    quote!((#name, cx.vars.get(#var).unwrap_or_else(|_| "<not set>".into()), false))
                }
            })
            .collect(),
        Auth::TokenLogin { header, scheme, .. } => {
            let name = header.to_ascii_lowercase();
            let value = format!("{scheme} <token>");
            vec![quote!((#name, #value.to_string(), true))]
        }
    };
    let connect = quote! {
        /// The client, from the environment or the profile (logging in where the interface
        /// does).
        async fn connect(cx: &cli::app::Context) -> Result<Client, inspection_client::Error> {
            let var = |name: &str| cx.vars.get(name);
            let config = cx.config(Client::default_config());
            #connect
        }
    };
    let dry_core = quote! {
        /// A core for previews: the base URL, and credentials that are placeholders (a
        /// dry run reads no secret and does not log in).
        fn dry_core(
            cx: &cli::app::Context,
        ) -> Result<inspection_client::runtime::Core, inspection_client::Error> {
            cx.dry_core(#url_var, &[#(#placeholders),*], Client::default_config())
        }
    };
    Ok((connect, dry_core))
}

/// `auth-check`: one small call, the first list that needs no input, asked for one record.
pub(super) fn auth_check(i: &Interface) -> TokenStream {
    let list = i.operations.iter().find(|op| {
        op.paging.is_some() && op.path_params.is_empty() && op.query.iter().all(|q| !q.required)
    });
    let call = match list {
        Some(op) => {
            let method = names::method_ident(&op.name);
            let one = page_size(i, op)
                .map(|(param, _)| {
                    let setter = names::field_ident(param);
                    quote!(.#setter(1))
                })
                .unwrap_or_default();
            quote!(client.#method() #one .send().await?;)
        }
        // Making the client (a login) is the check.
        None => quote!(),
    };
    let name = i.name.as_str();
    quote! {
        /// Makes the client and one small authenticated call.
        fn auth_check(cx: &cli::app::Context) -> cli::app::Running<'_> {
            Box::pin(async move {
                let client = connect(cx).await?;
                #call
                cli::app::auth_ok(#name, client.core().base_url().as_str())
            })
        }
    }
}
