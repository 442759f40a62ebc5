//! The TypeScript backend: the zero-dependency `inspection-client` package under
//! `generated/typescript/`. Rust computes every name, type and descriptor into plain
//! contexts (`context`); the templates in `templates/typescript/` lay them out.

mod context;
mod names;
mod types;

use crate::ir::Api;
use crate::output::OutputFile;
use crate::templates::{self, Embedded};

const PACKAGE_DIR: &str = "generated/typescript";

/// The templates, embedded in the generator.
const TEMPLATES: &[Embedded] = &[
    (
        "package.json",
        include_str!("../../../templates/typescript/package.json.jinja"),
    ),
    (
        "tsconfig.json",
        include_str!("../../../templates/typescript/tsconfig.json.jinja"),
    ),
    (
        "index.ts",
        include_str!("../../../templates/typescript/index.ts.jinja"),
    ),
    (
        "interface_index.ts",
        include_str!("../../../templates/typescript/interface_index.ts.jinja"),
    ),
    (
        "models.ts",
        include_str!("../../../templates/typescript/models.ts.jinja"),
    ),
    (
        "record",
        include_str!("../../../templates/typescript/record.ts.jinja"),
    ),
    (
        "enum",
        include_str!("../../../templates/typescript/enum.ts.jinja"),
    ),
    (
        "union",
        include_str!("../../../templates/typescript/union.ts.jinja"),
    ),
    // Ids, record references and scalar unions are one-line aliases: one template.
    (
        "id",
        include_str!("../../../templates/typescript/id.ts.jinja"),
    ),
    (
        "record_ref",
        include_str!("../../../templates/typescript/id.ts.jinja"),
    ),
    (
        "scalar",
        include_str!("../../../templates/typescript/id.ts.jinja"),
    ),
    (
        "schema.ts",
        include_str!("../../../templates/typescript/schema.ts.jinja"),
    ),
    (
        "client.ts",
        include_str!("../../../templates/typescript/client.ts.jinja"),
    ),
    (
        "operation",
        include_str!("../../../templates/typescript/operation.ts.jinja"),
    ),
    (
        "request",
        include_str!("../../../templates/typescript/request.ts.jinja"),
    ),
    (
        "download",
        include_str!("../../../templates/typescript/download.ts.jinja"),
    ),
];

/// The hand-written runtime, copied as is into `src/runtime/`.
const RUNTIME: &[Embedded] = &[
    (
        "auth.ts",
        include_str!("../../../templates/typescript/runtime/auth.ts"),
    ),
    (
        "core.ts",
        include_str!("../../../templates/typescript/runtime/core.ts"),
    ),
    (
        "decode.ts",
        include_str!("../../../templates/typescript/runtime/decode.ts"),
    ),
    (
        "download.ts",
        include_str!("../../../templates/typescript/runtime/download.ts"),
    ),
    (
        "errors.ts",
        include_str!("../../../templates/typescript/runtime/errors.ts"),
    ),
    (
        "http.ts",
        include_str!("../../../templates/typescript/runtime/http.ts"),
    ),
    (
        "index.ts",
        include_str!("../../../templates/typescript/runtime/index.ts"),
    ),
    (
        "options.ts",
        include_str!("../../../templates/typescript/runtime/options.ts"),
    ),
    (
        "origin.ts",
        include_str!("../../../templates/typescript/runtime/origin.ts"),
    ),
    (
        "pacing.ts",
        include_str!("../../../templates/typescript/runtime/pacing.ts"),
    ),
    (
        "paging.ts",
        include_str!("../../../templates/typescript/runtime/paging.ts"),
    ),
    (
        "presigned.ts",
        include_str!("../../../templates/typescript/runtime/presigned.ts"),
    ),
    (
        "request.ts",
        include_str!("../../../templates/typescript/runtime/request.ts"),
    ),
    (
        "retry.ts",
        include_str!("../../../templates/typescript/runtime/retry.ts"),
    ),
    (
        "schema.ts",
        include_str!("../../../templates/typescript/runtime/schema.ts"),
    ),
    (
        "secret.ts",
        include_str!("../../../templates/typescript/runtime/secret.ts"),
    ),
    (
        "webhook.ts",
        include_str!("../../../templates/typescript/runtime/webhook.ts"),
    ),
    (
        "validate.ts",
        include_str!("../../../templates/typescript/runtime/validate.ts"),
    ),
    (
        "wire.ts",
        include_str!("../../../templates/typescript/runtime/wire.ts"),
    ),
];

/// The names of the runtime files the backend embeds (a test compares them with the
/// folder, so a new runtime file cannot be forgotten).
pub fn runtime_files() -> Vec<&'static str> {
    RUNTIME.iter().map(|(name, _)| *name).collect()
}

pub use names::reserved_module;

/// Renders the package.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    let env = templates::environment(TEMPLATES)?;
    let package = templates::package(api, "//");
    let mut files = Vec::new();
    let mut out = |path: String, contents: String| {
        files.push(OutputFile::new(format!("{PACKAGE_DIR}/{path}"), contents));
    };
    out(
        "package.json".into(),
        templates::render(&env, "package.json", &package)?,
    );
    out(
        "tsconfig.json".into(),
        templates::render(&env, "tsconfig.json", &package)?,
    );
    out(
        "src/index.ts".into(),
        templates::render(&env, "index.ts", &package)?,
    );
    for (name, text) in RUNTIME {
        out(format!("src/runtime/{name}"), runtime_file(text));
    }
    for interface in &api.interfaces {
        let cx = context::interface(interface)?;
        let dir = format!("src/{}", interface.name);
        for (template, file) in [
            ("interface_index.ts", "index.ts"),
            ("models.ts", "models.ts"),
            ("schema.ts", "schema.ts"),
            ("client.ts", "client.ts"),
        ] {
            out(
                format!("{dir}/{file}"),
                templates::render(&env, template, &cx)?,
            );
        }
    }
    Ok(files)
}

/// A runtime file under the generated-file header.
fn runtime_file(text: &str) -> String {
    format!(
        "// @generated by `cargo xtask codegen` from templates/typescript/runtime/.\n\
         // Do not edit: change the template, then regenerate.\n\n{text}"
    )
}
