DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT tablename FROM pg_tables
             WHERE schemaname = current_schema()
               AND tablename NOT IN ('__diesel_schema_migrations', 'table_row_deltas')
    LOOP
        EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', 'note_rows_inserted_into_' || t, t);
        EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', 'note_rows_deleted_from_' || t, t);
        EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', 'note_rows_truncated_of_' || t, t);
    END LOOP;
END $$;
DROP FUNCTION note_rows_inserted();
DROP FUNCTION note_rows_deleted();
DROP FUNCTION note_rows_truncated();
DROP TABLE table_row_deltas;
