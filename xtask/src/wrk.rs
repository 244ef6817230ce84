//! wrk, the load generator: running it with a Lua script and reading its report.

use std::path::{Path, PathBuf};

use crate::server::fresh_temp_dir;
use std::process::{Child, Command, Stdio};

/// wrk's `--timeout`: long enough that slow responses are measured. With wrk's default (2 s)
/// a response that takes longer is counted as a timeout and left out of the latency
/// distribution, so the p99 of a slow scenario would read as just under 2 s.
pub(crate) const WRK_TIMEOUT: &str = "--timeout=30s";

/// One wrk run: `taskset -c 1 wrk -t1 -c<connections> -d<seconds>s --latency --timeout=30s …`.
pub(crate) struct Wrk {
    pub(crate) url: String,
    pub(crate) connections: u32,
    pub(crate) extra: Vec<String>,
}

impl Wrk {
    /// GETs `url`, with the bearer token when given.
    pub(crate) fn get(url: &str, connections: u32, token: Option<&str>) -> Self {
        let extra = token.map_or_else(Vec::new, |token| {
            vec!["-H".to_owned(), format!("Authorization: Bearer {token}")]
        });
        Self {
            url: url.to_owned(),
            connections,
            extra,
        }
    }

    /// Sends what the Lua `script` says to `url`.
    pub(crate) fn script(url: &str, connections: u32, script: &Path) -> Self {
        Self {
            url: url.to_owned(),
            connections,
            extra: vec!["-s".to_owned(), script.display().to_string()],
        }
    }

    pub(crate) fn command(&self, seconds: u64) -> Command {
        let mut command = Command::new("/usr/bin/taskset");
        command
            .args(["-c", "1", "wrk", "-t1"])
            .arg(format!("-c{}", self.connections))
            .arg(format!("-d{seconds}s"))
            .arg("--latency")
            .arg(WRK_TIMEOUT)
            .args(&self.extra)
            .arg(&self.url)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    pub(crate) fn spawn(&self, seconds: u64) -> Result<Child, String> {
        self.command(seconds)
            .spawn()
            .map_err(|e| format!("could not start wrk: {e}"))
    }

    pub(crate) fn measure(&self, seconds: u64) -> Result<WrkFigures, String> {
        finish_wrk(self.spawn(seconds)?)
    }
}

/// Waits for a wrk run, echoes its output and parses it.
pub(crate) fn finish_wrk(child: Child) -> Result<WrkFigures, String> {
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    eprint!("{stdout}");
    if !output.status.success() {
        return Err(format!(
            "wrk failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    parse_wrk_output(&stdout)
}

/// The figures taken from wrk's report. Latencies stay as wrk prints them (`1.23ms`).
#[derive(Debug, PartialEq)]
pub(crate) struct WrkFigures {
    pub(crate) requests: u64,
    pub(crate) requests_per_second: f64,
    pub(crate) p50: String,
    pub(crate) p99: String,
    pub(crate) non_2xx: u64,
    pub(crate) socket_errors: Option<String>,
    /// `(status, count)` from `Status NNN: count` lines, which only the flood's script prints.
    pub(crate) statuses: Vec<(u16, u64)>,
}

/// Reads `N requests in`, `Requests/sec:`, the 50 % and 99 % lines of `--latency`, `Non-2xx or 3xx responses:`
/// (absent when there were none) and `Socket errors:` (absent when there were none).
pub(crate) fn parse_wrk_output(output: &str) -> Result<WrkFigures, String> {
    let mut requests = None;
    let mut requests_per_second = None;
    let (mut p50, mut p99) = (None, None);
    let mut non_2xx = 0;
    let mut socket_errors = None;
    let mut statuses = Vec::new();
    for line in output.lines().map(str::trim) {
        if let Some(value) = line.strip_prefix("Requests/sec:") {
            requests_per_second = value.trim().parse::<f64>().ok();
        } else if let Some(value) = line.strip_prefix("50%") {
            p50 = Some(value.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("99%") {
            p99 = Some(value.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("Non-2xx or 3xx responses:") {
            non_2xx = value
                .trim()
                .parse()
                .map_err(|_| format!("wrk: unreadable line {line:?}"))?;
        } else if let Some(value) = line.strip_prefix("Socket errors:") {
            socket_errors = Some(value.trim().to_owned());
        } else if let Some(status) = line.strip_prefix("Status ") {
            statuses.push(parse_status_count(status)?);
        } else if let Some((count, _)) = line.split_once(" requests in ") {
            requests = count.parse::<u64>().ok();
        }
    }
    match (requests, requests_per_second, p50, p99) {
        (Some(requests), Some(requests_per_second), Some(p50), Some(p99)) => Ok(WrkFigures {
            requests,
            requests_per_second,
            p50,
            p99,
            non_2xx,
            socket_errors,
            statuses,
        }),
        _ => Err(format!("could not read wrk's report:\n{output}")),
    }
}

/// `401: 17` as `(401, 17)`.
pub(crate) fn parse_status_count(text: &str) -> Result<(u16, u64), String> {
    text.split_once(':')
        .and_then(|(status, count)| Some((status.trim().parse().ok()?, count.trim().parse().ok()?)))
        .ok_or_else(|| format!("wrk: unreadable status line {text:?}"))
}

/// The flood's script: wrong passwords, for `admin` half of the time and a random username
/// the other half (so both the per-username and the per-address limits are exercised).
pub(crate) const SIGN_IN_FLOOD_SCRIPT: &str = r#"wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  local username = "admin"
  if math.random() < 0.5 then
    username = "bench-user-" .. math.random(1, 1000000000)
  end
  local body = '{"username":"' .. username .. '","password":"not-the-password-at-all"}'
  return wrk.format(nil, nil, nil, body)
end
"#;

/// Appended to every script: seeds `math.random` per thread, counts the statuses and prints
/// `Status NNN: count` lines at the end, because wrk itself only says how many were not 2xx
/// (and a 409 or a 503 should not pass for the expected 401 or 429). Scripted scenarios only:
/// a Lua `response` per request would cost the plain GETs' wrk a little.
pub(crate) const STATUS_COUNTING_SCRIPT: &str = r#"
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  math.randomseed(os.time() + os.clock() * 1000000)
  statuses = {}
end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      io.write(string.format("Status %d: %d\n", status, count))
    end
  end
end
"#;

/// The flood's whole script.
pub(crate) fn flood_script() -> String {
    format!("{SIGN_IN_FLOOD_SCRIPT}{STATUS_COUNTING_SCRIPT}")
}

/// A wrk script sending `body` with `method`, its content type and the bearer token.
pub(crate) fn body_script(
    method: &str,
    content_type: &str,
    body: &str,
    token: Option<&str>,
) -> String {
    let mut script = format!(
        "wrk.method = \"{method}\"\nwrk.body = {}\nwrk.headers[\"Content-Type\"] = \"{content_type}\"\n",
        lua_string(body)
    );
    if let Some(token) = token {
        script.push_str(&format!(
            "wrk.headers[\"Authorization\"] = \"Bearer {token}\"\n"
        ));
    }
    script.push_str(STATUS_COUNTING_SCRIPT);
    script
}

/// `text` as a Lua long string literal (no escapes needed inside): its level is chosen so that
/// no `]=…=]` in the text, nor a `]` ending it, closes the literal early.
pub(crate) fn lua_string(text: &str) -> String {
    let mut level = String::new();
    while format!("{text}]").contains(&format!("]{level}]")) {
        level.push('=');
    }
    format!("[{level}[{text}]{level}]")
}

/// A temporary directory for the wrk scripts, removed when dropped.
pub(crate) struct ScriptDir(pub(crate) PathBuf);

impl ScriptDir {
    pub(crate) fn new() -> Result<Self, String> {
        fresh_temp_dir().map(Self)
    }

    pub(crate) fn write(&self, name: &str, text: &str) -> Result<PathBuf, String> {
        let path = self.0.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}

impl Drop for ScriptDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRK_REPORT: &str = "Running 10s test @ http://127.0.0.1:8080/health/live
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.17ms  301.21us  10.05ms   91.02%
    Req/Sec    27.69k     1.33k   29.91k    72.00%
  Latency Distribution
     50%    1.12ms
     75%    1.22ms
     90%    1.39ms
     99%    2.20ms
  275568 requests in 10.00s, 26.81MB read
  Socket errors: connect 0, read 0, write 0, timeout 3
  Non-2xx or 3xx responses: 12
Requests/sec:  27550.41
Status 429: 10
Status 401: 2
Transfer/sec:      2.68MB
";

    #[test]
    pub(crate) fn reads_wrk_report() {
        assert_eq!(
            parse_wrk_output(WRK_REPORT).unwrap(),
            WrkFigures {
                requests: 275568,
                requests_per_second: 27550.41,
                p50: "1.12ms".to_owned(),
                p99: "2.20ms".to_owned(),
                non_2xx: 12,
                socket_errors: Some("connect 0, read 0, write 0, timeout 3".to_owned()),
                statuses: vec![(429, 10), (401, 2)],
            }
        );
    }

    #[test]
    pub(crate) fn no_non_2xx_line_means_none() {
        let report = WRK_REPORT.replace("  Non-2xx or 3xx responses: 12\n", "");
        assert_eq!(parse_wrk_output(&report).unwrap().non_2xx, 0);
    }

    #[test]
    pub(crate) fn a_report_without_latencies_is_an_error() {
        assert!(parse_wrk_output("  10 requests in 1.00s, 1MB read\nRequests/sec: 10\n").is_err());
    }

    #[test]
    fn lua_strings_need_no_escapes() {
        assert_eq!(lua_string(r#"[{"op":"x"}]"#), r#"[=[[{"op":"x"}]]=]"#);
        assert_eq!(lua_string("{}"), "[[{}]]");
    }
}
