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

/// Where a row's number, call class and service id sit in the buffer.
type Spans = [(u32, u32); 3];

/// Usage held the way a batch reader holds it: text in one buffer, read in order.
struct UsageBuffer {
    text: String,
    rows: Vec<(i64, chrono::NaiveDate, Spans)>,
}

impl UsageBuffer {
    fn new(usage: &[synthetic::Usage]) -> Self {
        let mut text = String::new();
        let mut rows = Vec::with_capacity(usage.len());
        let push = |text: &mut String, value: &str| {
            let start = text.len() as u32;
            text.push_str(value);
            (start, text.len() as u32)
        };
        for record in usage {
            let spans = [
                push(&mut text, &record.dialled_number),
                push(&mut text, &record.call_class),
                push(&mut text, &record.service_id),
            ];
            rows.push((record.reference_data_source_id, record.date, spans));
        }
        Self { text, rows }
    }

    fn requests(&self) -> impl Iterator<Item = RatingRequest<'_>> {
        self.rows.iter().map(|(source, date, spans)| {
            let field = |(from, to): (u32, u32)| &self.text[from as usize..to as usize];
            RatingRequest {
                reference_data_source_id: *source,
                date: *date,
                dialled_number: Some(field(spans[0])),
                call_class: Some(field(spans[1])),
                service_id: Some(field(spans[2])),
            }
        })
    }
}

fn lookups(c: &mut Criterion) {
    let mut group = c.benchmark_group("lookup");
    for size in [1_000usize, 100_000, 1_000_000] {
        let tariff = synthetic::tariff(size, SOURCES, 7);
        let index = RatingIndex::build(&tariff).expect("builds");
        let usage = UsageBuffer::new(&synthetic::usage(&tariff, SOURCES, 1_000_000, 11));
        group.throughput(Throughput::Elements(usage.rows.len() as u64));
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
