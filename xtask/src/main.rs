//! Project tasks: `cargo xtask codegen` (and `--check`, `--dump-ir`, `--spec/--out`),
//! `changelog`, `check-output`, `fuzz`, `ci` and `bench`; `USAGE` below says each. The
//! generator's own commands (`codegen`, `changelog`) run its binary (`generator.rs`).

mod bench;
mod ci;
mod deny;
mod dlt_bench;
mod fuzz;
mod generator;
mod go;
mod go_bench;
mod go_peers;
mod go_quickstart;
mod java;
mod java_bench;
mod java_quickstart;
mod output_check;
mod package;
mod python_versions;
mod scenario_copies;
mod test_run;
mod tools;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  codegen           regenerate generated/ and spec/spec.schema.json from spec/
  codegen --check   write nothing; fail and name each stale file
  codegen --dump-ir print the resolved IR every backend reads, as JSON
  codegen --spec DIR --out DIR [--check]
                    the same for the specs in DIR, written under another folder
  changelog         print the CHANGELOG.md entry for spec/VERSION: what changed since
                    the release in spec/released.json, classified
  changelog --write add it to CHANGELOG.md and make the current IR the release baseline
  check-output --spec DIR [--out DIR]
                    generate from the specs in DIR (into target/check-output/, or DIR)
                    and check that every language's output compiles: clippy -D warnings,
                    tsc --noEmit, mypy --strict, javac -Xlint:all -Werror
  python            CI's Python checks alone (the sandbox built first): the sdist and
                    wheel built and checked (twine, check-wheel-contents), mypy, pytest,
                    then the conformance suite from the wheel on Python 3.10 to 3.13
  typescript        CI's TypeScript checks alone (the sandbox built first): the strict
                    type check and build, the tests and conformance suite, the package as
                    users get it on Node 18, 20 and 22, the scenarios in Chromium
  java              CI's Java checks alone: codegen --check, javac -Xlint:all -Werror and
                    javadoc -Xdoclint:all of generated/java, the JUnit tests of tests/java
                    on JDK 17 and the second JDK, the construct specs of tests/specs
                    compiled
  go                CI's Go checks alone: codegen --check, gofmt -l, go vet, go build of
                    generated/go, the runtime's tests with -race and its decoder fuzzed
                    for 10 s, the tests of tests/go, the construct specs of tests/specs
                    checked as Go
  deny              cargo-deny (installed at the pinned version if missing) on the
                    dependency tree: licenses, duplicate versions, sources (deny.toml)
  package           cargo package of the runtime and the client; each .crate unpacked
                    and built outside the workspace: its registry metadata, doctests,
                    and docs with docs.rs's features (-D warnings)
  fuzz [--cases N] [--seed S] [--compile K]
                    the long fuzz run (default 1,000,000 cases, seed 7): no panic or
                    hang, and K accepted specs (default 10) compiled in every language
  test              the workspace's Rust tests as CI runs them: every test binary built,
                    then run three at a time (longest first), then the doctests, with
                    each one's time
  ci                everything CI checks, in this order: fmt, one build of every target
                    with clippy's lints, codegen --check (by the generator just built),
                    the Rust tests; then side by side: the crates as packaged (doctests,
                    docs), each interface and feature alone, check-output on tests/specs,
                    then schemathesis against both sandboxes; the TypeScript checks (tests,
                    the packed package on Node 18/20/22, the scenarios in Chromium); the
                    Python checks; the Java checks (as `java` above); last bench --quick
  bench             every benchmark (release builds, several minutes), then the
                    performance table in docs/performance.md
  bench --quick     check that every benchmark runs (debug builds, one iteration each)
  bench --builds    only the build figures: the generated crate's cold build, a one-line
                    spec change rebuilt
  bench --codegen   only the codegen figure: `codegen --check` as a process beside
                    progenitor (bench/progenitor) on the v3 interface";

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

fn main() -> ExitCode {
    forget_cargo_run_variables();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        // The generator's commands: its binary, run where this was started (it finds the
        // checkout from there, as this does).
        ["codegen", rest @ ..] => here().and_then(|dir| generator().run(&dir, rest)),
        ["changelog", ..] => here().and_then(|dir| generator().run(&dir, &args)),
        ["check-output", "--spec", spec] => repo_root().and_then(|root| {
            let out = root.join("target/check-output");
            output_check::run(&root, &cargo(), &generator(), Path::new(spec), &out)
        }),
        ["check-output", "--spec", spec, "--out", out] => repo_root().and_then(|root| {
            output_check::run(
                &root,
                &cargo(),
                &generator(),
                Path::new(spec),
                Path::new(out),
            )
        }),
        ["python"] => repo_root().and_then(|root| ci::python_only(&root)),
        ["typescript"] => repo_root().and_then(|root| {
            let outcome = ci::typescript_only(&root, &generator());
            print!("{}", tools::time_table());
            outcome
        }),
        ["java"] => repo_root().and_then(|root| {
            let outcome = ci::java_only(&root, &generator());
            print!("{}", tools::time_table());
            outcome
        }),
        ["go"] => repo_root().and_then(|root| {
            let outcome = ci::go_only(&root, &generator());
            print!("{}", tools::time_table());
            outcome
        }),
        ["deny"] => repo_root().and_then(|root| deny::run(&root, &cargo())),
        ["package"] => repo_root().and_then(|root| package::run(&root, &cargo())),
        ["fuzz", flags @ ..] => repo_root().and_then(|root| fuzz::run(&root, &cargo(), flags)),
        ["ci"] => repo_root().and_then(|root| ci::run(&root)),
        ["test"] => repo_root().and_then(|root| {
            let outcome = test_run::run(&root, &cargo(), None, || Ok(())).map(drop);
            print!("{}", tools::time_table());
            outcome
        }),
        ["bench"] => repo_root().and_then(|root| bench::run(&root, false, false, None)),
        ["bench", "--quick"] => repo_root().and_then(|root| bench::run(&root, true, false, None)),
        ["bench", "--builds"] => repo_root().and_then(|root| bench::builds(&root)),
        ["bench", "--codegen"] => repo_root().and_then(|root| bench::codegen(&root)),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask` is `cargo run`, which gives this process its package's variables
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`, ...). Passed on to the cargo commands started
/// from here, they reach build scripts that watch them (ring's watches five): a
/// dependency built by `cargo xtask ci` then looked changed to a plain `cargo build` and
/// back, and ring and every crate above it were rebuilt at each switch (two minutes).
fn forget_cargo_run_variables() {
    let names: Vec<std::ffi::OsString> = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| name.to_str().is_some_and(is_cargo_run_variable))
        .collect();
    for name in names {
        // SAFETY: the first thing `main` does, while this process has no other thread.
        unsafe { std::env::remove_var(name) };
    }
}

/// What cargo sets for the program it runs, about that program's package (not `CARGO`,
/// the cargo to use, nor the settings a user gives, such as `CARGO_TARGET_DIR`).
fn is_cargo_run_variable(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
        )
}

/// The checkout this run works on: the nearest folder, from the current directory up, that
/// holds the workspace's `Cargo.toml` and `spec/`. Found at run time, never from a path
/// baked in at compile time: checkouts that share one target directory share the binary.
fn repo_root() -> Result<PathBuf, String> {
    let here = std::env::current_dir()
        .map_err(|e| format!("cargo xtask: cannot read the current directory: {e}"))?;
    find_root(&here).ok_or_else(|| {
        format!(
            "cargo xtask: {} is not inside a checkout of this repository (no folder at or \
             above it holds a workspace Cargo.toml and spec/); run it from the checkout",
            here.display()
        )
    })
}

/// The generator through cargo, from this checkout's workspace (or, outside one, the
/// workspace this xtask was built in).
fn generator() -> generator::Generator {
    generator::Generator::cargo(&cargo(), repo_root().ok().as_deref())
}

fn here() -> Result<PathBuf, String> {
    std::env::current_dir()
        .map_err(|e| format!("cargo xtask: cannot read the current directory: {e}"))
}

fn find_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| {
            dir.join("spec").is_dir()
                && std::fs::read_to_string(dir.join("Cargo.toml"))
                    .is_ok_and(|manifest| manifest.lines().any(|l| l.trim() == "[workspace]"))
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::is_cargo_run_variable;

    #[test]
    fn what_cargo_run_sets_for_its_program_is_forgotten_and_a_users_settings_kept() {
        let package = [
            "CARGO_MANIFEST_DIR",
            "CARGO_MANIFEST_PATH",
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_CRATE_NAME",
            "CARGO_BIN_NAME",
        ];
        for name in package {
            assert!(is_cargo_run_variable(name), "{name} is kept");
        }
        let settings = [
            "CARGO",
            "CARGO_TARGET_DIR",
            "CARGO_HOME",
            "CARGO_TERM_COLOR",
            "RUSTC_WORKSPACE_WRAPPER",
        ];
        for name in settings {
            assert!(!is_cargo_run_variable(name), "{name} is forgotten");
        }
    }
}
