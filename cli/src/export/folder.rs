//! The export folder on disk: its files, the lock that keeps a second export out, and
//! writes that are durable before anything points at them.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::exit::{Class, Failure};
use crate::state::Held;

pub const RECORDS: &str = "records.jsonl";
pub const CHECKPOINT: &str = "checkpoint.json";
pub const DOCUMENTS: &str = "documents";

/// An export folder held by this process (see [`Held`]).
pub struct Folder {
    pub path: PathBuf,
    held: Held,
}

impl Folder {
    /// Creates the folder if needed and takes its lock; refuses (busy) when an export
    /// that is running holds it, naming its process.
    pub fn lock(path: &Path) -> Result<Folder, Failure> {
        let held = Held::take(path, "an export")?;
        Ok(Folder {
            path: held.path.clone(),
            held,
        })
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.held.file(name)
    }

    /// Removes what an interrupted run left half-written: `*.part` documents and a
    /// checkpoint that was never renamed into place. Neither is ever pointed at.
    pub fn remove_partial(&self) -> Result<(), Failure> {
        let _ = std::fs::remove_file(crate::output::part_path(&self.file(CHECKPOINT)));
        let documents = self.file(DOCUMENTS);
        let Ok(entries) = std::fs::read_dir(&documents) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".part") {
                std::fs::remove_file(entry.path())
                    .map_err(|e| Failure::io("remove", &entry.path(), e))?;
            }
        }
        Ok(())
    }
}

impl Folder {
    /// `--restart`: the records and checkpoint renamed to `<name>.set-aside-<UTC time>`
    /// (the folder synced), so the export starts over with nothing lost. Documents stay:
    /// each is whole and named by its record's id, so the new run keeps it. Gives the new
    /// names.
    pub fn set_aside(&self) -> Result<Vec<PathBuf>, Failure> {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        let mut moved = Vec::new();
        for name in [RECORDS, CHECKPOINT] {
            let from = self.file(name);
            if !from.exists() {
                continue;
            }
            let mut to = self.file(&format!("{name}.set-aside-{stamp}"));
            for n in 2.. {
                if !to.exists() {
                    break;
                }
                to = self.file(&format!("{name}.set-aside-{stamp}-{n}"));
            }
            std::fs::rename(&from, &to).map_err(|e| Failure::io("set aside", &from, e))?;
            moved.push(to);
        }
        crate::state::sync_dir(&self.path)?;
        Ok(moved)
    }
}

/// The records file opened for appending after its first `durable` bytes: whatever an
/// interrupted run wrote past them (a torn line, a page its checkpoint never covered) is
/// cut off first.
pub fn open_records(path: &Path, durable: u64) -> Result<File, Failure> {
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Failure::io("open", path, e))?;
    let len = file
        .metadata()
        .map_err(|e| Failure::io("read", path, e))?
        .len();
    if len < durable {
        return Err(Failure::new(
            Class::Failure,
            format!(
                "{} is shorter ({len} bytes) than its checkpoint says was written ({durable}); \
                 it was changed outside the export: `--restart` starts the export over in \
                 this folder (its records and checkpoint are set aside), or use a new folder",
                path.display()
            ),
        ));
    }
    file.set_len(durable)
        .and_then(|()| file.seek(SeekFrom::Start(durable)).map(drop))
        .map_err(|e| Failure::io("truncate", path, e))?;
    Ok(file)
}

/// A file name for a record's document: its id with every character but ASCII letters,
/// digits, `-` and `_` percent-encoded (ids are opaque: `/`, `..` or unicode stay inside
/// the folder and two ids never share a name), then the extension.
pub fn document_name(id: &str, extension: &str) -> String {
    let mut name = String::with_capacity(id.len() + extension.len() + 1);
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_' {
            name.push(byte as char);
        } else {
            name.push_str(&format!("%{byte:02X}"));
        }
    }
    if name.is_empty() {
        name.push_str("%00");
    }
    name.push('.');
    name.push_str(extension);
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("inspection-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_document_name_keeps_every_id_inside_the_folder_and_apart() {
        assert_eq!(document_name("i-1", "pdf"), "i-1.pdf");
        assert_eq!(document_name("../x", "pdf"), "%2E%2E%2Fx.pdf");
        assert_eq!(document_name("a.b", "pdf"), "a%2Eb.pdf");
        assert_ne!(document_name("a b", "pdf"), document_name("a_b", "pdf"));
        assert_eq!(document_name("", "pdf"), "%00.pdf");
    }

    #[test]
    fn records_past_the_durable_length_are_cut_off() {
        let dir = temp("records");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(RECORDS);
        std::fs::write(&path, "{\"id\":1}\n{\"id\":2}\n{\"id\"").unwrap();
        let mut file = open_records(&path, 9).unwrap();
        file.write_all(b"{\"id\":3}\n").unwrap();
        drop(file);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"id\":1}\n{\"id\":3}\n"
        );
        let refused = open_records(&path, 1000).err().unwrap();
        assert!(
            refused.message.contains("changed outside the export"),
            "{refused}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
