//! The Java row of `cargo xtask bench`: the JMH benchmark (`tests/java/bench`, a Maven
//! project of its own) decoding the page of 100 inspections with the generated client, with
//! Jackson databind into a `Map` and with openapi-generator's classes.

use std::path::Path;

use super::tools::{files_stamp, say, step, unless_installed};

/// The benchmark's runnable jar, built by the Java lane of `cargo xtask ci` (or here).
const JAR: &str = "target/java-bench/benchmarks.jar";

/// Builds the benchmark's jar against the client's jar installed in `target/m2`; `maven`
/// are the Maven arguments every build shares. Built again only when the client's or the
/// benchmark's files changed since the jar was built (or the jar is gone).
pub fn build(root: &Path, maven: &[&str]) -> Result<(), String> {
    let client = format!(
        "-Dclient.version={}",
        super::java_quickstart::version(root)?
    );
    let mut args: Vec<&str> = maven.to_vec();
    args.extend([client.as_str(), "-f", "tests/java/bench/pom.xml", "package"]);
    let stamp = root.join("target/java-bench/.built-from");
    if !root.join(JAR).is_file() {
        let _ = std::fs::remove_file(&stamp);
    }
    let sources = files_stamp(root, &["generated/java", "tests/java/bench"])?;
    let built = unless_installed(&stamp, &sources, || {
        step(root, "java: the JMH benchmark built", "mvn", &args)
    })?;
    if !built {
        say("==> java: the JMH benchmark: built from these files already");
    }
    Ok(())
}

/// Runs the benchmark on `page` (once each with `quick`), its JMH results in `out`; gives
/// them as `{typed_ms, map_ms, openapi_ms}`.
pub fn run(root: &Path, page: &str, out: &Path, quick: bool) -> Result<serde_json::Value, String> {
    if !root.join(JAR).is_file() {
        let repository = format!("-Dmaven.repo.local={}", root.join("target/m2").display());
        super::java_quickstart::install(root, &["-B", "-q", "-o", &repository])?;
        build(root, &["-B", "-q", "-o", &repository])?;
    }
    let results = out.join("jmh.json");
    let results_arg = results.to_string_lossy().into_owned();
    let param = format!("page={page}");
    let mut args = vec![
        "-jar",
        JAR,
        "ParsePage",
        "-p",
        &param,
        "-rf",
        "json",
        "-rff",
        &results_arg,
    ];
    if quick {
        args.extend(["-f", "0", "-wi", "0", "-i", "1", "-r", "200ms"]);
    }
    step(root, "bench: java parse (JMH)", "java", &args)?;
    let text = std::fs::read_to_string(&results)
        .map_err(|e| format!("bench: java: cannot read {}: {e}", results.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("bench: java: {e}"))?;
    let mut figures = serde_json::Map::new();
    for entry in json.as_array().into_iter().flatten() {
        let name = entry["benchmark"].as_str().unwrap_or_default();
        let score = entry["primaryMetric"]["score"].as_f64();
        let key = match name.rsplit('.').next() {
            Some("typed") => "typed_ms",
            Some("databindMap") => "map_ms",
            Some("openapiGenerator") => "openapi_ms",
            _ => continue,
        };
        // JMH reports microseconds per operation.
        if let Some(us) = score {
            figures.insert(key.into(), serde_json::json!(us / 1000.0));
        }
    }
    Ok(serde_json::Value::Object(figures))
}
