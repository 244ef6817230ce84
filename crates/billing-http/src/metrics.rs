//! Prometheus metrics at `/metrics` (docs/operations.md lists them): requests and their
//! latency by method and route pattern (not raw path, so ids do not explode the series) and
//! status, sign-in outcomes, the database pool, the build and the process. Aggregates only,
//! so like the health checks it needs no token; `BILLING_METRICS_BIND` serves it on an
//! address of its own, off the API's.
//!
//! Counting a request takes the one lock the request counts always took and allocates
//! nothing once its method, route and status have been seen; everything else is counted with
//! relaxed atomics, and the pool and the process are read only when `/metrics` is.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use billing_persistence::PoolStatus;
use billing_persistence::connection::CHECKOUT_BUCKETS;

/// Upper bounds, in seconds, of the request latency buckets.
const BUCKETS: [f64; 11] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// What one method on one route pattern has seen.
#[derive(Debug, Default, Clone)]
struct RouteStats {
    statuses: BTreeMap<u16, u64>,
    /// Requests by the first bucket they fit (not cumulative); the last: slower than all.
    buckets: [u64; BUCKETS.len() + 1],
    count: u64,
    sum_micros: u64,
}

/// Request statistics by method, then route pattern: nested so that counting a request
/// already seen looks its keys up by reference and allocates nothing.
type Routes = BTreeMap<String, BTreeMap<String, RouteStats>>;

/// How a sign-in (`POST /v1/authenticate`) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignIn {
    /// Tokens were issued.
    Success,
    /// Wrong username, password or brand, or an inactive user (401).
    Failure,
    /// Refused by the throttle before any check (429).
    Throttled,
}

impl SignIn {
    const ALL: [SignIn; 3] = [SignIn::Success, SignIn::Failure, SignIn::Throttled];

    fn label(self) -> &'static str {
        match self {
            SignIn::Success => "success",
            SignIn::Failure => "failure",
            SignIn::Throttled => "throttled",
        }
    }
}

#[derive(Debug)]
pub struct Metrics {
    requests: Mutex<Routes>,
    sign_ins: [AtomicU64; SignIn::ALL.len()],
    version: &'static str,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            requests: Mutex::default(),
            sign_ins: Default::default(),
            version: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// What the process uses, read from `/proc/self` (Linux; elsewhere nothing is shown).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessStats {
    pub resident_memory_bytes: u64,
    pub virtual_memory_bytes: u64,
    pub cpu_seconds: f64,
    pub open_fds: u64,
    pub max_fds: Option<u64>,
    pub start_time_seconds: f64,
}

impl ProcessStats {
    /// Reads `/proc/self/stat`, `/proc/self/status`, `/proc/self/fd`, `/proc/self/limits` and
    /// the boot time in `/proc/stat`: a few small reads of an in-memory file system, done
    /// when `/metrics` is asked for. `None` where there is no `/proc`.
    pub fn read() -> Option<ProcessStats> {
        // The kernel reports CPU and start times in USER_HZ ticks, 100 a second on Linux
        // (fixed by its user-space interface, whatever the kernel's own tick rate).
        const TICKS_PER_SECOND: f64 = 100.0;
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // The fields after the command name, which is in parentheses and may hold spaces:
        // the third field of the line (state) is the first here.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let field = |number: usize| fields.get(number - 3)?.parse::<u64>().ok();
        let cpu_ticks = field(14)? + field(15)?;
        let start_ticks = field(22)?;
        let virtual_memory_bytes = field(23)?;
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let resident_kib = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())?;
        let boot_time = std::fs::read_to_string("/proc/stat")
            .ok()?
            .lines()
            .find_map(|line| line.strip_prefix("btime "))
            .and_then(|value| value.trim().parse::<u64>().ok())?;
        let open_fds = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
        let max_fds = std::fs::read_to_string("/proc/self/limits")
            .ok()
            .and_then(|limits| {
                limits
                    .lines()
                    .find_map(|line| line.strip_prefix("Max open files"))
                    .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
            });
        Some(ProcessStats {
            resident_memory_bytes: resident_kib * 1024,
            virtual_memory_bytes,
            cpu_seconds: cpu_ticks as f64 / TICKS_PER_SECOND,
            open_fds,
            max_fds,
            start_time_seconds: boot_time as f64 + start_ticks as f64 / TICKS_PER_SECOND,
        })
    }
}

/// A label value as the text format wants it: backslash, quote and newline escaped.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn header(text: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(text, "# HELP {name} {help}");
    let _ = writeln!(text, "# TYPE {name} {kind}");
}

/// The lines of one histogram: cumulative buckets (`counts` are per bucket, the last one
/// beyond every bound), `+Inf`, sum and count. `labels` come first in every line.
fn histogram(
    text: &mut String,
    name: &str,
    labels: &str,
    bounds: &[f64],
    counts: &[u64],
    sum: f64,
) {
    let separator = if labels.is_empty() { "" } else { "," };
    let mut cumulative = 0;
    for (bound, count) in bounds.iter().zip(counts) {
        cumulative += count;
        let _ = writeln!(
            text,
            "{name}_bucket{{{labels}{separator}le=\"{bound}\"}} {cumulative}"
        );
    }
    let total: u64 = counts.iter().sum();
    let _ = writeln!(
        text,
        "{name}_bucket{{{labels}{separator}le=\"+Inf\"}} {total}"
    );
    let braces = |labels: &str| {
        if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        }
    };
    let _ = writeln!(text, "{name}_sum{} {sum}", braces(labels));
    let _ = writeln!(text, "{name}_count{} {total}", braces(labels));
}

/// The methods counted by name; any other (a client may send any token as a method, each one
/// new) is counted as `OTHER`, so the series stay a fixed set whatever clients send.
const KNOWN_METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
];

/// `method` as a label (and in the log): itself when known, else `OTHER`.
pub fn method_label(method: &str) -> &'static str {
    KNOWN_METHODS
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("OTHER")
}

impl Metrics {
    /// Counts one answered request: the one lock, no allocation once this method, route and
    /// status have been seen. The route is a pattern (`/v1/sites/{id}`, `unmatched`) and the
    /// method one of a fixed set, so what is kept does not grow with what clients send.
    pub fn record(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        let method = method_label(method);
        let seconds = elapsed.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|bound| seconds <= *bound)
            .unwrap_or(BUCKETS.len());
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        let mut requests = self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let stats = match requests
            .get_mut(method)
            .and_then(|routes| routes.get_mut(route))
        {
            Some(stats) => stats,
            None => requests
                .entry(method.to_owned())
                .or_default()
                .entry(route.to_owned())
                .or_default(),
        };
        match stats.statuses.get_mut(&status) {
            Some(count) => *count += 1,
            None => {
                stats.statuses.insert(status, 1);
            }
        }
        stats.buckets[bucket] += 1;
        stats.count += 1;
        stats.sum_micros = stats.sum_micros.saturating_add(micros);
    }

    /// Counts one sign-in by how it ended.
    pub fn sign_in(&self, outcome: SignIn) {
        let index = SignIn::ALL
            .iter()
            .position(|known| *known == outcome)
            .unwrap_or_default();
        self.sign_ins[index].fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text exposition format, version 0.0.4: the requests and sign-ins
    /// counted here, `pool` (the database pool now), `process` (when known) and the rating
    /// index's `rating_reloads`.
    pub fn render(
        &self,
        pool: &PoolStatus,
        process: Option<&ProcessStats>,
        rating_reloads: u64,
    ) -> String {
        let mut text = String::new();
        header(
            &mut text,
            "billing_build_info",
            "gauge",
            "The running build: its version (always 1).",
        );
        let _ = writeln!(
            text,
            "billing_build_info{{version=\"{}\"}} 1",
            label(self.version)
        );
        let requests = self
            .requests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        header(
            &mut text,
            "billing_http_requests_total",
            "counter",
            "HTTP requests by method, route and status.",
        );
        for (method, routes) in &requests {
            for (route, stats) in routes {
                let route = label(route);
                for (status, count) in &stats.statuses {
                    let _ = writeln!(
                        text,
                        "billing_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {count}"
                    );
                }
            }
        }
        header(
            &mut text,
            "billing_http_request_duration_seconds",
            "histogram",
            "Time to answer a request, by method and route.",
        );
        for (method, routes) in &requests {
            for (route, stats) in routes {
                histogram(
                    &mut text,
                    "billing_http_request_duration_seconds",
                    &format!("method=\"{method}\",route=\"{}\"", label(route)),
                    &BUCKETS,
                    &stats.buckets,
                    stats.sum_micros as f64 / 1e6,
                );
            }
        }
        header(
            &mut text,
            "billing_sign_ins_total",
            "counter",
            "Sign-ins (POST /v1/authenticate) by outcome: success, failure (wrong credentials or brand, inactive user) or throttled (429).",
        );
        for (outcome, count) in SignIn::ALL.iter().zip(&self.sign_ins) {
            let _ = writeln!(
                text,
                "billing_sign_ins_total{{outcome=\"{}\"}} {}",
                outcome.label(),
                count.load(Ordering::Relaxed)
            );
        }
        header(
            &mut text,
            "billing_rating_index_reloads_total",
            "counter",
            "Times the rating index was loaded again whole: a feed import, a change it could not apply in place, a full source, an idle follower. Writes through the API are applied in place.",
        );
        let _ = writeln!(text, "billing_rating_index_reloads_total {rating_reloads}");
        self.render_pool(&mut text, pool);
        if let Some(process) = process {
            render_process(&mut text, process);
        }
        text
    }

    fn render_pool(&self, text: &mut String, pool: &PoolStatus) {
        header(
            text,
            "billing_db_pool_max_connections",
            "gauge",
            "The most database connections the pool keeps (BILLING_DB_POOL_SIZE).",
        );
        let _ = writeln!(
            text,
            "billing_db_pool_max_connections {}",
            pool.max_connections
        );
        header(
            text,
            "billing_db_pool_connections",
            "gauge",
            "Open database connections: in use (held by a request or task) or idle.",
        );
        let in_use = pool.connections.saturating_sub(pool.idle_connections);
        let _ = writeln!(
            text,
            "billing_db_pool_connections{{state=\"in_use\"}} {in_use}"
        );
        let _ = writeln!(
            text,
            "billing_db_pool_connections{{state=\"idle\"}} {}",
            pool.idle_connections
        );
        header(
            text,
            "billing_db_pool_wait_seconds",
            "histogram",
            "Time each checkout of a database connection took: microseconds when one was idle, longer when it waited for one.",
        );
        histogram(
            text,
            "billing_db_pool_wait_seconds",
            "",
            &CHECKOUT_BUCKETS,
            &pool.checkout_buckets,
            pool.checkout_wait_seconds,
        );
        header(
            text,
            "billing_db_pool_timeouts_total",
            "counter",
            "Checkouts that found no connection within the timeout (the request failed with 503).",
        );
        let _ = writeln!(text, "billing_db_pool_timeouts_total {}", pool.timeouts);
    }
}

fn render_process(text: &mut String, process: &ProcessStats) {
    let gauges = [
        (
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory size in bytes.",
            process.resident_memory_bytes as f64,
        ),
        (
            "process_virtual_memory_bytes",
            "gauge",
            "Virtual memory size in bytes.",
            process.virtual_memory_bytes as f64,
        ),
        (
            "process_cpu_seconds_total",
            "counter",
            "User and system CPU time spent, in seconds.",
            process.cpu_seconds,
        ),
        (
            "process_open_fds",
            "gauge",
            "Open file descriptors.",
            process.open_fds as f64,
        ),
    ];
    for (name, kind, help, value) in gauges {
        header(text, name, kind, help);
        let _ = writeln!(text, "{name} {value}");
    }
    if let Some(max_fds) = process.max_fds {
        header(
            text,
            "process_max_fds",
            "gauge",
            "The most file descriptors the process may open.",
        );
        let _ = writeln!(text, "process_max_fds {max_fds}");
    }
    header(
        text,
        "process_start_time_seconds",
        "gauge",
        "Start time of the process since the Unix epoch, in seconds.",
    );
    let _ = writeln!(
        text,
        "process_start_time_seconds {}",
        process.start_time_seconds
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_every_family() {
        let metrics = Metrics::default();
        let by_id = "/v1/charge-groups/{id}";
        metrics.record("GET", by_id, 200, Duration::from_millis(3));
        metrics.record("GET", by_id, 200, Duration::from_millis(30));
        metrics.record("GET", by_id, 404, Duration::from_micros(400));
        metrics.record("POST", "/v1/charge-groups", 201, Duration::from_secs(3));
        metrics.sign_in(SignIn::Success);
        metrics.sign_in(SignIn::Failure);
        metrics.sign_in(SignIn::Failure);
        metrics.sign_in(SignIn::Throttled);
        let pool = PoolStatus {
            max_connections: 4,
            connections: 3,
            idle_connections: 2,
            checkout_buckets: [40, 2, 1, 0, 0, 0, 0],
            checkout_wait_seconds: 0.0125,
            timeouts: 0,
        };
        let process = ProcessStats {
            resident_memory_bytes: 25_165_824,
            virtual_memory_bytes: 1_073_741_824,
            cpu_seconds: 1.25,
            open_fds: 17,
            max_fds: Some(1024),
            start_time_seconds: 1_795_000_000.5,
        };
        let text = metrics
            .render(&pool, Some(&process), 3)
            .replace(env!("CARGO_PKG_VERSION"), "[version]");
        insta::assert_snapshot!(text, @r#"
        # HELP billing_build_info The running build: its version (always 1).
        # TYPE billing_build_info gauge
        billing_build_info{version="[version]"} 1
        # HELP billing_http_requests_total HTTP requests by method, route and status.
        # TYPE billing_http_requests_total counter
        billing_http_requests_total{method="GET",route="/v1/charge-groups/{id}",status="200"} 2
        billing_http_requests_total{method="GET",route="/v1/charge-groups/{id}",status="404"} 1
        billing_http_requests_total{method="POST",route="/v1/charge-groups",status="201"} 1
        # HELP billing_http_request_duration_seconds Time to answer a request, by method and route.
        # TYPE billing_http_request_duration_seconds histogram
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.001"} 1
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.0025"} 1
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.005"} 2
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.01"} 2
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.025"} 2
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.05"} 3
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.1"} 3
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.25"} 3
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="0.5"} 3
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="1"} 3
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="2.5"} 3
        billing_http_request_duration_seconds_bucket{method="GET",route="/v1/charge-groups/{id}",le="+Inf"} 3
        billing_http_request_duration_seconds_sum{method="GET",route="/v1/charge-groups/{id}"} 0.0334
        billing_http_request_duration_seconds_count{method="GET",route="/v1/charge-groups/{id}"} 3
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.001"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.0025"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.005"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.01"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.025"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.05"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.1"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.25"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="0.5"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="1"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="2.5"} 0
        billing_http_request_duration_seconds_bucket{method="POST",route="/v1/charge-groups",le="+Inf"} 1
        billing_http_request_duration_seconds_sum{method="POST",route="/v1/charge-groups"} 3
        billing_http_request_duration_seconds_count{method="POST",route="/v1/charge-groups"} 1
        # HELP billing_sign_ins_total Sign-ins (POST /v1/authenticate) by outcome: success, failure (wrong credentials or brand, inactive user) or throttled (429).
        # TYPE billing_sign_ins_total counter
        billing_sign_ins_total{outcome="success"} 1
        billing_sign_ins_total{outcome="failure"} 2
        billing_sign_ins_total{outcome="throttled"} 1
        # HELP billing_rating_index_reloads_total Times the rating index was loaded again whole: a feed import, a change it could not apply in place, a full source, an idle follower. Writes through the API are applied in place.
        # TYPE billing_rating_index_reloads_total counter
        billing_rating_index_reloads_total 3
        # HELP billing_db_pool_max_connections The most database connections the pool keeps (BILLING_DB_POOL_SIZE).
        # TYPE billing_db_pool_max_connections gauge
        billing_db_pool_max_connections 4
        # HELP billing_db_pool_connections Open database connections: in use (held by a request or task) or idle.
        # TYPE billing_db_pool_connections gauge
        billing_db_pool_connections{state="in_use"} 1
        billing_db_pool_connections{state="idle"} 2
        # HELP billing_db_pool_wait_seconds Time each checkout of a database connection took: microseconds when one was idle, longer when it waited for one.
        # TYPE billing_db_pool_wait_seconds histogram
        billing_db_pool_wait_seconds_bucket{le="0.0001"} 40
        billing_db_pool_wait_seconds_bucket{le="0.001"} 42
        billing_db_pool_wait_seconds_bucket{le="0.01"} 43
        billing_db_pool_wait_seconds_bucket{le="0.1"} 43
        billing_db_pool_wait_seconds_bucket{le="1"} 43
        billing_db_pool_wait_seconds_bucket{le="5"} 43
        billing_db_pool_wait_seconds_bucket{le="+Inf"} 43
        billing_db_pool_wait_seconds_sum 0.0125
        billing_db_pool_wait_seconds_count 43
        # HELP billing_db_pool_timeouts_total Checkouts that found no connection within the timeout (the request failed with 503).
        # TYPE billing_db_pool_timeouts_total counter
        billing_db_pool_timeouts_total 0
        # HELP process_resident_memory_bytes Resident memory size in bytes.
        # TYPE process_resident_memory_bytes gauge
        process_resident_memory_bytes 25165824
        # HELP process_virtual_memory_bytes Virtual memory size in bytes.
        # TYPE process_virtual_memory_bytes gauge
        process_virtual_memory_bytes 1073741824
        # HELP process_cpu_seconds_total User and system CPU time spent, in seconds.
        # TYPE process_cpu_seconds_total counter
        process_cpu_seconds_total 1.25
        # HELP process_open_fds Open file descriptors.
        # TYPE process_open_fds gauge
        process_open_fds 17
        # HELP process_max_fds The most file descriptors the process may open.
        # TYPE process_max_fds gauge
        process_max_fds 1024
        # HELP process_start_time_seconds Start time of the process since the Unix epoch, in seconds.
        # TYPE process_start_time_seconds gauge
        process_start_time_seconds 1795000000.5
        "#);
    }

    #[test]
    fn invented_methods_share_one_series() {
        let metrics = Metrics::default();
        for index in 0..1000 {
            let invented = format!("X{index}{}", "Y".repeat(1000));
            metrics.record(&invented, "/health/live", 405, Duration::from_micros(50));
        }
        metrics.record("GET", "/health/live", 200, Duration::from_micros(50));
        let requests = metrics.requests.lock().expect("lock");
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["GET", "OTHER"]);
        assert_eq!(requests["OTHER"]["/health/live"].statuses[&405], 1000);
    }

    #[test]
    fn the_process_is_read_from_proc_on_linux() {
        if cfg!(target_os = "linux") {
            let process = ProcessStats::read().expect("/proc/self");
            assert!(process.resident_memory_bytes > 0 && process.open_fds > 0);
            assert!(process.start_time_seconds > 1.6e9);
        }
    }
}
