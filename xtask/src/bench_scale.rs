//! `cargo xtask bench scale`: what a list, a count and a search of sites cost as the table
//! grows (docs/performance.md, "Lists at scale").
//!
//! For SQLite, and PostgreSQL when `TEST_DATABASE_URL` is set, it starts the release server
//! (one worker, pinned to core 0), creates through the API one site with what it owns (address,
//! invoice details, two contacts), a customer, a contract owner and a user limited to that
//! owner, then grows the data by SQL (`sqlite3` / `psql`, cloning the site's rows) to each size
//! of `BENCH_SCALE_SIZES` (default `10000,100000,1000000` sites; 10 sites a customer, customers
//! spread over 100 contract owners, one site in ten ended, names of random hex) and runs
//! `ANALYZE` (PostgreSQL: `VACUUM ANALYZE`, as autovacuum would after such an insert). At each size every scenario is timed by the client, median of
//! `BENCH_SCALE_REPEATS` (default 5): the first request after a commit to another table (a
//! billing cycle created through the API), the first after a commit to `sites` (a row updated
//! by SQL: nothing remembered about the sites is reusable), and the same request again with no
//! commit between.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::http_client::{Client, json_id};
use crate::server::{ScratchDatabase, Server, psql, sign_in_as};

/// Contract owners the customers are spread over.
const OWNERS: u64 = 100;
/// Sites per customer.
const SITES_PER_CUSTOMER: u64 = 10;
const LIMITED_USER: &str = "limited";
const LIMITED_PASSWORD: &str = "limited-user-password-2026";

/// Milliseconds of one request: after a commit elsewhere, after one to `sites`, again.
type Figures = (f64, f64, f64);

#[derive(Clone, Copy, PartialEq)]
enum Backend {
    Sqlite,
    Postgres,
}

/// `cargo xtask bench scale`.
pub fn run() -> Result<(), String> {
    let sizes: Vec<u64> = std::env::var("BENCH_SCALE_SIZES")
        .unwrap_or_else(|_| "10000,100000,1000000".to_owned())
        .split(',')
        .map(|n| {
            n.trim()
                .parse()
                .map_err(|_| format!("BENCH_SCALE_SIZES: {n:?}"))
        })
        .collect::<Result<_, _>>()?;
    let repeats: usize = std::env::var("BENCH_SCALE_REPEATS")
        .ok()
        .map_or(Ok(5), |n| {
            n.parse().map_err(|_| "BENCH_SCALE_REPEATS".to_owned())
        })?;
    let binary = match std::env::var_os("BENCH_BINARY") {
        Some(binary) => PathBuf::from(binary),
        None => {
            crate::cargo(&["build", "--release", "--bin", "billing"])?;
            crate::billing_release()
        }
    };
    if Command::new("sqlite3").arg("--version").output().is_err() {
        crate::run("apt-get", "apt-get", &["install", "-y", "sqlite3"])?;
    }
    let mut report = String::new();
    report.push_str(&bench_backend(
        Backend::Sqlite,
        &binary,
        &sizes,
        repeats,
        None,
    )?);
    if let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") {
        let scratch = ScratchDatabase::create_with(
            &admin_url,
            &format!("bench_scale_{}", std::process::id()),
            "",
        )?;
        report.push_str(&bench_backend(
            Backend::Postgres,
            &binary,
            &sizes,
            repeats,
            Some(&scratch.url),
        )?);
    }
    println!("{report}");
    Ok(())
}

fn bench_backend(
    backend: Backend,
    binary: &Path,
    sizes: &[u64],
    repeats: usize,
    database_url: Option<&str>,
) -> Result<String, String> {
    let name = match backend {
        Backend::Sqlite => "SQLite",
        Backend::Postgres => "PostgreSQL",
    };
    let (server, token) = Server::start_signed_in(
        Some(binary.to_owned()),
        database_url,
        &format!("scale-{name}"),
    )?;
    create_template(server.address, &token)?;
    let limited = sign_in_as(server.address, LIMITED_USER, LIMITED_PASSWORD)?;
    let sql = |statements: &str| -> Result<(), String> {
        match database_url {
            Some(url) => psql(url, statements),
            None => sqlite(&server.data_dir.join("billing.db"), statements),
        }
    };
    let mut seeded = 1;
    let mut rows: Vec<(String, Vec<Figures>)> = Vec::new();
    for &size in sizes {
        let started = Instant::now();
        sql(&seed_sql(backend, seeded + 1, size))?;
        if let Some(url) = database_url {
            // What autovacuum does after a bulk insert: the visibility map lets counts read
            // indexes only.
            psql(url, "VACUUM ANALYZE")?;
        }
        seeded = size.max(seeded);
        eprintln!(
            "{name}: {size} sites seeded in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let scenarios = scenarios(size);
        let touch_sites =
            || sql("UPDATE sites SET site_reference = site_reference WHERE id = 2;\n");
        for (index, (label, method, path, as_limited)) in scenarios.iter().enumerate() {
            let caller = if *as_limited { &limited } else { &token };
            let figures = measure(
                server.address,
                &token,
                caller,
                (label, method, path),
                repeats,
                &touch_sites,
            )?;
            if rows.len() <= index {
                rows.push((label.clone(), Vec::new()));
            }
            rows[index].1.push(figures);
        }
    }
    let mut table = format!(
        "\n{name}: milliseconds, median of {repeats}: the first request after a commit to \
         another table / after a commit to `sites` / the same request again\n\n| request |"
    );
    for size in sizes {
        table.push_str(&format!(" {size} sites |"));
    }
    table.push_str("\n|---|");
    table.push_str(&"---:|".repeat(sizes.len()));
    table.push('\n');
    for (label, figures) in rows {
        table.push_str(&format!("| {label} |"));
        for (elsewhere, sites, warm) in figures {
            table.push_str(&format!(" {elsewhere:.1} / {sites:.1} / {warm:.1} |"));
        }
        table.push('\n');
    }
    table.push_str(&format!("\n{}\n", server.log_summary()));
    Ok(table)
}

/// The requests of the table: label, method, path, whether the limited user sends it.
fn scenarios(size: u64) -> Vec<(String, &'static str, String, bool)> {
    let middle = size / 2;
    let customer = (middle - 1) / SITES_PER_CUSTOMER + 1;
    let deep_page = (middle / 100).max(1);
    vec![
        (
            "GET /v1/sites/{id}".into(),
            "GET",
            format!("/v1/sites/{middle}"),
            false,
        ),
        (
            "sites of one customer (`customerId=`)".into(),
            "GET",
            format!("/v1/sites?customerId={customer}&page=1&pageSize=100"),
            false,
        ),
        (
            "page 1 of 100, `sort=siteName:desc`".into(),
            "GET",
            "/v1/sites?page=1&pageSize=100&sort=siteName:desc".into(),
            false,
        ),
        (
            "`siteName=like:abc`".into(),
            "GET",
            "/v1/sites?siteName=like:abc&page=1&pageSize=100".into(),
            false,
        ),
        (
            "`HEAD /v1/sites?activeSites=true`".into(),
            "HEAD",
            "/v1/sites?activeSites=true".into(),
            false,
        ),
        (
            "page at row N/2".into(),
            "GET",
            format!("/v1/sites?page={deep_page}&pageSize=100"),
            false,
        ),
        (
            "a user limited to one contract owner, page 1".into(),
            "GET",
            "/v1/sites?page=1&pageSize=100".into(),
            true,
        ),
        (
            "page 1 of 100, `sort=siteName:desc`, `Prefer: count=planned`".into(),
            "GET",
            "/v1/sites?page=1&pageSize=100&sort=siteName:desc".into(),
            false,
        ),
        (
            "`HEAD /v1/sites?activeSites=true`, `Prefer: count=planned`".into(),
            "HEAD",
            "/v1/sites?activeSites=true".into(),
            false,
        ),
    ]
}

/// Median milliseconds of one request: after a commit to another table (a billing cycle
/// created through the API), after a commit to `sites` (`touch_sites`, by SQL), and again
/// with no commit between.
fn measure(
    address: SocketAddr,
    admin: &str,
    caller: &str,
    (label, method, path): (&str, &str, &str),
    repeats: usize,
    touch_sites: &dyn Fn() -> Result<(), String>,
) -> Result<Figures, String> {
    let mut client = Client::new(address);
    let mut committer = Client::new(address);
    // The scenarios whose label names it send `Prefer: count=planned`.
    let authorization = format!("Bearer {caller}");
    let mut headers = vec![("Authorization", authorization.as_str())];
    if label.contains("count=planned") {
        headers.push(("Prefer", "count=planned"));
    }
    let time = |client: &mut Client| -> Result<f64, String> {
        let started = Instant::now();
        let response = client.send_raw(method, path, &headers, None)?;
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        if response.status != 200 {
            return Err(format!(
                "{method} {path}: {} {}",
                response.status, response.body
            ));
        }
        Ok(elapsed)
    };
    // One request first, so that the connection and the caller are warm; its total shown.
    let first = client.send_raw(method, path, &headers, None)?;
    eprintln!(
        "{method} {path}: {} (X-Total-Count {})",
        first.status,
        first.header("x-total-count").unwrap_or("-")
    );
    let (mut elsewhere, mut sites, mut warm) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..repeats {
        committer
            .send(
                "POST",
                "/v1/billing-cycles",
                Some(admin),
                Some(r#"{"name":"tick"}"#),
            )?
            .expect_status(201, "POST /v1/billing-cycles")?;
        elsewhere.push(time(&mut client)?);
        touch_sites()?;
        sites.push(time(&mut client)?);
        warm.push(time(&mut client)?);
    }
    Ok((
        median(&mut elsewhere),
        median(&mut sites),
        median(&mut warm),
    ))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Through the API: a contract owner, a cycle, a template, customer 1, site 1 with its
/// address, invoice details and two contacts, and a user limited to the owner.
fn create_template(address: SocketAddr, token: &str) -> Result<(), String> {
    let mut client = Client::new(address);
    let mut create = |path: &str, body: &str, status: u16| -> Result<u64, String> {
        let response = client
            .send("POST", path, Some(token), Some(body))?
            .expect_status(status, path)?;
        json_id(&response.body)
    };
    let owner = create("/v1/contract-owners", r#"{"name":"Owner 1"}"#, 201)?;
    let cycle = create("/v1/billing-cycles", r#"{"name":"Monthly"}"#, 201)?;
    let template = create(
        "/v1/invoice-templates",
        r#"{"name":"Standard","type":"INVOICE"}"#,
        201,
    )?;
    let customer = create(
        "/v1/customers",
        &format!(
            r#"{{"customerName":"Customer 1","customerReference":"C-1","contractOwnerId":{owner},
                "billingCycleId":{cycle},"startDate":"2024-01-01"}}"#
        ),
        201,
    )?;
    let site = create(
        "/v1/sites",
        &format!(
            r#"{{"customerId":{customer},"siteName":"Site 1","siteReference":"S-1","startDate":"2024-01-01",
                "siteAddress":{{"address1":"1 High Street","town":"Leeds","postcode":"LS1 1AA","country":"GB"}},
                "siteInvoiceDetails":{{"invoiceTemplateId":{template},"paymentMethod":"CHEQUE","paymentTermsInDays":30}},
                "siteContacts":[{{"contactName":"Ann","contactRole":"ACCOUNTS","contactEmailAddress":"ann@example.com"}},
                                {{"contactName":"Ben","contactRole":"TECHNICAL"}}]}}"#
        ),
        200,
    )?;
    if (owner, customer, site) != (1, 1, 1) {
        return Err(format!(
            "expected the first owner, customer and site to be 1, got {owner}, {customer}, {site}"
        ));
    }
    create(
        "/v1/users",
        &format!(
            r#"{{"username":"{LIMITED_USER}","password":"{LIMITED_PASSWORD}","roles":["READ_ONLY"],
                "contractOwnerIds":[{owner}]}}"#
        ),
        201,
    )?;
    Ok(())
}

/// SQL that adds sites `from..=to` (and their customers, owners and owned rows) by cloning
/// site 1's rows.
fn seed_sql(backend: Backend, from: u64, to: u64) -> String {
    if from > to {
        return "SELECT 1;".to_owned();
    }
    let series = |from: u64, to: u64| match backend {
        Backend::Postgres => format!("generate_series({from}, {to}) AS n(i)"),
        Backend::Sqlite => format!(
            "(WITH RECURSIVE s(i) AS (SELECT {from} UNION ALL SELECT i + 1 FROM s WHERE i < {to}) \
             SELECT i FROM s) AS n"
        ),
    };
    let random_name = match backend {
        Backend::Postgres => "substr(md5(n.i::text), 1, 10)",
        Backend::Sqlite => "lower(hex(randomblob(5)))",
    };
    let date = |text: &str| match backend {
        Backend::Postgres => format!("DATE '{text}'"),
        Backend::Sqlite => format!("'{text}'"),
    };
    let first_customer = (from - 1) / SITES_PER_CUSTOMER + 1;
    let last_customer = (to - 1) / SITES_PER_CUSTOMER + 1;
    let mut sql = String::new();
    // Owners 2..=OWNERS once.
    if from <= 2 {
        sql.push_str(&format!(
            "INSERT INTO contract_owners (id, name) SELECT n.i, 'Owner ' || n.i FROM {};\n",
            series(2, OWNERS)
        ));
    }
    if first_customer.max(2) <= last_customer {
        sql.push_str(&format!(
            "INSERT INTO customers (id, customer_name, customer_reference, contract_owner_id, \
             billing_cycle_id, start_date, created_date, updated_date) \
             SELECT n.i, 'Customer ' || {random_name}, 'C-' || n.i, n.i % {OWNERS} + 1, \
             c.billing_cycle_id, c.start_date, c.created_date, c.updated_date \
             FROM customers c, {} WHERE c.id = 1;\n",
            series(first_customer.max(2), last_customer)
        ));
    }
    sql.push_str(&format!(
        "INSERT INTO sites (id, customer_id, site_name, site_reference, start_date, end_date, \
         created_date, updated_date) \
         SELECT n.i, (n.i - 1) / {SITES_PER_CUSTOMER} + 1, 'Site ' || {random_name}, 'S-' || n.i, \
         s.start_date, CASE WHEN n.i % 10 = 0 THEN {} ELSE NULL END, s.created_date, s.updated_date \
         FROM sites s, {} WHERE s.id = 1;\n",
        date("2025-06-30"),
        series(from, to)
    ));
    for (table, columns) in [
        (
            "site_addresses",
            "ordinal, business_name, address1, address2, address3, town, county, postcode, country",
        ),
        (
            "site_contacts",
            "ordinal, contact_name, contact_telephone_number, contact_alternative_telephone_number, \
             contact_email_address, contact_role, receive_invoice_by, receive_invoice_summary_by, \
             receive_electronic_summary_reports, email_suspended, contact_name_to_appear_on_invoice, \
             receive_email_fraud_alert, receive_sms_fraud_alert",
        ),
        (
            "site_invoice_details",
            "ordinal, invoice_summary_template_id, invoice_template_id, \
             electronic_summary_template_ids, invoice_summary_template_components, \
             account_package_reference, payment_terms_in_days, preferred_payment_day, payment_method, \
             mandate_reference, mandate_status, mandate_created_date, mandate_updated_date, \
             third_party_customer_reference, direct_debit_reference, account_name, account_number, \
             sort_code, purchase_order_number, invoice_notes, tax_exempt, tax_registration_number",
        ),
    ] {
        let selected = columns
            .split(',')
            .map(|c| format!("t.{}", c.trim()))
            .collect::<Vec<_>>()
            .join(", ");
        sql.push_str(&format!(
            "INSERT INTO {table} (site_id, {columns}) SELECT n.i, {selected} \
             FROM {table} t, {} WHERE t.site_id = 1 ORDER BY n.i, t.ordinal;\n",
            series(from, to)
        ));
    }
    if backend == Backend::Postgres {
        for table in ["contract_owners", "customers", "sites"] {
            sql.push_str(&format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}));\n"
            ));
        }
    }
    sql.push_str("ANALYZE;\n");
    sql
}

/// Runs `sql` on the SQLite database at `path` with the `sqlite3` shell, in one transaction.
fn sqlite(path: &Path, sql: &str) -> Result<(), String> {
    use std::io::Write;
    let mut child = Command::new("sqlite3")
        .arg("-bail")
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("sqlite3: {e}"))?;
    let script =
        format!(".timeout 30000\nPRAGMA foreign_keys = ON;\nBEGIN IMMEDIATE;\n{sql}COMMIT;\n");
    child
        .stdin
        .take()
        .ok_or("sqlite3: no stdin")?
        .write_all(script.as_bytes())
        .map_err(|e| format!("sqlite3: {e}"))?;
    let output = child
        .wait_with_output()
        .map_err(|e| format!("sqlite3: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() && stderr.trim().is_empty() {
        Ok(())
    } else {
        Err(format!("sqlite3 failed: {}", stderr.trim()))
    }
}
