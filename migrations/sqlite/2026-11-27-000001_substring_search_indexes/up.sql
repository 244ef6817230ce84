-- PostgreSQL serves substring searches from trigram indexes (pg_trgm) from this migration
-- on; SQLite has no such index type (its FTS5 trigram tables are not built here yet), so
-- its searches read the table as before. Kept so both backends apply the same migrations.
SELECT 1;
