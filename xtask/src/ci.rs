//! `cargo xtask ci`: every check CI runs, in the order that fails fastest.

use std::path::Path;
use std::process::Command;

pub fn run(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    step(root, "format", &cargo, &["fmt", "--all", "--", "--check"])?;
    println!("==> codegen --check");
    super::codegen_task::run(root, true)?;
    step(
        root,
        "clippy",
        &cargo,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    step(root, "tests", &cargo, &["test", "--workspace"])?;
    // The client's documentation builds without a warning (broken links included).
    step_with_env(
        root,
        "docs",
        &cargo,
        &[
            "doc",
            "--no-deps",
            "-p",
            "inspection-client",
            "-p",
            "inspection-runtime",
        ],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    // Each interface alone, and the optional TLS roots (native-tls needs OpenSSL's
    // headers, which a CI machine may lack, so it is checked by hand; see README).
    let combinations: [&[&str]; 3] = [
        &["--no-default-features", "--features", "v3"],
        &["--no-default-features", "--features", "legacy"],
        &["--features", "native-roots,secrecy"],
    ];
    for features in combinations {
        let mut args = vec!["check", "-p", "inspection-client"];
        args.extend_from_slice(features);
        step(root, "features", &cargo, &args)?;
    }
    step(
        root,
        "features: secrecy",
        &cargo,
        &[
            "test",
            "-p",
            "inspection-runtime",
            "--features",
            "secrecy",
            "--lib",
            "secrecy",
        ],
    )?;
    typescript(root, &cargo)?;
    python(root)?;
    contract(root)?;
    // Names that are keywords or the client's own must give output that compiles.
    super::output_check::run(
        root,
        &cargo,
        &root.join("tests/specs"),
        &root.join("target/keywords"),
    )?;
    super::bench::run(root, true, true)?;
    println!("ci: all checks passed");
    Ok(())
}

/// The TypeScript package: dev tools from the committed lockfile, the strict type check
/// and build of `generated/typescript`, then its tests on the built output (the
/// conformance scenarios start the sandbox binary the Rust tests built).
fn typescript(root: &Path, cargo: &str) -> Result<(), String> {
    typescript_tools(root, cargo)?;
    step(
        root,
        "typescript: tests",
        npm(),
        &["test", "--prefix", TS_TOOLS],
    )
}

/// Where the TypeScript dev tools and tests live.
pub const TS_TOOLS: &str = "tests/typescript";

fn npm() -> &'static str {
    if cfg!(windows) { "npm.cmd" } else { "npm" }
}

/// The TypeScript dev tools installed from the lockfile, the sandbox built, the package
/// type-checked and built.
pub fn typescript_tools(root: &Path, cargo: &str) -> Result<(), String> {
    typescript_dev_tools(root)?;
    step(
        root,
        "typescript: sandbox",
        cargo,
        &["build", "-p", "sandbox"],
    )?;
    let tsc = format!("{TS_TOOLS}/node_modules/.bin/tsc");
    step(
        root,
        "typescript: type check and build",
        &tsc,
        &["-p", "generated/typescript"],
    )
}

/// The TypeScript dev tools (tsc, the test runner's types) from the lockfile.
pub fn typescript_dev_tools(root: &Path) -> Result<(), String> {
    step(
        root,
        "typescript: dev tools",
        npm(),
        &["ci", "--prefix", TS_TOOLS, "--no-audit", "--no-fund"],
    )
}

/// Compiles the TypeScript tests and benchmarks to JavaScript (`npm test` does it too).
pub fn typescript_compile_tests(root: &Path) -> Result<(), String> {
    let tsc = format!("{TS_TOOLS}/node_modules/.bin/tsc");
    step(
        root,
        "typescript: compile the tests and benchmarks",
        &tsc,
        &["-p", TS_TOOLS],
    )
}

/// The Python package: a virtual environment under `target/` with the pinned dev tools,
/// the package installed as a user would, `mypy --strict` on it and its tests, then pytest (the conformance scenarios, sync and async, against the
/// sandbox binary).
fn python(root: &Path) -> Result<(), String> {
    python_env(root)?;
    let bin = python_bin(root);
    let tool = |name: &str| bin.join(name).to_string_lossy().into_owned();
    let mypy = tool("mypy");
    // The package promises Python 3.10: checked against 3.10's standard library too.
    step(
        root,
        "python: mypy --strict for Python 3.10",
        &mypy,
        &[
            "--strict",
            "--python-version",
            "3.10",
            "--cache-dir=target/mypy-cache-3.10",
            "generated/python/src/inspection_client",
        ],
    )?;
    step(
        root,
        "python: mypy --strict",
        &mypy,
        &[
            "--strict",
            "--cache-dir=target/mypy-cache",
            "generated/python/src/inspection_client",
            "tests/python",
            "tests/contract",
        ],
    )?;
    step(
        root,
        "python: tests",
        &tool("pytest"),
        &["-q", "-p", "no:cacheprovider", "tests/python"],
    )
}

/// The contract run (`tests/contract`): schemathesis, pinned with the Python dev tools,
/// against both interfaces of the sandbox the Rust tests built. Fails on any finding
/// `tests/contract/exceptions.txt` does not keep.
fn contract(root: &Path) -> Result<(), String> {
    let st = python_bin(root).join("st").to_string_lossy().into_owned();
    step_with_env(
        root,
        "contract: schemathesis against both sandboxes",
        "bash",
        &["tests/contract/run.sh", "target/debug/sandbox", "both"],
        &[
            ("ST", st.as_str()),
            ("DOCS", "generated/openapi"),
            ("OUT", "target/contract"),
        ],
    )
}

pub fn python_bin(root: &Path) -> std::path::PathBuf {
    let venv = root.join("target/python-venv");
    venv.join(if cfg!(windows) { "Scripts" } else { "bin" })
}

/// The virtual environment under `target/` with the pinned dev tools and the package
/// installed as a user would; returns its `python`.
pub fn python_env(root: &Path) -> Result<String, String> {
    let venv = root.join("target/python-venv");
    let bin = python_bin(root);
    let tool = |name: &str| bin.join(name).to_string_lossy().into_owned();
    if !bin.join("python").exists() && !bin.join("python.exe").exists() {
        let python = if cfg!(windows) { "python" } else { "python3" };
        step(
            root,
            "python: virtual environment",
            python,
            &["-m", "venv", &venv.to_string_lossy()],
        )?;
    }
    let pip = tool("pip");
    step(
        root,
        "python: dev tools",
        &pip,
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            "tests/python/requirements.txt",
        ],
    )?;
    // Installed from a copy: building writes `build/` and `*.egg-info` beside the sources,
    // and generated/ holds generated files only.
    let package = root.join("target/python-package");
    let _ = std::fs::remove_dir_all(&package);
    copy_dir(&root.join("generated/python"), &package).map_err(|e| {
        format!(
            "python: cannot copy the package to {}: {e}",
            package.display()
        )
    })?;
    step(
        root,
        "python: install the package",
        &pip,
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-build-isolation",
            "--no-deps",
            "--force-reinstall",
            &package.to_string_lossy(),
        ],
    )?;
    Ok(tool("python"))
}

/// Copies the files of `from` into `to`, folders included (caches left out).
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "__pycache__" {
            continue;
        }
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &to.join(&name))?;
        } else {
            std::fs::copy(entry.path(), to.join(&name))?;
        }
    }
    Ok(())
}

pub fn step(root: &Path, name: &str, program: &str, args: &[&str]) -> Result<(), String> {
    step_with_env(root, name, program, args, &[])
}

/// [`step`] with environment variables set for the program.
fn step_with_env(
    root: &Path,
    name: &str,
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Result<(), String> {
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v:?} ")).collect();
    println!("==> {name}: {}{program} {}", shown.concat(), args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .status()
        .map_err(|e| format!("{name}: cannot run {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("ci: step `{name}` failed ({status})"))
    }
}
