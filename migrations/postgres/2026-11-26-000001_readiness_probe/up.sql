-- One row that /health/ready rewrites (and commits) to show that the database takes writes:
-- a full disk, a read-only file or a database in recovery makes the instance not ready. Kept
-- in step with the other backend.
CREATE TABLE readiness_probe (
    id BIGINT PRIMARY KEY NOT NULL,
    probed_at TIMESTAMP NOT NULL
);
INSERT INTO readiness_probe (id, probed_at) VALUES (1, CURRENT_TIMESTAMP);
