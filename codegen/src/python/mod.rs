//! The Python backend: the client package (its names from the package settings) under `generated/python/` (httpx
//! its only dependency), with a blocking `Client` and an `AsyncClient` of the same surface.
//! Rust computes every name, annotation and descriptor into plain contexts (`context`); the
//! templates in `templates/python/` lay them out; the hand-written runtime is copied, and
//! its async I/O modules are turned into their sync twins (`unasync`).

mod context;
mod dlt;
pub(crate) mod names;
mod types;
mod unasync;

use std::borrow::Cow;

use crate::ir::Api;
use crate::output::OutputFile;
use crate::templates::{self, Embedded, Layout};

/// The templates, embedded in the generator.
const TEMPLATES: &[Embedded] = templates::embed!("python":
    "pyproject.toml" = "pyproject.toml.jinja",
    // PEP 561: the package ships its own annotations (an empty marker file).
    "py.typed",
    "package_init.py" = "package_init.py.jinja",
    "interface_init.py" = "interface_init.py.jinja",
    "models.py" = "models.py.jinja",
    "record" = "record.py.jinja",
    "enum" = "enum.py.jinja",
    "union" = "union.py.jinja",
    "decoder" = "decoder.py.jinja",
    // Ids and aliases (record references, scalar unions) are one line each: one template.
    "id" = "alias.py.jinja",
    "alias" = "alias.py.jinja",
    "client.py" = "client.py.jinja",
    "operation_constant" = "operation_constant.py.jinja",
    "operation" = "operation.py.jinja",
);

/// The hand-written runtime, copied into `_runtime/`; `_async_*` modules also give their
/// `_sync_*` twins.
const RUNTIME: &[Embedded] = templates::runtime!("python");

pub use names::{OWN_NAMES, reserved_module};

/// Where the package puts what.
pub const LAYOUT: Layout = Layout {
    dir: "generated/python",
    language: "python",
    comment: "#",
    package_files: &[
        ("pyproject.toml", "pyproject.toml"),
        ("src/{package}/__init__.py", "package_init.py"),
        ("src/{package}/py.typed", "py.typed"),
    ],
    runtime_dir: "src/{package}/_runtime",
    interfaces_dir: "src/{package}",
    package_dir: |p| p.python_module.clone(),
    interface_files: &[
        ("__init__.py", "interface_init.py"),
        ("models.py", "models.py"),
        ("client.py", "client.py"),
    ],
    runtime: RUNTIME,
};

/// Renders the package, with its dlt sources (`dlt/`) for the interfaces that declare a
/// sync.
pub fn render(api: &Api) -> Result<Vec<OutputFile>, String> {
    let env = templates::environment(&[TEMPLATES, dlt::TEMPLATES].concat())?;
    let mut runtime: Vec<(Cow<str>, Cow<str>)> = Vec::new();
    for &(name, text) in RUNTIME {
        runtime.push((name.into(), text.into()));
        if let Some(rest) = name.strip_prefix("_async_") {
            runtime.push((
                format!("_sync_{rest}").into(),
                unasync::to_sync(text).into(),
            ));
        }
    }
    let contexts = api
        .interfaces
        .iter()
        .map(context::interface)
        .collect::<Result<Vec<_>, String>>()?;
    let by_name = |i: &crate::ir::Interface| {
        let at = api.interfaces.iter().position(|x| x.name == i.name);
        at.map(|n| &contexts[n])
            .ok_or_else(|| format!("generator bug: no context of `{}`", i.name))
    };
    let mut files = LAYOUT.write(api, &env, &runtime, by_name, tidy)?;
    let interfaces: Vec<_> = api
        .interfaces
        .iter()
        .zip(&contexts)
        .map(|(i, cx)| (i, context::module_names(i), cx))
        .collect();
    let package = format!("{}/src/{}", LAYOUT.dir, (LAYOUT.package_dir)(&api.packages));
    files.extend(dlt::files(api, &env, &package, &interfaces)?);
    Ok(files)
}

/// Blank lines as PEP 8 has them: at most two in a row, and one newline at the end (the
/// templates' loops and includes would otherwise leave more).
fn tidy(text: String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 2 {
                continue;
            }
            out.push('\n');
        } else {
            blank = 0;
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    let end = out.trim_end().len();
    out.truncate(end);
    out.push('\n');
    out
}
