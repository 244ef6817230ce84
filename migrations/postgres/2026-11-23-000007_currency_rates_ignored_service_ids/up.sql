-- Currency rates and ignored service ids (decisions §3). A rate is exact: an integer count of
-- millionths (1.25 is 1250000). One rate per pair of currencies and date.
CREATE TABLE currency_rates (
    id BIGSERIAL PRIMARY KEY,
    from_currency_id BIGINT NOT NULL REFERENCES currencies (id),
    to_currency_id BIGINT NOT NULL REFERENCES currencies (id),
    rate BIGINT NOT NULL,
    effective_date DATE NOT NULL,
    version BIGINT NOT NULL DEFAULT 1,
    CONSTRAINT currency_rates_pair_date_key UNIQUE (from_currency_id, to_currency_id, effective_date)
);
CREATE INDEX currency_rates_to_idx ON currency_rates (to_currency_id);

CREATE TABLE ignored_service_ids (
    id BIGSERIAL PRIMARY KEY,
    service_id TEXT NOT NULL,
    description TEXT,
    start_date DATE NOT NULL,
    end_date DATE,
    version BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX ignored_service_ids_service_idx ON ignored_service_ids (service_id);
