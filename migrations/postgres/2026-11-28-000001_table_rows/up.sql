-- Every table's rows are counted, so that the total of a list without filters is read, not
-- counted (billing-persistence/src/counts/maintained.rs; docs/performance.md, "Lists at
-- scale").
--
-- PostgreSQL: each statement that inserts or deletes rows adds a row to `table_row_deltas`
-- (the table, and how many rows it added or took away), from statement-level triggers with
-- transition tables; a table's rows are the sum of its deltas, as the reading snapshot sees
-- them. Inserting never makes two writers wait for each other or conflict, which one counter
-- row per table would (under SERIALIZABLE two writers of one row conflict). The deltas of a
-- table are folded into one row now and then (`counts::fold_row_deltas`), in one statement.
-- A new table gets its triggers from its own migration (a test checks that every table has
-- them, and that every table's sum is its count).
CREATE TABLE table_row_deltas (
    name TEXT NOT NULL,
    delta BIGINT NOT NULL
);
CREATE INDEX table_row_deltas_by_name ON table_row_deltas (name) INCLUDE (delta);

CREATE FUNCTION note_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO table_row_deltas (name, delta)
    SELECT TG_TABLE_NAME, count(*) FROM inserted_rows HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION note_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO table_row_deltas (name, delta)
    SELECT TG_TABLE_NAME, -count(*) FROM deleted_rows HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION note_rows_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO table_row_deltas (name, delta)
    SELECT TG_TABLE_NAME, -coalesce(sum(delta), 0) FROM table_row_deltas WHERE name = TG_TABLE_NAME;
    RETURN NULL;
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT tablename FROM pg_tables
             WHERE schemaname = current_schema()
               AND tablename NOT IN ('__diesel_schema_migrations', 'table_row_deltas')
    LOOP
        EXECUTE format('INSERT INTO table_row_deltas (name, delta) SELECT %L, count(*) FROM %I', t, t);
        EXECUTE format(
            'CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS inserted_rows '
            'FOR EACH STATEMENT EXECUTE FUNCTION note_rows_inserted()',
            'note_rows_inserted_into_' || t, t);
        EXECUTE format(
            'CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS deleted_rows '
            'FOR EACH STATEMENT EXECUTE FUNCTION note_rows_deleted()',
            'note_rows_deleted_from_' || t, t);
        EXECUTE format(
            'CREATE TRIGGER %I AFTER TRUNCATE ON %I '
            'FOR EACH STATEMENT EXECUTE FUNCTION note_rows_truncated()',
            'note_rows_truncated_of_' || t, t);
    END LOOP;
END $$;
