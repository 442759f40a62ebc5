//! `cargo xtask deny`: the dependency tree held to `deny.toml` by cargo-deny: licenses,
//! duplicate versions, sources. cargo-deny is installed at the pinned version when the
//! machine lacks it (a release build of 2.5 to 5 minutes on 2 cores, once per machine;
//! `cargo xtask ci` starts it first and runs other steps meanwhile).
//! The advisories are left out: they need the RustSec database from the network, which CI
//! machines cannot reach (docs/maintainers.md says how to run them).

use std::path::Path;
use std::process::Command;

use super::tools;

/// The cargo-deny CI installs and runs.
pub const VERSION: &str = "0.20.2";

pub fn run(root: &Path, cargo: &str) -> Result<(), String> {
    finish(root, cargo, start_install(root, cargo)?)
}

/// Starts installing the pinned cargo-deny in the background when the machine lacks it
/// (a release build of 2.5 to 5 minutes on 2 cores), so that `cargo xtask ci` runs other
/// steps meanwhile; `None` when it is there already.
pub fn start_install(root: &Path, cargo: &str) -> Result<Option<Installing>, String> {
    let installed = installed_version(cargo);
    if installed.as_deref() == Some(VERSION) {
        return Ok(None);
    }
    let spec = format!("cargo-deny@{VERSION}");
    let name = match installed {
        Some(other) => format!("deny: install {spec} (found {other})"),
        None => format!("deny: install {spec}"),
    };
    println!("==> {name} (in the background): {cargo} install --locked --quiet {spec}");
    let child = Command::new(cargo)
        .args(["install", "--locked", "--quiet", &spec])
        .current_dir(root)
        .spawn()
        .map_err(|e| format!("{name}: cannot run {cargo}: {e}"))?;
    Ok(Some(Installing {
        name,
        child,
        started: std::time::Instant::now(),
    }))
}

/// An install of cargo-deny under way.
pub struct Installing {
    name: String,
    child: std::process::Child,
    started: std::time::Instant,
}

/// Waits for the install `installing` (if any), then holds the tree to `deny.toml`.
pub fn finish(root: &Path, cargo: &str, installing: Option<Installing>) -> Result<(), String> {
    if let Some(mut installing) = installing {
        let status = installing
            .child
            .wait()
            .map_err(|e| format!("{}: {e}", installing.name))?;
        let name = format!("{} (from its start, beside other steps)", installing.name);
        tools::record_time(&name, installing.started.elapsed());
        if !status.success() {
            return Err(format!("ci: step `{}` failed ({status})", installing.name));
        }
    }
    tools::step(
        root,
        "deny: licenses, duplicate versions, sources",
        cargo,
        &[
            "deny",
            "--locked",
            "check",
            "--show-stats",
            "licenses",
            "bans",
            "sources",
        ],
    )
}

/// The version `cargo deny --version` reports, if cargo finds the subcommand.
fn installed_version(cargo: &str) -> Option<String> {
    let out = Command::new(cargo)
        .args(["deny", "--version"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| parse_version(&String::from_utf8_lossy(&out.stdout)))
        .flatten()
}

/// `cargo-deny 0.20.2` -> `0.20.2`.
fn parse_version(text: &str) -> Option<String> {
    text.trim()
        .strip_prefix("cargo-deny ")
        .map(|v| v.split_whitespace().next().unwrap_or_default().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_what_cargo_deny_prints() {
        assert_eq!(
            parse_version("cargo-deny 0.20.2\n").as_deref(),
            Some("0.20.2")
        );
        assert_eq!(
            parse_version("cargo-deny 0.19.0 (abc)").as_deref(),
            Some("0.19.0")
        );
        assert_eq!(parse_version("error: no such command: `deny`"), None);
    }

    /// The pinned version is the one deny.toml's header and the docs name.
    #[test]
    fn the_docs_name_the_pinned_version() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let docs = std::fs::read_to_string(root.join("docs/maintainers.md")).unwrap();
        assert!(
            docs.contains(&format!("cargo install --locked cargo-deny@{VERSION}")),
            "docs/maintainers.md does not name cargo-deny {VERSION}"
        );
    }
}
