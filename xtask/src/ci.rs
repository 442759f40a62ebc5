//! `cargo xtask ci`: every check CI runs, in the order that fails fastest.

use std::path::{Path, PathBuf};

use super::generator::Generator;
use super::tools::{
    PythonEnv, TS_TOOLS, lane, npm, python_bin, python_env, step, step_with_env, target_dir,
    time_table, timed, typescript_tools,
};

/// Every check, then each step's wall time (also when a step failed): where the time goes.
pub fn run(root: &Path) -> Result<(), String> {
    let started = std::time::Instant::now();
    let outcome = checks(root);
    print!("{}", time_table());
    println!("ci: {:.1} s in all", started.elapsed().as_secs_f64());
    outcome
}

fn checks(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    // cargo-deny, when the machine lacks it, builds while the first steps run.
    let installing = super::deny::start_install(root, &cargo)?;
    step(root, "format", &cargo, &["fmt", "--all", "--", "--check"])?;
    // clippy's lints in the test build where the toolchain has its driver (one build,
    // not a check build of every crate and then a build); else clippy alone first.
    let lints = super::test_run::Lints::find(&cargo);
    if lints.is_none() {
        step(
            root,
            "clippy",
            &cargo,
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        )?;
    }
    // The generated files are checked by the generator the test build makes, once it is
    // made (built apart for xtask, it cost a cold run its first three minutes).
    let target = target_dir(root, &cargo)?;
    let generator = Generator::built(&target);
    let bench = super::test_run::run(root, &cargo, lints.as_ref(), || {
        println!("==> codegen --check");
        timed("codegen --check", || generator.run(root, &["--check"]))
    })?;
    // The dependency tree: licenses, duplicate versions, sources (deny.toml).
    timed("cargo-deny", || {
        super::deny::finish(root, &cargo, installing)
    })?;
    // The TypeScript and Python tests and the contract run start the sandbox binary the
    // tests built. The Python environment first (the Python checks and the contract run
    // both use it), then five lanes side by side: the first two mostly wait on sandboxes
    // and browsers, then Java's (javac and Maven), Go's, and cargo's. The contract run
    // follows whichever of the TypeScript, Python and cargo lanes ends first (cargo's on a warm machine, TypeScript's on a cold one, where cargo's builds
    // the packaged crates' dependencies anew).
    let target = target.to_string_lossy().into_owned();
    let env = python_env(root)?;
    let started = std::time::Instant::now();
    let contract_taken = std::sync::atomic::AtomicBool::new(false);
    let then_contract = |lane: Result<(), String>| {
        lane?;
        if contract_taken.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Ok(());
        }
        contract(root, &target)
    };
    let sandbox = PathBuf::from(format!("{target}/debug/sandbox"));
    let (ts, py, java, go, rust) = std::thread::scope(|s| {
        let ts = s.spawn(|| {
            lane("typescript (then the contract run, if first)", || {
                then_contract(typescript(root, &target))
            })
        });
        let py = s.spawn(|| {
            lane("python (then the contract run, if first)", || {
                then_contract(python(root, &env, &target))
            })
        });
        // The generated Java project and its runtime's tests (JUnit through Maven, on two
        // JDKs: the longest lane), and beside it the Go module's checks and tests.
        let java = s.spawn(|| lane("java", || super::java::run(root, &sandbox)));
        let go = s.spawn(|| {
            lane("go", || {
                super::go::run(root, &sandbox)?;
                super::go_quickstart::run(root, &sandbox)
            })
        });
        let rust = lane(
            "rust: package, features, small specs (then the contract run, if first)",
            || then_contract(rust_after_tests(root, &cargo, &generator)),
        );
        let joined = |h: std::thread::ScopedJoinHandle<'_, Result<(), String>>| {
            h.join()
                .unwrap_or_else(|_| Err("ci: a lane panicked".into()))
        };
        (joined(ts), joined(py), joined(java), joined(go), rust)
    });
    super::tools::record_time(
        "typescript, python, java, go and rust lanes side by side",
        started.elapsed(),
    );
    let failed: Vec<String> = [ts, py, java, go, rust]
        .into_iter()
        .filter_map(Result::err)
        .collect();
    if !failed.is_empty() {
        return Err(failed.join("\n"));
    }
    // After the lanes: it times the TypeScript and Python parsers they installed.
    // The benchmarks and their programs as the test build made them, where it made them.
    let built = (!bench.bins.is_empty()).then_some(&bench);
    timed("bench --quick", || {
        super::bench::run(root, true, true, built)
    })?;
    println!("ci: all checks passed");
    Ok(())
}

/// The Rust checks after the tests: the crates as a registry gets them (their docs among
/// them), each feature alone, and the small specs in every language.
fn rust_after_tests(root: &Path, cargo: &str, generator: &Generator) -> Result<(), String> {
    // The crates as a registry gets them: packed together, each built from its `.crate`
    // outside the workspace (doctests; docs with docs.rs's features, without a warning,
    // broken links included). Those docs hold every item of the default features and
    // more, so documenting the workspace's copy too (30 s warm, 108 s cold, in metadata
    // builds of its own) checked nothing else.
    timed("package", || super::package::run(root, cargo))?;
    // Each interface alone, and the optional TLS roots (native-tls needs OpenSSL's
    // headers, which a CI machine may lack, so it is checked by hand; see docs/rust.md).
    let combinations: [&[&str]; 3] = [
        &["--no-default-features", "--features", "v3"],
        &["--no-default-features", "--features", "legacy"],
        &["--features", "native-roots,secrecy"],
    ];
    for features in combinations {
        let mut args = vec!["check", "-p", "inspection-client"];
        args.extend_from_slice(features);
        step(root, "features", cargo, &args)?;
    }
    step(
        root,
        "features: secrecy",
        cargo,
        &[
            "test",
            "-p",
            "inspection-runtime",
            "--features",
            "secrecy",
            "--lib",
            "secrecy",
        ],
    )?;
    // Names that are keywords or the client's own must give output that compiles.
    timed("small specs in every language", || {
        super::output_check::run(
            root,
            cargo,
            generator,
            &root.join("tests/specs"),
            &root.join("target/keywords"),
        )
    })
}

/// The TypeScript package: dev tools from the committed lockfile, the strict type check
/// and build of `generated/typescript`, then its tests on the built output (the
/// conformance scenarios start the sandbox binary the Rust tests built), then the package
/// as users get it: packed, linted (publint, attw), installed into fresh projects,
/// type-checked there and run on Node 18, 20 and 22; and the scenarios in a browser.
fn typescript(root: &Path, target: &str) -> Result<(), String> {
    typescript_tools(root, None)?;
    step_with_env(
        root,
        "typescript: tests",
        npm(),
        &["test", "--prefix", TS_TOOLS],
        &[("CARGO_TARGET_DIR", target)],
    )?;
    step_with_env(
        root,
        "typescript: the package as users get it",
        "bash",
        &["tests/typescript/packaging/check.sh"],
        &[("CARGO_TARGET_DIR", target)],
    )?;
    // The conformance scenarios in headless Chromium (Debian's, which `.ci/run` installs
    // when missing; CHROMIUM_BIN names another) against sandboxes with --cors-origin.
    step_with_env(
        root,
        "typescript: conformance in Chromium",
        npm(),
        &["run", "test:browser", "--prefix", TS_TOOLS],
        &[("CARGO_TARGET_DIR", target)],
    )
}

/// The Python package: a virtual environment under `target/` with the pinned dev tools,
/// the sdist and the wheel built and checked as PyPI would take them, the wheel installed,
/// `mypy --strict` on the package and its tests, then pytest (the conformance scenarios,
/// sync and async, against the sandbox binary), then the wheel on every Python it promises.
pub fn python(root: &Path, env: &PythonEnv, target: &str) -> Result<(), String> {
    let bin = python_bin(root);
    let tool = |name: &str| bin.join(name).to_string_lossy().into_owned();
    let dist = &env.dist;
    let files: Vec<String> = std::fs::read_dir(&dist.dir)
        .map_err(|e| format!("python: cannot read {}: {e}", dist.dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path().to_string_lossy().into_owned()))
        .collect();
    let mut twine = vec!["check", "--strict"];
    twine.extend(files.iter().map(String::as_str));
    step(root, "python: twine check --strict", &tool("twine"), &twine)?;
    // The wheel holds exactly the package's files (W101/W102 against the sources).
    let package = dist.source.join("src/inspection_client");
    step(
        root,
        "python: check-wheel-contents",
        &tool("check-wheel-contents"),
        &[
            "--package",
            &package.to_string_lossy(),
            &dist.wheel.to_string_lossy(),
        ],
    )?;
    let mypy = tool("mypy");
    // The package promises Python 3.10: checked against 3.10's standard library too.
    step(
        root,
        "python: mypy --strict for Python 3.10",
        &mypy,
        &[
            "--strict",
            "--python-version",
            "3.10",
            "--cache-dir=target/mypy-cache-3.10",
            "generated/python/src/inspection_client",
        ],
    )?;
    step(
        root,
        "python: mypy --strict",
        &mypy,
        &[
            "--strict",
            "--cache-dir=target/mypy-cache",
            "generated/python/src/inspection_client",
            "tests/python",
            "tests/contract",
        ],
    )?;
    // The conformance scenarios run from the wheel on every Python below (this one's
    // version among them), so here only the other tests.
    step_with_env(
        root,
        "python: tests (the conformance scenarios: from the wheel, below)",
        &tool("pytest"),
        &[
            "-q",
            "-p",
            "no:cacheprovider",
            "--ignore=tests/python/test_conformance.py",
            "tests/python",
        ],
        &[("CARGO_TARGET_DIR", target)],
    )?;
    super::python_versions::run(root, &dist.wheel, target)
}

/// `cargo xtask python`: the Python checks of CI alone, after building the sandbox and
/// the tool (with its MCP server, as the Rust tests build it) their tests start.
pub fn python_only(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    step(root, "python: sandbox", &cargo, &["build", "-p", "sandbox"])?;
    let tool = ["build", "-p", "inspection-cli", "--features"];
    step(
        root,
        "python: the inspection tool",
        &cargo,
        &[&tool[..], &[super::tools::TOOL_FEATURES]].concat(),
    )?;
    let target = target_dir(root, &cargo)?;
    let env = python_env(root)?;
    python(root, &env, &target.to_string_lossy())
}

/// `cargo xtask typescript`: CI's TypeScript checks alone, for a developer changing the
/// TypeScript backend or runtime: the generated files fresh, then the TypeScript lane
/// against the sandbox.
pub fn typescript_only(root: &Path, generator: &Generator) -> Result<(), String> {
    generator.run(root, &["--check"])?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    step(
        root,
        "typescript: sandbox",
        &cargo,
        &["build", "-p", "sandbox"],
    )?;
    let target = target_dir(root, &cargo)?;
    typescript(root, &target.to_string_lossy())
}

/// `cargo xtask java`: CI's Java checks alone, for a developer changing the Java backend
/// or runtime: the generated files fresh, the Java lane, and the construct specs of
/// `tests/specs` generated and compiled (the Java part of `check-output`).
pub fn java_only(root: &Path, generator: &Generator) -> Result<(), String> {
    generator.run(root, &["--check"])?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    step(root, "java: sandbox", &cargo, &["build", "-p", "sandbox"])?;
    let sandbox = target_dir(root, &cargo)?.join("debug/sandbox");
    super::java::run(root, &sandbox)?;
    let work = root.join("target/java-specs");
    let _ = std::fs::remove_dir_all(work.join("generated"));
    super::output_check::generate(root, generator, &root.join("tests/specs"), &work)?;
    super::java::compile(
        root,
        &work.join("generated/java/src/main/java"),
        "tests/specs: java",
        &work.join("java-build"),
    )
}

/// `cargo xtask go`: CI's Go checks alone, for a developer changing the Go backend or
/// runtime: the generated files fresh, the Go lane, then the construct specs of
/// `tests/specs` generated and checked as Go (the Go part of `check-output`).
pub fn go_only(root: &Path, generator: &Generator) -> Result<(), String> {
    generator.run(root, &["--check"])?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    step(root, "go: sandbox", &cargo, &["build", "-p", "sandbox"])?;
    let sandbox = target_dir(root, &cargo)?.join("debug/sandbox");
    super::go::run(root, &sandbox)?;
    super::go_quickstart::run(root, &sandbox)?;
    let work = root.join("target/go-specs");
    let _ = std::fs::remove_dir_all(work.join("generated"));
    super::output_check::generate(root, generator, &root.join("tests/specs"), &work)?;
    let module = work.join("generated/go");
    super::go::check(root, &module.to_string_lossy(), "tests/specs: go", false)
}

/// The contract run (`tests/contract`): schemathesis, pinned with the Python dev tools,
/// against both interfaces of the sandbox the Rust tests built. Fails on any finding
/// `tests/contract/exceptions.txt` does not keep.
fn contract(root: &Path, target: &str) -> Result<(), String> {
    let st = python_bin(root).join("st").to_string_lossy().into_owned();
    let sandbox = format!("{target}/debug/sandbox");
    step_with_env(
        root,
        "contract: schemathesis against both sandboxes",
        "bash",
        &["tests/contract/run.sh", &sandbox, "both"],
        &[
            ("ST", st.as_str()),
            ("DOCS", "generated/openapi"),
            ("OUT", "target/contract"),
        ],
    )
}
