//! The generator: spec -> checked IR -> backends.

pub mod backend;
pub mod check;
pub mod diagnostic;
pub mod doc_text;
pub mod go;
pub mod ir;
pub mod java;
pub mod limits;
pub mod openapi;
pub mod output;
mod parallel;
pub mod python;
pub mod rust;
pub mod scope;
pub mod spec;
pub mod sql;
pub mod templates;
// Its text is the `tests` crate's spec frame too; its loaded fixtures are unit tests' only.
#[doc(hidden)]
pub mod test_spec;
pub mod typescript;

use std::path::Path;

use diagnostic::{Diagnostic, Diagnostics};

/// Reads and checks one spec file's text. `file` is the name used in messages.
pub fn load_str(file: &str, text: &str) -> Result<ir::Interface, Diagnostics> {
    let parsed = spec::parse(file, text)?;
    check::check(file, &parsed)
}

/// Reads and checks every `*.yaml` file of `spec_dir` (in name order). Messages name the
/// files relative to `root`.
pub fn load_dir(root: &Path, spec_dir: &Path) -> Result<ir::Api, Diagnostics> {
    let unreadable = |path: &Path, what: String| Diagnostic {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        message: what,
        help: "check that the spec folder exists and is readable".to_string(),
    };
    let entries = std::fs::read_dir(spec_dir)
        .map_err(|e| unreadable(spec_dir, format!("cannot read the spec folder: {e}")))?;
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .filter(|p| !p.ends_with(PACKAGES_FILE))
        .collect();
    files.sort();
    let mut interfaces = Vec::new();
    let mut problems = Vec::new();
    for path in files {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                problems.push(unreadable(&path, format!("cannot read the file: {e}")));
                continue;
            }
        };
        match load_str(&shown, &text) {
            Ok(i) => interfaces.push(i),
            Err(d) => problems.extend(d.0),
        }
    }
    let version = read_version(root, spec_dir).map_err(|d| Diagnostics(vec![d]));
    // The Go module path names a major version of 2 or more.
    let major = version
        .as_ref()
        .ok()
        .and_then(|v| ir::version::parse(v))
        .map_or(0, |(major, _, _)| major);
    let packages = match read_packages(root, spec_dir, major) {
        Ok(p) => p,
        Err(d) => {
            problems.extend(d.0);
            ir::Packages::default()
        }
    };
    match version {
        Ok(version) if problems.is_empty() => Ok(ir::Api {
            version,
            packages,
            interfaces,
        }),
        Ok(_) => Err(Diagnostics(problems)),
        Err(mut d) => {
            d.0.extend(problems);
            Err(d)
        }
    }
}

/// The file of the spec folder naming each language's package.
pub const PACKAGES_FILE: &str = "packages.yaml";

/// The package names in `spec_dir/packages.yaml`, or the project's own when the folder
/// has none.
fn read_packages(root: &Path, spec_dir: &Path, major: u64) -> Result<ir::Packages, Diagnostics> {
    let path = spec_dir.join(PACKAGES_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(ir::Packages::default());
    };
    let shown = path
        .strip_prefix(root)
        .unwrap_or(&path)
        .display()
        .to_string();
    let file: spec::packages::PackagesFile = spec::parse_as(&shown, &text)?;
    check::packages::check(&shown, &file, major)
}

/// The release version in `spec_dir/VERSION` (`MAJOR.MINOR.PATCH`), or the default when
/// the folder has none.
fn read_version(root: &Path, spec_dir: &Path) -> Result<String, Diagnostic> {
    let path = spec_dir.join("VERSION");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(ir::DEFAULT_VERSION.to_string());
    };
    let version = text.trim();
    if ir::version::parse(version).is_some() {
        return Ok(version.to_string());
    }
    Err(Diagnostic {
        file: path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string(),
        line: 1,
        column: 1,
        message: format!("`{version}` is not a release version"),
        help: "write MAJOR.MINOR.PATCH, for example 0.2.0".to_string(),
    })
}

/// Where the IR the output was generated from is kept, for review and for the change
/// report of the next regeneration.
pub const IR_PATH: &str = "generated/ir.json";

/// The file of the spec folder that keeps the IR of the last release: what the version
/// rule compares against.
pub const RELEASED_FILE: &str = "released.json";

/// Where the editor schema of the spec format is written.
pub const SCHEMA_PATH: &str = "spec/spec.schema.json";

/// Where the editor schema of the package settings is written.
pub const PACKAGES_SCHEMA_PATH: &str = "spec/packages.schema.json";

/// Every generated file for `api`: each backend's in turn, then the spec format's schema.
///
/// The backends render side by side, a thread each (they share nothing but the IR they
/// read); their files are then listed in the backends' order, so the output does not
/// depend on which finished first.
pub fn generate(api: &ir::Api) -> Result<Vec<output::OutputFile>, String> {
    let mut files = Vec::new();
    for backend_files in parallel::map_in_order(backend::ALL, |backend| backend.render(api)) {
        files.extend(backend_files?);
    }
    files.push(output::OutputFile::new(IR_PATH, ir_json(api)));
    files.push(output::OutputFile::new(SCHEMA_PATH, spec_schema()));
    files.push(output::OutputFile::new(
        PACKAGES_SCHEMA_PATH,
        schema_text(schemars::schema_for!(spec::packages::PackagesFile)),
    ));
    Ok(files)
}

/// The IR as pretty JSON (`cargo xtask codegen --dump-ir`): what every backend reads.
pub fn ir_json(api: &ir::Api) -> String {
    let mut text = serde_json::to_string_pretty(api).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema of a spec file, for editors (`# yaml-language-server: $schema=...`).
pub fn spec_schema() -> String {
    schema_text(schemars::schema_for!(spec::SpecFile))
}

fn schema_text(schema: schemars::Schema) -> String {
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Loads `root/spec` and renders everything: what `cargo xtask codegen` writes.
pub fn generate_from(root: &Path) -> Result<(ir::Api, Vec<output::OutputFile>), String> {
    let api = load_dir(root, &root.join("spec")).map_err(|d| d.to_string())?;
    let files = generate(&api)?;
    Ok((api, files))
}
