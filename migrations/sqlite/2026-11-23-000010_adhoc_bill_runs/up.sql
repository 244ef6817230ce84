-- Ad hoc bill runs (decisions §4) and the sites each bills, one row per site, in order.
CREATE TABLE adhoc_bill_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    name TEXT NOT NULL,
    version BIGINT NOT NULL DEFAULT 1
);

CREATE TABLE adhoc_bill_run_sites (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    adhoc_bill_run_id BIGINT NOT NULL REFERENCES adhoc_bill_runs (id),
    ordinal BIGINT NOT NULL,
    site_id BIGINT NOT NULL REFERENCES sites (id)
);
CREATE INDEX adhoc_bill_run_sites_run_idx ON adhoc_bill_run_sites (adhoc_bill_run_id, ordinal);
CREATE INDEX adhoc_bill_run_sites_site_idx ON adhoc_bill_run_sites (site_id);
