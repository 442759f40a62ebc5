//! What the command's tests share: a minimal checkout, and running the built `codegen` in it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A minimal checkout under the temp folder: a workspace manifest and the repository's
/// spec files (a fresh one each call).
pub fn checkout(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codegen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("spec")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for file in ["v3.yaml", "legacy.yaml"] {
        std::fs::copy(repo.join("spec").join(file), dir.join("spec").join(file)).unwrap();
    }
    dir
}

/// Runs the built `codegen` with `args` in `cwd`.
pub fn codegen(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codegen"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}
