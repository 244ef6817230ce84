//! Rating benchmarks: index build, lookups per second, one change, memory per dialstring.
//! Run with `cargo xtask bench` (or `cargo bench -p billing-domain --bench rating`).

use std::hint::black_box;
use std::time::Duration;

use billing_domain::rating::synthetic;
use billing_domain::rating::{DialstringRecord, RatingIndex, RatingRequest};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SOURCES: i64 = 4;

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("build");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    for size in [1_000usize, 100_000, 1_000_000] {
        let tariff = synthetic::tariff(size, SOURCES, 7);
        group.throughput(Throughput::Elements(tariff.dialstrings.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &tariff, |b, tariff| {
            b.iter(|| RatingIndex::build(black_box(tariff)).expect("builds"))
        });
        let index = RatingIndex::build(&tariff).expect("builds");
        eprintln!(
            "memory: {} dialstrings, {} bytes of tries, {:.1} bytes per dialstring",
            index.dialstring_count(),
            index.dialstring_memory_bytes(),
            index.dialstring_memory_bytes() as f64 / index.dialstring_count().max(1) as f64
        );
    }
    group.finish();
}

fn lookups(c: &mut Criterion) {
    let mut group = c.benchmark_group("lookup");
    for size in [1_000usize, 100_000, 1_000_000] {
        let tariff = synthetic::tariff(size, SOURCES, 7);
        let index = RatingIndex::build(&tariff).expect("builds");
        let usage = synthetic::UsageBuffer::new(&synthetic::usage(&tariff, SOURCES, 1_000_000, 11));
        group.throughput(Throughput::Elements(usage.len() as u64));
        group.bench_with_input(BenchmarkId::new("one_by_one", size), &usage, |b, usage| {
            b.iter(|| {
                let mut rated = 0usize;
                for request in usage.requests() {
                    if index.rate(black_box(&request)).is_ok() {
                        rated += 1;
                    }
                }
                rated
            })
        });
        let requests: Vec<RatingRequest<'_>> = usage.requests().collect();
        let mut out = Vec::with_capacity(1024);
        group.bench_with_input(
            BenchmarkId::new("batched", size),
            &requests,
            |b, requests| {
                b.iter(|| {
                    let mut rated = 0usize;
                    for chunk in requests.chunks(1024) {
                        out.clear();
                        index.rate_many(black_box(chunk), &mut out);
                        rated += out.iter().filter(|r| r.is_ok()).count();
                    }
                    rated
                })
            },
        );
    }
    group.finish();
}

fn changes(c: &mut Criterion) {
    let tariff = synthetic::tariff(1_000_000, SOURCES, 7);
    let mut index = RatingIndex::build(&tariff).expect("builds");
    let records: Vec<DialstringRecord> = tariff.dialstrings.iter().step_by(997).cloned().collect();
    let mut group = c.benchmark_group("change");
    group.throughput(Throughput::Elements(1));
    let mut turn = 0usize;
    group.bench_function("replace one dialstring in 1M", |b| {
        b.iter(|| {
            let before = &records[turn % records.len()];
            let mut after = before.clone();
            after.dialstring.push('7');
            index.replace_dialstring(before, &after).expect("replace");
            index.replace_dialstring(&after, before).expect("restore");
            turn += 1;
        })
    });
    group.finish();
}

criterion_group!(benches, build, lookups, changes);
criterion_main!(benches);
