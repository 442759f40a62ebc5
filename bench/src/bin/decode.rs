//! Decodes the page of 100 inspections N times, typed (as the client decodes an answer) or
//! as a `serde_json::Value`, for a profiler to count where the decode's work goes:
//! `valgrind --tool=callgrind target/release/decode typed 10` (or `value`, `ignored`; add
//! `--sorted` for the page with every object's keys sorted, `--tags-first` for it with each
//! union member's tag first). Criterion's `parse` benchmark gives the times; this gives
//! instruction counts that do not move with the machine's load.

use inspection_client::v3::{Inspection, Page};
use inspection_runtime::__private::decode;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: decode typed|value|ignored N [--sorted|--tags-first]";
    let (how, times) = match args.as_slice() {
        [how, n] | [how, n, _] => (how.as_str(), n.parse::<usize>().map_err(|_| usage)?),
        _ => return Err(usage.into()),
    };
    let page = bench::inspections_page(100);
    let page = match args.get(2).map(String::as_str) {
        None => page,
        Some("--sorted") => bench::sorted_keys(&page),
        Some("--tags-first") => bench::tags_first(&page),
        Some(other) => return Err(format!("unknown option {other}; {usage}")),
    };
    for _ in 0..times {
        let bytes = std::hint::black_box(page.as_slice());
        if how == "typed" {
            // The client's decode checks UTF-8 itself.
            let page = decode::<Page<Inspection>>(200, bytes).map_err(|e| e.to_string())?;
            std::hint::black_box(page);
            continue;
        }
        // Read as the client reads bytes: UTF-8 checked once, then parsed as text.
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        match how {
            "value" => {
                let value: serde_json::Value =
                    serde_json::from_str(text).map_err(|e| e.to_string())?;
                std::hint::black_box(value);
            }
            // The parse alone: every token read, nothing built.
            "ignored" => {
                serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| e.to_string())?;
            }
            _ => return Err(usage.into()),
        }
    }
    Ok(())
}
