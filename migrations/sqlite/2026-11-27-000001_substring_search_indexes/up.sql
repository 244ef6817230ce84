-- Substring searches (`like:`) of the names and references people search, served by FTS5
-- tables with the trigram tokenizer (billing-persistence/src/search.rs; docs/performance.md,
-- "Lists at scale"). Each searched column has `search_<table>_<column>`, an FTS5 index over
-- the table's own rows (external content), kept by triggers, which gives the candidates of a
-- search of 3 characters or more; the exact comparison (Rust's lower-casing) then checks them.
-- FTS5 folds case by its own Unicode tables, so it vouches only for plain ASCII text: the rows
-- holding any other character are found through the partial index `<table>_<column>_not_ascii`
-- and checked the same way.

CREATE VIRTUAL TABLE search_charge_group_categories_name USING fts5(name, content='charge_group_categories', content_rowid='id', tokenize='trigram');
INSERT INTO search_charge_group_categories_name(search_charge_group_categories_name) VALUES ('rebuild');
CREATE TRIGGER search_charge_group_categories_name_insert AFTER INSERT ON charge_group_categories BEGIN
    INSERT INTO search_charge_group_categories_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER search_charge_group_categories_name_delete AFTER DELETE ON charge_group_categories BEGIN
    INSERT INTO search_charge_group_categories_name(search_charge_group_categories_name, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER search_charge_group_categories_name_update AFTER UPDATE OF name ON charge_group_categories BEGIN
    INSERT INTO search_charge_group_categories_name(search_charge_group_categories_name, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO search_charge_group_categories_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE INDEX charge_group_categories_name_not_ascii ON charge_group_categories (id) WHERE name GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_charge_groups_name USING fts5(name, content='charge_groups', content_rowid='id', tokenize='trigram');
INSERT INTO search_charge_groups_name(search_charge_groups_name) VALUES ('rebuild');
CREATE TRIGGER search_charge_groups_name_insert AFTER INSERT ON charge_groups BEGIN
    INSERT INTO search_charge_groups_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER search_charge_groups_name_delete AFTER DELETE ON charge_groups BEGIN
    INSERT INTO search_charge_groups_name(search_charge_groups_name, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER search_charge_groups_name_update AFTER UPDATE OF name ON charge_groups BEGIN
    INSERT INTO search_charge_groups_name(search_charge_groups_name, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO search_charge_groups_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE INDEX charge_groups_name_not_ascii ON charge_groups (id) WHERE name GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_contract_owners_name USING fts5(name, content='contract_owners', content_rowid='id', tokenize='trigram');
INSERT INTO search_contract_owners_name(search_contract_owners_name) VALUES ('rebuild');
CREATE TRIGGER search_contract_owners_name_insert AFTER INSERT ON contract_owners BEGIN
    INSERT INTO search_contract_owners_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER search_contract_owners_name_delete AFTER DELETE ON contract_owners BEGIN
    INSERT INTO search_contract_owners_name(search_contract_owners_name, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER search_contract_owners_name_update AFTER UPDATE OF name ON contract_owners BEGIN
    INSERT INTO search_contract_owners_name(search_contract_owners_name, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO search_contract_owners_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE INDEX contract_owners_name_not_ascii ON contract_owners (id) WHERE name GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_customers_customer_name USING fts5(customer_name, content='customers', content_rowid='id', tokenize='trigram');
INSERT INTO search_customers_customer_name(search_customers_customer_name) VALUES ('rebuild');
CREATE TRIGGER search_customers_customer_name_insert AFTER INSERT ON customers BEGIN
    INSERT INTO search_customers_customer_name(rowid, customer_name) VALUES (new.id, new.customer_name);
END;
CREATE TRIGGER search_customers_customer_name_delete AFTER DELETE ON customers BEGIN
    INSERT INTO search_customers_customer_name(search_customers_customer_name, rowid, customer_name) VALUES ('delete', old.id, old.customer_name);
END;
CREATE TRIGGER search_customers_customer_name_update AFTER UPDATE OF customer_name ON customers BEGIN
    INSERT INTO search_customers_customer_name(search_customers_customer_name, rowid, customer_name) VALUES ('delete', old.id, old.customer_name);
    INSERT INTO search_customers_customer_name(rowid, customer_name) VALUES (new.id, new.customer_name);
END;
CREATE INDEX customers_customer_name_not_ascii ON customers (id) WHERE customer_name GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_customers_customer_reference USING fts5(customer_reference, content='customers', content_rowid='id', tokenize='trigram');
INSERT INTO search_customers_customer_reference(search_customers_customer_reference) VALUES ('rebuild');
CREATE TRIGGER search_customers_customer_reference_insert AFTER INSERT ON customers BEGIN
    INSERT INTO search_customers_customer_reference(rowid, customer_reference) VALUES (new.id, new.customer_reference);
END;
CREATE TRIGGER search_customers_customer_reference_delete AFTER DELETE ON customers BEGIN
    INSERT INTO search_customers_customer_reference(search_customers_customer_reference, rowid, customer_reference) VALUES ('delete', old.id, old.customer_reference);
END;
CREATE TRIGGER search_customers_customer_reference_update AFTER UPDATE OF customer_reference ON customers BEGIN
    INSERT INTO search_customers_customer_reference(search_customers_customer_reference, rowid, customer_reference) VALUES ('delete', old.id, old.customer_reference);
    INSERT INTO search_customers_customer_reference(rowid, customer_reference) VALUES (new.id, new.customer_reference);
END;
CREATE INDEX customers_customer_reference_not_ascii ON customers (id) WHERE customer_reference GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_reference_data_source_charge_groups_name USING fts5(name, content='reference_data_source_charge_groups', content_rowid='id', tokenize='trigram');
INSERT INTO search_reference_data_source_charge_groups_name(search_reference_data_source_charge_groups_name) VALUES ('rebuild');
CREATE TRIGGER search_reference_data_source_charge_groups_name_insert AFTER INSERT ON reference_data_source_charge_groups BEGIN
    INSERT INTO search_reference_data_source_charge_groups_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER search_reference_data_source_charge_groups_name_delete AFTER DELETE ON reference_data_source_charge_groups BEGIN
    INSERT INTO search_reference_data_source_charge_groups_name(search_reference_data_source_charge_groups_name, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER search_reference_data_source_charge_groups_name_update AFTER UPDATE OF name ON reference_data_source_charge_groups BEGIN
    INSERT INTO search_reference_data_source_charge_groups_name(search_reference_data_source_charge_groups_name, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO search_reference_data_source_charge_groups_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE INDEX reference_data_source_charge_groups_name_not_ascii ON reference_data_source_charge_groups (id) WHERE name GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_reference_data_sources_name USING fts5(name, content='reference_data_sources', content_rowid='id', tokenize='trigram');
INSERT INTO search_reference_data_sources_name(search_reference_data_sources_name) VALUES ('rebuild');
CREATE TRIGGER search_reference_data_sources_name_insert AFTER INSERT ON reference_data_sources BEGIN
    INSERT INTO search_reference_data_sources_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER search_reference_data_sources_name_delete AFTER DELETE ON reference_data_sources BEGIN
    INSERT INTO search_reference_data_sources_name(search_reference_data_sources_name, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER search_reference_data_sources_name_update AFTER UPDATE OF name ON reference_data_sources BEGIN
    INSERT INTO search_reference_data_sources_name(search_reference_data_sources_name, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO search_reference_data_sources_name(rowid, name) VALUES (new.id, new.name);
END;
CREATE INDEX reference_data_sources_name_not_ascii ON reference_data_sources (id) WHERE name GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_sites_site_name USING fts5(site_name, content='sites', content_rowid='id', tokenize='trigram');
INSERT INTO search_sites_site_name(search_sites_site_name) VALUES ('rebuild');
CREATE TRIGGER search_sites_site_name_insert AFTER INSERT ON sites BEGIN
    INSERT INTO search_sites_site_name(rowid, site_name) VALUES (new.id, new.site_name);
END;
CREATE TRIGGER search_sites_site_name_delete AFTER DELETE ON sites BEGIN
    INSERT INTO search_sites_site_name(search_sites_site_name, rowid, site_name) VALUES ('delete', old.id, old.site_name);
END;
CREATE TRIGGER search_sites_site_name_update AFTER UPDATE OF site_name ON sites BEGIN
    INSERT INTO search_sites_site_name(search_sites_site_name, rowid, site_name) VALUES ('delete', old.id, old.site_name);
    INSERT INTO search_sites_site_name(rowid, site_name) VALUES (new.id, new.site_name);
END;
CREATE INDEX sites_site_name_not_ascii ON sites (id) WHERE site_name GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_sites_site_reference USING fts5(site_reference, content='sites', content_rowid='id', tokenize='trigram');
INSERT INTO search_sites_site_reference(search_sites_site_reference) VALUES ('rebuild');
CREATE TRIGGER search_sites_site_reference_insert AFTER INSERT ON sites BEGIN
    INSERT INTO search_sites_site_reference(rowid, site_reference) VALUES (new.id, new.site_reference);
END;
CREATE TRIGGER search_sites_site_reference_delete AFTER DELETE ON sites BEGIN
    INSERT INTO search_sites_site_reference(search_sites_site_reference, rowid, site_reference) VALUES ('delete', old.id, old.site_reference);
END;
CREATE TRIGGER search_sites_site_reference_update AFTER UPDATE OF site_reference ON sites BEGIN
    INSERT INTO search_sites_site_reference(search_sites_site_reference, rowid, site_reference) VALUES ('delete', old.id, old.site_reference);
    INSERT INTO search_sites_site_reference(rowid, site_reference) VALUES (new.id, new.site_reference);
END;
CREATE INDEX sites_site_reference_not_ascii ON sites (id) WHERE site_reference GLOB '*[^ -~]*';

CREATE VIRTUAL TABLE search_users_username USING fts5(username, content='users', content_rowid='id', tokenize='trigram');
INSERT INTO search_users_username(search_users_username) VALUES ('rebuild');
CREATE TRIGGER search_users_username_insert AFTER INSERT ON users BEGIN
    INSERT INTO search_users_username(rowid, username) VALUES (new.id, new.username);
END;
CREATE TRIGGER search_users_username_delete AFTER DELETE ON users BEGIN
    INSERT INTO search_users_username(search_users_username, rowid, username) VALUES ('delete', old.id, old.username);
END;
CREATE TRIGGER search_users_username_update AFTER UPDATE OF username ON users BEGIN
    INSERT INTO search_users_username(search_users_username, rowid, username) VALUES ('delete', old.id, old.username);
    INSERT INTO search_users_username(rowid, username) VALUES (new.id, new.username);
END;
CREATE INDEX users_username_not_ascii ON users (id) WHERE username GLOB '*[^ -~]*';
