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
    println!("ci: all checks passed");
    Ok(())
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
