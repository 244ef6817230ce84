DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT tablename FROM pg_tables
             WHERE schemaname = current_schema() AND tablename <> '__diesel_schema_migrations'
    LOOP
        EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', 'note_change_of_' || t, t);
        EXECUTE format('DROP SEQUENCE IF EXISTS %I', 'changes_of_' || t);
    END LOOP;
END $$;
DROP FUNCTION note_table_change();
