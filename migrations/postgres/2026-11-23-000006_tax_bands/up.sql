-- Tax bands (decisions §3). The rate is exact: an integer count of 0.0001 percent (17.5 % is
-- 175000), never a float (SQLite has no exact decimal type).
CREATE TABLE tax_bands (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    rate BIGINT NOT NULL,
    start_date DATE NOT NULL,
    end_date DATE,
    version BIGINT NOT NULL DEFAULT 1
);
