//! Embeds each language's hand-written runtime (`templates/<language>/runtime/`) whole:
//! every file of the folder, so a runtime file added there is in the next build with
//! nothing to list (the lists were written by hand, one per backend, and a test had to
//! catch a forgotten file). Writes `$OUT_DIR/runtime_<language>.rs`, an array of
//! `(name, include_str!(path))` in name order, which `templates::runtime!` includes.

use std::path::{Path, PathBuf};

/// Each language: its runtime's folder under `templates/`, and the files it takes (by
/// their ending).
const RUNTIMES: &[(&str, &str, &str)] = &[
    ("typescript", "typescript/runtime", ".ts"),
    ("python", "python/runtime", ".py"),
    ("java", "java/runtime", ".java"),
    ("go", "go/runtime/internal/runtime", ".go"),
];

fn main() {
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (language, folder, ending) in RUNTIMES {
        let root = templates.join(folder);
        // A folder: cargo runs this again when anything in it changes.
        println!("cargo::rerun-if-changed={}", root.display());
        let mut files = Vec::new();
        files_under(&root, "", ending, &mut files);
        files.sort();
        let entries: Vec<String> = files
            .iter()
            .map(|(name, path)| format!("({name:?}, include_str!({path:?}))"))
            .collect();
        let text = format!("&[\n    {}\n]\n", entries.join(",\n    "));
        let file = out.join(format!("runtime_{language}.rs"));
        std::fs::write(&file, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
    }
}

/// The files under `dir` ending in `ending`, as (their path from the runtime's folder,
/// their absolute path), subfolders included.
fn files_under(dir: &Path, under: &str, ending: &str, out: &mut Vec<(String, String)>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read the runtime folder {}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, &format!("{under}{name}/"), ending, out);
        } else if name.ends_with(ending) {
            out.push((format!("{under}{name}"), path.display().to_string()));
        }
    }
}
