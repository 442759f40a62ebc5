//! The TypeScript backend: the zero-dependency client package under
//! `generated/typescript/`. Rust computes every name, type and descriptor into plain
//! contexts (`context`); the templates in `templates/typescript/` lay them out.

mod context;
pub(crate) mod names;
mod types;

use crate::ir::Api;
use crate::output::OutputFile;
use crate::templates::{self, Embedded, Layout};

/// The templates, embedded in the generator.
const TEMPLATES: &[Embedded] = templates::embed!("typescript":
    "package.json" = "package.json.jinja",
    "tsconfig.json" = "tsconfig.json.jinja",
    "index.ts" = "index.ts.jinja",
    "interface_index.ts" = "interface_index.ts.jinja",
    "models.ts" = "models.ts.jinja",
    "record" = "record.ts.jinja",
    "enum" = "enum.ts.jinja",
    "union" = "union.ts.jinja",
    // Ids, record references and scalar unions are one-line aliases: one template.
    "id" = "id.ts.jinja",
    "record_ref" = "id.ts.jinja",
    "scalar" = "id.ts.jinja",
    "schema.ts" = "schema.ts.jinja",
    "decoders.ts" = "decoders.ts.jinja",
    "client.ts" = "client.ts.jinja",
    "operation" = "operation.ts.jinja",
    "request" = "request.ts.jinja",
    "request_spec" = "request_spec.ts.jinja",
    "download" = "download.ts.jinja",
);

/// The hand-written runtime, copied as is into `src/runtime/`.
const RUNTIME: &[Embedded] = templates::runtime!("typescript");

pub use names::{OWN_NAMES, reserved_module};

/// Where the package puts what.
pub const LAYOUT: Layout = Layout {
    dir: "generated/typescript",
    language: "typescript",
    comment: "//",
    package_files: &[
        ("package.json", "package.json"),
        ("tsconfig.json", "tsconfig.json"),
        ("src/index.ts", "index.ts"),
    ],
    runtime_dir: "src/runtime",
    interfaces_dir: "src",
    // The package's folder is the package itself.
    package_dir: |_| String::new(),
    interface_files: &[
        ("index.ts", "interface_index.ts"),
        ("models.ts", "models.ts"),
        ("schema.ts", "schema.ts"),
        ("decoders.ts", "decoders.ts"),
        ("client.ts", "client.ts"),
    ],
    runtime: RUNTIME,
};

/// Renders the package.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    let env = templates::environment(TEMPLATES)?;
    let runtime = LAYOUT.runtime_as_is();
    LAYOUT.write(api, &env, &runtime, context::interface, |text| text)
}
