//! The sandbox binary, started as a user starts it and killed when the test ends.

use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStdout, Command, Stdio};

pub struct Running {
    pub child: Child,
    /// The v3 base URL it printed first.
    pub base: String,
    /// The rest of what it prints.
    pub lines: Lines<BufReader<ChildStdout>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary with `args` (stderr piped, to be read after a kill) and reads the
/// base URL it prints first.
pub fn start(args: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandbox"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let base = first
        .strip_prefix("sandbox: serving the v3 interface at ")
        .unwrap_or_else(|| panic!("the first line names no base URL: {first}"))
        .to_string();
    Running { child, base, lines }
}
