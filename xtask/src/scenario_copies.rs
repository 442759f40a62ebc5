//! JSON copies of the conformance scenario files, for runners whose language has no YAML
//! parser of its own (Java, Go): written under `target/` at run time, never committed, read as
//! YAML 1.2 core as every runner reads it (anchors resolved, `on` and `yes` strings).

use std::path::Path;

/// Where the copies go, under the repository.
pub const DIR: &str = "target/conformance-json";

/// Writes `<name>.json` for each `tests/conformance/<name>.yaml` into [`DIR`] (emptied
/// first) and gives the number of scenarios the files hold.
pub fn write(root: &Path) -> Result<usize, String> {
    let source = root.join("tests/conformance");
    let out = root.join(DIR);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot make {}: {e}", out.display()))?;
    let mut names: Vec<_> = std::fs::read_dir(&source)
        .map_err(|e| format!("cannot read {}: {e}", source.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    names.sort();
    let mut scenarios = 0;
    for path in names {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let options = serde_saphyr::options! { strict_booleans: true };
        let doc: serde_json::Value = serde_saphyr::from_str_with_options(&text, options)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        scenarios += doc["scenarios"].as_array().map_or(0, Vec::len);
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let target = out.join(format!("{stem}.json"));
        std::fs::write(&target, doc.to_string())
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(scenarios)
}

/// Checks a runner's count file (`{"<flavour>": n, ..., "skipped": [...]}`, the flavours
/// being the clients it runs each scenario with: Java's `blocking` and `async`, Go's one
/// `client`): each flavour ran every scenario of the files but those the runner declares
/// skipped.
pub fn check_count(
    file: &Path,
    expected: usize,
    runner: &str,
    flavours: &[&str],
) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{runner}: no scenario count at {}: {e}", file.display()))?;
    let counts: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{runner}: {}: {e}", file.display()))?;
    let skipped = counts["skipped"].as_array().map_or(0, Vec::len);
    for flavour in flavours {
        let ran = counts[flavour].as_u64().unwrap_or(0) as usize;
        if ran + skipped != expected {
            return Err(format!(
                "{runner}: its {flavour} flavour ran {ran} scenarios and {skipped} are declared skipped, \
                 but the files hold {expected}"
            ));
        }
    }
    Ok(())
}
