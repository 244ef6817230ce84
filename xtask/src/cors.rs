//! `cargo xtask cors [--debug]`: a page on another origin calls the API from a real headless
//! Chromium (Debian's package; installed with apt-get when missing, never downloaded by a test
//! tool), on SQLite (docs/testing.md).
//!
//! The server allows one origin (`BILLING_CORS_ORIGINS`). A page served from that origin signs
//! in, lists currencies (reading `X-Total-Count` and `ETag`) and patches one with `If-Match`
//! (a preflight with the API's own headers); the same page served from an origin the server
//! does not name must be refused by the browser. The page writes what it saw into its title,
//! which `--dump-dom` prints.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::hostile::{self, ADMIN_PASSWORD, Backend, Common};
use crate::http_client::{Client, json_id};
use crate::server::sign_in;

pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";

pub fn run(args: &[String]) -> Result<(), String> {
    let common = Common::parse(args, crate::USAGE)?;
    let binary = common.binary()?;
    ensure_chromium()?;
    let allowed = serve_page()?;
    let other = serve_page()?;
    let server = hostile::start_server(
        &binary,
        "cors",
        &Backend::Sqlite,
        None,
        None,
        &[(
            "BILLING_CORS_ORIGINS",
            &format!("http://127.0.0.1:{allowed}"),
        )],
    )?;
    let token = sign_in(server.address, ADMIN_PASSWORD)?;
    let created = Client::new(server.address).send(
        "POST",
        "/v1/currencies",
        Some(&token),
        Some(r##"{"code":"GBP","symbol":"£","majorCurrencyName":"Pound","minorCurrencyName":"Penny","majorCurrencyFormat":"£#,##0.00","minorCurrencyFormat":"#p","salesTaxName":"VAT"}"##),
    )?;
    let currency = json_id(&created.expect_status(201, "POST /v1/currencies")?.body)?;
    let api = format!("http://{}", server.address);
    let seen = page_result(allowed, &api, currency)?;
    let expected = "total=1 etag=\"1\" patched=200 symbol=$";
    if seen != expected {
        return Err(format!(
            "the page on the allowed origin saw {seen:?}, expected {expected:?}"
        ));
    }
    let refused = page_result(other, &api, currency)?;
    if !refused.starts_with("refused") {
        return Err(format!(
            "the page on another origin was not refused by the browser: {refused:?}"
        ));
    }
    eprintln!("cors: the allowed origin's page: {seen}; another origin's: {refused}");
    Ok(())
}

/// Installs Debian's Chromium when it is missing.
pub(crate) fn ensure_chromium() -> Result<(), String> {
    if Path::new(CHROMIUM).exists() {
        return Ok(());
    }
    eprintln!("installing chromium from Debian's packages");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| format!("apt-get: {e}"))
            .and_then(|status| {
                status
                    .success()
                    .then_some(())
                    .ok_or_else(|| format!("apt-get {} failed", args.join(" ")))
            })
    };
    apt(&["update", "-qq"])?;
    apt(&["install", "-y", "-qq", "chromium"])
}

/// Serves the test page (the same for every origin) on a free port, in a thread of its own.
fn serve_page() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            // The request line and headers; the page takes its parameters from its query.
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            let mut stream = stream;
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
                    PAGE.len()
                )
                .as_bytes(),
            );
        }
    });
    Ok(port)
}

/// Opens the page served on `port` in headless Chromium and returns the title it set.
fn page_result(port: u16, api: &str, currency: u64) -> Result<String, String> {
    let profile = crate::server::fresh_temp_dir()?;
    let url =
        format!("http://127.0.0.1:{port}/?api={api}&currency={currency}&password={ADMIN_PASSWORD}");
    let output = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=15000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(&url)
        .output()
        .map_err(|e| format!("{CHROMIUM}: {e}"))?;
    let _ = std::fs::remove_dir_all(&profile);
    let dom = String::from_utf8_lossy(&output.stdout);
    let title = dom
        .split_once("<title>")
        .and_then(|(_, rest)| rest.split_once("</title>"))
        .map(|(title, _)| title.replace("&quot;", "\"").replace("&amp;", "&"))
        .ok_or_else(|| {
            format!(
                "no title in Chromium's dump: {}\n{}",
                dom,
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    std::thread::sleep(Duration::from_millis(100));
    Ok(title)
}

/// The page: signs in, lists, patches with If-Match, and writes what it saw into its title.
const PAGE: &str = r#"<!doctype html>
<html><head><title>running</title></head><body><script>
const query = new URLSearchParams(location.search);
const api = query.get("api");
(async () => {
  try {
    const signIn = await fetch(api + "/v1/authenticate", { method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "admin", password: query.get("password") }) });
    const token = (await signIn.json()).token;
    const auth = { "Authorization": "Bearer " + token };
    const list = await fetch(api + "/v1/currencies?page=1&pageSize=1", { headers: auth });
    const total = list.headers.get("X-Total-Count");
    const item = await fetch(api + "/v1/currencies/" + query.get("currency"), { headers: auth });
    const etag = item.headers.get("ETag");
    const patched = await fetch(api + "/v1/currencies/" + query.get("currency"), { method: "PATCH",
      headers: { ...auth, "Content-Type": "application/json-patch+json", "If-Match": etag },
      body: JSON.stringify([{ op: "replace", path: "/symbol", value: "$" }]) });
    const symbol = (await patched.json()).symbol;
    document.title = `total=${total} etag=${etag} patched=${patched.status} symbol=${symbol}`;
  } catch (error) {
    document.title = "refused: " + error;
  }
})();
</script></body></html>
"#;
