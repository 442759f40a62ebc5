//! Typed parsing of a page of 100 inspections against `serde_json::Value` parsing of the
//! same bytes (the baseline every JSON client pays at least).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use inspection_client::v3::{Inspection, Page};
use inspection_runtime::__private::decode;

fn parse(c: &mut Criterion) {
    let bytes = bench::inspections_page(100);
    let mut group = c.benchmark_group("parse_page");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    // As the client decodes an answer (the JSON path is tracked only to explain a failure).
    group.bench_function("typed", |b| {
        b.iter(|| decode::<Page<Inspection>>(200, black_box(&bytes)).unwrap())
    });
    group.bench_function("value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
