DROP TABLE adhoc_bill_run_sites;
DROP TABLE adhoc_bill_runs;
