//! `--record DIR`: each exchange, redacted, as `DIR/<sequence>-<method>.json`, for a
//! fixture or a conformance test to read.

use serde_json::Value;

use super::Shared;

/// Writes `record`; a failure is said once on stderr and the exchange is not held up.
pub fn write(state: &Shared, sequence: u64, record: &Value) {
    let Some(dir) = &state.options.record else {
        return;
    };
    let method = record["method"]
        .as_str()
        .unwrap_or("request")
        .to_ascii_lowercase();
    let path = dir.join(format!("{sequence:06}-{method}.json"));
    let text = serde_json::to_string_pretty(record).unwrap_or_default();
    if let Err(e) = std::fs::write(&path, text + "\n") {
        eprintln!("sandbox watch: cannot write {}: {e}", path.display());
    }
}
