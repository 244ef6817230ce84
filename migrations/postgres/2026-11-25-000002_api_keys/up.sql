-- API keys for machine clients (postgres); kept in step with the other backend. The key itself is
-- never stored: only its SHA-256 (key_hash) and its first characters (key_prefix), so a
-- listing can tell keys apart. roles holds the key's own roles (comma-separated), a subset of
-- its user's when created; a request gets those the user still holds.
CREATE TABLE api_keys (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    key_prefix TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    roles TEXT NOT NULL,
    created_date TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    version BIGINT NOT NULL DEFAULT 1,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
);
CREATE INDEX api_keys_user_id_idx ON api_keys (user_id);
