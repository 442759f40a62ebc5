//! The Go lane of `cargo xtask ci`: the generated module as gofmt writes it (`gofmt -l`
//! names no file), `go vet` and staticcheck clean, built, and the runtime's tests with the
//! race detector, then its decoder fuzzed for a bounded time. staticcheck is pinned in
//! `tests/go/tools` (its `go.sum` committed) and built once into `target/go-tools`, again
//! only when the pins change (the module proxy is asked then, and only then). Always `GOTOOLCHAIN=local` (the machine's
//! Go, never one downloaded); the module requires nothing, so no module is fetched. The
//! build cache is Go's own (`go env GOCACHE`).

use std::path::Path;
use std::process::Command;

use super::tools::step_with_env;

/// The generated module.
pub const MODULE: &str = "generated/go";

/// The tests of the generated module, a module of their own.
const TESTS: &str = "tests/go";
/// The module pinning the Go tools.
const TOOLS: &str = "tests/go/tools";
/// Where the tools are built.
const TOOLS_BIN: &str = "target/go-tools";

/// How long CI fuzzes the runtime's decoder.
const FUZZ_TIME: &str = "10s";

/// The environment of every go command here.
pub const ENV: &[(&str, &str)] = &[("GOTOOLCHAIN", "local")];

/// Every Go check of the module at `module` (from the checkout's root), as steps named
/// after `what`; `runtime_tests` runs the runtime's tests and fuzzes its decoder too.
pub fn check(root: &Path, module: &str, what: &str, runtime_tests: bool) -> Result<(), String> {
    gofmt(root, module, what)?;
    let dir = root.join(module); // `module` may be absolute: join keeps it
    go(&dir, &format!("{what}: go vet"), &["vet", "./..."])?;
    let staticcheck = staticcheck(root)?;
    step_with_env(
        &dir,
        &format!("{what}: staticcheck"),
        &staticcheck,
        &["./..."],
        ENV,
    )?;
    go(&dir, &format!("{what}: go build"), &["build", "./..."])?;
    if runtime_tests {
        go(
            &dir,
            &format!("{what}: runtime tests (-race)"),
            &["test", "-race", "-count=1", "./internal/runtime/"],
        )?;
        go(
            &dir,
            &format!("{what}: runtime decoder fuzzed ({FUZZ_TIME})"),
            &[
                "test",
                "-run=^$",
                "-fuzz=^FuzzDecoder$",
                &format!("-fuzztime={FUZZ_TIME}"),
                "./internal/runtime/",
            ],
        )?;
    }
    Ok(())
}

/// Where the conformance runner writes what it ran.
const COUNT_FILE: &str = "target/go-tests/conformance-count.json";

/// The Go lane of CI: the module's checks, then the tests of `tests/go` with the race
/// detector (the models on the shared fixtures, the clients against the sandbox binary
/// `sandbox`, every conformance scenario, through a `replace` to the generated module),
/// the scenario count held against the files.
pub fn run(root: &Path, sandbox: &Path) -> Result<(), String> {
    check(root, MODULE, "go", true)?;
    // The hand-written Go is held to gofmt too.
    gofmt(root, TESTS, "go: tests/go")?;
    let tests = root.join(TESTS);
    go(&tests, "go: tests/go vet", &["vet", "./..."])?;
    step_with_env(
        &tests,
        "go: tests/go staticcheck",
        &staticcheck(root)?,
        &["./..."],
        ENV,
    )?;
    let expected = super::scenario_copies::write(root)?;
    let count = root.join(COUNT_FILE);
    let _ = std::fs::remove_file(&count);
    std::fs::create_dir_all(count.parent().unwrap_or(root))
        .map_err(|e| format!("go: cannot make {COUNT_FILE}'s folder: {e}"))?;
    let sandbox = sandbox.to_string_lossy();
    let scenarios = root.join(super::scenario_copies::DIR);
    let scenarios = scenarios.to_string_lossy();
    let count_text = count.to_string_lossy();
    let mut env = ENV.to_vec();
    env.extend([
        ("SANDBOX", &*sandbox),
        ("CONFORMANCE_DIR", &*scenarios),
        ("CONFORMANCE_COUNT", &*count_text),
    ]);
    step_with_env(
        &tests,
        "go: tests/go (-race; the conformance scenarios)",
        "go",
        &["test", "-race", "-count=1", "./..."],
        &env,
    )?;
    if std::env::var_os("CONFORMANCE_ONLY").is_some() {
        return Ok(());
    }
    super::scenario_copies::check_count(&count, expected, "go", &["client"])
}

/// staticcheck, built from the pinned tools module unless the build there is of the same
/// pins (`go.sum` kept beside it).
fn staticcheck(root: &Path) -> Result<String, String> {
    let bin = root.join(TOOLS_BIN);
    let program = bin.join("staticcheck");
    let pins = root.join(TOOLS).join("go.sum");
    let built = bin.join("go.sum");
    let read = |p: &Path| std::fs::read(p).ok();
    if !program.is_file() || read(&built) != read(&pins) {
        std::fs::create_dir_all(&bin)
            .map_err(|e| format!("go: cannot make {}: {e}", bin.display()))?;
        let out = program.to_string_lossy().into_owned();
        go(
            &root.join(TOOLS),
            "go: staticcheck built (pinned in tests/go/tools)",
            &["build", "-o", &out, "honnef.co/go/tools/cmd/staticcheck"],
        )?;
        std::fs::copy(&pins, &built)
            .map_err(|e| format!("go: cannot keep {}: {e}", built.display()))?;
    }
    Ok(program.to_string_lossy().into_owned())
}

fn go(dir: &Path, name: &str, args: &[&str]) -> Result<(), String> {
    step_with_env(dir, name, "go", args, ENV)
}

/// `gofmt -l` must name no file: the generator writes what gofmt would.
fn gofmt(root: &Path, module: &str, what: &str) -> Result<(), String> {
    let name = format!("{what}: gofmt -l");
    println!("==> {name}: gofmt -l {module}");
    let out = Command::new("gofmt")
        .args(["-l", module])
        .current_dir(root)
        .output()
        .map_err(|e| format!("{name}: cannot run gofmt: {e}"))?;
    let listed = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !listed.trim().is_empty() {
        return Err(format!(
            "{name}: gofmt would change these files (or failed):\n{listed}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}
