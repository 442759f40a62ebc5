//! The client of an interface: credentials, configuration defaults, and one method per
//! operation.

use proc_macro2::TokenStream;
use quote::quote;

use super::types::{Shape, shape};
use super::{docs, names, operations};
use crate::doc_text;
use crate::ir::{Auth, Builtin, Header, Interface, TokenLogin, TypeKind, TypeRef};

pub fn client(i: &Interface) -> Result<TokenStream, String> {
    let credentials = credentials(i);
    let names = operations::builder_names(i);
    let methods = i
        .operations
        .iter()
        .zip(&names)
        .map(|(op, name)| operations::client_method(i, op, name));
    let builders = i
        .operations
        .iter()
        .zip(&names)
        .map(|(op, name)| operations::builder(i, op, name));
    let rate = match &i.rate_limit {
        Some(r) => {
            let (n, w) = (r.requests, u64::from(r.window_seconds));
            quote!(Some((#n, std::time::Duration::from_secs(#w))))
        }
        None => quote!(None),
    };
    let error_field = i.error_message_field.as_deref().unwrap_or("errors");
    let accept = i.default_accept.as_deref().unwrap_or("application/json");
    let rate_doc = i.rate_limit.as_ref().map(|r| {
        let text = format!(
            "Paced to {} requests per {} s (the documented quota; raise it with \
             `Config::rate_limit` if the service granted more).",
            r.requests, r.window_seconds
        );
        docs::attrs(&format!("\n{text}"))
    });
    let doc = docs::attrs(&doc_text::client(
        i,
        "Cheap to clone; clones share connections. ",
        "see `Config::validate_requests`",
        "shared by every clone of this client",
    ));
    let constructors = constructors(i)?;
    let webhooks = webhooks(i);
    Ok(quote! {
        #credentials

        #webhooks

        #doc
        #[derive(Clone, Debug)]
        pub struct Client {
            core: ::inspection_runtime::Core,
        }

        impl Client {
            #constructors

            /// What this interface documents: the settings a `Config` leaves unset follow it.
            #rate_doc
            pub const DEFAULTS: ::inspection_runtime::__private::InterfaceDefaults = ::inspection_runtime::__private::InterfaceDefaults {
                rate_limit: #rate,
                accept: #accept,
                error_message_field: #error_field,
            };

            /// The defaults for this interface (`Config::default()` with [`Client::DEFAULTS`]
            /// applied); a `Config::default()` of your own gets the same ones.
            pub fn default_config() -> ::inspection_runtime::Config {
                ::inspection_runtime::Config::default().for_interface(&Self::DEFAULTS)
            }

            #(#methods)*
        }

        ::inspection_runtime::__private::impl_client!(Client);

        #(#builders)*
    })
}

fn credentials(i: &Interface) -> TokenStream {
    match &i.auth {
        Auth::ApiKeyHeaders { headers, doc, .. } => {
            let fields = headers.iter().map(|h| {
                let ident = names::field_ident(&h.name);
                let doc = docs::attrs(&h.doc);
                if h.sensitive {
                    quote!(#doc #ident: ::inspection_runtime::Secret,)
                } else {
                    quote!(#doc #ident: String,)
                }
            });
            let params = headers.iter().map(|h| {
                let ident = names::field_ident(&h.name);
                if h.sensitive {
                    quote!(#ident: impl Into<::inspection_runtime::Secret>)
                } else {
                    quote!(#ident: impl Into<String>)
                }
            });
            let inits = headers.iter().map(|h| {
                let ident = names::field_ident(&h.name);
                quote!(#ident: #ident.into())
            });
            let debug = headers.iter().map(|h| {
                let ident = names::field_ident(&h.name);
                let label = ident.to_string();
                if h.sensitive {
                    quote!(.field(#label, &"<redacted>"))
                } else {
                    quote!(.field(#label, &self.#ident))
                }
            });
            let doc = docs::attrs(&format!(
                "The key pair every request carries. `Debug` never shows the secret.\n\n{}",
                doc.trim()
            ));
            quote! {
                #doc
                #[derive(Clone)]
                pub struct ApiKey {
                    #(#fields)*
                }

                impl ApiKey {
                    /// The key pair.
                    pub fn new(#(#params),*) -> Self {
                        Self { #(#inits),* }
                    }
                }

                impl std::fmt::Debug for ApiKey {
                    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.debug_struct("ApiKey") #(#debug)* .finish()
                    }
                }
            }
        }
        Auth::TokenLogin { .. } => quote!(),
    }
}

/// How a client is made: from a key pair, or by logging in.
fn constructors(i: &Interface) -> Result<TokenStream, String> {
    match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => key_pair_constructors(i, headers),
        Auth::TokenLogin {
            token_field,
            header,
            scheme,
            ..
        } => login_constructors(i, token_field, header, scheme),
    }
}

/// `new`, `from_env` and `with_config`, for a client that sends a key pair.
fn key_pair_constructors(i: &Interface, headers: &[Header]) -> Result<TokenStream, String> {
    let pairs = headers.iter().map(|h| {
        let name = h.name.to_ascii_lowercase();
        let ident = names::field_ident(&h.name);
        if h.sensitive {
            quote!((#name, credentials.#ident.expose(), true))
        } else {
            quote!((#name, credentials.#ident.as_str(), false))
        }
    });
    let (vars, connect) = from_vars(i, &quote!(Self))
        .ok_or("generator bug: a key pair is always read from variables")?;
    let (url_var, vars) = vars.split_first().ok_or("generator bug: no base URL")?;
    let from_env_doc = docs::attrs(&format!(
        "A client with the default configuration from the environment: the base URL \
         in `{url_var}`, the key pair in {}. A variable that is missing or not UTF-8 \
         is an `Error::Config` naming it (never a value).",
        vars.iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" and ")
    ));
    Ok(quote! {
        /// A client for `base_url` (https, or http on a loopback host such as the
        /// sandbox) with the default configuration.
        pub fn new(base_url: &str, credentials: ApiKey) -> Result<Self, ::inspection_runtime::Error> {
            Self::with_config(base_url, credentials, Self::default_config())
        }

        #from_env_doc
        pub fn from_env() -> Result<Self, ::inspection_runtime::Error> {
            use ::inspection_runtime::__private::env_var as var;
            let config = Self::default_config();
            #connect
        }

        /// A client with a configuration of your own; start from
        /// [`Client::default_config`].
        pub fn with_config(
            base_url: &str,
            credentials: ApiKey,
            config: ::inspection_runtime::Config,
        ) -> Result<Self, ::inspection_runtime::Error> {
            let auth = ::inspection_runtime::__private::Auth::headers(&[#(#pairs),*])
                .map_err(::inspection_runtime::Error::Config)?;
            let core = ::inspection_runtime::Core::new(base_url, auth, config.for_interface(&Self::DEFAULTS))?;
            Ok(Self { core })
        }
    })
}

/// `login`, `login_with_config` and (when the body can be read from variables)
/// `login_from_env`, for a client that logs in for a token.
fn login_constructors(
    i: &Interface,
    token_field: &str,
    header: &str,
    scheme: &str,
) -> Result<TokenStream, String> {
    let TokenLogin { op, body, .. } = i.token_login()?;
    let body_ty = super::types::rust_type(i, &body.ty);
    let index = i.operations.iter().position(|o| o.name == op.name);
    let names = super::operations::builder_names(i);
    let builder = index
        .and_then(|k| names.get(k))
        .ok_or("the login operation is missing")?;
    let login = login_fn(builder, token_field);
    let from_env = login_from_env(i);
    // The login's sensitive fields (the password), scrubbed from errors like the token.
    let mut hidden = Vec::new();
    sensitive_values(i, &body.ty, &quote!(Some(&credentials)), 0, &mut hidden);
    // A login with no secret in its body hides nothing (and an empty list has no type).
    let hidden_secrets = if hidden.is_empty() {
        quote!(let hidden: Vec<::inspection_runtime::Secret> = Vec::new();)
    } else {
        quote! {
            let hidden: Vec<::inspection_runtime::Secret> = [#(#hidden),*]
                .into_iter()
                .flatten()
                .map(::inspection_runtime::Secret::from)
                .collect();
        }
    };
    let header = header.to_ascii_lowercase();
    let doc = docs::attrs(&format!(
        "Logs in (`{}`) and keeps the token, sent as `{}: {} <token>` on every \
         request. When the service later answers 401, the client logs in again with \
         the same credentials, once, and repeats the request. Neither the password nor \
         the token ever appears in `Debug`, logs or errors.\n\nA wrong username or \
         password is an `Error::Api` with status 401.",
        op.name, header, scheme
    ));
    Ok(quote! {
        #doc
        pub async fn login(base_url: &str, credentials: #body_ty) -> Result<Self, ::inspection_runtime::Error> {
            Self::login_with_config(base_url, credentials, Self::default_config()).await
        }

        /// [`Client::login`] with a configuration of your own; start from
        /// [`Client::default_config`].
        pub async fn login_with_config(
            base_url: &str,
            credentials: #body_ty,
            config: ::inspection_runtime::Config,
        ) -> Result<Self, ::inspection_runtime::Error> {
            #hidden_secrets
            #login
            let token = ::inspection_runtime::__private::TokenAuth::new(#header, #scheme, hidden);
            let config = config.for_interface(&Self::DEFAULTS);
            let core = ::inspection_runtime::Core::logged_in(base_url, token, login, config).await?;
            Ok(Self { core })
        }

        #from_env
    })
}

/// The `login` closure the client calls to log in (again): it sends the login request
/// (the `builder`'s) and takes the token from the answer's `token_field` (refused there if
/// a header cannot carry it).
fn login_fn(builder: &proc_macro2::Ident, token_field: &str) -> TokenStream {
    quote! {
        let login: ::inspection_runtime::__private::LoginFn = std::sync::Arc::new(move |core| {
            // The login request is anonymous: it carries no token.
            let request = #builder { core, request_options: Default::default(), body: credentials.clone() };
            Box::pin(async move {
                let answer: serde_json::Value = request.core.json(&request.to_request()?).await?;
                ::inspection_runtime::__private::login_token(&answer, #token_field)
            })
        });
    }
}

/// `INSPECTION_<INTERFACE>`: the prefix of the interface's environment variables.
fn env_prefix(i: &Interface) -> String {
    format!(
        "INSPECTION_{}",
        heck::ToShoutySnakeCase::to_shouty_snake_case(i.name.as_str())
    )
}

/// The variables a client of `i` is made from (the base URL's first) and the block that
/// makes it (`client` is `Self` or the client's path): it reads each with `var(NAME)?`
/// (a function in scope answering `Result<String, Error>`) and takes the `config` in
/// scope. A key pair is two variables; a login one per required string field of its body
/// (through nested objects), named after the field; `None` when the login body has
/// another shape or two fields of one name. The block is `async` for a login.
/// The variable holding the interface's base URL (`INSPECTION_V3_BASE_URL`).
pub fn base_url_var(i: &Interface) -> String {
    format!("{}_BASE_URL", env_prefix(i))
}

pub fn from_vars(i: &Interface, client: &TokenStream) -> Option<(Vec<String>, TokenStream)> {
    let prefix = env_prefix(i);
    let url_var = base_url_var(i);
    match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            let vars: Vec<String> = headers
                .iter()
                .map(|h| {
                    let name = heck::ToShoutySnakeCase::to_shouty_snake_case(h.name.as_str());
                    format!("{prefix}_{name}")
                })
                .collect();
            let connect = quote! {
                let base_url = var(#url_var)?;
                #client::with_config(&base_url, ApiKey::new(#(var(#vars)?),*), config)
            };
            Some((std::iter::once(url_var).chain(vars).collect(), connect))
        }
        Auth::TokenLogin { .. } => {
            let body = &i.token_login().ok()?.body.ty;
            let body_ty = super::types::rust_type(i, body);
            let mut vars = Vec::new();
            let json = env_json(i, body, &prefix, 0, &mut vars)?;
            let mut names: Vec<&String> = vars.iter().collect();
            names.sort();
            names.dedup();
            if names.len() != vars.len() || vars.is_empty() {
                return None;
            }
            let connect = quote! {
                let base_url = var(#url_var)?;
                // No serde message here: it could quote a value, and the values are secrets.
                let credentials: #body_ty = serde_json::from_value(serde_json::json!(#json))
                    .map_err(|_| ::inspection_runtime::Error::Config(
                        "the login variables do not make a login body".to_string(),
                    ))?;
                #client::login_with_config(&base_url, credentials, config).await
            };
            Some((std::iter::once(url_var).chain(vars).collect(), connect))
        }
    }
}

/// `login_from_env`, when the login body can be read from variables ([`from_vars`]).
fn login_from_env(i: &Interface) -> TokenStream {
    let Some((vars, connect)) = from_vars(i, &quote!(Self)) else {
        return quote!();
    };
    let Some((url_var, vars)) = vars.split_first() else {
        return quote!();
    };
    let doc = docs::attrs(&format!(
        "[`Client::login`] with the base URL in `{url_var}` and the credentials in {}. A \
         variable that is missing or not UTF-8 is an `Error::Config` naming it (never a value).",
        vars.iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" and ")
    ));
    quote! {
        #doc
        pub async fn login_from_env() -> Result<Self, ::inspection_runtime::Error> {
            use ::inspection_runtime::__private::env_var as var;
            let config = Self::default_config();
            #connect
        }
    }
}

/// The `json!` body of an object whose required fields are strings or such objects, each
/// string read from its variable (pushed on `vars`); `None` for any other shape.
fn env_json(
    i: &Interface,
    ty: &TypeRef,
    prefix: &str,
    depth: u8,
    vars: &mut Vec<String>,
) -> Option<TokenStream> {
    let Some(TypeKind::Object(object)) = i.named(ty).map(|t| &t.kind) else {
        return None;
    };
    if depth > 8 || object.one_of.is_some() {
        return None;
    }
    let mut entries = Vec::new();
    for f in object.fields.iter().filter(|f| f.required) {
        let key = f.name.as_str();
        let value = if matches!(f.ty, TypeRef::Builtin(Builtin::String)) {
            let var = format!(
                "{prefix}_{}",
                heck::ToShoutySnakeCase::to_shouty_snake_case(key)
            );
            vars.push(var.clone());
            quote!(var(#var)?)
        } else {
            env_json(i, &f.ty, prefix, depth + 1, vars)?
        };
        entries.push(quote!(#key: #value));
    }
    Some(quote!({ #(#entries),* }))
}

/// Expressions (each an `Option<&String>`) for every sensitive string field reached from
/// `at` (an `Option<&T>` of `ty`) through nested objects.
fn sensitive_values(
    i: &Interface,
    ty: &TypeRef,
    at: &TokenStream,
    depth: u8,
    out: &mut Vec<TokenStream>,
) {
    let Some(TypeKind::Object(object)) = i.named(ty).map(|t| &t.kind) else {
        return;
    };
    // Specs nest a few levels; the bound only stops a type that contains itself.
    if depth > 8 {
        return;
    }
    for f in &object.fields {
        let ident = names::field_ident(&f.name);
        let next = match shape(f, false) {
            Shape::Plain => quote!(#at.map(|x| &x.#ident)),
            Shape::NullablePresent | Shape::Optional => quote!(#at.and_then(|x| x.#ident.as_ref())),
            Shape::OptionalNullable => {
                quote!(#at.and_then(|x| x.#ident.as_ref()).and_then(|x| x.as_ref()))
            }
            Shape::Collection => continue,
        };
        if f.sensitive && matches!(&f.ty, TypeRef::Builtin(Builtin::String)) {
            out.push(quote!(#next.map(String::as_str)));
        } else {
            sensitive_values(i, &f.ty, &next, depth + 1, out);
        }
    }
}

/// `parse_event`, when the interface delivers webhook events.
fn webhooks(i: &Interface) -> TokenStream {
    let Some(w) = &i.webhooks else {
        return TokenStream::new();
    };
    let event = i.ty(w.event);
    let ty = names::type_ident(&event.name);
    let name = &event.name;
    let doc = docs::attrs(&doc_text::parse_event(
        &w.doc,
        &format!("an [`{name}`]"),
        doc_text::WebhookWords {
            unknown: &format!("is `{name}::Unknown`, kept whole"),
            failure: "is `Error::Decode` (status 0)",
            verify: "[`crate::verify_webhook`]",
        },
    ));
    quote! {
        #doc
        pub fn parse_event(body: &[u8]) -> Result<#ty, ::inspection_runtime::Error> {
            ::inspection_runtime::__private::parse_event(body)
        }
    }
}
