//! A small driver for profilers and quick comparisons: builds a synthetic tariff, then rates
//! synthetic usage (held in one buffer, in chunks of 1,024 like `billing rate`) several times.
//! `cargo run --release -p billing-domain --example rate_profile -- 1000000 1000000 5`
//! (dialstrings, lookups, rounds). The benchmark of record is `cargo xtask bench`.

use billing_domain::rating::{RatingIndex, RatingRequest, synthetic};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().unwrap_or(1000));
    let dialstrings = args.next().unwrap_or(1000);
    let lookups = args.next().unwrap_or(100_000);
    let rounds = args.next().unwrap_or(1).max(1);
    let tariff = synthetic::tariff(dialstrings, 4, 7);
    let index = RatingIndex::build(&tariff).unwrap_or_default();
    let usage = synthetic::UsageBuffer::new(&synthetic::usage(&tariff, 4, lookups, 11));
    let requests: Vec<RatingRequest<'_>> = usage.requests().collect();
    let mut out = Vec::with_capacity(1024);
    let mut each = Vec::with_capacity(rounds);
    let mut rated = 0;
    for _ in 0..rounds {
        rated = 0;
        let started = std::time::Instant::now();
        for chunk in requests.chunks(1024) {
            out.clear();
            index.rate_many(chunk, &mut out);
            rated += out.iter().filter(|r| r.is_ok()).count();
        }
        each.push(started.elapsed().as_nanos() as f64 / requests.len().max(1) as f64);
    }
    each.sort_by(f64::total_cmp);
    println!(
        "{rated} of {} rated; ns per lookup: best {:.0}, median {:.0} ({:.2} M/s best)",
        requests.len(),
        each[0],
        each[each.len() / 2],
        1e3 / each[0]
    );
}
