-- The change log of the data rating reads (postgres); kept in step with the other backend.
-- Every committed write of rating data leaves one row (the record before and after, as JSON
-- text); every instance applies the rows after the last one it applied to its in-memory
-- index. A feed import leaves one `reload` row.
CREATE TABLE rating_changes (
    id BIGSERIAL PRIMARY KEY,
    recorded_at TIMESTAMP NOT NULL,
    resource TEXT NOT NULL,
    record_id BIGINT NOT NULL,
    before_state TEXT,
    after_state TEXT
);
CREATE INDEX rating_changes_recorded_at_idx ON rating_changes (recorded_at);
