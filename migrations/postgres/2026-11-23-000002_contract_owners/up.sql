-- Contract owners and their sub-brands (decisions §4). A sub-brand is owned by its contract
-- owner: written with it, in its order (ordinal), never on its own.
CREATE TABLE contract_owners (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    version BIGINT NOT NULL DEFAULT 1
);

CREATE TABLE contract_owner_sub_brands (
    id BIGSERIAL PRIMARY KEY,
    contract_owner_id BIGINT NOT NULL REFERENCES contract_owners (id),
    ordinal BIGINT NOT NULL,
    name TEXT NOT NULL
);
CREATE INDEX contract_owner_sub_brands_owner_idx ON contract_owner_sub_brands (contract_owner_id, ordinal);
