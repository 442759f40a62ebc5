//! Files a backend produces, and writing them only when they changed.

use std::path::Path;

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
