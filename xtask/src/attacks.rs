//! `cargo xtask attacks [--debug]`: the attacks of issue 19 against the real binary, on SQLite
//! and PostgreSQL, with the server's resident memory read from `/proc` before and after
//! (docs/testing.md). Each must be refused with a 4xx problem+json, the server must stay up,
//! and its memory must come back to within `ATTACKS_RSS_SLACK_MIB` (64) of where it started:
//!
//! - a JSON Patch that doubles the document with `copy` 24 times (gigabytes, once), and one
//!   that doubles its nesting with each `copy` (6,400 levels overflowed a worker's stack);
//! - a rating lookup of 3,000,000 items (9 MB: 413) and one of 2,700,000 (just under the
//!   route's 8 MiB: read no further than item 10,001);
//! - a body trickled slower than `BILLING_BODY_TIMEOUT_SECONDS` (408);
//! - a 200 KiB header (431), a 9 KiB request target (414) and 10,000 query parameters (414);
//! - two administrators deactivating each other at the same moment, 15 times: one always
//!   remains;
//! - 48 rating lookups of just under 8 MiB sent at the same moment: the bodies being read
//!   stay within `BILLING_BODY_MEMORY_BYTES` (set to 64 MiB here), so resident memory may
//!   grow by at most that and the slack while they run (without the budget: 384 MiB);
//! - 200 replays of a create answered with 1 MB, sent at once by clients that read nothing
//!   (`unread_replays`): the answers stay within the same budget;
//! - after each burst, resident memory comes back to within 24 MiB (the lookups) or 48 MiB (the
//!   replays) of where the burst began in 5 seconds: the server gives back what its allocator
//!   holds free (`billing_server::memory`).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::hostile::{self, ADMIN_PASSWORD, Backend, Common};
use crate::http_client::{Client, Response, json_id};
use crate::server::{Server, sign_in, sign_in_as};

mod unread_replays;

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let binary = common.binary()?;
    let slack = hostile::env_number("ATTACKS_RSS_SLACK_MIB", 64)?;
    let mut failures = Vec::new();
    for backend in Backend::available()? {
        eprintln!("== attacks: {}", backend.name());
        hostile::fresh_log("attacks", &backend)?;
        let database = backend.scratch_database("attacks")?;
        let server = hostile::start_server(
            &binary,
            "attacks",
            &backend,
            database.as_ref(),
            None,
            &[
                ("BILLING_BODY_TIMEOUT_SECONDS", "2"),
                (
                    "BILLING_BODY_MEMORY_BYTES",
                    &(BODY_MEMORY_MIB << 20).to_string(),
                ),
            ],
        )?;
        match attack(&server, slack) {
            Ok(summary) => eprintln!("attacks {}: passed: {summary}", backend.name()),
            Err(message) => failures.push(format!("{}: {message}", backend.name())),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// The server's resident memory in MiB.
pub(crate) fn resident_mib(server: &Server) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid()))
        .map_err(|e| format!("the server is gone: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse::<u64>().ok())
        .map(|kib| kib / 1024)
        .ok_or_else(|| "no VmRSS in /proc".to_owned())
}

/// `response` is a problem+json answer of `status`.
fn refused(response: Response, status: u16, what: &str) -> Result<(), String> {
    if response.status != status {
        return Err(format!(
            "{what}: {} instead of {status}: {}",
            response.status,
            &response.body[..response.body.len().min(300)]
        ));
    }
    if response.header("content-type") != Some("application/problem+json") {
        return Err(format!("{what}: not problem+json: {:?}", response.headers));
    }
    Ok(())
}

fn attack(server: &Server, slack: u64) -> Result<String, String> {
    let address = server.address;
    let token = sign_in(address, ADMIN_PASSWORD)?;
    let mut client = Client::new(address);
    let started_at = resident_mib(server)?;
    let mut peak = started_at;

    // A patch that doubles its document 24 times.
    let category = client
        .send(
            "POST",
            "/v1/charge-group-categories",
            Some(&token),
            Some(r#"{"name":"Calls","chargingUnitType":"DURATION","startDate":"2026-01-01"}"#),
        )?
        .expect_status(201, "POST /v1/charge-group-categories")?;
    let category = json_id(&category.body)?;
    let group = client
        .send(
            "POST",
            "/v1/charge-groups",
            Some(&token),
            Some(&format!(
                r#"{{"name":"G","chargeGroupCategoryId":{category},"startDate":"2026-01-01"}}"#
            )),
        )?
        .expect_status(201, "POST /v1/charge-groups")?;
    let group = json_id(&group.body)?;
    let mut operations = vec![format!(
        r#"{{"op":"add","path":"/zz","value":["{}"]}}"#,
        "x".repeat(1000)
    )];
    operations.extend((0..24).map(|_| r#"{"op":"copy","from":"/zz","path":"/zz/-"}"#.to_owned()));
    operations.push(r#"{"op":"remove","path":"/zz"}"#.to_owned());
    let patch = format!("[{}]", operations.join(","));
    let answer = client.send_with_type(
        "PATCH",
        &format!("/v1/charge-groups/{group}"),
        Some(&token),
        Some(&patch),
        "application/json-patch+json",
    )?;
    refused(answer, 400, "the doubling patch")?;
    peak = peak.max(resident_mib(server)?);

    // A patch that doubles its document's nesting with each copy: 6,400 levels overflowed a
    // worker's stack and aborted the process.
    let mut operations = vec![format!(
        r#"{{"op":"add","path":"/zz","value":{}{}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    )];
    let mut levels = 100;
    while levels < 6400 {
        operations.push(format!(
            r#"{{"op":"copy","from":"/zz","path":"/zz{}"}}"#,
            "/0".repeat(levels)
        ));
        levels *= 2;
    }
    let answer = client.send_with_type(
        "PATCH",
        &format!("/v1/charge-groups/{group}"),
        Some(&token),
        Some(&format!("[{}]", operations.join(","))),
        "application/json-patch+json",
    )?;
    refused(answer, 400, "the nesting patch")?;

    // Rating bodies of millions of items.
    let answer = client.send(
        "POST",
        "/v1/rating/lookups",
        Some(&token),
        Some(&rating_body(3_000_000)),
    )?;
    refused(answer, 413, "3,000,000 rating items (9 MB)")?;
    let started = Instant::now();
    let answer = client.send(
        "POST",
        "/v1/rating/lookups",
        Some(&token),
        Some(&rating_body(2_700_000)),
    )?;
    let took = started.elapsed();
    refused(answer, 400, "2,700,000 rating items")?;
    peak = peak.max(resident_mib(server)?);

    // A trickled body, a huge head, long targets.
    trickled(address, &token)?;
    let filler = "z".repeat(200 * 1024);
    refused(
        Client::new(address).send_raw(
            "GET",
            "/v1/currencies?page=1&pageSize=1",
            &[("X-Filler", &filler)],
            None,
        )?,
        431,
        "a 200 KiB header",
    )?;
    let long = format!(
        "/v1/currencies?page=1&pageSize=1&code={}",
        "x".repeat(9 * 1024)
    );
    refused(
        Client::new(address).send("GET", &long, Some(&token), None)?,
        414,
        "a 9 KiB request target",
    )?;
    let query: String = (0..10_000).map(|n| format!("p{n}=1&")).collect();
    refused(
        Client::new(address).send(
            "GET",
            &format!("/v1/currencies?{query}"),
            Some(&token),
            None,
        )?,
        414,
        "10,000 query parameters",
    )?;

    let remaining_administrator = administrators_race(address, &token)?;

    let live = Client::new(address).send("GET", "/health/live", None, None)?;
    live.expect_status(200, "/health/live after the attacks")?;
    let ended_at = resident_mib(server)?;
    if ended_at > started_at + slack {
        return Err(format!(
            "resident memory grew from {started_at} MiB to {ended_at} MiB (peak {peak} MiB) and stayed"
        ));
    }
    // Measured on their own, last: what many bodies at once leave is kept for the next ones.
    let burst = bursts_of_bodies(server, &remaining_administrator, slack)?;
    let replays = unread_replays::unread_replays(server, &remaining_administrator, slack)?;
    Ok(format!(
        "resident memory {started_at} MiB before, {peak} MiB at most, {ended_at} MiB after; \
         2,700,000 rating items refused in {:.0} ms; {burst}; {replays}",
        took.as_secs_f64() * 1000.0
    ))
}

/// Two bursts of 48 rating lookups of 8 MiB at once: during each, resident memory grows by
/// at most the body budget and the slack; the second takes no more than the first left (the
/// allocator keeps what concurrent bodies used for the next ones, within the budget).
fn bursts_of_bodies(server: &Server, token: &str, slack: u64) -> Result<String, String> {
    let before = resident_mib(server)?;
    let first = bodies_at_once(server, token)?;
    let between = resident_mib(server)?;
    let second = bodies_at_once(server, token)?;
    let after = resident_mib(server)?;
    for (during, from) in [(first, before), (second, between)] {
        if during > from + BODY_MEMORY_MIB + slack {
            return Err(format!(
                "48 rating lookups of 8 MiB at once took resident memory from {from} MiB to \
                 {during} MiB (the body budget is {BODY_MEMORY_MIB} MiB)"
            ));
        }
    }
    if after > between + slack / 4 {
        return Err(format!(
            "a second burst of 48 lookups kept more: {between} MiB after the first, {after} MiB after the second"
        ));
    }
    // Measured: 12 to 14 MiB above `before` a second later; 35 MiB for good without giving back.
    let settled = given_back(
        server,
        before,
        24,
        "48 rating lookups of 8 MiB at once, twice",
    )?;
    Ok(format!(
        "48 lookups of 8 MiB at once, twice: {before} MiB before, {first} and {second} MiB at most, \
         {after} MiB just after, {settled}"
    ))
}

/// Resident memory comes back to within `kept` MiB of `before` in 5 seconds (the server looks
/// once a second and gives back what its allocator holds free once that grows by 16 MiB,
/// `billing_server::memory`): what it was then, and how long it took. `kept` also covers what
/// cannot be given back (free blocks smaller than a page, connections still closing).
pub(crate) fn given_back(
    server: &Server,
    before: u64,
    kept: u64,
    what: &str,
) -> Result<String, String> {
    let started = Instant::now();
    loop {
        let now = resident_mib(server)?;
        if now <= before + kept {
            return Ok(format!(
                "{now} MiB {:.1} s later",
                started.elapsed().as_secs_f64()
            ));
        }
        if started.elapsed() > Duration::from_secs(5) {
            return Err(format!(
                "after {what}, resident memory stayed at {now} MiB for 5 s ({before} MiB before, \
                 {kept} MiB more allowed): the allocator kept what the burst freed"
            ));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// A body that never finishes arriving is 408 once `BILLING_BODY_TIMEOUT_SECONDS` (2) pass.
fn trickled(address: SocketAddr, token: &str) -> Result<(), String> {
    let mut stream = TcpStream::connect(address).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .map_err(|e| e.to_string())?;
    let head = format!(
        "POST /v1/charge-group-categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"name\":"
    );
    stream
        .write_all(head.as_bytes())
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    if !answer.starts_with("HTTP/1.1 408") || started.elapsed() > Duration::from_secs(10) {
        return Err(format!(
            "a trickled body: after {:?}: {}",
            started.elapsed(),
            &answer[..answer.len().min(200)]
        ));
    }
    Ok(())
}

/// Two administrators deactivate each other at the same moment, 15 times; one always remains
/// (its token is given back).
fn administrators_race(address: SocketAddr, admin_token: &str) -> Result<String, String> {
    let mut keeper = admin_token.to_owned();
    let mut client = Client::new(address);
    let me = client
        .send(
            "GET",
            "/v1/users?page=1&pageSize=1&username=admin",
            Some(admin_token),
            None,
        )?
        .expect_status(200, "the admin user")?;
    let mut keeper_id = json_id(&me.body)?;
    let deactivate = r#"[{"op":"replace","path":"/active","value":false}]"#;
    for trial in 0..15 {
        let mut admins = Vec::new();
        for name in ["x", "y"] {
            let username = format!("admin-{name}-{trial}");
            let created = client.send("POST", "/v1/users", Some(&keeper), Some(&format!(
                r#"{{"username":"{username}","password":"{ADMIN_PASSWORD}","roles":["ADMINISTRATOR"]}}"#)))?
                .expect_status(201, "POST /v1/users")?;
            admins.push((
                json_id(&created.body)?,
                sign_in_as(address, &username, ADMIN_PASSWORD)?,
            ));
        }
        client
            .send_with_type(
                "PATCH",
                &format!("/v1/users/{keeper_id}"),
                Some(&admins[0].1),
                Some(deactivate),
                "application/json-patch+json",
            )?
            .expect_status(200, "handing over")?;
        let barrier = std::sync::Barrier::new(2);
        let statuses: Vec<Result<u16, String>> = std::thread::scope(|scope| {
            let racers: Vec<_> = [(0, 1), (1, 0)]
                .into_iter()
                .map(|(me, other)| {
                    let (barrier, admins) = (&barrier, &admins);
                    scope.spawn(move || {
                        let mut client = Client::new(address);
                        barrier.wait();
                        client
                            .send_with_type(
                                "PATCH",
                                &format!("/v1/users/{}", admins[other].0),
                                Some(&admins[me].1),
                                Some(deactivate),
                                "application/json-patch+json",
                            )
                            .map(|r| r.status)
                    })
                })
                .collect();
            racers
                .into_iter()
                .map(|racer| {
                    racer
                        .join()
                        .unwrap_or_else(|_| Err("a racer panicked".into()))
                })
                .collect()
        });
        let statuses: Vec<u16> = statuses.into_iter().collect::<Result<_, _>>()?;
        if statuses.iter().filter(|status| **status == 200).count() != 1 {
            return Err(format!(
                "trial {trial}: administrators deactivating each other answered {statuses:?}"
            ));
        }
        // x deactivated y when the first racer won: x remains, and hands over next time.
        let remaining = if statuses[0] == 200 {
            &admins[0]
        } else {
            &admins[1]
        };
        keeper_id = remaining.0;
        keeper = remaining.1.clone();
    }
    Ok(keeper)
}

/// A rating lookup of `items` empty items (2,700,000: just under the route's 8 MiB).
fn rating_body(items: usize) -> String {
    format!(
        r#"{{"referenceDataSourceId":1,"items":[{}{{}}]}}"#,
        "{},".repeat(items - 1)
    )
}

/// The body budget of the attacked server, in MiB.
const BODY_MEMORY_MIB: u64 = 64;

/// Sends 48 rating lookups of just under 8 MiB at the same moment (each refused at item
/// 10,001 once read, or 503 when it got no turn within the body timeout) while reading the
/// server's resident memory every 5 ms: the most seen.
fn bodies_at_once(server: &Server, token: &str) -> Result<u64, String> {
    let body = std::sync::Arc::new(rating_body(2_700_001));
    let done = std::sync::atomic::AtomicBool::new(false);
    let barrier = std::sync::Barrier::new(48);
    std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut most = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(resident_mib(server).unwrap_or(0));
                std::thread::sleep(Duration::from_millis(5));
            }
            most
        });
        let senders: Vec<_> = (0..48)
            .map(|_| {
                let (body, barrier) = (std::sync::Arc::clone(&body), &barrier);
                scope.spawn(move || {
                    let mut client = Client::new(server.address);
                    barrier.wait();
                    client
                        .send("POST", "/v1/rating/lookups", Some(token), Some(&body))
                        .and_then(|answer| {
                            // 503 for a body that got no turn within the body timeout (2 s).
                            let status = if answer.status == 503 { 503 } else { 400 };
                            refused(answer, status, "one of 48 lookups at once")
                        })
                })
            })
            .collect();
        let outcomes: Vec<Result<(), String>> = senders
            .into_iter()
            .map(|sender| {
                sender
                    .join()
                    .unwrap_or_else(|_| Err("a sender panicked".into()))
            })
            .collect();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let most = sampler
            .join()
            .map_err(|_| "the sampler panicked".to_owned())?;
        outcomes.into_iter().collect::<Result<Vec<()>, String>>()?;
        Ok(most)
    })
}
