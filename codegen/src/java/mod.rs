//! The Java backend: a Maven project under `generated/java/` (`--release 17`, no
//! dependency beyond the JDK) holding one package per interface beside the runtime's,
//! all under the Java package of the package settings, and a `module-info.java` that
//! exports those and not the runtime's internals. Rust computes names and contexts; the
//! templates in `templates/java/` lay them out; the hand-written runtime under
//! `templates/java/runtime/` is templated only for its package name.

mod client;
mod models;
pub mod names;
mod types;

use crate::ir::Api;
use crate::output::OutputFile;
use crate::templates::{self, Embedded, Layout};

/// The templates, embedded in the generator.
const TEMPLATES: &[Embedded] = templates::embed!("java":
    "pom.xml" = "pom.xml.jinja",
    "module-info.java" = "module-info.java.jinja",
    "package-info.java" = "package-info.java.jinja",
    "imports" = "imports.java.jinja",
    "record" = "record.java.jinja",
    "open_enum" = "open_enum.java.jinja",
    "closed_enum" = "closed_enum.java.jinja",
    "union" = "union.java.jinja",
    "value" = "value.java.jinja",
    "client" = "client.java.jinja",
    "operations" = "operations.java.jinja",
    "query" = "query.java.jinja",
    "page" = "page.java.jinja",
    "credentials" = "credentials.java.jinja",
    "webhooks" = "webhooks.java.jinja",
);

/// The hand-written runtime, by its path under the client's package (its one template
/// value is `package`).
const RUNTIME: &[Embedded] = templates::runtime!("java");

pub use names::{OWN_NAMES, reserved_module};

/// Where the project puts what.
pub const LAYOUT: Layout = Layout {
    dir: "generated/java",
    language: "java",
    comment: "//",
    package_files: &[
        ("pom.xml", "pom.xml"),
        ("src/main/java/module-info.java", "module-info.java"),
    ],
    runtime_dir: "src/main/java/{package}",
    interfaces_dir: "src/main/java/{package}",
    package_dir: |p| p.java_dir(),
    interface_files: &[("package-info.java", "package-info.java")],
    runtime: RUNTIME,
};

/// What an interface's `package-info.java` sees.
#[derive(serde::Serialize)]
struct PackageInfoCx {
    header: String,
    doc: String,
    package: String,
}

/// What a type's file sees: the header, its package, the runtime's, and its class.
#[derive(serde::Serialize)]
struct TypeFileCx<'a> {
    header: String,
    package: &'a str,
    runtime: &'a str,
    t: &'a models::TypeCx,
}

/// Renders the project.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    let env = templates::environment(TEMPLATES)?;
    let runtime = runtime(api)?;
    let mut files = LAYOUT.write(
        api,
        &env,
        &runtime,
        |i| {
            Ok(PackageInfoCx {
                header: templates::header("//", &i.source_file),
                doc: crate::doc_text::interface(i),
                package: format!("{}.{}", api.packages.java_package, i.name),
            })
        },
        |text| text,
    )?;
    for i in &api.interfaces {
        files.extend(interface_types(api, i, &env)?);
    }
    Ok(files)
}

/// One file per declared type of `i`, in its package.
fn interface_types(
    api: &Api,
    i: &crate::ir::Interface,
    env: &minijinja::Environment<'static>,
) -> Result<Vec<OutputFile>, String> {
    let mut scope = names::type_scope();
    let type_names: Vec<String> = i
        .types
        .iter()
        .map(|t| scope.claim(&names::type_name(&t.name)))
        .collect();
    let client_names = client::ClientNames::claim(i, &mut scope);
    let types = types::Types::new(&type_names, i);
    let package = format!("{}.{}", api.packages.java_package, i.name);
    let runtime = format!("{}.runtime", api.packages.java_package);
    let dir = LAYOUT.interface_dir(api, i);
    let header = templates::header("//", &i.source_file);
    let mut files = Vec::new();
    for (t, name) in i.types.iter().zip(&type_names) {
        let cx = models::type_cx(i, t, name, &types);
        let template = match &cx {
            models::TypeCx::Record(_) => "record",
            models::TypeCx::OpenEnum(_) => "open_enum",
            models::TypeCx::ClosedEnum(_) => "closed_enum",
            models::TypeCx::Union(_) => "union",
            models::TypeCx::Value(_) => "value",
        };
        let text = templates::render(
            env,
            template,
            TypeFileCx {
                header: header.clone(),
                package: &package,
                runtime: &runtime,
                t: &cx,
            },
        )?;
        files.push(OutputFile::new(format!("{dir}/{name}.java"), text));
    }
    let c = client::client_cx(i, &client_names, &types, &mut scope);
    let common = minijinja::context! { header => &header, package => &package, runtime => &runtime, c => &c };
    files.extend(client_files(
        env,
        &dir,
        &c,
        client_names.credentials.is_some(),
        common,
    )?);
    Ok(files)
}

/// The clients of an interface, its `Operations`, query classes, credentials and page;
/// `common` is what every one of their templates sees.
fn client_files(
    env: &minijinja::Environment<'static>,
    dir: &str,
    c: &client::ClientCx,
    own_credentials: bool,
    common: minijinja::Value,
) -> Result<Vec<OutputFile>, String> {
    let mut files = Vec::new();
    let mut render = |template: &str, name: &str, cx: minijinja::Value| -> Result<(), String> {
        let text = templates::render(env, template, cx)?;
        files.push(OutputFile::new(format!("{dir}/{name}.java"), text));
        Ok(())
    };
    for (name, is_async, about) in [
        (
            &c.client,
            false,
            "Each method blocks until the call ends; its thread may be interrupted, which cancels the call. The same calls as futures: `AsyncClient`.",
        ),
        (
            &c.async_client,
            true,
            "Each method returns at once with a future of the answer; no thread waits meanwhile (pacing, backoff and polling are scheduled), and `cancel(true)` stops the call. The same calls, blocking: `Client`.",
        ),
    ] {
        let (open, close) = if is_async {
            ("", "")
        } else {
            ("Blocking.await(", ")")
        };
        render(
            "client",
            name,
            minijinja::context! { name => name, async => is_async, about => about, wrap_open => open, wrap_close => close, ..common.clone() },
        )?;
    }
    render("operations", &c.operations, common.clone())?;
    for q in &c.queries {
        render(
            "query",
            &q.name,
            minijinja::context! { q => q, ..common.clone() },
        )?;
    }
    if own_credentials {
        render(
            "credentials",
            &c.credentials,
            minijinja::context! { name => &c.credentials, a => &c.auth, ..common.clone() },
        )?;
    }
    if let Some((class, w)) = &c.webhooks {
        render(
            "webhooks",
            class,
            minijinja::context! { name => class, w => w, ..common.clone() },
        )?;
    }
    if let Some(p) = &c.page {
        render(
            "page",
            &p.name,
            minijinja::context! { p => p, ..common.clone() },
        )?;
    }
    Ok(files)
}

/// The runtime's files with the client's package filled in.
fn runtime(api: &Api) -> Result<Vec<templates::RuntimeFile>, String> {
    let mut env = minijinja::Environment::new();
    env.set_keep_trailing_newline(true);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    let cx = minijinja::context! { package => &api.packages.java_package };
    RUNTIME
        .iter()
        .map(|&(name, text)| {
            let file = env
                .render_str(text, &cx)
                .map_err(|e| format!("template java/runtime/{name}: {e:#}"))?;
            Ok((name.into(), file.into()))
        })
        .collect()
}
