//! `cargo xtask check-output --spec DIR [--out DIR]`: whether what the generator writes
//! for a spec compiles in every language, the contract for every spec it accepts. The Rust
//! crate and the command-line tool pass clippy with `-D warnings` in a workspace of their
//! own (as in a user's project), the TypeScript package type-checks, the Python package passes
//! `mypy --strict`, the Java project compiles with `javac -Xlint:all -Werror` and its docs
//! with `javadoc -Xdoclint:all`, the Go module is gofmt-clean, passes `go vet` and
//! builds. CI runs it on the keyword spec (`tests/specs/`); the long fuzz run on
//! a sample of accepted mutated specs.

use std::path::Path;

use super::generator::Generator;
use super::tools;

/// Generates the specs of `spec_dir` into `work` with `generator` and checks every
/// language's output.
pub fn run(
    root: &Path,
    cargo: &str,
    generator: &Generator,
    spec_dir: &Path,
    work: &Path,
) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(work.join("generated"));
    scratch_workspace(root, work)?;
    generate(root, generator, spec_dir, work)?;
    rust(root, cargo, work)?;
    typescript(root, work)?;
    python(root, work)?;
    // Every interface's package in one project: one javac run for all the specs.
    super::java::compile(
        root,
        &work.join("generated/java/src/main/java"),
        "check-output: java",
        &work.join("java-build"),
    )?;
    // Every interface's package in one module: gofmt, vet and build.
    let module = work.join("generated/go");
    super::go::check(root, &module.to_string_lossy(), "check-output: go", false)
}

/// What the generator writes for the specs in `spec_dir`, written under `work` (file
/// names in its messages start at `root`).
pub fn generate(
    root: &Path,
    generator: &Generator,
    spec_dir: &Path,
    work: &Path,
) -> Result<(), String> {
    let absolute = |path: &Path| {
        std::path::absolute(path).map_err(|e| format!("cannot resolve {}: {e}", path.display()))
    };
    let (spec_dir, work) = (absolute(spec_dir)?, absolute(work)?);
    let (spec_dir, work) = (spec_dir.to_string_lossy(), work.to_string_lossy());
    generator.run(root, &["--spec", &spec_dir, "--out", &work])
}

/// A workspace of its own in `work` for the generated crate: the runtime, the tool's crate
/// and the IR crate it reads copied beside it (the manifests point at `../../runtime`,
/// `../../cli`, `../ir`), the repository's lockfile, and the workspace's dependency
/// versions without its members and profiles.
pub fn scratch_workspace(root: &Path, work: &Path) -> Result<(), String> {
    let prepare = |e: std::io::Error| format!("cannot prepare {}: {e}", work.display());
    for crate_dir in ["runtime", "cli", "ir"] {
        let _ = std::fs::remove_dir_all(work.join(crate_dir));
        tools::copy_dir(&root.join(crate_dir), &work.join(crate_dir)).map_err(prepare)?;
    }
    std::fs::copy(root.join("Cargo.lock"), work.join("Cargo.lock")).map_err(prepare)?;
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| format!("cannot read Cargo.toml: {e}"))?;
    let dependencies = manifest
        .split("\n[profile")
        .next()
        .unwrap_or_default()
        .lines()
        .map(|l| {
            if l.starts_with("members = ") {
                r#"members = ["runtime", "generated/rust", "ir", "cli", "generated/cli"]"#
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(work.join("Cargo.toml"), dependencies + "\n")
        .map_err(|e| format!("cannot write {}: {e}", work.join("Cargo.toml").display()))
}

fn rust(root: &Path, cargo: &str, work: &Path) -> Result<(), String> {
    let manifest = work.join("Cargo.toml");
    // The repository's target folder: its dependencies are already checked there.
    let target = tools::target_dir(root, cargo)?;
    tools::step(
        root,
        "check-output: rust (clippy -D warnings)",
        cargo,
        &[
            "clippy",
            "--quiet",
            "--offline",
            "--manifest-path",
            &manifest.to_string_lossy(),
            "--target-dir",
            &target.to_string_lossy(),
            "-p",
            "inspection-client",
            "-p",
            "inspection-cli",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )
}

fn typescript(root: &Path, work: &Path) -> Result<(), String> {
    let tsc = root.join(tools::TS_TOOLS).join("node_modules/.bin/tsc");
    if !tsc.exists() {
        tools::typescript_dev_tools(root)?;
    }
    let package = work.join("generated/typescript");
    tools::step(
        root,
        "check-output: typescript (tsc --noEmit)",
        &tsc.to_string_lossy(),
        &["-p", &package.to_string_lossy(), "--noEmit"],
    )
}

fn python(root: &Path, work: &Path) -> Result<(), String> {
    let mypy = tools::python_bin(root).join("mypy");
    if !mypy.exists() {
        tools::python_env(root)?;
    }
    let package = work.join("generated/python/src/inspection_client");
    tools::step(
        root,
        "check-output: python (mypy --strict)",
        &mypy.to_string_lossy(),
        &[
            "--strict",
            "--cache-dir=target/mypy-cache",
            &package.to_string_lossy(),
        ],
    )
}
