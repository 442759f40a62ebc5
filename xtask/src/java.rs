//! The Java lane of `cargo xtask ci`: the generated project compiled as strictly as the
//! generator promises (`javac --release 17 -Xlint:all -Werror`), its docs checked
//! (`javadoc -Xdoclint:all`), and the runtime's tests (`tests/java`: JUnit through Maven,
//! every plugin pinned) on the machine's JDK and on its second JDK. Maven's repository
//! lives under `target/m2`: the first run resolves it online, later ones run offline while
//! the test project's pom is unchanged.

use std::path::{Path, PathBuf};

use super::tools::{step, step_with_env, unless_installed};

/// The generated project's sources.
const SOURCES: &str = "generated/java/src/main/java";
/// The runtime's tests, a Maven project compiling the generated sources with its tests.
const TESTS_POM: &str = "tests/java/pom.xml";
/// Maven's local repository.
const REPOSITORY: &str = "target/m2";
/// Where the second JDK is unless `JAVA_SECOND_HOME` names another.
const SECOND_JDK: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// Where the conformance runner writes what it ran.
const COUNT_FILE: &str = "target/java-tests/conformance-count.json";

/// Every Java check, in the order that fails fastest; `sandbox` is the binary the
/// conformance runner starts.
pub fn run(root: &Path, sandbox: &Path) -> Result<(), String> {
    compile(root, &root.join(SOURCES), "java", &root.join("target/java"))?;
    tests(root, sandbox)
}

/// The project whose sources are in `sources`, compiled with `javac --release 17
/// -Xlint:all -Werror` and documented with `javadoc -Xdoclint:all` into `out`, as steps
/// named after `what`.
pub fn compile(root: &Path, sources: &Path, what: &str, out: &Path) -> Result<(), String> {
    // The file names in an argument file: the step's line names the folder, not 200 files.
    let files = java_files(sources)?;
    std::fs::create_dir_all(out)
        .map_err(|e| format!("{what}: cannot make {}: {e}", out.display()))?;
    let list = out.join("sources.txt");
    std::fs::write(&list, files.join("\n") + "\n")
        .map_err(|e| format!("{what}: cannot write {}: {e}", list.display()))?;
    let list = format!("@{}", list.display());
    let classes = out.join("classes").to_string_lossy().into_owned();
    step(
        root,
        &format!("{what}: javac -Xlint:all -Werror"),
        "javac",
        &[
            "--release",
            "17",
            "-Xlint:all",
            "-Werror",
            "-d",
            &classes,
            &list,
        ],
    )?;
    let doc = out.join("doc").to_string_lossy().into_owned();
    step(
        root,
        &format!("{what}: javadoc -Xdoclint:all"),
        "javadoc",
        &[
            "--release",
            "17",
            "-Xdoclint:all",
            "-Werror",
            "-quiet",
            "-d",
            &doc,
            &list,
        ],
    )
}

/// The runtime's tests and the conformance scenarios on both JDKs: online the first time
/// the pom is seen, offline after. Each run's scenario count is checked against the files.
fn tests(root: &Path, sandbox: &Path) -> Result<(), String> {
    let expected = super::scenario_copies::write(root)?;
    let props = Props {
        sandbox: format!("-Dsandbox.bin={}", sandbox.display()),
        scenarios: format!(
            "-Dconformance.dir={}",
            root.join(super::scenario_copies::DIR).display()
        ),
    };
    let counted = |name: &str| {
        if std::env::var_os("CONFORMANCE_ONLY").is_some() {
            return Ok(());
        }
        super::scenario_copies::check_count(
            &root.join(COUNT_FILE),
            expected,
            name,
            &["blocking", "async"],
        )
    };
    // Every pom whose plugins the online run resolves: a change to one resolves again.
    let mut pom = Vec::new();
    for file in [
        TESTS_POM,
        "tests/java/quickstart/pom.xml",
        "generated/java/pom.xml",
    ] {
        pom.extend(
            std::fs::read(root.join(file)).map_err(|e| format!("java: cannot read {file}: {e}"))?,
        );
    }
    std::fs::create_dir_all(root.join(REPOSITORY))
        .map_err(|e| format!("java: cannot make {REPOSITORY}: {e}"))?;
    let stamp = root.join(REPOSITORY).join(".resolved-for");
    let resolved = unless_installed(&stamp, &pom, || {
        maven(
            root,
            "java: tests (resolving the plugins online)",
            None,
            false,
            &props,
        )
    })?;
    if !resolved {
        maven(root, "java: tests", None, true, &props)?;
    }
    counted("java")?;
    let second = second_jdk()?;
    let name = format!("java: tests on {}", second.display());
    maven(root, &name, Some(&second), true, &props)?;
    counted(&name)?;
    let repository = format!("-Dmaven.repo.local={}", root.join(REPOSITORY).display());
    let shared = if resolved {
        vec!["-B", "-q", repository.as_str()]
    } else {
        vec!["-B", "-q", "-o", repository.as_str()]
    };
    super::java_quickstart::run(root, sandbox, &shared)?;
    // Built here, where the repository is resolved; `cargo xtask bench` runs it.
    super::java_bench::build(root, &shared)
}

/// The system properties the conformance runner reads.
struct Props {
    sandbox: String,
    scenarios: String,
}

/// `mvn test` of the test project, with `java_home`'s JDK when given.
fn maven(
    root: &Path,
    name: &str,
    java_home: Option<&Path>,
    offline: bool,
    props: &Props,
) -> Result<(), String> {
    let repository = format!("-Dmaven.repo.local={}", root.join(REPOSITORY).display());
    let _ = std::fs::remove_file(root.join(COUNT_FILE));
    let mut args = vec![
        "-B",
        "-q",
        repository.as_str(),
        props.sandbox.as_str(),
        props.scenarios.as_str(),
        "-f",
        TESTS_POM,
    ];
    if offline {
        args.push("-o");
    }
    args.push("test");
    let home = java_home.map(|h| h.to_string_lossy().into_owned());
    let env: Vec<(&str, &str)> = home.iter().map(|h| ("JAVA_HOME", h.as_str())).collect();
    step_with_env(root, name, "mvn", &args, &env)
}

/// The second JDK the suite also runs on: a missing one fails, saying where it was looked for.
fn second_jdk() -> Result<PathBuf, String> {
    let home = std::env::var_os("JAVA_SECOND_HOME")
        .map_or_else(|| PathBuf::from(SECOND_JDK), PathBuf::from);
    if home.join("bin/java").is_file() {
        Ok(home)
    } else {
        Err(format!(
            "java: no second JDK at {} (set JAVA_SECOND_HOME to one): the Java suite runs on two",
            home.display()
        ))
    }
}

/// The `.java` files under `dir`, sorted, as absolute paths (none holds a space: they are
/// the generator's).
fn java_files(dir: &Path) -> Result<Vec<String>, String> {
    let dir = std::path::absolute(dir).map_err(|e| format!("java: {}: {e}", dir.display()))?;
    let found = super::tools::files_under(&dir).map_err(|e| format!("java: {e}"))?;
    Ok(found
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
}
