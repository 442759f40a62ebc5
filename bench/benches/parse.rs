//! Typed parsing of a page of 100 inspections against `serde_json::Value` parsing of the
//! same bytes (the baseline every JSON client pays at least).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use inspection_client::v3::{Inspection, Page};
use inspection_runtime::__private::decode;

fn parse(c: &mut Criterion) {
    let page = bench::inspections_page(100);
    // The page in the fixture's order (a union's tag near its start), then with every
    // object's keys sorted, as a `Value` writes them (the properties before the tag are
    // kept aside until the tag says which member they belong to).
    let sorted = bench::sorted_keys(&page);
    let mut group = c.benchmark_group("parse_page");
    group.throughput(Throughput::Bytes(page.len() as u64));
    for (suffix, bytes) in [("", &page), ("_sorted_keys", &sorted)] {
        // As the client decodes an answer (the JSON path is tracked only to explain a
        // failure).
        group.bench_function(format!("typed{suffix}"), |b| {
            b.iter(|| decode::<Page<Inspection>>(200, black_box(bytes)).unwrap())
        });
        // The untyped tree read the fastest way serde_json offers, as the client reads
        // bytes: UTF-8 checked once for the whole body, then parsed as text.
        group.bench_function(format!("value{suffix}"), |b| {
            b.iter(|| {
                let text = std::str::from_utf8(black_box(bytes)).unwrap();
                serde_json::from_str::<serde_json::Value>(text).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
