//! A small driver for profilers: builds a synthetic tariff and rates synthetic usage.
//! `cargo run --release -p billing-domain --example rate_profile -- 1000 100000`

use billing_domain::rating::{RatingIndex, RatingRequest, synthetic};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().unwrap_or(1000));
    let (dialstrings, lookups) = (args.next().unwrap_or(1000), args.next().unwrap_or(100_000));
    let tariff = synthetic::tariff(dialstrings, 4, 7);
    let index = RatingIndex::build(&tariff).unwrap_or_default();
    let usage = synthetic::usage(&tariff, 4, lookups, 11);
    let requests: Vec<RatingRequest<'_>> = usage.iter().map(synthetic::Usage::request).collect();
    let mut out = Vec::with_capacity(requests.len());
    let started = std::time::Instant::now();
    index.rate_many(&requests, &mut out);
    let elapsed = started.elapsed();
    let rated = out.iter().filter(|r| r.is_ok()).count();
    println!(
        "{rated} of {} rated in {:?} ({:.0} ns each)",
        requests.len(),
        elapsed,
        elapsed.as_nanos() as f64 / requests.len() as f64
    );
}
