//! Project tasks: `cargo xtask codegen [--check]` and `cargo xtask ci`.

mod ci;
mod codegen_task;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  codegen           regenerate generated/ and spec/spec.schema.json from spec/
  codegen --check   write nothing; fail and name each stale file
  codegen --dump-ir print the resolved IR every backend reads, as JSON
  codegen --spec DIR --out DIR [--check]
                    the same for the specs in DIR, written under another folder
  ci                everything CI checks: fmt, clippy, codegen --check, tests";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = repo_root();
    let result = match args.as_slice() {
        ["codegen"] => codegen_task::run(&root, false),
        ["codegen", "--check"] => codegen_task::run(&root, true),
        ["codegen", "--dump-ir"] => codegen_task::dump_ir(&root),
        ["codegen", "--spec", spec, "--out", out] => {
            codegen_task::run_with(&root, Path::new(spec), Path::new(out), false)
        }
        ["codegen", "--spec", spec, "--out", out, "--check"] => {
            codegen_task::run_with(&root, Path::new(spec), Path::new(out), true)
        }
        ["ci"] => ci::run(&root),
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

fn repo_root() -> PathBuf {
    // xtask/ sits at the root of the repository.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}
