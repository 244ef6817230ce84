//! Prometheus metrics at `/metrics`: requests by method, route pattern (not raw path, so ids do
//! not explode the series) and status, and a latency histogram. Aggregates only, so like the
//! health checks it needs no token; expose it to the monitoring network only.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

const BUCKETS: [f64; 11] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// Request counts by method, then route pattern, then status: nested so that counting a
/// request already seen looks its keys up by reference and allocates nothing.
type Counts = BTreeMap<String, BTreeMap<String, BTreeMap<u16, u64>>>;

#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<Counts>,
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

impl Metrics {
    pub fn record(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        {
            let mut requests = self
                .requests
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let seen = requests
                .get_mut(method)
                .and_then(|routes| routes.get_mut(route))
                .and_then(|statuses| statuses.get_mut(&status));
            match seen {
                Some(count) => *count += 1,
                None => {
                    *requests
                        .entry(method.to_owned())
                        .or_default()
                        .entry(route.to_owned())
                        .or_default()
                        .entry(status)
                        .or_default() += 1;
                }
            }
        }
        let seconds = elapsed.as_secs_f64();
        for (bucket, bound) in self.buckets.iter().zip(BUCKETS) {
            if seconds <= bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    /// The Prometheus text exposition format, version 0.0.4.
    pub fn render(&self) -> String {
        let mut text = String::new();
        text.push_str(
            "# HELP billing_http_requests_total HTTP requests by method, route and status.\n",
        );
        text.push_str("# TYPE billing_http_requests_total counter\n");
        let requests = self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        for (method, routes) in &requests {
            for (route, statuses) in routes {
                let route = route.replace('\\', "\\\\").replace('"', "\\\"");
                for (status, count) in statuses {
                    let _ = writeln!(
                        text,
                        "billing_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {count}"
                    );
                }
            }
        }
        text.push_str("# HELP billing_http_request_duration_seconds Time to answer a request.\n");
        text.push_str("# TYPE billing_http_request_duration_seconds histogram\n");
        for (bucket, bound) in self.buckets.iter().zip(BUCKETS) {
            let _ = writeln!(
                text,
                "billing_http_request_duration_seconds_bucket{{le=\"{bound}\"}} {}",
                bucket.load(Ordering::Relaxed)
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(
            text,
            "billing_http_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            text,
            "billing_http_request_duration_seconds_sum {}",
            self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(text, "billing_http_request_duration_seconds_count {count}");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_a_histogram() {
        let metrics = Metrics::default();
        metrics.record(
            "GET",
            "/v1/charge-groups/{id}",
            200,
            Duration::from_millis(3),
        );
        metrics.record(
            "GET",
            "/v1/charge-groups/{id}",
            200,
            Duration::from_millis(30),
        );
        insta::assert_snapshot!(metrics.render(), @r#"
        # HELP billing_http_requests_total HTTP requests by method, route and status.
        # TYPE billing_http_requests_total counter
        billing_http_requests_total{method="GET",route="/v1/charge-groups/{id}",status="200"} 2
        # HELP billing_http_request_duration_seconds Time to answer a request.
        # TYPE billing_http_request_duration_seconds histogram
        billing_http_request_duration_seconds_bucket{le="0.001"} 0
        billing_http_request_duration_seconds_bucket{le="0.0025"} 0
        billing_http_request_duration_seconds_bucket{le="0.005"} 1
        billing_http_request_duration_seconds_bucket{le="0.01"} 1
        billing_http_request_duration_seconds_bucket{le="0.025"} 1
        billing_http_request_duration_seconds_bucket{le="0.05"} 2
        billing_http_request_duration_seconds_bucket{le="0.1"} 2
        billing_http_request_duration_seconds_bucket{le="0.25"} 2
        billing_http_request_duration_seconds_bucket{le="0.5"} 2
        billing_http_request_duration_seconds_bucket{le="1"} 2
        billing_http_request_duration_seconds_bucket{le="2.5"} 2
        billing_http_request_duration_seconds_bucket{le="+Inf"} 2
        billing_http_request_duration_seconds_sum 0.033
        billing_http_request_duration_seconds_count 2
        "#);
    }
}
