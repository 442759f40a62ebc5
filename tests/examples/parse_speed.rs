//! Typed parsing of a page of 100 inspections against `serde_json::Value` parsing of the
//! same bytes: `cargo run --release -p tests --example parse_speed`.

use std::hint::black_box;
use std::time::Instant;

use inspection_client::v3::{Inspection, Page};

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/v3/inspection.json");
    let one: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let data: Vec<serde_json::Value> = (0..100)
        .map(|i| {
            let mut v = one.clone();
            v["id"] = serde_json::json!(format!("ins_{i:04}"));
            v
        })
        .collect();
    let bytes =
        serde_json::to_vec(&serde_json::json!({"data": data, "paging": {"next": null}})).unwrap();
    let rounds = 300;
    for _ in 0..20 {
        black_box(serde_json::from_slice::<Page<Inspection>>(&bytes).unwrap());
    }
    let t = Instant::now();
    for _ in 0..rounds {
        black_box(serde_json::from_slice::<Page<Inspection>>(black_box(&bytes)).unwrap());
    }
    let typed = t.elapsed() / rounds;
    let t = Instant::now();
    for _ in 0..rounds {
        black_box(serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).unwrap());
    }
    let value = t.elapsed() / rounds;
    println!(
        "page of 100 inspections ({} KiB): typed {typed:?}, serde_json::Value {value:?} (typed/value = {:.2})",
        bytes.len() / 1024,
        typed.as_secs_f64() / value.as_secs_f64()
    );
}
