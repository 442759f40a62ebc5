//! The Go quickstart as a user runs it: `tests/go/quickstart`, a module of its own reaching
//! the generated one through a `replace` (the file docs/go.md quotes), built and run
//! against a sandbox.

use std::path::Path;
use std::process::Command;

use super::tools::{say, timed};

/// Builds the quickstart into `target/go-quickstart` and runs it against a fresh sandbox.
pub fn run(root: &Path, sandbox: &Path) -> Result<(), String> {
    let program = root.join("target/go-quickstart/quickstart");
    let out = program.to_string_lossy().into_owned();
    super::tools::step_with_env(
        &root.join("tests/go/quickstart"),
        "go: the quickstart module built",
        "go",
        &["build", "-o", &out, "."],
        super::go::ENV,
    )?;
    timed("go: the quickstart run against the sandbox", || {
        say("==> go: the quickstart run against the sandbox");
        let (mut server, url) = super::tools::start_sandbox(sandbox, "go quickstart")?;
        let ran = Command::new(&program)
            .env("INSPECTION_URL", &url)
            .current_dir(root)
            .output();
        let _ = server.kill();
        let _ = server.wait();
        let ran = ran.map_err(|e| format!("go quickstart: cannot run it: {e}"))?;
        let text = String::from_utf8_lossy(&ran.stdout);
        if !ran.status.success() {
            return Err(format!(
                "go quickstart failed ({}):\n{text}\n{}",
                ran.status,
                String::from_utf8_lossy(&ran.stderr)
            ));
        }
        for expected in ["created unit ", ", results: "] {
            if !text.contains(expected) {
                return Err(format!(
                    "go quickstart: its output lacks `{expected}`:\n{text}"
                ));
            }
        }
        Ok(())
    })
}
