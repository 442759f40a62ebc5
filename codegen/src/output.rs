//! Files a backend produces, and writing them only when they changed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One generated file, by its path relative to the repository root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    pub contents: String,
}

impl OutputFile {
    pub fn new(path: impl Into<String>, contents: impl Into<String>) -> Self {
        OutputFile {
            path: path.into(),
            contents: contents.into(),
        }
    }

    /// Whether the file on disk under `root` already holds exactly these bytes.
    pub fn is_fresh(&self, root: &Path) -> bool {
        std::fs::read(root.join(&self.path))
            .is_ok_and(|on_disk| on_disk == self.contents.as_bytes())
    }
}

/// Whether [`sync`] writes what differs or only reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write changed files and remove files the spec no longer produces.
    Write,
    /// Write nothing; report what is stale.
    Check,
}

/// What [`sync`] found (and, writing, did).
#[derive(Debug, Default)]
pub struct Synced {
    /// Checking: each stale file, `path is out of date` or `path is no longer generated`.
    pub stale: Vec<String>,
    pub written: usize,
    pub removed: usize,
}

/// Holds the files under `out` to `files`: every produced file with exactly these bytes,
/// and nothing else under `out/generated` (build and package folders aside). The one
/// comparison `cargo xtask codegen [--check]` and the freshness test share.
pub fn sync(files: &[OutputFile], out: &Path, mode: Mode) -> Result<Synced, String> {
    let mut done = Synced::default();
    for file in files.iter().filter(|f| !f.is_fresh(out)) {
        if mode == Mode::Check {
            done.stale.push(format!("{} is out of date", file.path));
            continue;
        }
        let path = out.join(&file.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(&path, &file.contents)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        done.written += 1;
    }
    let produced: BTreeSet<PathBuf> = files.iter().map(|f| out.join(&f.path)).collect();
    for path in existing(&out.join("generated")) {
        if produced.contains(&path) {
            continue;
        }
        let shown = path
            .strip_prefix(out)
            .unwrap_or(&path)
            .display()
            .to_string();
        if mode == Mode::Check {
            done.stale.push(format!("{shown} is no longer generated"));
        } else {
            std::fs::remove_file(&path).map_err(|e| format!("cannot remove {shown}: {e}"))?;
            done.removed += 1;
        }
    }
    Ok(done)
}

/// Files under `dir`, skipping hidden, build and package folders.
fn existing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // What installing a package leaves beside it (`pip install generated/python`
        // writes `build/` and `*.egg-info/`) is not the generator's to remove.
        if name.starts_with('.')
            || name.ends_with(".egg-info")
            || ["node_modules", "target", "__pycache__", "dist", "build"].contains(&name.as_ref())
        {
            continue;
        }
        if path.is_dir() {
            out.extend(existing(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}
