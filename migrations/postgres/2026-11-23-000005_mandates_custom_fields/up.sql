-- Custom field definitions and payment provider mandates (decisions §4).
CREATE TABLE custom_field_definitions (
    id BIGSERIAL PRIMARY KEY,
    label TEXT NOT NULL,
    version BIGINT NOT NULL DEFAULT 1
);

CREATE TABLE payment_provider_mandates (
    id BIGSERIAL PRIMARY KEY,
    provider TEXT NOT NULL,
    mandate_reference TEXT NOT NULL,
    status TEXT NOT NULL,
    third_party_customer_reference TEXT,
    created_date TIMESTAMP NOT NULL,
    updated_date TIMESTAMP NOT NULL,
    version BIGINT NOT NULL DEFAULT 1,
    CONSTRAINT payment_provider_mandates_reference_key UNIQUE (provider, mandate_reference)
);
