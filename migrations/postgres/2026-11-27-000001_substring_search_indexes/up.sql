-- Substring searches (`like:`, which compares lower(column) LIKE '%value%') served by
-- trigram indexes (pg_trgm) on the text members people search, instead of reading every row
-- (docs/performance.md, "Lists at scale"). pg_trgm ships with PostgreSQL and is a trusted
-- extension: the database's owner may create it. Where it cannot be created, the service
-- still starts and these searches read their tables, as before (a warning says so).
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'pg_trgm is not available (%): substring searches will read their tables', SQLERRM;
END $$;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX sites_site_name_trgm_idx ON sites USING gin (lower(site_name) gin_trgm_ops);
        CREATE INDEX sites_site_reference_trgm_idx ON sites USING gin (lower(site_reference) gin_trgm_ops);
        CREATE INDEX customers_customer_name_trgm_idx ON customers USING gin (lower(customer_name) gin_trgm_ops);
        CREATE INDEX customers_customer_reference_trgm_idx ON customers USING gin (lower(customer_reference) gin_trgm_ops);
        CREATE INDEX charge_groups_name_trgm_idx ON charge_groups USING gin (lower(name) gin_trgm_ops);
        CREATE INDEX charge_group_categories_name_trgm_idx ON charge_group_categories USING gin (lower(name) gin_trgm_ops);
        CREATE INDEX reference_data_sources_name_trgm_idx ON reference_data_sources USING gin (lower(name) gin_trgm_ops);
        CREATE INDEX reference_data_source_charge_groups_name_trgm_idx ON reference_data_source_charge_groups USING gin (lower(name) gin_trgm_ops);
        CREATE INDEX contract_owners_name_trgm_idx ON contract_owners USING gin (lower(name) gin_trgm_ops);
        CREATE INDEX users_username_trgm_idx ON users USING gin (lower(username) gin_trgm_ops);
    END IF;
END $$;
