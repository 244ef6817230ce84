-- Sites and what they own (interface 2.5-2.9, decisions §4), and the inventory items
-- attached to sites. Owned records carry their owner's id and their place (ordinal); the
-- records owned by invoice details go with them (ON DELETE CASCADE).
CREATE TABLE sites (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    customer_id BIGINT NOT NULL REFERENCES customers (id),
    site_name TEXT NOT NULL,
    site_reference TEXT NOT NULL,
    matchmaker_matching_tag TEXT,
    start_date DATE NOT NULL,
    end_date DATE,
    created_date TIMESTAMP NOT NULL,
    updated_date TIMESTAMP NOT NULL,
    site_id_receiving_invoice BIGINT REFERENCES sites (id),
    repayment_plan_amount BIGINT,
    repayment_plan_remaining_periods BIGINT,
    version BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX sites_customer_idx ON sites (customer_id);
CREATE INDEX sites_receiving_idx ON sites (site_id_receiving_invoice);
CREATE INDEX sites_site_name_idx ON sites (site_name);
CREATE INDEX sites_site_reference_idx ON sites (site_reference);
CREATE INDEX sites_created_date_idx ON sites (created_date);
CREATE INDEX sites_updated_date_idx ON sites (updated_date);
CREATE INDEX sites_end_date_idx ON sites (end_date);

CREATE TABLE site_addresses (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    site_id BIGINT NOT NULL REFERENCES sites (id),
    ordinal BIGINT NOT NULL,
    business_name TEXT,
    address1 TEXT NOT NULL,
    address2 TEXT,
    address3 TEXT,
    town TEXT NOT NULL,
    county TEXT,
    postcode TEXT NOT NULL,
    country TEXT NOT NULL
);
CREATE INDEX site_addresses_site_idx ON site_addresses (site_id, ordinal);

CREATE TABLE site_contacts (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    site_id BIGINT NOT NULL REFERENCES sites (id),
    ordinal BIGINT NOT NULL,
    contact_name TEXT NOT NULL,
    contact_telephone_number TEXT,
    contact_alternative_telephone_number TEXT,
    contact_email_address TEXT,
    contact_role TEXT NOT NULL,
    receive_invoice_by TEXT,
    receive_invoice_summary_by TEXT,
    receive_electronic_summary_reports BOOLEAN,
    email_suspended BOOLEAN NOT NULL,
    contact_name_to_appear_on_invoice BOOLEAN NOT NULL,
    receive_email_fraud_alert BOOLEAN NOT NULL,
    receive_sms_fraud_alert BOOLEAN NOT NULL
);
CREATE INDEX site_contacts_site_idx ON site_contacts (site_id, ordinal);

CREATE TABLE site_invoice_details (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    site_id BIGINT NOT NULL REFERENCES sites (id),
    ordinal BIGINT NOT NULL,
    invoice_summary_template_id BIGINT REFERENCES invoice_templates (id),
    invoice_template_id BIGINT NOT NULL REFERENCES invoice_templates (id),
    electronic_summary_template_ids TEXT NOT NULL,
    invoice_summary_template_components TEXT NOT NULL,
    account_package_reference TEXT,
    payment_terms_in_days BIGINT,
    preferred_payment_day BIGINT,
    payment_method TEXT NOT NULL,
    mandate_reference TEXT,
    mandate_status TEXT,
    mandate_created_date TIMESTAMP,
    mandate_updated_date TIMESTAMP,
    third_party_customer_reference TEXT,
    direct_debit_reference TEXT,
    account_name TEXT,
    account_number TEXT,
    sort_code TEXT,
    purchase_order_number TEXT,
    invoice_notes TEXT,
    tax_exempt BOOLEAN,
    tax_registration_number TEXT
);
CREATE INDEX site_invoice_details_site_idx ON site_invoice_details (site_id, ordinal);
CREATE INDEX site_invoice_details_template_idx ON site_invoice_details (invoice_template_id);
CREATE INDEX site_invoice_details_mandate_idx ON site_invoice_details (mandate_reference);
CREATE INDEX site_invoice_details_status_idx ON site_invoice_details (mandate_status);

CREATE TABLE site_invoice_addresses (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    site_invoice_details_id BIGINT NOT NULL REFERENCES site_invoice_details (id) ON DELETE CASCADE,
    ordinal BIGINT NOT NULL,
    business_name TEXT,
    address1 TEXT NOT NULL,
    address2 TEXT,
    address3 TEXT,
    town TEXT NOT NULL,
    county TEXT,
    postcode TEXT NOT NULL,
    country TEXT NOT NULL
);
CREATE INDEX site_invoice_addresses_owner_idx ON site_invoice_addresses (site_invoice_details_id, ordinal);

CREATE TABLE site_assigned_custom_fields (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    site_id BIGINT NOT NULL REFERENCES sites (id),
    ordinal BIGINT NOT NULL,
    custom_field_definition_id BIGINT NOT NULL REFERENCES custom_field_definitions (id),
    label TEXT,
    value TEXT
);
CREATE INDEX site_assigned_custom_fields_site_idx ON site_assigned_custom_fields (site_id, ordinal);
CREATE INDEX site_assigned_custom_fields_definition_idx ON site_assigned_custom_fields (custom_field_definition_id);

CREATE TABLE inventory_items (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    site_id BIGINT NOT NULL REFERENCES sites (id),
    product_code TEXT NOT NULL,
    description TEXT,
    quantity BIGINT NOT NULL,
    start_date DATE NOT NULL,
    end_date DATE,
    version BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX inventory_items_site_idx ON inventory_items (site_id);
