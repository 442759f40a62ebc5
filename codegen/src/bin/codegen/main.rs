//! The generator as a command, which `cargo xtask codegen` and `cargo xtask changelog` run
//! (so building `cargo xtask` needs no generator): regenerate or check the output, print the
//! IR, and the changelog. Run in a checkout, found at run time from the current folder.

mod changes;
mod task;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: codegen [--check | --dump-ir]
       codegen --spec DIR --out DIR [--check]
       codegen changelog [--write]
(what each does: cargo xtask's usage, which runs this)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        [] => checkout().and_then(|root| task::run(&root, false)),
        ["--check"] => checkout().and_then(|root| task::run(&root, true)),
        ["--dump-ir"] => checkout().and_then(|root| task::dump_ir(&root)),
        ["--spec", spec, "--out", out] => {
            task::run_with(&names_root(), Path::new(spec), Path::new(out), false)
        }
        ["--spec", spec, "--out", out, "--check"] => {
            task::run_with(&names_root(), Path::new(spec), Path::new(out), true)
        }
        ["changelog"] => checkout().and_then(|root| changes::changelog(&root, false)),
        ["changelog", "--write"] => checkout().and_then(|root| changes::changelog(&root, true)),
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

/// The checkout to work on: the nearest folder, from the current one up, that holds a
/// workspace `Cargo.toml` and `spec/`. Found at run time, never from a path baked in at
/// compile time: checkouts that share one target directory share the binary.
fn checkout() -> Result<PathBuf, String> {
    let here = std::env::current_dir()
        .map_err(|e| format!("codegen: cannot read the current directory: {e}"))?;
    here.ancestors()
        .find(|dir| {
            dir.join("spec").is_dir()
                && std::fs::read_to_string(dir.join("Cargo.toml"))
                    .is_ok_and(|manifest| manifest.lines().any(|l| l.trim() == "[workspace]"))
        })
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            format!(
                "codegen: {} is not inside a checkout of this repository (no folder at or \
                 above it holds a workspace Cargo.toml and spec/); run it from the checkout",
                here.display()
            )
        })
}

/// Where file names in messages start: the checkout when there is one, else the current
/// folder (`--spec` / `--out` work anywhere).
fn names_root() -> PathBuf {
    checkout()
        .ok()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}
