//! The tools the xtask commands share: running a step, the TypeScript and Python dev
//! tools (installed from committed pins), copying a folder.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Each step's name and wall time in this run, in order, for `cargo xtask ci`'s table.
static TIMES: Mutex<Vec<(String, Duration)>> = Mutex::new(Vec::new());

thread_local! {
    /// The output of the lane this thread runs (see [`lane`]), shown whole when it ends.
    static LANE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Says `line`: now, or within the output of the lane this thread runs.
pub fn say(line: &str) {
    let kept = LANE.with(|lane| {
        lane.borrow_mut().as_mut().map(|out| {
            out.push_str(line);
            out.push('\n');
        })
    });
    if kept.is_none() {
        println!("{line}");
    }
}

/// Runs `f` as a lane named `name` on this thread: the steps' output kept and printed
/// whole, under its name, once it ends (lanes run side by side; their output would
/// interleave).
pub fn lane<T>(name: &str, f: impl FnOnce() -> T) -> T {
    LANE.with(|lane| *lane.borrow_mut() = Some(String::new()));
    let out = f();
    let text = LANE
        .with(|lane| lane.borrow_mut().take())
        .unwrap_or_default();
    println!("==== lane {name}:\n{text}==== end of lane {name}");
    out
}

fn in_lane() -> bool {
    LANE.with(|lane| lane.borrow().is_some())
}

/// Records a step's wall time, and says it.
pub fn record_time(name: &str, took: Duration) {
    say(&format!("<== {name}: {:.1} s", took.as_secs_f64()));
    TIMES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((name.to_string(), took));
}

/// Runs `f` as one timed stage named `name`, which may hold steps of its own (listed
/// before it in the table, its time including theirs).
pub fn timed<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    record_time(&format!("{name} (the whole stage)"), started.elapsed());
    out
}

/// The steps timed so far, in order: where CI's time goes.
pub fn time_table() -> String {
    let times = TIMES.lock().unwrap_or_else(|p| p.into_inner());
    let mut table = String::from("step times (wall, s):\n");
    for (name, took) in times.iter() {
        table.push_str(&format!("{:>8.1}  {name}\n", took.as_secs_f64()));
    }
    table
}

/// The features the `inspection` tool is built with wherever the checks build it (the
/// tests, the Python tests, the benchmarks): one build, not one per feature set.
pub const TOOL_FEATURES: &str = "inspection-cli-runtime/postgres,inspection-cli-runtime/mcp";

/// Where the TypeScript dev tools and tests live.
pub const TS_TOOLS: &str = "tests/typescript";

pub fn npm() -> &'static str {
    if cfg!(windows) { "npm.cmd" } else { "npm" }
}

/// The TypeScript dev tools installed from the lockfile, the sandbox built with `build`'s
/// cargo (none in `cargo xtask ci`: the tests' build has just made it, and building it
/// alone would build it again with other features), the package type-checked and built.
pub fn typescript_tools(root: &Path, build: Option<&str>) -> Result<(), String> {
    typescript_dev_tools(root)?;
    if let Some(cargo) = build {
        step(
            root,
            "typescript: sandbox",
            cargo,
            &["build", "-p", "sandbox"],
        )?;
    }
    let tsc = format!("{TS_TOOLS}/node_modules/.bin/tsc");
    step(
        root,
        "typescript: type check and build",
        &tsc,
        &["-p", "generated/typescript"],
    )
}

/// The TypeScript dev tools (tsc, the test runner's types) from the lockfile: `npm ci`,
/// unless the last one installed this very lockfile (a copy of it is kept in
/// `node_modules/` once `npm ci` succeeds; `npm ci` empties the folder first, 75 s here).
pub fn typescript_dev_tools(root: &Path) -> Result<(), String> {
    let tools = root.join(TS_TOOLS);
    let lock = std::fs::read(tools.join("package-lock.json"))
        .map_err(|e| format!("typescript: cannot read {TS_TOOLS}/package-lock.json: {e}"))?;
    let installed = tools.join("node_modules/.installed-package-lock.json");
    let done = unless_installed(&installed, &lock, || {
        step(
            root,
            "typescript: dev tools",
            npm(),
            &["ci", "--prefix", TS_TOOLS, "--no-audit", "--no-fund"],
        )
    })?;
    if !done {
        say("==> typescript: dev tools: installed from this lockfile already");
    }
    Ok(())
}

/// Runs `install` unless `stamp` holds `wanted` (what the last successful install was
/// made from: a lockfile, pinned requirements), then writes `wanted` into `stamp`.
/// Whether it ran. A hand-edited installation is not noticed; a clean clone has no stamp.
pub fn unless_installed(
    stamp: &Path,
    wanted: &[u8],
    install: impl FnOnce() -> Result<(), String>,
) -> Result<bool, String> {
    if std::fs::read(stamp).is_ok_and(|done| done == wanted) {
        return Ok(false);
    }
    install()?;
    std::fs::write(stamp, wanted).map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    Ok(true)
}

/// Every file below `dir`, subfolders included, in path order.
pub fn files_under(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut found = Vec::new();
    walk(dir, &mut found).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    found.sort();
    Ok(found)
}

/// A stamp of every file below `dirs` (its path and its bytes, in path order): what was
/// built from them is current while the stamp is unchanged. A stamp, not a security hash.
pub fn files_stamp(root: &Path, dirs: &[&str]) -> Result<Vec<u8>, String> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut files = Vec::new();
    for dir in dirs {
        files.extend(files_under(&root.join(dir))?);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        let bytes =
            std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        (file.strip_prefix(root).unwrap_or(file), bytes).hash(&mut hasher);
    }
    Ok(format!("{:016x} over {} files\n", hasher.finish(), files.len()).into_bytes())
}

/// Compiles the TypeScript tests and benchmarks to JavaScript (`npm test` does it too).
pub fn typescript_compile_tests(root: &Path) -> Result<(), String> {
    let tsc = format!("{TS_TOOLS}/node_modules/.bin/tsc");
    step(
        root,
        "typescript: compile the tests and benchmarks",
        &tsc,
        &["-p", TS_TOOLS],
    )
}

/// Where cargo puts what it builds, as cargo itself says (`CARGO_TARGET_DIR`, a
/// `build.target-dir` setting, or `target/`): every step that runs a built binary (the
/// sandbox) is told this, never assumes `target/`.
pub fn target_dir(root: &Path, cargo: &str) -> Result<std::path::PathBuf, String> {
    let mut cargo = Command::new(cargo);
    cargo.current_dir(root);
    target_dir_of(cargo)
}

/// The target directory `cargo metadata` names, run as `cargo` (its folder, environment).
fn target_dir_of(mut cargo: Command) -> Result<std::path::PathBuf, String> {
    let out = cargo
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata: not JSON: {e}"))?;
    meta["target_directory"]
        .as_str()
        .map(std::path::PathBuf::from)
        .ok_or_else(|| "cargo metadata: no target_directory".to_string())
}

pub fn python_bin(root: &Path) -> std::path::PathBuf {
    let venv = root.join("target/python-venv");
    venv.join(if cfg!(windows) { "Scripts" } else { "bin" })
}

/// The virtual environment under `target/` with the pinned dev tools and the package
/// installed as a user gets it: the wheel [`python_build`] makes.
pub fn python_env(root: &Path) -> Result<PythonEnv, String> {
    let venv = root.join("target/python-venv");
    let bin = python_bin(root);
    let tool = |name: &str| bin.join(name).to_string_lossy().into_owned();
    if !bin.join("python").exists() && !bin.join("python.exe").exists() {
        let python = if cfg!(windows) { "python" } else { "python3" };
        step(
            root,
            "python: virtual environment",
            python,
            &["-m", "venv", &venv.to_string_lossy()],
        )?;
    }
    let pip = tool("pip");
    // Every file pip fetches is checked against its hash in the requirements file.
    step(
        root,
        "python: dev tools",
        &pip,
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--require-hashes",
            "-r",
            "tests/python/requirements.txt",
        ],
    )?;
    let built = python_build(root, &tool("python"))?;
    step(
        root,
        "python: install the wheel",
        &pip,
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--force-reinstall",
            &built.wheel.to_string_lossy(),
        ],
    )?;
    Ok(PythonEnv {
        python: tool("python"),
        dist: built,
    })
}

/// The dev tools' virtual environment: its `python`, and the package it has installed.
pub struct PythonEnv {
    pub python: String,
    pub dist: PythonDist,
}

/// What [`python_build`] made.
pub struct PythonDist {
    /// The copy of `generated/python` it was built from.
    pub source: std::path::PathBuf,
    /// The folder holding the sdist and the wheel (and nothing else).
    pub dir: std::path::PathBuf,
    pub wheel: std::path::PathBuf,
}

/// The sdist and the wheel of the Python package, as `python -m build` makes them for a
/// release (the wheel built from the sdist), into `target/python-dist/`. Built from a copy
/// (building writes `build/` and `*.egg-info` beside the sources, and generated/ holds
/// generated files only), without isolation: the pinned setuptools of the dev tools builds.
pub fn python_build(root: &Path, python: &str) -> Result<PythonDist, String> {
    let source = root.join("target/python-package");
    let dir = root.join("target/python-dist");
    for old in [&source, &dir] {
        let _ = std::fs::remove_dir_all(old);
    }
    copy_dir(&root.join("generated/python"), &source).map_err(|e| {
        format!(
            "python: cannot copy the package to {}: {e}",
            source.display()
        )
    })?;
    step(
        root,
        "python: build the sdist and the wheel",
        python,
        &[
            "-m",
            "build",
            "--quiet",
            "--no-isolation",
            "--outdir",
            &dir.to_string_lossy(),
            &source.to_string_lossy(),
        ],
    )?;
    let wheels: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("python: cannot read {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .collect();
    match wheels.as_slice() {
        [wheel] => Ok(PythonDist {
            wheel: wheel.clone(),
            source,
            dir,
        }),
        _ => Err(format!(
            "python: expected one wheel in {}, found {}",
            dir.display(),
            wheels.len()
        )),
    }
}

/// Copies the files of `from` into `to`, folders included (caches left out).
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "__pycache__" {
            continue;
        }
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &to.join(&name))?;
        } else {
            std::fs::copy(entry.path(), to.join(&name))?;
        }
    }
    Ok(())
}

pub fn step(root: &Path, name: &str, program: &str, args: &[&str]) -> Result<(), String> {
    step_with_env(root, name, program, args, &[])
}

/// [`step`] with environment variables set for the program.
pub fn step_with_env(
    root: &Path,
    name: &str,
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Result<(), String> {
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v:?} ")).collect();
    say(&format!(
        "==> {name}: {}{program} {}",
        shown.concat(),
        args.join(" ")
    ));
    let started = Instant::now();
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root);
    let status = if in_lane() {
        let out = command
            .output()
            .map_err(|e| format!("{name}: cannot run {program}: {e}"))?;
        say(String::from_utf8_lossy(&out.stdout).trim_end());
        say(String::from_utf8_lossy(&out.stderr).trim_end());
        out.status
    } else {
        command
            .status()
            .map_err(|e| format!("{name}: cannot run {program}: {e}"))?
    };
    record_time(name, started.elapsed());
    if status.success() {
        Ok(())
    } else {
        Err(format!("ci: step `{name}` failed ({status})"))
    }
}

/// Starts the sandbox binary on a free loopback port: the process and its v3 URL, which
/// its first line prints. Its output is read on to the end (a closed pipe would end it at
/// its next line).
pub fn start_sandbox(sandbox: &Path, what: &str) -> Result<(std::process::Child, String), String> {
    let mut server = std::process::Command::new(sandbox)
        .args(["--addr", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("{what}: cannot start {}: {e}", sandbox.display()))?;
    let mut first = String::new();
    if let Some(out) = server.stdout.take() {
        let mut out = std::io::BufReader::new(out);
        let _ = std::io::BufRead::read_line(&mut out, &mut first);
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    }
    let url = first
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_string();
    Ok((server, url))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build's stamp follows each file's bytes and which files there are.
    #[test]
    fn a_files_stamp_changes_with_a_files_bytes_or_a_new_file() {
        let root = std::env::temp_dir().join(format!("xtask-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/a.java"), "class A {}").unwrap();
        std::fs::write(root.join("src/deep/b.java"), "class B {}").unwrap();
        let first = files_stamp(&root, &["src"]).unwrap();
        assert_eq!(files_stamp(&root, &["src"]).unwrap(), first);
        std::fs::write(root.join("src/deep/b.java"), "class B { }").unwrap();
        let edited = files_stamp(&root, &["src"]).unwrap();
        assert_ne!(edited, first);
        std::fs::write(root.join("src/c.java"), "").unwrap();
        assert_ne!(files_stamp(&root, &["src"]).unwrap(), edited);
        assert!(files_stamp(&root, &["missing"]).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_install_runs_only_when_its_stamp_holds_something_else_and_a_failed_one_is_retried() {
        let dir = std::env::temp_dir().join(format!("xtask-stamp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let stamp = dir.join("stamp");
        let runs = std::cell::Cell::new(0);
        let ok = || {
            runs.set(runs.get() + 1);
            Ok(())
        };
        assert!(unless_installed(&stamp, b"lock 1", ok).unwrap());
        assert!(!unless_installed(&stamp, b"lock 1", ok).unwrap());
        assert!(unless_installed(&stamp, b"lock 2", ok).unwrap());
        assert_eq!(runs.get(), 2);
        let failed = unless_installed(&stamp, b"lock 3", || Err("no network".into()));
        assert_eq!(failed, Err("no network".to_string()));
        assert!(unless_installed(&stamp, b"lock 3", ok).unwrap());
        assert_eq!(runs.get(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A clone whose `CARGO_TARGET_DIR` points elsewhere finds its binaries there.
    #[test]
    fn the_target_dir_is_where_cargo_builds() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let elsewhere = std::env::temp_dir().join("xtask-elsewhere-target");
        let mut cargo = Command::new(std::env::var("CARGO").unwrap_or("cargo".into()));
        cargo.current_dir(root).env("CARGO_TARGET_DIR", &elsewhere);
        assert_eq!(target_dir_of(cargo).unwrap(), elsewhere);
        let mut cargo = Command::new(std::env::var("CARGO").unwrap_or("cargo".into()));
        cargo.current_dir(root).env_remove("CARGO_TARGET_DIR");
        let default = target_dir_of(cargo).unwrap();
        assert!(default.ends_with("target"), "{}", default.display());
    }
}
