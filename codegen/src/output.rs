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

/// What a package's own tools write beside it (`generated/<package>/node_modules`,
/// `dist`, `build`, `target`): skipped only there, so an interface of the same name
/// deeper down is still held to the spec.
const TOOL_FOLDERS: &[&str] = &["node_modules", "target", "dist", "build"];

/// Files under `dir` (the `generated` folder), skipping hidden folders, caches and what
/// package tools write.
fn existing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, 0, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // `pip install generated/python` writes `src/*.egg-info/`; no spec name has a dot.
        if name.starts_with('.')
            || name == "__pycache__"
            || name.ends_with(".egg-info")
            || (depth == 1 && TOOL_FOLDERS.contains(&name.as_ref()))
        {
            continue;
        }
        if path.is_dir() {
            walk(&path, depth + 1, out);
        } else {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_folders_are_left_alone_beside_a_package_only() {
        let root = std::env::temp_dir().join(format!("output-sync-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for file in [
            "generated/python/build/lib/x.py",
            "generated/python/src/inspection_client.egg-info/PKG-INFO",
            "generated/typescript/node_modules/a/index.js",
            "generated/rust/src/build/client.rs",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let synced = sync(&[], &root, Mode::Check).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(
            synced.stale,
            ["generated/rust/src/build/client.rs is no longer generated"]
        );
    }
}
