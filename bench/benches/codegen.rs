//! The generator end to end (load, check, render every output in memory) on the real spec
//! and on synthetic specs 10 and 50 times its size: the cost should grow linearly.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn codegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("codegen");
    group.sample_size(10);
    for copies in [1usize, 10, 50] {
        let specs = bench::synthetic_specs(copies);
        // Throughput in spec copies: criterion then also prints the time per copy.
        group.throughput(Throughput::Elements(copies as u64));
        group.bench_with_input(
            BenchmarkId::new("spec", format!("x{copies}")),
            &specs,
            |b, specs| b.iter(|| bench::generate(specs)),
        );
    }
    group.finish();
}

criterion_group!(benches, codegen);
criterion_main!(benches);
