//! Many replays of a large create whose answers nobody reads: an `Idempotency-Key` create of a
//! customer with 100 sites (an answer of about 1 MB from a body of 700 KB),
//! sent again by 200 clients at the same moment that then read nothing. Each answer holds its
//! share of the body budget until it is taken (`body_budget`), so resident memory grows by at
//! most the budget and the slack; without that, by the answers of all 200.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use super::{BODY_MEMORY_MIB, resident_mib};
use crate::http_client::{Client, json_id};
use crate::server::Server;

/// The clients replaying at once.
const CLIENTS: usize = 200;

/// What the HTTP library may read ahead of a body on one connection, in KB (measured).
const READ_AHEAD_KB: u64 = 300;

pub fn unread_replays(server: &Server, token: &str, slack: u64) -> Result<String, String> {
    let address = server.address;
    let request = replay_request(address, token)?;
    let before = resident_mib(server)?;
    let barrier = std::sync::Barrier::new(CLIENTS);
    let most = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let (request, barrier) = (&request, &barrier);
                scope.spawn(move || -> Result<TcpStream, String> {
                    let mut stream = TcpStream::connect(address).map_err(|e| e.to_string())?;
                    stream
                        .set_write_timeout(Some(Duration::from_secs(20)))
                        .map_err(|e| e.to_string())?;
                    barrier.wait();
                    // A body that got no turn within the body timeout is answered 503 and
                    // its rest not read: the write may then fail, which is no failure here.
                    let _ = stream.write_all(request);
                    Ok(stream)
                })
            })
            .collect();
        // The answers are written while the clients read nothing: the most memory seen in
        // the next few seconds, with every connection still open.
        let mut most = before;
        for _ in 0..600 {
            most = most.max(resident_mib(server)?);
            std::thread::sleep(Duration::from_millis(5));
        }
        let streams: Vec<TcpStream> = clients
            .into_iter()
            .map(|client| {
                client
                    .join()
                    .unwrap_or_else(|_| Err("a client panicked".into()))
            })
            .collect::<Result<_, _>>()?;
        for _ in 0..200 {
            most = most.max(resident_mib(server)?);
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(streams);
        Ok::<_, String>(most)
    })?;
    // Each connection may also hold what the HTTP library read ahead of its body's turn in the
    // budget (docs/deploy.md, `BILLING_MAX_CONNECTIONS`): about 300 KB.
    let read_ahead = (CLIENTS as u64 * READ_AHEAD_KB).div_ceil(1024);
    if most > before + BODY_MEMORY_MIB + read_ahead + slack {
        return Err(format!(
            "{CLIENTS} unread replays of a 1 MB create took resident memory from {before} MiB \
             to {most} MiB (the body budget is {BODY_MEMORY_MIB} MiB, the connections' read-ahead \
             {read_ahead} MiB)"
        ));
    }
    Client::new(address)
        .send("GET", "/health/live", None, None)?
        .expect_status(200, "/health/live after the unread replays")?;
    // Measured: 21 to 38 MiB above `before` once the connections are closed and the free
    // memory given back (about 27 MiB of it free blocks smaller than a page).
    let settled = super::given_back(server, before, 48, "the unread replays")?;
    Ok(format!(
        "{CLIENTS} unread replays of a 1 MB create: {before} MiB before, {most} MiB at most, {settled}"
    ))
}

/// Creates a customer with 100 sites of long text under an `Idempotency-Key` and gives back
/// the raw request that replays it.
fn replay_request(address: SocketAddr, token: &str) -> Result<Vec<u8>, String> {
    let mut client = Client::new(address);
    let mut create = |path: &str, body: String| -> Result<u64, String> {
        let answer = client
            .send("POST", path, Some(token), Some(&body))?
            .expect_status(201, path)?;
        json_id(&answer.body)
    };
    let owner = create("/v1/contract-owners", r#"{"name":"Replays"}"#.to_owned())?;
    let cycle = create("/v1/billing-cycles", r#"{"name":"Replays"}"#.to_owned())?;
    let template = create(
        "/v1/invoice-templates",
        r#"{"name":"Replays","type":"INVOICE"}"#.to_owned(),
    )?;
    // Two-byte letters at each text member's longest, and ten contacts: about 7 KB a site.
    let long = |characters: usize| "é".repeat(characters);
    let contact = format!(
        r#"{{"contactName":"{}","contactRole":"TECHNICAL"}}"#,
        long(100)
    );
    let site = format!(
        r#"{{"customerId":0,"siteName":"{name}","siteReference":"{name}","startDate":"2026-01-01",
        "siteAddress":{{"businessName":"{name}","address1":"{name}","address2":"{name}",
          "address3":"{name}","town":"Leeds","postcode":"LS1 1AA","country":"GB"}},
        "siteInvoiceDetails":{{"invoiceTemplateId":{template},"paymentMethod":"CHEQUE",
          "paymentTermsInDays":30,"invoiceNotes":"{notes}"}},
        "siteContacts":[{contacts}]}}"#,
        name = long(100),
        notes = long(1000),
        contacts = vec![contact; 10].join(","),
    );
    let sites = vec![site; 100].join(",");
    let body = format!(
        r#"{{"customerName":"Replays","customerReference":"C-R","contractOwnerId":{owner},
        "billingCycleId":{cycle},"startDate":"2026-01-01","sites":[{sites}]}}"#
    );
    let head = format!(
        "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nIdempotency-Key: unread-replays\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    let first = client
        .send_raw(
            "POST",
            "/v1/customers",
            &[
                ("Authorization", &format!("Bearer {token}")),
                ("Content-Type", "application/json"),
                ("Idempotency-Key", "unread-replays"),
            ],
            Some(&body),
        )?
        .expect_status(201, "the customer with 100 sites")?;
    if first.body.len() < 900_000 {
        return Err(format!(
            "the customer with 100 sites was answered with {} bytes only",
            first.body.len()
        ));
    }
    Ok([head.into_bytes(), body.into_bytes()].concat())
}
