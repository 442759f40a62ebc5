//! Regenerating (or checking) the output, and the version rule it applies.

use std::path::Path;
use std::time::Instant;

use codegen::output::Mode;

use crate::changes;

/// Regenerates (or with `check`, verifies) every generated file.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    run_with(root, &root.join("spec"), root, check)
}

/// Generates from the specs in `spec_dir` into `out` (a spec outside the repository, or
/// output to check elsewhere); messages name files relative to `root`.
pub fn run_with(root: &Path, spec_dir: &Path, out: &Path, check: bool) -> Result<(), String> {
    let start = Instant::now();
    let api = codegen::load_dir(root, spec_dir).map_err(|d| d.to_string())?;
    let files = codegen::generate(&api)?;
    // The IR the output on disk came from is compared only when the IR changed: most
    // regenerations (a template, a backend) leave it alone, and reading it costs ~10 ms.
    let ir_changed = files
        .iter()
        .any(|f| f.path == codegen::IR_PATH && !f.is_fresh(out));
    // What this regeneration changes for the users of the clients.
    if !check
        && ir_changed
        && let Some(previous) = changes::read_ir(&out.join(codegen::IR_PATH))?
    {
        let found = codegen::ir::diff::diff(&previous, &api);
        if !found.is_empty() {
            print!(
                "codegen: what changed for the users of the clients:\n{}",
                changes::report(&found)
            );
        }
    }
    // The version rule: a change that breaks users of the last release needs a version
    // that says so. `--check` (CI) always applies it; a regeneration warns when the IR
    // changed (the version is part of the IR, so raising it counts).
    if (check || ir_changed)
        && let Some(baseline) = changes::read_ir(&spec_dir.join(codegen::RELEASED_FILE))?
        && let Err(problem) = changes::version_rule(&baseline, &api)
    {
        if check {
            return Err(format!("codegen --check: {problem}"));
        }
        eprintln!("codegen: warning: {problem}\n(`cargo xtask codegen --check` fails until then)");
    }
    let mode = if check { Mode::Check } else { Mode::Write };
    let done = codegen::output::sync(&files, out, mode)?;
    if !done.stale.is_empty() {
        return Err(format!(
            "codegen --check: generated files are stale:\n  {}\nrun `cargo xtask codegen` and commit the result",
            done.stale.join("\n  ")
        ));
    }
    let unchanged = files.len() - done.written;
    let elapsed = start.elapsed();
    println!(
        "codegen: {} interface(s), {} types, {} operations -> {} files ({} written, {} unchanged{}) in {:.1} ms",
        api.interfaces.len(),
        api.type_count(),
        api.operation_count(),
        files.len(),
        done.written,
        unchanged,
        if done.removed == 0 {
            String::new()
        } else {
            format!(", {} removed", done.removed)
        },
        elapsed.as_secs_f64() * 1000.0
    );
    Ok(())
}

/// Prints the resolved IR as JSON on stdout.
pub fn dump_ir(root: &Path) -> Result<(), String> {
    let api = codegen::load_dir(root, &root.join("spec")).map_err(|d| d.to_string())?;
    print!("{}", codegen::ir_json(&api));
    Ok(())
}
