//! `cargo xtask crash [--debug]`: SIGKILL during concurrent writes, then restart and check
//! that every acknowledged write is there and the database is sound, on SQLite and
//! PostgreSQL (docs/testing.md).
//!
//! Each cycle starts the server on the same data directory (SQLite) or database
//! (PostgreSQL), checks everything acknowledged so far, then lets `WRITERS` threads create
//! charge groups (and patch the ones they made) as fast as they can and kills the server with
//! SIGKILL while they do. A write counts as acknowledged when a 2xx arrived; one in flight at
//! the kill may or may not be there. After the last cycle: every acknowledged charge group is
//! there with its last acknowledged name (or the one in flight), the list's total, the audit
//! trail's CREATE events and the table's own count agree, and SQLite's `PRAGMA
//! integrity_check` says ok (PostgreSQL: every row reads, `amcheck` when installed).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::hostile::{self, ADMIN_PASSWORD, Backend, Common};
use crate::http_client::{Client, json_id};
use crate::server::{ScratchDatabase, Server, sign_in};

/// Threads writing at once.
const WRITERS: usize = 4;

/// What a writer knows of one charge group it made: the name last acknowledged, and one sent
/// whose answer never came (it may or may not have been written).
#[derive(Clone, Debug)]
struct Known {
    acknowledged: String,
    in_flight: Option<String>,
}

/// Every charge group acknowledged so far, by id, plus creates whose answer never came.
#[derive(Default)]
struct Ledger {
    groups: BTreeMap<u64, Known>,
    unanswered_creates: usize,
    acknowledged_writes: usize,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let cycles = hostile::env_number("CRASH_CYCLES", 5)?;
    let binary = common.binary()?;
    let mut failures = Vec::new();
    for backend in Backend::available()? {
        let started = Instant::now();
        match crash_backend(&binary, &backend, cycles) {
            Ok(summary) => eprintln!(
                "crash {}: passed in {:.0} s: {summary}",
                backend.name(),
                started.elapsed().as_secs_f64()
            ),
            Err(message) => failures.push(format!("{}: {message}", backend.name())),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn crash_backend(
    binary: &std::path::Path,
    backend: &Backend,
    cycles: u64,
) -> Result<String, String> {
    eprintln!("== crash: {}", backend.name());
    hostile::fresh_log("crash", backend)?;
    let database = backend.scratch_database("crash")?;
    let data_dir = crate::server::fresh_temp_dir()?;
    let result = cycles_on(binary, backend, database.as_ref(), &data_dir, cycles);
    let _ = std::fs::remove_dir_all(&data_dir);
    result
}

fn start(
    binary: &std::path::Path,
    backend: &Backend,
    database: Option<&ScratchDatabase>,
    data_dir: &std::path::Path,
) -> Result<Server, String> {
    hostile::start_server(
        binary,
        "crash",
        backend,
        database,
        Some(data_dir.to_path_buf()),
        &[],
    )
}

fn cycles_on(
    binary: &std::path::Path,
    backend: &Backend,
    database: Option<&ScratchDatabase>,
    data_dir: &std::path::Path,
    cycles: u64,
) -> Result<String, String> {
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let mut category = None;
    for cycle in 1..=cycles {
        let mut server = start(binary, backend, database, data_dir)?;
        let token = sign_in(server.address, ADMIN_PASSWORD)?;
        verify(server.address, &token, &ledger, cycle)?;
        let category_id = match category {
            Some(id) => id,
            None => {
                let response = Client::new(server.address)
                    .send(
                        "POST",
                        "/v1/charge-group-categories",
                        Some(&token),
                        Some(r#"{"name":"Crash","chargingUnitType":"DURATION","startDate":"2026-01-01"}"#),
                    )?
                    .expect_status(201, "POST /v1/charge-group-categories")?;
                let id = json_id(&response.body)?;
                category = Some(id);
                id
            }
        };
        // Write for a while (longer each cycle, so kills land at different points), then kill.
        let before = ledger_writes(&ledger);
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..WRITERS)
            .map(|writer| {
                let (ledger, stop, token) = (Arc::clone(&ledger), Arc::clone(&stop), token.clone());
                let address = server.address;
                std::thread::spawn(move || {
                    write_until_refused(address, &token, category_id, cycle, writer, &ledger, &stop)
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(700 + 350 * cycle));
        server.kill();
        stop.store(true, Ordering::SeqCst);
        for writer in writers {
            writer
                .join()
                .map_err(|_| "a writer thread panicked".to_owned())?;
        }
        let during = ledger_writes(&ledger) - before;
        eprintln!(
            "cycle {cycle}: killed with SIGKILL after {during} acknowledged writes in this cycle"
        );
        if during == 0 {
            return Err(format!(
                "cycle {cycle}: no write was acknowledged before the kill; see {}",
                hostile::output_path(&format!("crash-{}.log", backend.name().to_lowercase()))?
                    .display()
            ));
        }
        drop(server);
    }
    // The last restart: everything checked once more, then the database itself.
    let mut server = start(binary, backend, database, data_dir)?;
    let token = sign_in(server.address, ADMIN_PASSWORD)?;
    let total = verify(server.address, &token, &ledger, cycles + 1)?;
    server.kill();
    let integrity = match (backend, database) {
        (Backend::Postgres(_), Some(database)) => postgres_integrity(&database.url, total)?,
        _ => sqlite_integrity(&data_dir.join("billing.db"), total)?,
    };
    let ledger = ledger.lock().map_err(|_| "ledger poisoned")?;
    Ok(format!(
        "{cycles} kills, {} acknowledged writes, {} charge groups acknowledged, {} creates \
         unanswered at a kill, {total} stored; {integrity}",
        ledger.acknowledged_writes,
        ledger.groups.len(),
        ledger.unanswered_creates,
    ))
}

fn ledger_writes(ledger: &Mutex<Ledger>) -> usize {
    ledger.lock().map_or(0, |l| l.acknowledged_writes)
}

/// One writer: creates a charge group, patches it, creates the next, … until a request fails
/// (the server is gone) or `stop` is set. Only 2xx answers enter the ledger as acknowledged.
fn write_until_refused(
    address: SocketAddr,
    token: &str,
    category_id: u64,
    cycle: u64,
    writer: usize,
    ledger: &Mutex<Ledger>,
    stop: &AtomicBool,
) {
    let mut client = Client::new(address);
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let name = format!("crash c{cycle} w{writer} n{n}");
        let body = format!(
            r#"{{"name":"{name}","chargeGroupCategoryId":{category_id},"startDate":"2026-01-01"}}"#
        );
        let id = match client.send("POST", "/v1/charge-groups", Some(token), Some(&body)) {
            // Refused (busy, say): not written, not acknowledged; carry on.
            Ok(response) if response.status != 201 => continue,
            Ok(response) => match json_id(&response.body) {
                Ok(id) => id,
                Err(_) => continue,
            },
            Err(_) => {
                if let Ok(mut l) = ledger.lock() {
                    l.unanswered_creates += 1;
                }
                return;
            }
        };
        if let Ok(mut l) = ledger.lock() {
            l.acknowledged_writes += 1;
            l.groups.insert(
                id,
                Known {
                    acknowledged: name.clone(),
                    in_flight: None,
                },
            );
        }
        // Every other record is renamed once: a patch acknowledged must survive too.
        if n.is_multiple_of(2) {
            let renamed = format!("{name} renamed");
            if let Ok(mut l) = ledger.lock()
                && let Some(known) = l.groups.get_mut(&id)
            {
                known.in_flight = Some(renamed.clone());
            }
            let patch = format!(r#"[{{"op":"replace","path":"/name","value":"{renamed}"}}]"#);
            let patched = client.send_raw(
                "PATCH",
                &format!("/v1/charge-groups/{id}"),
                &[
                    ("Authorization", &format!("Bearer {token}")),
                    ("Content-Type", "application/json-patch+json"),
                ],
                Some(&patch),
            );
            match patched {
                Ok(response) if response.status == 200 => {}
                // Refused: the old name stays; nothing is in flight.
                Ok(_) => {
                    if let Ok(mut l) = ledger.lock()
                        && let Some(known) = l.groups.get_mut(&id)
                    {
                        known.in_flight = None;
                    }
                    continue;
                }
                Err(_) => return,
            }
            if let Ok(mut l) = ledger.lock() {
                l.acknowledged_writes += 1;
                if let Some(known) = l.groups.get_mut(&id) {
                    *known = Known {
                        acknowledged: renamed,
                        in_flight: None,
                    };
                }
            }
        }
    }
}

/// Checks every charge group of the ledger against the server; returns how many charge groups
/// it stores (which may exceed the ledger by the creates unanswered at a kill). A name found
/// that was in flight becomes the acknowledged one (it is there now, for good).
fn verify(
    address: SocketAddr,
    token: &str,
    ledger: &Mutex<Ledger>,
    cycle: u64,
) -> Result<u64, String> {
    let mut ledger = ledger.lock().map_err(|_| "ledger poisoned")?;
    let mut client = Client::new(address);
    let mut missing = Vec::new();
    for (id, known) in ledger.groups.iter_mut() {
        let response = client.send("GET", &format!("/v1/charge-groups/{id}"), Some(token), None)?;
        if response.status != 200 {
            missing.push(format!(
                "{id} ({}): {}",
                known.acknowledged, response.status
            ));
            continue;
        }
        let name =
            crate::http_client::json_string_member(&response.body, "name").unwrap_or_default();
        if name == known.acknowledged {
            known.in_flight = None;
        } else if known.in_flight.as_deref() == Some(name.as_str()) {
            known.acknowledged = name;
            known.in_flight = None;
        } else {
            missing.push(format!(
                "{id}: name {name:?}, acknowledged {:?}",
                known.acknowledged
            ));
        }
    }
    if !missing.is_empty() {
        return Err(format!(
            "after restart {cycle}: {} acknowledged writes lost:\n  {}",
            missing.len(),
            missing.join("\n  ")
        ));
    }
    let total = total_count(&mut client, token, "/v1/charge-groups?page=1&pageSize=1")?;
    let created_events = total_count(
        &mut client,
        token,
        "/v1/audit-events?page=1&pageSize=1&resource=charge-groups&action=CREATE",
    )?;
    let known = ledger.groups.len() as u64;
    let slack = ledger.unanswered_creates as u64;
    if total < known || total > known + slack {
        return Err(format!(
            "after restart {cycle}: {total} charge groups stored, {known} acknowledged and \
             {slack} unanswered"
        ));
    }
    if created_events != total {
        return Err(format!(
            "after restart {cycle}: {total} charge groups but {created_events} CREATE events \
             in the audit trail (a write and its event are one transaction)"
        ));
    }
    Ok(total)
}

fn total_count(client: &mut Client, token: &str, path: &str) -> Result<u64, String> {
    let response = client
        .send("GET", path, Some(token), None)?
        .expect_status(200, &format!("GET {path}"))?;
    response
        .header("x-total-count")
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| format!("GET {path}: no X-Total-Count"))
}

/// `PRAGMA integrity_check` and the count, with Python's sqlite3 module (no sqlite3 tool needed).
fn sqlite_integrity(file: &std::path::Path, total: u64) -> Result<String, String> {
    let script = "import sqlite3, sys\n\
        c = sqlite3.connect(sys.argv[1])\n\
        print(';'.join(r[0] for r in c.execute('PRAGMA integrity_check')))\n\
        print(c.execute('SELECT count(*) FROM charge_groups').fetchone()[0])\n\
        print(c.execute('PRAGMA foreign_key_check').fetchall() == [])\n";
    let path = file.to_string_lossy();
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let output = hostile::output_of(&python, &["-c", script, &path])?;
    let lines: Vec<&str> = output.lines().collect();
    match lines.as_slice() {
        ["ok", count, "True"] if count.parse::<u64>().ok() == Some(total) => Ok(format!(
            "PRAGMA integrity_check ok, foreign keys ok, {count} rows in charge_groups"
        )),
        _ => Err(format!(
            "SQLite after the kills: integrity_check, count (expected {total}), foreign keys \
             clean: {output}"
        )),
    }
}

/// Every row of the written tables read back, the count compared, and `amcheck` on the
/// indexes of charge_groups when the extension can be created.
fn postgres_integrity(url: &str, total: u64) -> Result<String, String> {
    let query = |sql: &str| {
        hostile::output_of(
            "psql",
            &[url, "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "-qtAc", sql],
        )
    };
    let count = query("SELECT count(*) FROM charge_groups")?;
    if count.trim().parse::<u64>().ok() != Some(total) {
        return Err(format!(
            "PostgreSQL: {} rows in charge_groups, the API said {total}",
            count.trim()
        ));
    }
    // Reading every column of every row makes PostgreSQL detoast and check each tuple.
    query("SELECT count(*) FROM (SELECT * FROM charge_groups) AS t")?;
    query("SELECT count(*) FROM (SELECT * FROM audit_events) AS t")?;
    let amcheck = match query("CREATE EXTENSION IF NOT EXISTS amcheck") {
        Ok(_) => {
            query(
                "SELECT bt_index_check(c.oid, true) FROM pg_index i JOIN pg_class c ON \
                 c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'btree' \
                 AND i.indrelid IN ('charge_groups'::regclass, 'audit_events'::regclass)",
            )?;
            "amcheck on their btree indexes ok"
        }
        Err(_) => "amcheck not available",
    };
    Ok(format!(
        "{total} rows in charge_groups, every row of charge_groups and audit_events read, {amcheck}"
    ))
}
