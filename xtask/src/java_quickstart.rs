//! The Java quick start as a user runs it: the generated client installed as a jar into the
//! Maven repository under `target/`, a separate consumer project (`tests/java/quickstart`,
//! the file docs/java.md quotes) compiled against it, and run against a sandbox.

use std::path::Path;
use std::process::Command;

use super::tools::{say, step, timed};

/// Installs the client, builds the consumer and runs it; `maven` are the Maven arguments
/// every build shares (the repository, offline or not).
pub fn run(root: &Path, sandbox: &Path, maven: &[&str]) -> Result<(), String> {
    let version = install(root, maven)?;
    let version = version.as_str();
    let client = format!("-Dclient.version={version}");
    let mut build: Vec<&str> = maven.to_vec();
    build.extend([
        client.as_str(),
        "-f",
        "tests/java/quickstart/pom.xml",
        "compile",
    ]);
    step(
        root,
        "java: the quickstart project compiled against it",
        "mvn",
        &build,
    )?;
    timed("java: the quickstart run against the sandbox", || {
        run_quickstart(root, sandbox, version)
    })
}

/// Installs the generated client's jar into the repository under `target/`; gives its
/// version (`spec/VERSION`).
pub fn install(root: &Path, maven: &[&str]) -> Result<String, String> {
    let version = version(root)?;
    let folder = format!(
        "-Dbuild.folder={}",
        root.join("target/java-package").display()
    );
    let mut args: Vec<&str> = maven.to_vec();
    args.extend([folder.as_str(), "-f", "generated/java/pom.xml", "install"]);
    step(root, "java: the jar installed into target/m2", "mvn", &args)?;
    Ok(version)
}

/// The client's version, `spec/VERSION`: the jar's, and what its consumers depend on.
pub fn version(root: &Path) -> Result<String, String> {
    std::fs::read_to_string(root.join("spec/VERSION"))
        .map(|v| v.trim().to_string())
        .map_err(|e| format!("java: cannot read spec/VERSION: {e}"))
}

/// Runs `example.Quickstart` against a fresh sandbox and checks what it printed.
fn run_quickstart(root: &Path, sandbox: &Path, version: &str) -> Result<(), String> {
    say("==> java: the quickstart run against the sandbox");
    let (mut server, url) = super::tools::start_sandbox(sandbox, "java quickstart")?;
    let jar = root.join(format!(
        "target/m2/dev/inspection/inspection-client/{version}/inspection-client-{version}.jar"
    ));
    let classes = root.join("target/java-quickstart/classes");
    let ran = Command::new("java")
        .arg("-cp")
        .arg(format!("{}:{}", classes.display(), jar.display()))
        .arg("example.Quickstart")
        .env("INSPECTION_URL", &url)
        .current_dir(root)
        .output();
    let _ = server.kill();
    let _ = server.wait();
    let ran = ran.map_err(|e| format!("java quickstart: cannot run java: {e}"))?;
    let out = String::from_utf8_lossy(&ran.stdout);
    if !ran.status.success() {
        return Err(format!(
            "java quickstart failed ({}):\n{out}\n{}",
            ran.status,
            String::from_utf8_lossy(&ran.stderr)
        ));
    }
    for expected in ["created unit ", ", results: ", "async: "] {
        if !out.contains(expected) {
            return Err(format!(
                "java quickstart: its output lacks `{expected}`:\n{out}"
            ));
        }
    }
    Ok(())
}
