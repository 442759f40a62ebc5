//! The maintainer's loop: what a regeneration changed for the users of the clients, the
//! version rule against the last release, and the changelog entry.

use std::path::Path;

use codegen::ir::Api;
use codegen::ir::diff::{self, Change, Impact};
use codegen::ir::version;

/// The IR kept in the JSON file at `path`, if there is one.
pub fn read_ir(path: &Path) -> Result<Option<Api>, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{} is not an IR this generator reads: {e}", path.display()))
}

/// The changes as lines, interface by interface, breaking first.
pub fn report(changes: &[Change]) -> String {
    let mut sorted: Vec<&Change> = changes.iter().collect();
    sorted.sort_by(|a, b| (&a.interface, a.impact).cmp(&(&b.interface, b.impact)));
    let mut out = String::new();
    for c in sorted {
        let tag = match c.impact {
            Impact::Breaking => "breaking",
            Impact::Additive => "additive",
            Impact::Docs => "docs",
        };
        out.push_str(&format!("  {}: [{tag}] {}\n", c.interface, c.what));
    }
    out
}

/// Fails when `api` breaks users of the release in `baseline` without a version that says
/// so (major, or minor below 1.0), naming the breaking changes.
pub fn version_rule(baseline: &Api, api: &Api) -> Result<(), String> {
    let breaking: Vec<Change> = diff::diff(baseline, api)
        .into_iter()
        .filter(|c| c.impact == Impact::Breaking)
        .collect();
    if breaking.is_empty() || version::allows_breaking(&baseline.version, &api.version) {
        return Ok(());
    }
    Err(format!(
        "the spec breaks users of release {} but its version is {}:\n{}raise spec/VERSION to {} \
         (or undo the breaking changes)",
        baseline.version,
        api.version,
        report(&breaking),
        version::next_breaking(&baseline.version)
    ))
}

/// The Keep a Changelog entry for the changes from `baseline` to `api`.
pub fn changelog_entry(baseline: Option<&Api>, api: &Api) -> String {
    let changes = baseline.map(|b| diff::diff(b, api)).unwrap_or_default();
    let mut out = format!("## [{}]\n", api.version);
    let sections = [
        (Impact::Breaking, "Changed (breaking)"),
        (Impact::Additive, "Added"),
        (Impact::Docs, "Documentation"),
    ];
    let mut any = false;
    for (impact, title) in sections {
        let items: Vec<&Change> = changes.iter().filter(|c| c.impact == impact).collect();
        if items.is_empty() {
            continue;
        }
        any = true;
        out.push_str(&format!("\n### {title}\n\n"));
        for c in items {
            out.push_str(&format!("- {}: {}\n", c.interface, c.what));
        }
    }
    if !any {
        out.push_str(if baseline.is_none() {
            "\nFirst release.\n"
        } else {
            "\nNo change to the clients.\n"
        });
    }
    out
}

const CHANGELOG_HEAD: &str = "# Changelog\n\nWhat each release of the generated clients \
changed for their users, classified by `cargo xtask changelog` (see docs/maintainers.md). \
The format follows Keep a Changelog.\n";

/// `cargo xtask changelog [--write]`: prints the entry for the spec's version; with
/// `--write`, also adds it to `CHANGELOG.md` and makes the current IR the release baseline.
pub fn changelog(root: &Path, write: bool) -> Result<(), String> {
    let api = codegen::load_dir(root, &root.join("spec")).map_err(|d| d.to_string())?;
    let released = root.join("spec").join(codegen::RELEASED_FILE);
    let baseline = read_ir(&released)?;
    if let Some(b) = &baseline
        && b.version == api.version
        && write
    {
        return Err(format!(
            "release {} is already recorded in spec/{}; raise spec/VERSION first",
            api.version,
            codegen::RELEASED_FILE
        ));
    }
    let entry = changelog_entry(baseline.as_ref(), &api);
    print!("{entry}");
    if !write {
        return Ok(());
    }
    if let Some(b) = &baseline {
        version_rule(b, &api)?;
    }
    let path = root.join("CHANGELOG.md");
    let old = std::fs::read_to_string(&path).unwrap_or_else(|_| CHANGELOG_HEAD.to_string());
    let (head, rest) = match old.find("\n## ") {
        Some(at) => old.split_at(at + 1),
        None => (old.as_str(), ""),
    };
    let text = format!("{}\n\n{entry}\n{rest}", head.trim_end());
    std::fs::write(&path, text.trim_end().to_string() + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::write(&released, codegen::ir_json(&api))
        .map_err(|e| format!("cannot write {}: {e}", released.display()))?;
    println!(
        "changelog: CHANGELOG.md has the entry; spec/{} is now release {}",
        codegen::RELEASED_FILE,
        api.version
    );
    Ok(())
}
