-- Every table's changes are counted, so that a remembered total (X-Total-Count) is reused
-- until a table its query reads changes, instead of until anything anywhere commits
-- (billing-persistence/src/counts.rs; docs/performance.md, "Lists at scale").
--
-- SQLite: a row per table in `table_changes`, moved by triggers after every row inserted,
-- updated or deleted, in the writing transaction (SQLite's writers take turns, so one
-- counter row costs no waiting; a rollback takes the count back with the rows). A new table
-- gets its row and triggers from its own migration (a test checks that every table has them).
CREATE TABLE table_changes (
    name TEXT PRIMARY KEY NOT NULL,
    changes BIGINT NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO table_changes (name) VALUES ('users');
CREATE TRIGGER note_insert_of_users AFTER INSERT ON users BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'users'; END;
CREATE TRIGGER note_update_of_users AFTER UPDATE ON users BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'users'; END;
CREATE TRIGGER note_delete_of_users AFTER DELETE ON users BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'users'; END;

INSERT INTO table_changes (name) VALUES ('refresh_tokens');
CREATE TRIGGER note_insert_of_refresh_tokens AFTER INSERT ON refresh_tokens BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'refresh_tokens'; END;
CREATE TRIGGER note_update_of_refresh_tokens AFTER UPDATE ON refresh_tokens BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'refresh_tokens'; END;
CREATE TRIGGER note_delete_of_refresh_tokens AFTER DELETE ON refresh_tokens BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'refresh_tokens'; END;

INSERT INTO table_changes (name) VALUES ('idempotency_keys');
CREATE TRIGGER note_insert_of_idempotency_keys AFTER INSERT ON idempotency_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'idempotency_keys'; END;
CREATE TRIGGER note_update_of_idempotency_keys AFTER UPDATE ON idempotency_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'idempotency_keys'; END;
CREATE TRIGGER note_delete_of_idempotency_keys AFTER DELETE ON idempotency_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'idempotency_keys'; END;

INSERT INTO table_changes (name) VALUES ('countries');
CREATE TRIGGER note_insert_of_countries AFTER INSERT ON countries BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'countries'; END;
CREATE TRIGGER note_update_of_countries AFTER UPDATE ON countries BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'countries'; END;
CREATE TRIGGER note_delete_of_countries AFTER DELETE ON countries BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'countries'; END;

INSERT INTO table_changes (name) VALUES ('currencies');
CREATE TRIGGER note_insert_of_currencies AFTER INSERT ON currencies BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currencies'; END;
CREATE TRIGGER note_update_of_currencies AFTER UPDATE ON currencies BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currencies'; END;
CREATE TRIGGER note_delete_of_currencies AFTER DELETE ON currencies BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currencies'; END;

INSERT INTO table_changes (name) VALUES ('locales');
CREATE TRIGGER note_insert_of_locales AFTER INSERT ON locales BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'locales'; END;
CREATE TRIGGER note_update_of_locales AFTER UPDATE ON locales BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'locales'; END;
CREATE TRIGGER note_delete_of_locales AFTER DELETE ON locales BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'locales'; END;

INSERT INTO table_changes (name) VALUES ('reference_data_sources');
CREATE TRIGGER note_insert_of_reference_data_sources AFTER INSERT ON reference_data_sources BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_sources'; END;
CREATE TRIGGER note_update_of_reference_data_sources AFTER UPDATE ON reference_data_sources BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_sources'; END;
CREATE TRIGGER note_delete_of_reference_data_sources AFTER DELETE ON reference_data_sources BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_sources'; END;

INSERT INTO table_changes (name) VALUES ('charge_group_categories');
CREATE TRIGGER note_insert_of_charge_group_categories AFTER INSERT ON charge_group_categories BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_group_categories'; END;
CREATE TRIGGER note_update_of_charge_group_categories AFTER UPDATE ON charge_group_categories BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_group_categories'; END;
CREATE TRIGGER note_delete_of_charge_group_categories AFTER DELETE ON charge_group_categories BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_group_categories'; END;

INSERT INTO table_changes (name) VALUES ('charge_groups');
CREATE TRIGGER note_insert_of_charge_groups AFTER INSERT ON charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_groups'; END;
CREATE TRIGGER note_update_of_charge_groups AFTER UPDATE ON charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_groups'; END;
CREATE TRIGGER note_delete_of_charge_groups AFTER DELETE ON charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_groups'; END;

INSERT INTO table_changes (name) VALUES ('reference_data_source_charge_groups');
CREATE TRIGGER note_insert_of_reference_data_source_charge_groups AFTER INSERT ON reference_data_source_charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_source_charge_groups'; END;
CREATE TRIGGER note_update_of_reference_data_source_charge_groups AFTER UPDATE ON reference_data_source_charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_source_charge_groups'; END;
CREATE TRIGGER note_delete_of_reference_data_source_charge_groups AFTER DELETE ON reference_data_source_charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_source_charge_groups'; END;

INSERT INTO table_changes (name) VALUES ('audit_events');
CREATE TRIGGER note_insert_of_audit_events AFTER INSERT ON audit_events BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'audit_events'; END;
CREATE TRIGGER note_update_of_audit_events AFTER UPDATE ON audit_events BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'audit_events'; END;
CREATE TRIGGER note_delete_of_audit_events AFTER DELETE ON audit_events BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'audit_events'; END;

INSERT INTO table_changes (name) VALUES ('contract_owners');
CREATE TRIGGER note_insert_of_contract_owners AFTER INSERT ON contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owners'; END;
CREATE TRIGGER note_update_of_contract_owners AFTER UPDATE ON contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owners'; END;
CREATE TRIGGER note_delete_of_contract_owners AFTER DELETE ON contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owners'; END;

INSERT INTO table_changes (name) VALUES ('contract_owner_sub_brands');
CREATE TRIGGER note_insert_of_contract_owner_sub_brands AFTER INSERT ON contract_owner_sub_brands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owner_sub_brands'; END;
CREATE TRIGGER note_update_of_contract_owner_sub_brands AFTER UPDATE ON contract_owner_sub_brands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owner_sub_brands'; END;
CREATE TRIGGER note_delete_of_contract_owner_sub_brands AFTER DELETE ON contract_owner_sub_brands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owner_sub_brands'; END;

INSERT INTO table_changes (name) VALUES ('user_contract_owners');
CREATE TRIGGER note_insert_of_user_contract_owners AFTER INSERT ON user_contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'user_contract_owners'; END;
CREATE TRIGGER note_update_of_user_contract_owners AFTER UPDATE ON user_contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'user_contract_owners'; END;
CREATE TRIGGER note_delete_of_user_contract_owners AFTER DELETE ON user_contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'user_contract_owners'; END;

INSERT INTO table_changes (name) VALUES ('billing_cycles');
CREATE TRIGGER note_insert_of_billing_cycles AFTER INSERT ON billing_cycles BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'billing_cycles'; END;
CREATE TRIGGER note_update_of_billing_cycles AFTER UPDATE ON billing_cycles BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'billing_cycles'; END;
CREATE TRIGGER note_delete_of_billing_cycles AFTER DELETE ON billing_cycles BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'billing_cycles'; END;

INSERT INTO table_changes (name) VALUES ('invoice_templates');
CREATE TRIGGER note_insert_of_invoice_templates AFTER INSERT ON invoice_templates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'invoice_templates'; END;
CREATE TRIGGER note_update_of_invoice_templates AFTER UPDATE ON invoice_templates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'invoice_templates'; END;
CREATE TRIGGER note_delete_of_invoice_templates AFTER DELETE ON invoice_templates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'invoice_templates'; END;

INSERT INTO table_changes (name) VALUES ('customers');
CREATE TRIGGER note_insert_of_customers AFTER INSERT ON customers BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'customers'; END;
CREATE TRIGGER note_update_of_customers AFTER UPDATE ON customers BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'customers'; END;
CREATE TRIGGER note_delete_of_customers AFTER DELETE ON customers BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'customers'; END;

INSERT INTO table_changes (name) VALUES ('custom_field_definitions');
CREATE TRIGGER note_insert_of_custom_field_definitions AFTER INSERT ON custom_field_definitions BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'custom_field_definitions'; END;
CREATE TRIGGER note_update_of_custom_field_definitions AFTER UPDATE ON custom_field_definitions BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'custom_field_definitions'; END;
CREATE TRIGGER note_delete_of_custom_field_definitions AFTER DELETE ON custom_field_definitions BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'custom_field_definitions'; END;

INSERT INTO table_changes (name) VALUES ('payment_provider_mandates');
CREATE TRIGGER note_insert_of_payment_provider_mandates AFTER INSERT ON payment_provider_mandates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'payment_provider_mandates'; END;
CREATE TRIGGER note_update_of_payment_provider_mandates AFTER UPDATE ON payment_provider_mandates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'payment_provider_mandates'; END;
CREATE TRIGGER note_delete_of_payment_provider_mandates AFTER DELETE ON payment_provider_mandates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'payment_provider_mandates'; END;

INSERT INTO table_changes (name) VALUES ('tax_bands');
CREATE TRIGGER note_insert_of_tax_bands AFTER INSERT ON tax_bands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'tax_bands'; END;
CREATE TRIGGER note_update_of_tax_bands AFTER UPDATE ON tax_bands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'tax_bands'; END;
CREATE TRIGGER note_delete_of_tax_bands AFTER DELETE ON tax_bands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'tax_bands'; END;

INSERT INTO table_changes (name) VALUES ('currency_rates');
CREATE TRIGGER note_insert_of_currency_rates AFTER INSERT ON currency_rates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currency_rates'; END;
CREATE TRIGGER note_update_of_currency_rates AFTER UPDATE ON currency_rates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currency_rates'; END;
CREATE TRIGGER note_delete_of_currency_rates AFTER DELETE ON currency_rates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currency_rates'; END;

INSERT INTO table_changes (name) VALUES ('ignored_service_ids');
CREATE TRIGGER note_insert_of_ignored_service_ids AFTER INSERT ON ignored_service_ids BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_service_ids'; END;
CREATE TRIGGER note_update_of_ignored_service_ids AFTER UPDATE ON ignored_service_ids BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_service_ids'; END;
CREATE TRIGGER note_delete_of_ignored_service_ids AFTER DELETE ON ignored_service_ids BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_service_ids'; END;

INSERT INTO table_changes (name) VALUES ('dialstrings');
CREATE TRIGGER note_insert_of_dialstrings AFTER INSERT ON dialstrings BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'dialstrings'; END;
CREATE TRIGGER note_update_of_dialstrings AFTER UPDATE ON dialstrings BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'dialstrings'; END;
CREATE TRIGGER note_delete_of_dialstrings AFTER DELETE ON dialstrings BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'dialstrings'; END;

INSERT INTO table_changes (name) VALUES ('call_classes');
CREATE TRIGGER note_insert_of_call_classes AFTER INSERT ON call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'call_classes'; END;
CREATE TRIGGER note_update_of_call_classes AFTER UPDATE ON call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'call_classes'; END;
CREATE TRIGGER note_delete_of_call_classes AFTER DELETE ON call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'call_classes'; END;

INSERT INTO table_changes (name) VALUES ('ignored_call_classes');
CREATE TRIGGER note_insert_of_ignored_call_classes AFTER INSERT ON ignored_call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_call_classes'; END;
CREATE TRIGGER note_update_of_ignored_call_classes AFTER UPDATE ON ignored_call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_call_classes'; END;
CREATE TRIGGER note_delete_of_ignored_call_classes AFTER DELETE ON ignored_call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_call_classes'; END;

INSERT INTO table_changes (name) VALUES ('sites');
CREATE TRIGGER note_insert_of_sites AFTER INSERT ON sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sites'; END;
CREATE TRIGGER note_update_of_sites AFTER UPDATE ON sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sites'; END;
CREATE TRIGGER note_delete_of_sites AFTER DELETE ON sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sites'; END;

INSERT INTO table_changes (name) VALUES ('site_addresses');
CREATE TRIGGER note_insert_of_site_addresses AFTER INSERT ON site_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_addresses'; END;
CREATE TRIGGER note_update_of_site_addresses AFTER UPDATE ON site_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_addresses'; END;
CREATE TRIGGER note_delete_of_site_addresses AFTER DELETE ON site_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_addresses'; END;

INSERT INTO table_changes (name) VALUES ('site_contacts');
CREATE TRIGGER note_insert_of_site_contacts AFTER INSERT ON site_contacts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_contacts'; END;
CREATE TRIGGER note_update_of_site_contacts AFTER UPDATE ON site_contacts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_contacts'; END;
CREATE TRIGGER note_delete_of_site_contacts AFTER DELETE ON site_contacts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_contacts'; END;

INSERT INTO table_changes (name) VALUES ('site_invoice_details');
CREATE TRIGGER note_insert_of_site_invoice_details AFTER INSERT ON site_invoice_details BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_details'; END;
CREATE TRIGGER note_update_of_site_invoice_details AFTER UPDATE ON site_invoice_details BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_details'; END;
CREATE TRIGGER note_delete_of_site_invoice_details AFTER DELETE ON site_invoice_details BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_details'; END;

INSERT INTO table_changes (name) VALUES ('site_invoice_addresses');
CREATE TRIGGER note_insert_of_site_invoice_addresses AFTER INSERT ON site_invoice_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_addresses'; END;
CREATE TRIGGER note_update_of_site_invoice_addresses AFTER UPDATE ON site_invoice_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_addresses'; END;
CREATE TRIGGER note_delete_of_site_invoice_addresses AFTER DELETE ON site_invoice_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_addresses'; END;

INSERT INTO table_changes (name) VALUES ('site_assigned_custom_fields');
CREATE TRIGGER note_insert_of_site_assigned_custom_fields AFTER INSERT ON site_assigned_custom_fields BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_assigned_custom_fields'; END;
CREATE TRIGGER note_update_of_site_assigned_custom_fields AFTER UPDATE ON site_assigned_custom_fields BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_assigned_custom_fields'; END;
CREATE TRIGGER note_delete_of_site_assigned_custom_fields AFTER DELETE ON site_assigned_custom_fields BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_assigned_custom_fields'; END;

INSERT INTO table_changes (name) VALUES ('inventory_items');
CREATE TRIGGER note_insert_of_inventory_items AFTER INSERT ON inventory_items BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'inventory_items'; END;
CREATE TRIGGER note_update_of_inventory_items AFTER UPDATE ON inventory_items BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'inventory_items'; END;
CREATE TRIGGER note_delete_of_inventory_items AFTER DELETE ON inventory_items BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'inventory_items'; END;

INSERT INTO table_changes (name) VALUES ('adhoc_bill_runs');
CREATE TRIGGER note_insert_of_adhoc_bill_runs AFTER INSERT ON adhoc_bill_runs BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_runs'; END;
CREATE TRIGGER note_update_of_adhoc_bill_runs AFTER UPDATE ON adhoc_bill_runs BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_runs'; END;
CREATE TRIGGER note_delete_of_adhoc_bill_runs AFTER DELETE ON adhoc_bill_runs BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_runs'; END;

INSERT INTO table_changes (name) VALUES ('adhoc_bill_run_sites');
CREATE TRIGGER note_insert_of_adhoc_bill_run_sites AFTER INSERT ON adhoc_bill_run_sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_run_sites'; END;
CREATE TRIGGER note_update_of_adhoc_bill_run_sites AFTER UPDATE ON adhoc_bill_run_sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_run_sites'; END;
CREATE TRIGGER note_delete_of_adhoc_bill_run_sites AFTER DELETE ON adhoc_bill_run_sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_run_sites'; END;

INSERT INTO table_changes (name) VALUES ('rating_changes');
CREATE TRIGGER note_insert_of_rating_changes AFTER INSERT ON rating_changes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'rating_changes'; END;
CREATE TRIGGER note_update_of_rating_changes AFTER UPDATE ON rating_changes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'rating_changes'; END;
CREATE TRIGGER note_delete_of_rating_changes AFTER DELETE ON rating_changes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'rating_changes'; END;

INSERT INTO table_changes (name) VALUES ('sign_in_attempts');
CREATE TRIGGER note_insert_of_sign_in_attempts AFTER INSERT ON sign_in_attempts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sign_in_attempts'; END;
CREATE TRIGGER note_update_of_sign_in_attempts AFTER UPDATE ON sign_in_attempts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sign_in_attempts'; END;
CREATE TRIGGER note_delete_of_sign_in_attempts AFTER DELETE ON sign_in_attempts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sign_in_attempts'; END;

INSERT INTO table_changes (name) VALUES ('api_keys');
CREATE TRIGGER note_insert_of_api_keys AFTER INSERT ON api_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'api_keys'; END;
CREATE TRIGGER note_update_of_api_keys AFTER UPDATE ON api_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'api_keys'; END;
CREATE TRIGGER note_delete_of_api_keys AFTER DELETE ON api_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'api_keys'; END;

INSERT INTO table_changes (name) VALUES ('readiness_probe');
CREATE TRIGGER note_insert_of_readiness_probe AFTER INSERT ON readiness_probe BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'readiness_probe'; END;
CREATE TRIGGER note_update_of_readiness_probe AFTER UPDATE ON readiness_probe BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'readiness_probe'; END;
CREATE TRIGGER note_delete_of_readiness_probe AFTER DELETE ON readiness_probe BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'readiness_probe'; END;
