//! The workspace's tests as CI runs them: every test binary built by one `cargo build`
//! (with the workspace's binaries and examples, as `cargo test` builds them), then run
//! several at a time rather than one after another (most of their
//! time is spent waiting on sandboxes, servers and sleeps, not on the two cores), the
//! longest first by the last run's times; then the doctests. Each binary's output is shown
//! whole when it fails; the time of each goes into the table.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::tools::{record_time, step_with_env, target_dir};

/// Test binaries running at once.
const AT_ONCE: usize = 3;

/// Where each binary's last time is kept, to start the longest first next time.
const TIMES: &str = "target/ci-test-times.json";

/// A test binary cargo built: its name (`cli`, `sandbox:watch`), path and package folder.
struct Binary {
    name: String,
    path: PathBuf,
    package_dir: PathBuf,
}

/// clippy's lints, run inside the test build: `clippy-driver` is rustc with the lints
/// added, so cargo given it as the workspace's compiler wrapper builds every target and
/// lints every workspace crate in one pass, as `cargo clippy --workspace --all-targets --
/// -D warnings` would (which wraps `cargo check` the same way, and on a cold machine
/// built every dependency a second time, metadata only: 221 s on CI's).
pub struct Lints {
    driver: String,
}

impl Lints {
    /// The toolchain's `clippy-driver` (beside its cargo, or on the PATH), if it runs.
    pub fn find(cargo: &str) -> Option<Lints> {
        let beside = Path::new(cargo)
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .map(|dir| dir.join(format!("clippy-driver{}", std::env::consts::EXE_SUFFIX)));
        let candidates = beside
            .filter(|p| p.is_file())
            .map(|p| p.to_string_lossy().into_owned())
            .into_iter()
            .chain(["clippy-driver".to_string()]);
        for driver in candidates {
            let runs = Command::new(&driver)
                .arg("-V")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if runs {
                return Some(Lints { driver });
            }
        }
        None
    }

    /// The environment every cargo run that should share the linted build is given: the
    /// wrapper is part of a workspace crate's fingerprint, so a run without it builds them
    /// again. `CLIPPY_ARGS` is how cargo-clippy hands its arguments to the driver.
    fn env(&self) -> [(&str, &str); 2] {
        [
            ("RUSTC_WORKSPACE_WRAPPER", self.driver.as_str()),
            (
                "CLIPPY_ARGS",
                "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__",
            ),
        ]
    }
}

/// The benchmarks and benchmark programs the test build made (with `--all-targets`),
/// for `bench --quick` to run as they are: `cargo run -p bench` alone would resolve the
/// features of the crates under it for that package only, and build them again.
#[derive(Debug, Default)]
pub struct BenchPrograms {
    /// The criterion benchmarks, built in test mode (run with no argument: each once).
    pub benches: Vec<PathBuf>,
    /// The programs (`page`, `export`, ...) by name.
    pub bins: BTreeMap<String, PathBuf>,
}

/// Builds and runs the tests, then the doctests; with `lints`, the build lints every
/// target of the workspace as well, and makes the benchmark programs it returns.
/// `built` runs between the build and the tests (CI's checks of what the build made).
pub fn run(
    root: &Path,
    cargo: &str,
    lints: Option<&Lints>,
    built: impl FnOnce() -> Result<(), String>,
) -> Result<BenchPrograms, String> {
    let (binaries, bench) = build(root, cargo, lints)?;
    built()?;
    // The tool the end-to-end tests start: the one just built (tests/support/cli_process.rs
    // builds it itself only when it is not named).
    let tool = target_dir(root, cargo)?
        .join("debug")
        .join(format!("inspection{}", std::env::consts::EXE_SUFFIX));
    let last: BTreeMap<String, f64> = std::fs::read(root.join(TIMES))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut queue = binaries;
    // Longest first (unknown ones count as long): the last to start are the short ones.
    queue.sort_by(|a, b| {
        let time = |x: &Binary| last.get(&x.name).copied().unwrap_or(f64::MAX);
        time(b).total_cmp(&time(a)).then(a.name.cmp(&b.name))
    });
    let started = Instant::now();
    let queue = Mutex::new(queue.into_iter());
    let done: Mutex<Vec<(String, Duration, bool)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..AT_ONCE {
            s.spawn(|| {
                loop {
                    let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
                    let Some(binary) = next else { break };
                    let (took, ok) = run_one(&binary, &tool);
                    let mut done = done.lock().unwrap_or_else(|p| p.into_inner());
                    done.push((binary.name, took, ok));
                }
            });
        }
    });
    let done = done.into_inner().unwrap_or_else(|p| p.into_inner());
    let times: BTreeMap<&str, f64> = done
        .iter()
        .map(|(name, took, _)| (name.as_str(), took.as_secs_f64()))
        .collect();
    if let Ok(text) = serde_json::to_vec_pretty(&times) {
        let _ = std::fs::write(root.join(TIMES), text);
    }
    record_time(
        &format!("tests: {} binaries, {AT_ONCE} at a time", done.len()),
        started.elapsed(),
    );
    let failed: Vec<&str> = done
        .iter()
        .filter(|(_, _, ok)| !ok)
        .map(|(name, _, _)| name.as_str())
        .collect();
    if !failed.is_empty() {
        return Err(format!("ci: tests failed in {}", failed.join(", ")));
    }
    // The doctests link the libraries the build made: with its wrapper, else cargo builds
    // every workspace library again.
    let env: Vec<(&str, &str)> = lints.map(|l| l.env().to_vec()).unwrap_or_default();
    step_with_env(
        root,
        "tests: doctests",
        cargo,
        &["test", "--workspace", "--doc"],
        &env,
    )?;
    Ok(bench)
}

/// Builds every test binary of the workspace, the `inspection` tool and the sandbox the
/// tests start, and the examples, in one cargo run, so that all of them share one
/// set of features: the tool is not built a second time with features of its own (on a
/// cold machine that second build took 146 s). With `lints`, every target, linted.
/// Names each test binary and the benchmark programs built.
fn build(
    root: &Path,
    cargo: &str,
    lints: Option<&Lints>,
) -> Result<(Vec<Binary>, BenchPrograms), String> {
    let mut args = vec!["build", "--workspace"];
    match lints {
        // Every target clippy's `--all-targets` lints (the benchmarks too, built, not run).
        Some(_) => args.push("--all-targets"),
        // The two the tests and the TypeScript and Python checks start, and the generator
        // CI runs.
        None => args.extend([
            "--tests",
            "--examples",
            "--bin",
            "inspection",
            "--bin",
            "sandbox",
            "--bin",
            "codegen",
        ]),
    }
    args.push("--message-format=json-render-diagnostics");
    let env = lints.map(Lints::env);
    let shown = env.map_or(String::new(), |[(wrapper, driver), _]| {
        format!("{wrapper}={driver} CLIPPY_ARGS=-D warnings ")
    });
    println!("==> tests: build: {shown}{cargo} {}", args.join(" "));
    let started = Instant::now();
    let mut child = Command::new(cargo)
        .args(&args)
        .envs(env.into_iter().flatten())
        .current_dir(root)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("tests: cannot run {cargo}: {e}"))?;
    let mut binaries = Vec::new();
    let mut bench = BenchPrograms::default();
    let stdout = child.stdout.take().ok_or("tests: no output from cargo")?;
    for line in std::io::BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(binary) = test_binary(&message) {
            binaries.push(binary);
        } else {
            bench_program(&message, &mut bench);
        }
    }
    let status = child.wait().map_err(|e| format!("tests: {e}"))?;
    let (name, failed) = match lints {
        Some(_) => (
            "tests: build, with clippy's lints",
            "building the tests or clippy's lints failed",
        ),
        None => ("tests: build", "building the tests failed"),
    };
    record_time(name, started.elapsed());
    if !status.success() {
        return Err(format!("ci: {failed} ({status})"));
    }
    Ok((binaries, bench))
}

/// A benchmark or benchmark program of the `bench` package, from one of cargo's JSON
/// messages.
fn bench_program(message: &Value, bench: &mut BenchPrograms) {
    let package = message["package_id"].as_str().unwrap_or_default();
    if message["reason"] != "compiler-artifact" || !package.contains("/bench#") {
        return;
    }
    let (Some(path), Some(name)) = (
        message["executable"].as_str(),
        message["target"]["name"].as_str(),
    ) else {
        return;
    };
    match message["target"]["kind"][0].as_str() {
        Some("bench") => bench.benches.push(PathBuf::from(path)),
        Some("bin") if message["profile"]["test"] != true => {
            bench.bins.insert(name.to_string(), PathBuf::from(path));
        }
        _ => {}
    }
}

/// A test executable from one of cargo's JSON messages.
fn test_binary(message: &Value) -> Option<Binary> {
    if message["reason"] != "compiler-artifact" || message["profile"]["test"] != true {
        return None;
    }
    // Benchmarks are built (and linted) with the tests, never run as one.
    if message["target"]["kind"][0] == "bench" {
        return None;
    }
    let path = PathBuf::from(message["executable"].as_str()?);
    let manifest = PathBuf::from(message["manifest_path"].as_str()?);
    let package = message["package_id"].as_str().unwrap_or_default();
    let target = message["target"]["name"].as_str()?;
    let kind = message["target"]["kind"][0].as_str().unwrap_or_default();
    // `path+file:///…/sandbox#0.1.0` -> `sandbox`
    let package = package
        .rsplit('/')
        .next()
        .and_then(|p| p.split('#').next())
        .unwrap_or(target);
    let name = match kind {
        "lib" => format!("{package} (lib)"),
        "bin" => format!("{package}: {target} (bin)"),
        _ if package == "tests" => target.to_string(),
        _ => format!("{package}: {target}"),
    };
    Some(Binary {
        name,
        path,
        package_dir: manifest.parent()?.to_path_buf(),
    })
}

/// Runs one test binary as cargo would (from its package's folder); its output shown
/// whole when it fails.
fn run_one(binary: &Binary, tool: &Path) -> (Duration, bool) {
    let started = Instant::now();
    let out = Command::new(&binary.path)
        .current_dir(&binary.package_dir)
        .env("CARGO_MANIFEST_DIR", &binary.package_dir)
        .env("INSPECTION_TEST_TOOL", tool)
        .stdin(Stdio::null())
        .output();
    let took = started.elapsed();
    let ok = match &out {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            let result = text
                .lines()
                .rfind(|l| l.starts_with("test result:"))
                .unwrap_or("");
            println!(
                "<== test {}: {:.1} s {result}",
                binary.name,
                took.as_secs_f64()
            );
            true
        }
        Ok(out) => {
            println!(
                "==== test {} FAILED ({}) after {:.1} s:\n{}\n{}",
                binary.name,
                out.status,
                took.as_secs_f64(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            false
        }
        Err(e) => {
            println!("==== test {}: cannot run it: {e}", binary.name);
            false
        }
    };
    (took, ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lints really run in a build given [`Lints::env`], and a warning fails it: were
    /// clippy to read its arguments otherwise, CI's build would pass with every lint
    /// unlooked at, or only warned of.
    #[test]
    fn a_build_with_the_lints_fails_on_a_clippy_warning_and_passes_without_one() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let Some(lints) = Lints::find(&cargo) else {
            eprintln!("no clippy-driver here: CI runs clippy alone, and this is not tested");
            return;
        };
        let dir = std::env::temp_dir().join(format!("xtask-lints-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        let build = |main: &str| {
            std::fs::write(dir.join("src/main.rs"), main).unwrap();
            let out = Command::new(&cargo)
                .args(["build", "--quiet"])
                .envs(lints.env())
                .env("CARGO_TARGET_DIR", dir.join("target"))
                .current_dir(&dir)
                .output()
                .unwrap();
            (
                out.status.success(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let (passed, stderr) = build(
            "fn main() {\n    let v = vec![std::env::args().count()];\n    println!(\"{}\", v.len() == 0);\n}\n",
        );
        assert!(!passed, "a clippy warning passed the build:\n{stderr}");
        assert!(stderr.contains("clippy::len_zero"), "{stderr}");
        let (passed, stderr) =
            build("fn main() {\n    println!(\"{}\", std::env::args().count());\n}\n");
        assert!(passed, "{stderr}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
