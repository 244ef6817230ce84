-- Audit trail of every write through the API (postgres); kept in step with the other backend.

CREATE TABLE audit_events (
    id BIGSERIAL PRIMARY KEY,
    occurred_at TIMESTAMP NOT NULL,
    user_id BIGINT NOT NULL,
    username TEXT NOT NULL,
    action TEXT NOT NULL,
    resource TEXT NOT NULL,
    record_id BIGINT NOT NULL,
    before_state TEXT,
    after_state TEXT,
    request_id TEXT NOT NULL
);
CREATE INDEX audit_events_resource_record_idx ON audit_events (resource, record_id);
CREATE INDEX audit_events_occurred_at_idx ON audit_events (occurred_at);
