//! The Go row of `cargo xtask bench`: `go test -bench` in `tests/go/peers` decoding the
//! page of 100 inspections with the generated types (as the client reads an answer, and
//! through `encoding/json`) beside `encoding/json` into `map[string]any` and into the types
//! oapi-codegen generates, in one run; and what ogen makes of the description.

use std::path::Path;
use std::process::Command;

/// Runs the benchmarks on `page` (one short round each with `quick`); gives their
/// medians in milliseconds as `{typed_ms, through_json_ms, map_ms, oapi_codegen_ms}` and
/// ogen's findings (`ogen_31`, `ogen_30`).
pub fn run(root: &Path, page: &str, quick: bool) -> Result<serde_json::Value, String> {
    let peers = super::go_peers::generate(root, quick)?;
    let count = if quick { "1" } else { "5" };
    let benchtime = if quick { "1x" } else { "1s" };
    let args = [
        "test",
        "-run",
        "^$",
        "-bench",
        "^BenchmarkPage",
        "-count",
        count,
        "-benchtime",
        benchtime,
        ".",
    ];
    println!("==> bench: go parse: PAGE={page} go {}", args.join(" "));
    let out = Command::new("go")
        .args(args)
        .envs(super::go::ENV.iter().copied())
        .env("PAGE", page)
        .current_dir(root.join(super::go_peers::MODULE))
        .output()
        .map_err(|e| format!("bench: go: cannot run go: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    if !out.status.success() {
        return Err(format!(
            "bench: go: the benchmarks failed\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let median = |name: &str| -> Result<f64, String> {
        let mut ns: Vec<f64> = text
            .lines()
            .filter(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|n| n.starts_with(name))
            })
            .filter(|l| {
                // `BenchmarkPageTyped-2`, not `BenchmarkPageTypedThrough...`
                l.split_whitespace()
                    .next()
                    .and_then(|n| n.strip_prefix(name))
                    .is_some_and(|rest| rest.starts_with('-') || rest.is_empty())
            })
            .filter_map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                let at = words.iter().position(|w| *w == "ns/op")?;
                words.get(at.checked_sub(1)?)?.parse().ok()
            })
            .collect();
        ns.sort_by(f64::total_cmp);
        ns.get(ns.len() / 2)
            .map(|n| n / 1e6)
            .ok_or_else(|| format!("bench: go: no figure for {name} in\n{text}"))
    };
    Ok(serde_json::json!({
        "typed_ms": median("BenchmarkPageTyped")?,
        "through_json_ms": median("BenchmarkPageTypedThroughEncodingJSON")?,
        "map_ms": median("BenchmarkPageMap")?,
        "oapi_codegen_ms": median("BenchmarkPageOapiCodegen")?,
        "ogen_31": peers.ogen_31,
        "ogen_30": peers.ogen_30,
    }))
}
