-- The ETag of a stored create response, sent again on replay (sqlite); kept in step with the other backend.

ALTER TABLE idempotency_keys ADD COLUMN etag TEXT;
