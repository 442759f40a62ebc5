//! The version rule as a maintainer meets it: a breaking spec change cannot pass
//! `codegen --check` until spec/VERSION is raised; a docs-only change needs no bump; the
//! changelog entry is one command.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::codegen;

/// A checkout released at 0.1.0.
fn checkout() -> PathBuf {
    let dir = support::checkout("release");
    std::fs::write(dir.join("spec/VERSION"), "0.1.0\n").unwrap();
    dir
}

fn ok(run: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "{text}");
    text
}

fn edit(dir: &Path, from: &str, to: &str) {
    let path = dir.join("spec/v3.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from));
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_breaking_change_needs_a_raised_version() {
    let dir = checkout();
    // Release 0.1.0: the changelog entry and the baseline, in one command.
    ok(&codegen(&dir, &["changelog", "--write"]));
    assert!(dir.join("spec/released.json").is_file());
    let log = std::fs::read_to_string(dir.join("CHANGELOG.md")).unwrap();
    assert!(log.contains("## [0.1.0]"), "{log}");
    ok(&codegen(&dir, &[]));

    // Docs only: no bump needed; the report says what changed.
    edit(&dir, "Lists units,", "Lists every unit,");
    let report = ok(&codegen(&dir, &[]));
    assert!(
        report.contains("[docs] operation `list_units`: docs changed"),
        "{report}"
    );
    ok(&codegen(&dir, &["--check"]));

    // Breaking: a query parameter renamed. Generation warns, --check fails naming it.
    edit(&dir, "      serialNumber:", "      serial:");
    let report = ok(&codegen(&dir, &[]));
    assert!(
        report
            .contains("[breaking] operation `list_units`: query parameter `serialNumber` removed"),
        "{report}"
    );
    let check = codegen(&dir, &["--check"]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success());
    assert!(
        stderr.contains("query parameter `serialNumber` removed")
            && stderr.contains("raise spec/VERSION to 0.2.0"),
        "{stderr}"
    );

    // A patch bump is not enough; a minor one (below 1.0) is.
    std::fs::write(dir.join("spec/VERSION"), "0.1.1\n").unwrap();
    ok(&codegen(&dir, &[]));
    assert!(!codegen(&dir, &["--check"]).status.success());
    std::fs::write(dir.join("spec/VERSION"), "0.2.0\n").unwrap();
    ok(&codegen(&dir, &[]));
    ok(&codegen(&dir, &["--check"]));
    let manifest = std::fs::read_to_string(dir.join("generated/python/pyproject.toml")).unwrap();
    assert!(manifest.contains("version = \"0.2.0\""));

    // The release: the entry lists the breaking change and the additions.
    let entry = ok(&codegen(&dir, &["changelog", "--write"]));
    assert!(
        entry.contains("## [0.2.0]") && entry.contains("### Changed (breaking)"),
        "{entry}"
    );
    let log = std::fs::read_to_string(dir.join("CHANGELOG.md")).unwrap();
    assert!(
        log.find("## [0.2.0]").unwrap() < log.find("## [0.1.0]").unwrap(),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
