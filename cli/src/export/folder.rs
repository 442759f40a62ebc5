//! The export folder on disk: its files, the lock that keeps a second export out, and
//! writes that are durable before anything points at them.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::exit::{Class, Failure};

pub const RECORDS: &str = "records.jsonl";
pub const CHECKPOINT: &str = "checkpoint.json";
pub const DOCUMENTS: &str = "documents";
pub const LOCK: &str = ".lock";

/// A folder held by this process: its lock is released when this is dropped, or by the
/// operating system when the process dies (so a lock left by a killed export is free).
pub struct Folder {
    pub path: PathBuf,
    _lock: File,
}

impl Folder {
    /// Creates the folder if needed and takes its lock; refuses (busy) when an export
    /// that is running holds it, naming its process.
    pub fn lock(path: &Path) -> Result<Folder, Failure> {
        std::fs::create_dir_all(path).map_err(|e| Failure::io("create the folder", path, e))?;
        let lock_path = path.join(LOCK);
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| Failure::io("open the lock file", &lock_path, e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = lock.read_to_string(&mut holder);
                let holder = holder.trim();
                let by = if holder.is_empty() {
                    String::new()
                } else {
                    format!(" by process {holder}")
                };
                return Err(Failure::new(
                    Class::Busy,
                    format!(
                        "{} is held{by}, an export that is still running (lock file {}); \
                         wait for it to end, or stop it and run this again to resume",
                        path.display(),
                        lock_path.display()
                    ),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Failure::io("lock", &lock_path, e));
            }
        }
        // Who holds it, for the message above; the lock itself is the OS's.
        let _ = lock
            .set_len(0)
            .and_then(|()| lock.seek(SeekFrom::Start(0)).map(drop))
            .and_then(|()| write!(lock, "{}", std::process::id()));
        Ok(Folder {
            path: path.to_path_buf(),
            _lock: lock,
        })
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
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

/// Writes `bytes` to `path` so that after a crash `path` holds either its old content or
/// all of the new: a temporary file, flushed to disk, renamed over it, the folder synced.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let tmp = crate::output::part_path(path);
    let mut file = File::create(&tmp).map_err(|e| Failure::io("create", &tmp, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Failure::io("write", &tmp, e))?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(|e| Failure::io("replace", path, e))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Makes a rename or a new file in `dir` durable (a no-op where folders cannot be opened).
pub fn sync_dir(dir: &Path) -> Result<(), Failure> {
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Failure::io("sync the folder", dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
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
                 it was changed outside the export: start a new folder",
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
    fn a_second_lock_on_a_held_folder_is_refused_and_taken_once_free() {
        let dir = temp("lock");
        let first = Folder::lock(&dir).unwrap();
        let refused = Folder::lock(&dir).err().expect("the folder is held");
        assert_eq!(refused.class, Class::Busy);
        assert!(
            refused
                .message
                .contains(&format!("by process {}", std::process::id())),
            "{refused}"
        );
        drop(first);
        Folder::lock(&dir).expect("a released lock is taken over");
        std::fs::remove_dir_all(dir).unwrap();
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
