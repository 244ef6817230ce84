-- The sign-in throttle's slots (sqlite); kept in step with the other backend. One row per
-- sign-in attempt under each of its keys ('user:' and the SHA-256 of the name, 'addr:IP'):
-- a failure stays until its window has passed, a success clears its username, an attempt
-- being verified holds its slot. In the database, so every instance on it counts the same
-- attempts.
CREATE TABLE sign_in_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    throttle_key TEXT NOT NULL,
    attempted_at TIMESTAMP NOT NULL
);
CREATE INDEX sign_in_attempts_key_idx ON sign_in_attempts (throttle_key, attempted_at);
CREATE INDEX sign_in_attempts_attempted_at_idx ON sign_in_attempts (attempted_at);
