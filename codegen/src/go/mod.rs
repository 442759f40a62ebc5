//! The Go backend: one module under `generated/go/` (its path from the package settings,
//! `go 1.24`, no `require`), a package per interface holding one Go type per IR type, and
//! the hand-written runtime under `internal/runtime` (copied as it is), whose types users
//! name through the interface packages' aliases. Rust computes names and contexts; the
//! templates in `templates/go/` lay them out, gofmt-clean as written.

mod client;
mod models;
pub mod names;
mod types;
mod uses;

use crate::ir::{Api, Interface, TypeKind};
use crate::output::OutputFile;
use crate::templates::{self, Embedded, Layout};

/// The templates, embedded in the generator.
const TEMPLATES: &[Embedded] = templates::embed!("go":
    "go.mod" = "go.mod.jinja",
    "doc.go" = "doc.go.jinja",
    "models.go" = "models.go.jinja",
    "client.go" = "client.go.jinja",
    "example_test.go" = "example_test.go.jinja",
);

/// The hand-written runtime, by its file name in `internal/runtime`.
const RUNTIME: &[Embedded] = templates::runtime!("go");

pub use names::{OWN_NAMES, reserved_module};

/// Where the project puts what.
pub const LAYOUT: Layout = Layout {
    dir: "generated/go",
    language: "go",
    comment: "//",
    package_files: &[("go.mod", "go.mod")],
    runtime_dir: "internal/runtime",
    // The interfaces' packages sit at the module's root.
    interfaces_dir: "",
    package_dir: |_| String::new(),
    interface_files: &[
        ("doc.go", "doc.go"),
        ("models.go", "models.go"),
        ("client.go", "client.go"),
        ("example_test.go", "example_test.go"),
    ],
    runtime: RUNTIME,
};

/// What an interface package's files see.
#[derive(serde::Serialize)]
struct PackageCx {
    header: String,
    name: String,
    doc: String,
    module: String,
    version: String,
    imports: Imports,
    types: Vec<models::TypeCx>,
    page: Option<models::PageCx>,
    c: client::ClientCx,
}

/// The packages `models.go` imports.
#[derive(serde::Serialize)]
struct Imports {
    runtime: bool,
    json: bool,
    time: bool,
}

/// Renders the module.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    let env = templates::environment(TEMPLATES)?;
    let runtime = LAYOUT.runtime_as_is();
    LAYOUT.write(api, &env, &runtime, |i| Ok(package_cx(api, i)), |text| text)
}

fn package_cx(api: &Api, i: &Interface) -> PackageCx {
    let mut scope = names::package_scope();
    let claimed = models::claim(i, &mut scope);
    let types = types::Types::new(&claimed.types, i);
    let mut imports = Imports {
        runtime: !i.types.is_empty(),
        json: false,
        time: false,
    };
    for t in &i.types {
        match &t.kind {
            TypeKind::Object(o) => {
                imports.json = true;
                for f in o.wire_fields() {
                    types::imports(&f.ty, &mut imports.time, &mut imports.json);
                }
            }
            TypeKind::Union(_) | TypeKind::ScalarUnion(_) => imports.json = true,
            _ => {}
        }
    }
    let c = client::client_cx(i, &claimed, &types, &mut scope);
    let used = uses::Uses::of(i);
    PackageCx {
        c,
        page: models::page_cx(i, &claimed),
        header: templates::header("//", &i.source_file),
        name: i.name.clone(),
        doc: crate::doc_text::interface(i),
        module: api.packages.go_module.clone(),
        version: api.version.clone(),
        imports,
        types: i
            .types
            .iter()
            .enumerate()
            .map(|(index, t)| {
                let mut cx = models::type_cx(t, index, &claimed, &types);
                cx.keep_used(index, &used);
                cx
            })
            .collect(),
    }
}
