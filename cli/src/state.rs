//! State on disk that a tool's resume depends on (the export's checkpoint; the sync's state
//! and the import's journal as they land), in one shape: a folder held by one process at a
//! time, files replaced whole (written beside, synced, renamed, the folder synced), and
//! versioned JSON that is read back exactly or refused, naming the file, what is wrong and
//! the way out. Never silently trusted, never silently discarded.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::exit::{Class, Failure};

/// The name of the lock file in a held folder.
pub const LOCK: &str = ".lock";

/// A folder held by this process: its lock is released when this is dropped, or by the
/// operating system when the process dies (so a lock left by a killed run is free).
pub struct Held {
    pub path: PathBuf,
    _lock: File,
}

impl Held {
    /// Creates the folder if needed and takes its lock for `what` (`an export`); refuses
    /// (busy) when a running process holds it, naming that process.
    pub fn take(path: &Path, what: &str) -> Result<Held, Failure> {
        std::fs::create_dir_all(path).map_err(|e| Failure::io("create the folder", path, e))?;
        let mut lock = lock_file(&path.join(LOCK), path, what, true)?;
        // Who holds it, for the message another run gives; the lock itself is the OS's.
        let _ = lock
            .set_len(0)
            .and_then(|()| lock.seek(SeekFrom::Start(0)).map(drop))
            .and_then(|()| write!(lock, "{}", std::process::id()));
        Ok(Held {
            path: path.to_path_buf(),
            _lock: lock,
        })
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

/// Takes the lock of the file `lock_path` (created if missing) for `what`, which holds
/// `held` (a folder, a database); refuses (busy) while a running process holds it, naming
/// that process when `named` (the file holds the holder's id). The lock is the operating
/// system's (`flock`, apart from the `fcntl` locks SQLite takes on its file), released
/// when the file is closed or its process dies.
pub fn lock_file(lock_path: &Path, held: &Path, what: &str, named: bool) -> Result<File, Failure> {
    let mut lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path)
        .map_err(|e| Failure::io("open the lock file", lock_path, e))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            if named {
                let _ = lock.read_to_string(&mut holder);
            }
            let holder = holder.trim();
            let by = if holder.is_empty() {
                String::new()
            } else {
                format!(" by process {holder}")
            };
            return Err(Failure::new(
                Class::Busy,
                format!(
                    "{} is held{by}, {what} that is still running (lock file {}); \
                     wait for it to end, or stop it and run this again to resume",
                    held.display(),
                    lock_path.display()
                ),
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(Failure::io("lock", lock_path, e));
        }
    }
    Ok(lock)
}

/// Writes `bytes` to `path` so that after a crash `path` holds either its old content or
/// all of the new: a temporary file, flushed to disk, renamed over it, the folder synced.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let tmp = crate::output::part_path(path);
    let mut file = File::create(&tmp).map_err(|e| Failure::io("create", &tmp, e))?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written {
        // A full disk leaves no half file behind to be taken for state later.
        let _ = std::fs::remove_file(&tmp);
        return Err(Failure::io("write", &tmp, e));
    }
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

/// A JSON state file of a tool (with a `format` number at its top): what it is called in
/// messages, and the format this tool writes.
pub trait Versioned: Serialize + DeserializeOwned {
    /// `a checkpoint`, `a sync state`: for messages.
    const WHAT: &'static str;
    /// The format written today; an older tool refuses a newer one.
    const FORMAT: u32;
}

/// The state at `path`, `None` when there is none. A file that is not this state (cut
/// short, not JSON, a field missing or unknown) or of a newer format is refused, naming
/// the file, what is wrong and `way_out`.
pub fn read<T: Versioned>(path: &Path, way_out: &str) -> Result<Option<T>, Failure> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Failure::io("read", path, e)),
    };
    // The format first, so a newer tool's file is named as such, not as damaged.
    #[derive(serde::Deserialize)]
    struct Format {
        format: Option<u32>,
    }
    let refused = |what: String| {
        Failure::new(
            Class::Failure,
            format!("{} {what}; {way_out}", path.display()),
        )
    };
    if let Ok(Format {
        format: Some(format),
    }) = serde_json::from_slice::<Format>(&text)
        && format > T::FORMAT
    {
        return Err(refused(format!(
            "is of format {format}, newer than this tool's {}: use a newer tool, or",
            T::FORMAT
        )));
    }
    match serde_json::from_slice::<T>(&text) {
        Ok(state) => Ok(Some(state)),
        Err(e) => Err(refused(format!(
            "is not {} this tool wrote ({e}): it is damaged or foreign, so",
            T::WHAT
        ))),
    }
}

/// Writes `state` atomically, pretty JSON with a last newline.
pub fn write<T: Versioned>(path: &Path, state: &T) -> Result<(), Failure> {
    let mut text = serde_json::to_vec_pretty(state)
        .map_err(|e| Failure::new(Class::Failure, format!("cannot write {}: {e}", T::WHAT)))?;
    text.push(b'\n');
    write_atomically(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("inspection-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Note {
        format: u32,
        text: String,
    }

    impl Versioned for Note {
        const WHAT: &'static str = "a note";
        const FORMAT: u32 = 2;
    }

    #[test]
    fn state_reads_back_what_was_written_and_refuses_the_rest_by_name() {
        let dir = temp("read");
        let path = dir.join("note.json");
        assert_eq!(read::<Note>(&path, "start over").unwrap(), None);
        let note = Note {
            format: 2,
            text: "x".into(),
        };
        write(&path, &note).unwrap();
        assert_eq!(read::<Note>(&path, "start over").unwrap(), Some(note));
        assert!(
            !crate::output::part_path(&path).exists(),
            "the temporary file is gone"
        );
        let cases: [(&[u8], &str); 4] = [
            (b"{\"format\": 2, \"te", "is not a note this tool wrote"),
            (b"garbage", "is not a note this tool wrote"),
            (
                b"{\"format\": 2, \"text\": \"x\", \"more\": 1}",
                "is not a note",
            ),
            (
                b"{\"format\": 3, \"text\": \"x\"}",
                "is of format 3, newer than this tool's 2",
            ),
        ];
        for (bytes, expected) in cases {
            std::fs::write(&path, bytes).unwrap();
            let refused = read::<Note>(&path, "move it away to start over").unwrap_err();
            assert!(
                refused.message.contains(&path.display().to_string())
                    && refused.message.contains(expected)
                    && refused.message.ends_with("move it away to start over"),
                "{refused}"
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_second_hold_on_a_held_folder_is_refused_and_taken_once_free() {
        let dir = temp("lock");
        let first = Held::take(&dir, "an export").unwrap();
        let refused = Held::take(&dir, "an export")
            .err()
            .expect("the folder is held");
        assert_eq!(refused.class, Class::Busy);
        assert!(
            refused
                .message
                .contains(&format!("by process {}, an export", std::process::id())),
            "{refused}"
        );
        drop(first);
        Held::take(&dir, "an export").expect("a released lock is taken over");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
