//! A disk that fills up or turns read-only while a tool writes to it: a tmpfs of a few
//! hundred KiB mounted by the test, grown again once the tool has stopped ("space freed"),
//! and a read-only bind mount laid over one of its folders part-way. Both need root (CI runs as
//! root); where the mount cannot be made, the test says so and is skipped.

#![allow(dead_code)] // Each test file uses its own share of these.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted at `path`, unmounted when dropped.
pub struct SmallDisk {
    pub path: PathBuf,
}

fn mount(args: &[&str]) -> Result<(), String> {
    let out = Command::new("mount")
        .args(args)
        .output()
        .map_err(|e| format!("mount: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

impl SmallDisk {
    /// A tmpfs of `bytes` (rounded up to KiB) at `path`, or `None` (with the reason on
    /// stderr) where this machine does not let the test mount one.
    pub fn mount(path: &Path, bytes: u64) -> Option<SmallDisk> {
        std::fs::create_dir_all(path).unwrap();
        let size = format!("size={}k", bytes.div_ceil(1024));
        // Private: a mount moved within it (`read_only`) stays here.
        let made = mount(&["-t", "tmpfs", "-o", &size, "tmpfs", &path.to_string_lossy()])
            .and_then(|()| mount(&["--make-private", &path.to_string_lossy()]));
        match made {
            Ok(()) => Some(SmallDisk {
                path: path.to_path_buf(),
            }),
            Err(why) => {
                eprintln!("skipped: cannot mount a small filesystem here (needs root): {why}");
                None
            }
        }
    }

    /// Space freed: the same filesystem, `bytes` large.
    pub fn grow(&self, bytes: u64) {
        let size = format!("remount,size={}k", bytes.div_ceil(1024));
        mount(&["-o", &size, &self.path.to_string_lossy()]).unwrap();
    }

    /// The bytes in use, as `df` counts them (whole pages).
    pub fn used(&self) -> u64 {
        let out = Command::new("df")
            .args(["-B1", "--output=used"])
            .arg(&self.path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines().nth(1).unwrap().trim().parse().unwrap()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}

/// A folder of a [`SmallDisk`] made read-only for new files while files already open stay
/// writable, as a backup job's remount does: a read-only bind mount laid over it in one
/// step (made read-only beside it, where nothing writes, then moved over it, so no file
/// the tool opens in between can hold it writable). Removed by [`ReadOnly::undo`] or on
/// drop.
pub struct ReadOnly {
    path: PathBuf,
    on: bool,
}

impl SmallDisk {
    pub fn read_only(&self, dir: &Path) -> ReadOnly {
        assert!(
            dir.starts_with(&self.path),
            "{} is not on the disk",
            dir.display()
        );
        let staging = self.path.join(".read-only");
        std::fs::create_dir_all(&staging).unwrap();
        let (shown, staged) = (dir.to_string_lossy(), staging.to_string_lossy());
        mount(&["--bind", &shown, &staged]).unwrap();
        mount(&["-o", "remount,bind,ro", &staged]).unwrap();
        mount(&["--move", &staged, &shown]).unwrap();
        ReadOnly {
            path: dir.to_path_buf(),
            on: true,
        }
    }
}

impl ReadOnly {
    pub fn undo(&mut self) {
        if std::mem::take(&mut self.on) {
            let status = Command::new("umount").arg(&self.path).status().unwrap();
            assert!(status.success(), "umount {}", self.path.display());
        }
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if self.on {
            let _ = Command::new("umount").arg("-l").arg(&self.path).status();
        }
    }
}
