//! The `inspection` binary for tests: built once per test process with cargo, run with
//! a clean environment (no credentials, no profile) plus what a test gives.

#![allow(dead_code)] // Each test file uses its own share of these.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use tokio::io::AsyncWriteExt;

/// The `inspection` binary beside this test's own, built once per test process (unless
/// `INSPECTION_TEST_TOOL` names one already built: `cargo xtask ci` builds it with the
/// tests, in one cargo run).
pub fn binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(tool) = std::env::var_os("INSPECTION_TEST_TOOL") {
                return PathBuf::from(tool);
            }
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = std::process::Command::new(cargo)
                // With PostgreSQL (a feature of the tool; the workspace builds it so too).
                .args(["build", "--quiet", "-p", "inspection-cli"])
                .args([
                    "--features",
                    "inspection-cli-runtime/postgres,inspection-cli-runtime/mcp",
                ])
                .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
                .status()
                .expect("cargo runs");
            assert!(
                status.success(),
                "cargo build -p inspection-cli (with postgres) failed"
            );
            // target/debug/deps/<test> -> target/debug/inspection
            let exe = std::env::current_exe().expect("the test's path");
            let dir = exe.parent().and_then(Path::parent).expect("target/debug");
            dir.join(format!("inspection{}", std::env::consts::EXE_SUFFIX))
        })
        .clone()
}

/// What a command line came to.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Ran {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs the tool with `args`, `env` over an environment without credentials or profile,
/// and `stdin`.
pub async fn run(args: &[String], env: &[(String, String)], stdin: Option<&[u8]>) -> Ran {
    let mut cmd = tokio::process::Command::new(binary());
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("INSPECTION_CONFIG_DIR", "/nonexistent/inspection-tests")
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the tool starts");
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes)
            .await
            .expect("the tool reads its input");
    }
    let out = child.wait_with_output().await.expect("the tool ends");
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Asserts that `ran` ended with exit `code` and says `fragment` on standard error.
#[track_caller]
pub fn assert_failed(ran: &Ran, code: i32, fragment: &str) {
    assert_eq!(ran.code, code, "{}", ran.stderr);
    assert!(ran.stderr.contains(fragment), "{}", ran.stderr);
}

/// Runs the tool to its end (a run that fails under faults, exit 6, 7 or 8, is run again
/// as a user would), and gives how many runs it took; `what` names it in a failure.
pub async fn run_to_end(args: &[String], env: &[(String, String)], what: &str) -> usize {
    for run in 1..=10 {
        let ran = self::run(args, env, None).await;
        if ran.code == 0 {
            return run;
        }
        assert!(
            [6, 7, 8].contains(&ran.code),
            "{what} failed other than by a fault ({}): {}",
            ran.code,
            ran.stderr
        );
    }
    panic!("{what} did not finish in 10 runs");
}

/// Starts the tool with `args` over `env`, its output dropped, to be stopped from outside.
pub fn spawn(args: &[String], env: &[(String, String)]) -> std::process::Child {
    std::process::Command::new(binary())
        .args(args)
        // No profile of the user's, unless the test gives a folder of its own.
        .env("INSPECTION_CONFIG_DIR", "/nonexistent")
        .envs(env.iter().cloned())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Starts the tool with `args` over `env` `times` times, killing each run with SIGKILL
/// after the moment (ms) `moment` gives, unless it has ended by then (which it says on
/// stderr); `after` learns the number of each run it killed, to look at what the run left.
/// Gives how many it killed.
pub async fn kill_runs(
    args: &[String],
    env: &[(String, String)],
    times: usize,
    mut moment: impl FnMut() -> u64,
    mut after: impl FnMut(usize),
) -> usize {
    let mut killed = 0;
    for kill in 1..=times {
        let mut child = spawn(args, env);
        let at = moment();
        tokio::time::sleep(std::time::Duration::from_millis(at)).await;
        if child.try_wait().unwrap().is_some() {
            eprintln!("kill {kill}: the run had already ended at {at} ms");
            continue;
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        eprintln!("kill {kill}: SIGKILL at {at} ms");
        killed += 1;
        after(kill);
    }
    killed
}

/// Runs the tool like [`run`], and once `ready` (polled every 20 ms) says so while the run
/// goes on, does `act` to it from outside (a folder turned read-only under it); gives the
/// run's end and whether `act` was done before it.
pub async fn run_acting(
    args: &[String],
    env: &[(String, String)],
    mut ready: impl FnMut() -> bool,
    act: impl FnOnce(),
) -> (Ran, bool) {
    let running = run(args, env, None);
    tokio::pin!(running);
    let mut act = Some(act);
    loop {
        tokio::select! {
            ran = &mut running => return (ran, act.is_none()),
            () = tokio::time::sleep(std::time::Duration::from_millis(20)), if act.is_some() => {
                if ready() {
                    (act.take().unwrap())();
                }
            }
        }
    }
}
