//! The benchmarks' child processes: the program itself again serving a sandbox (so the
//! peak memory measured is the client's, not the sandbox's store), stopped when dropped,
//! and the `inspection` tool built beside it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// This program again as a child serving a sandbox (`args`, such as `serve N`), and the
/// base URL it prints first.
pub fn sandbox_child(args: &[&str]) -> Result<(Running, String), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
    Ok((Running(Some(child)), line.trim().to_string()))
}

/// A sandbox child, stopped when dropped (its stdin closed) even on an early return.
pub struct Running(Option<Child>);

impl Running {
    pub fn take(&mut self) -> Option<Child> {
        self.0.take()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        stop(self.0.take());
    }
}

pub fn stop(child: Option<Child>) {
    if let Some(mut child) = child {
        drop(child.stdin.take());
        let _ = child.wait();
    }
}

/// `inspection`, built in this program's profile (`cargo xtask bench` builds it first):
/// beside this program, wherever cargo's target directory is.
pub fn tool_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the path of this program");
    exe.with_file_name(format!("inspection{}", std::env::consts::EXE_SUFFIX))
}

/// [`tool_binary`], refused with what to do when it has not been built.
pub fn built_tool() -> Result<std::path::PathBuf, String> {
    let tool = tool_binary();
    match tool.exists() {
        true => Ok(tool),
        false => Err(format!(
            "build the tool first: {} is missing",
            tool.display()
        )),
    }
}

/// A fresh folder of this process for the program `name`'s files.
pub fn scratch(name: &str) -> std::io::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The number at `at` of a program's arguments, or `usage`.
pub fn number(args: &[String], at: usize, usage: &str) -> Result<u64, String> {
    let arg = args.get(at).ok_or(usage)?;
    arg.parse()
        .map_err(|e| format!("`{arg}` is not a number ({e}); {usage}"))
}

/// The sandbox's request and 429 counts.
pub async fn stats(base: &str) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let origin = base.trim_end_matches("/v3");
    let stats = reqwest::get(format!("{origin}/_sandbox/stats"))
        .await?
        .bytes()
        .await?;
    Ok(serde_json::from_slice(&stats)?)
}

/// What a measured child came to: its time, its peak memory and its output.
pub struct Measured {
    pub elapsed: std::time::Duration,
    pub peak_rss_kib: Option<u64>,
    pub output: std::process::Output,
}

/// Runs `cmd` (its stdout piped) to its end, timed, its peak RSS read from
/// `/proc/<pid>/status` every 10 ms while it runs.
pub async fn measure(cmd: &mut Command) -> Result<Measured, Box<dyn std::error::Error>> {
    let start = std::time::Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).spawn()?;
    let pid = child.id().to_string();
    let mut peak = None;
    while child.try_wait()?.is_none() {
        peak = crate::peak_rss_kib_of(&pid).or(peak);
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let elapsed = start.elapsed();
    Ok(Measured {
        elapsed,
        peak_rss_kib: peak,
        output: child.wait_with_output()?,
    })
}
