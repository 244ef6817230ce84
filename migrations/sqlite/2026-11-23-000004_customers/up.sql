-- Billing cycles, invoice templates and customers (decisions §4). A customer belongs to one
-- contract owner: users restricted to contract owners see customers through this column.
CREATE TABLE billing_cycles (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    name TEXT NOT NULL,
    version BIGINT NOT NULL DEFAULT 1
);

CREATE TABLE invoice_templates (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    version BIGINT NOT NULL DEFAULT 1
);

CREATE TABLE customers (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    customer_name TEXT NOT NULL,
    customer_reference TEXT NOT NULL,
    contract_owner_id BIGINT NOT NULL REFERENCES contract_owners (id),
    contract_owner_sub_brand_id BIGINT REFERENCES contract_owner_sub_brands (id),
    billing_cycle_id BIGINT NOT NULL REFERENCES billing_cycles (id),
    start_date DATE NOT NULL,
    end_date DATE,
    created_date TIMESTAMP NOT NULL,
    updated_date TIMESTAMP NOT NULL,
    version BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX customers_contract_owner_idx ON customers (contract_owner_id);
CREATE INDEX customers_billing_cycle_idx ON customers (billing_cycle_id);
CREATE INDEX customers_sub_brand_idx ON customers (contract_owner_sub_brand_id);
