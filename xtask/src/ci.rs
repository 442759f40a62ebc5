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
    typescript(root, &cargo)?;
    println!("ci: all checks passed");
    Ok(())
}

/// The TypeScript package: dev tools from the committed lockfile, the strict type check
/// and build of `generated/typescript`, then its tests on the built output (the
/// conformance scenarios start the sandbox binary the Rust tests built).
fn typescript(root: &Path, cargo: &str) -> Result<(), String> {
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let tools = "tests/typescript";
    step(
        root,
        "typescript: dev tools",
        npm,
        &["ci", "--prefix", tools, "--no-audit", "--no-fund"],
    )?;
    step(
        root,
        "typescript: sandbox",
        cargo,
        &["build", "-p", "sandbox"],
    )?;
    let tsc = format!("{tools}/node_modules/.bin/tsc");
    step(
        root,
        "typescript: type check and build",
        &tsc,
        &["-p", "generated/typescript"],
    )?;
    // Names that are keywords or the client's own must give a package that type-checks.
    println!("==> typescript: the keyword spec");
    let keywords = root.join("target/keywords");
    super::codegen_task::run_with(root, &root.join("tests/specs"), &keywords, false)?;
    let package = keywords.join("generated/typescript");
    step(
        root,
        "typescript: type check of the keyword spec",
        &tsc,
        &["-p", &package.to_string_lossy(), "--noEmit"],
    )?;
    step(root, "typescript: tests", npm, &["test", "--prefix", tools])
}

fn step(root: &Path, name: &str, program: &str, args: &[&str]) -> Result<(), String> {
    println!("==> {name}: {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| format!("{name}: cannot run {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("ci: step `{name}` failed ({status})"))
    }
}
