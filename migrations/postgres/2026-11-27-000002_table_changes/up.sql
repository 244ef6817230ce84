-- Every table's changes are counted, so that a remembered total (X-Total-Count) is reused
-- until a table its query reads changes, instead of until anything anywhere commits
-- (billing-persistence/src/counts.rs; docs/performance.md, "Lists at scale").
--
-- PostgreSQL: one sequence per table (`changes_of_<table>`), advanced by a statement-level
-- trigger after every insert, update, delete or truncate. A sequence never rolls back and
-- never makes two writers wait for each other, which a counter row would (under SERIALIZABLE
-- two writers of one counter row conflict). A new table gets its sequence and trigger from
-- its own migration (a test checks that every table has them).
CREATE FUNCTION note_table_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM nextval(TG_ARGV[0]::regclass);
    RETURN NULL;
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT tablename FROM pg_tables
             WHERE schemaname = current_schema() AND tablename <> '__diesel_schema_migrations'
    LOOP
        EXECUTE format('CREATE SEQUENCE %I', 'changes_of_' || t);
        EXECUTE format(
            'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I '
            'FOR EACH STATEMENT EXECUTE FUNCTION note_table_change(%L)',
            'note_change_of_' || t, t, 'changes_of_' || t);
    END LOOP;
END $$;
