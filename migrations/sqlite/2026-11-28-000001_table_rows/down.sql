DROP TRIGGER note_insert_of_users;
CREATE TRIGGER note_insert_of_users AFTER INSERT ON users BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'users'; END;
DROP TRIGGER note_delete_of_users;
CREATE TRIGGER note_delete_of_users AFTER DELETE ON users BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'users'; END;

DROP TRIGGER note_insert_of_refresh_tokens;
CREATE TRIGGER note_insert_of_refresh_tokens AFTER INSERT ON refresh_tokens BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'refresh_tokens'; END;
DROP TRIGGER note_delete_of_refresh_tokens;
CREATE TRIGGER note_delete_of_refresh_tokens AFTER DELETE ON refresh_tokens BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'refresh_tokens'; END;

DROP TRIGGER note_insert_of_idempotency_keys;
CREATE TRIGGER note_insert_of_idempotency_keys AFTER INSERT ON idempotency_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'idempotency_keys'; END;
DROP TRIGGER note_delete_of_idempotency_keys;
CREATE TRIGGER note_delete_of_idempotency_keys AFTER DELETE ON idempotency_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'idempotency_keys'; END;

DROP TRIGGER note_insert_of_countries;
CREATE TRIGGER note_insert_of_countries AFTER INSERT ON countries BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'countries'; END;
DROP TRIGGER note_delete_of_countries;
CREATE TRIGGER note_delete_of_countries AFTER DELETE ON countries BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'countries'; END;

DROP TRIGGER note_insert_of_currencies;
CREATE TRIGGER note_insert_of_currencies AFTER INSERT ON currencies BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currencies'; END;
DROP TRIGGER note_delete_of_currencies;
CREATE TRIGGER note_delete_of_currencies AFTER DELETE ON currencies BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currencies'; END;

DROP TRIGGER note_insert_of_locales;
CREATE TRIGGER note_insert_of_locales AFTER INSERT ON locales BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'locales'; END;
DROP TRIGGER note_delete_of_locales;
CREATE TRIGGER note_delete_of_locales AFTER DELETE ON locales BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'locales'; END;

DROP TRIGGER note_insert_of_reference_data_sources;
CREATE TRIGGER note_insert_of_reference_data_sources AFTER INSERT ON reference_data_sources BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_sources'; END;
DROP TRIGGER note_delete_of_reference_data_sources;
CREATE TRIGGER note_delete_of_reference_data_sources AFTER DELETE ON reference_data_sources BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_sources'; END;

DROP TRIGGER note_insert_of_charge_group_categories;
CREATE TRIGGER note_insert_of_charge_group_categories AFTER INSERT ON charge_group_categories BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_group_categories'; END;
DROP TRIGGER note_delete_of_charge_group_categories;
CREATE TRIGGER note_delete_of_charge_group_categories AFTER DELETE ON charge_group_categories BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_group_categories'; END;

DROP TRIGGER note_insert_of_charge_groups;
CREATE TRIGGER note_insert_of_charge_groups AFTER INSERT ON charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_groups'; END;
DROP TRIGGER note_delete_of_charge_groups;
CREATE TRIGGER note_delete_of_charge_groups AFTER DELETE ON charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'charge_groups'; END;

DROP TRIGGER note_insert_of_reference_data_source_charge_groups;
CREATE TRIGGER note_insert_of_reference_data_source_charge_groups AFTER INSERT ON reference_data_source_charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_source_charge_groups'; END;
DROP TRIGGER note_delete_of_reference_data_source_charge_groups;
CREATE TRIGGER note_delete_of_reference_data_source_charge_groups AFTER DELETE ON reference_data_source_charge_groups BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'reference_data_source_charge_groups'; END;

DROP TRIGGER note_insert_of_audit_events;
CREATE TRIGGER note_insert_of_audit_events AFTER INSERT ON audit_events BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'audit_events'; END;
DROP TRIGGER note_delete_of_audit_events;
CREATE TRIGGER note_delete_of_audit_events AFTER DELETE ON audit_events BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'audit_events'; END;

DROP TRIGGER note_insert_of_contract_owners;
CREATE TRIGGER note_insert_of_contract_owners AFTER INSERT ON contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owners'; END;
DROP TRIGGER note_delete_of_contract_owners;
CREATE TRIGGER note_delete_of_contract_owners AFTER DELETE ON contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owners'; END;

DROP TRIGGER note_insert_of_contract_owner_sub_brands;
CREATE TRIGGER note_insert_of_contract_owner_sub_brands AFTER INSERT ON contract_owner_sub_brands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owner_sub_brands'; END;
DROP TRIGGER note_delete_of_contract_owner_sub_brands;
CREATE TRIGGER note_delete_of_contract_owner_sub_brands AFTER DELETE ON contract_owner_sub_brands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'contract_owner_sub_brands'; END;

DROP TRIGGER note_insert_of_user_contract_owners;
CREATE TRIGGER note_insert_of_user_contract_owners AFTER INSERT ON user_contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'user_contract_owners'; END;
DROP TRIGGER note_delete_of_user_contract_owners;
CREATE TRIGGER note_delete_of_user_contract_owners AFTER DELETE ON user_contract_owners BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'user_contract_owners'; END;

DROP TRIGGER note_insert_of_billing_cycles;
CREATE TRIGGER note_insert_of_billing_cycles AFTER INSERT ON billing_cycles BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'billing_cycles'; END;
DROP TRIGGER note_delete_of_billing_cycles;
CREATE TRIGGER note_delete_of_billing_cycles AFTER DELETE ON billing_cycles BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'billing_cycles'; END;

DROP TRIGGER note_insert_of_invoice_templates;
CREATE TRIGGER note_insert_of_invoice_templates AFTER INSERT ON invoice_templates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'invoice_templates'; END;
DROP TRIGGER note_delete_of_invoice_templates;
CREATE TRIGGER note_delete_of_invoice_templates AFTER DELETE ON invoice_templates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'invoice_templates'; END;

DROP TRIGGER note_insert_of_customers;
CREATE TRIGGER note_insert_of_customers AFTER INSERT ON customers BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'customers'; END;
DROP TRIGGER note_delete_of_customers;
CREATE TRIGGER note_delete_of_customers AFTER DELETE ON customers BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'customers'; END;

DROP TRIGGER note_insert_of_custom_field_definitions;
CREATE TRIGGER note_insert_of_custom_field_definitions AFTER INSERT ON custom_field_definitions BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'custom_field_definitions'; END;
DROP TRIGGER note_delete_of_custom_field_definitions;
CREATE TRIGGER note_delete_of_custom_field_definitions AFTER DELETE ON custom_field_definitions BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'custom_field_definitions'; END;

DROP TRIGGER note_insert_of_payment_provider_mandates;
CREATE TRIGGER note_insert_of_payment_provider_mandates AFTER INSERT ON payment_provider_mandates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'payment_provider_mandates'; END;
DROP TRIGGER note_delete_of_payment_provider_mandates;
CREATE TRIGGER note_delete_of_payment_provider_mandates AFTER DELETE ON payment_provider_mandates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'payment_provider_mandates'; END;

DROP TRIGGER note_insert_of_tax_bands;
CREATE TRIGGER note_insert_of_tax_bands AFTER INSERT ON tax_bands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'tax_bands'; END;
DROP TRIGGER note_delete_of_tax_bands;
CREATE TRIGGER note_delete_of_tax_bands AFTER DELETE ON tax_bands BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'tax_bands'; END;

DROP TRIGGER note_insert_of_currency_rates;
CREATE TRIGGER note_insert_of_currency_rates AFTER INSERT ON currency_rates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currency_rates'; END;
DROP TRIGGER note_delete_of_currency_rates;
CREATE TRIGGER note_delete_of_currency_rates AFTER DELETE ON currency_rates BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'currency_rates'; END;

DROP TRIGGER note_insert_of_ignored_service_ids;
CREATE TRIGGER note_insert_of_ignored_service_ids AFTER INSERT ON ignored_service_ids BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_service_ids'; END;
DROP TRIGGER note_delete_of_ignored_service_ids;
CREATE TRIGGER note_delete_of_ignored_service_ids AFTER DELETE ON ignored_service_ids BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_service_ids'; END;

DROP TRIGGER note_insert_of_dialstrings;
CREATE TRIGGER note_insert_of_dialstrings AFTER INSERT ON dialstrings BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'dialstrings'; END;
DROP TRIGGER note_delete_of_dialstrings;
CREATE TRIGGER note_delete_of_dialstrings AFTER DELETE ON dialstrings BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'dialstrings'; END;

DROP TRIGGER note_insert_of_call_classes;
CREATE TRIGGER note_insert_of_call_classes AFTER INSERT ON call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'call_classes'; END;
DROP TRIGGER note_delete_of_call_classes;
CREATE TRIGGER note_delete_of_call_classes AFTER DELETE ON call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'call_classes'; END;

DROP TRIGGER note_insert_of_ignored_call_classes;
CREATE TRIGGER note_insert_of_ignored_call_classes AFTER INSERT ON ignored_call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_call_classes'; END;
DROP TRIGGER note_delete_of_ignored_call_classes;
CREATE TRIGGER note_delete_of_ignored_call_classes AFTER DELETE ON ignored_call_classes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'ignored_call_classes'; END;

DROP TRIGGER note_insert_of_sites;
CREATE TRIGGER note_insert_of_sites AFTER INSERT ON sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sites'; END;
DROP TRIGGER note_delete_of_sites;
CREATE TRIGGER note_delete_of_sites AFTER DELETE ON sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sites'; END;

DROP TRIGGER note_insert_of_site_addresses;
CREATE TRIGGER note_insert_of_site_addresses AFTER INSERT ON site_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_addresses'; END;
DROP TRIGGER note_delete_of_site_addresses;
CREATE TRIGGER note_delete_of_site_addresses AFTER DELETE ON site_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_addresses'; END;

DROP TRIGGER note_insert_of_site_contacts;
CREATE TRIGGER note_insert_of_site_contacts AFTER INSERT ON site_contacts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_contacts'; END;
DROP TRIGGER note_delete_of_site_contacts;
CREATE TRIGGER note_delete_of_site_contacts AFTER DELETE ON site_contacts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_contacts'; END;

DROP TRIGGER note_insert_of_site_invoice_details;
CREATE TRIGGER note_insert_of_site_invoice_details AFTER INSERT ON site_invoice_details BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_details'; END;
DROP TRIGGER note_delete_of_site_invoice_details;
CREATE TRIGGER note_delete_of_site_invoice_details AFTER DELETE ON site_invoice_details BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_details'; END;

DROP TRIGGER note_insert_of_site_invoice_addresses;
CREATE TRIGGER note_insert_of_site_invoice_addresses AFTER INSERT ON site_invoice_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_addresses'; END;
DROP TRIGGER note_delete_of_site_invoice_addresses;
CREATE TRIGGER note_delete_of_site_invoice_addresses AFTER DELETE ON site_invoice_addresses BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_invoice_addresses'; END;

DROP TRIGGER note_insert_of_site_assigned_custom_fields;
CREATE TRIGGER note_insert_of_site_assigned_custom_fields AFTER INSERT ON site_assigned_custom_fields BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_assigned_custom_fields'; END;
DROP TRIGGER note_delete_of_site_assigned_custom_fields;
CREATE TRIGGER note_delete_of_site_assigned_custom_fields AFTER DELETE ON site_assigned_custom_fields BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'site_assigned_custom_fields'; END;

DROP TRIGGER note_insert_of_inventory_items;
CREATE TRIGGER note_insert_of_inventory_items AFTER INSERT ON inventory_items BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'inventory_items'; END;
DROP TRIGGER note_delete_of_inventory_items;
CREATE TRIGGER note_delete_of_inventory_items AFTER DELETE ON inventory_items BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'inventory_items'; END;

DROP TRIGGER note_insert_of_adhoc_bill_runs;
CREATE TRIGGER note_insert_of_adhoc_bill_runs AFTER INSERT ON adhoc_bill_runs BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_runs'; END;
DROP TRIGGER note_delete_of_adhoc_bill_runs;
CREATE TRIGGER note_delete_of_adhoc_bill_runs AFTER DELETE ON adhoc_bill_runs BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_runs'; END;

DROP TRIGGER note_insert_of_adhoc_bill_run_sites;
CREATE TRIGGER note_insert_of_adhoc_bill_run_sites AFTER INSERT ON adhoc_bill_run_sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_run_sites'; END;
DROP TRIGGER note_delete_of_adhoc_bill_run_sites;
CREATE TRIGGER note_delete_of_adhoc_bill_run_sites AFTER DELETE ON adhoc_bill_run_sites BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'adhoc_bill_run_sites'; END;

DROP TRIGGER note_insert_of_rating_changes;
CREATE TRIGGER note_insert_of_rating_changes AFTER INSERT ON rating_changes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'rating_changes'; END;
DROP TRIGGER note_delete_of_rating_changes;
CREATE TRIGGER note_delete_of_rating_changes AFTER DELETE ON rating_changes BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'rating_changes'; END;

DROP TRIGGER note_insert_of_sign_in_attempts;
CREATE TRIGGER note_insert_of_sign_in_attempts AFTER INSERT ON sign_in_attempts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sign_in_attempts'; END;
DROP TRIGGER note_delete_of_sign_in_attempts;
CREATE TRIGGER note_delete_of_sign_in_attempts AFTER DELETE ON sign_in_attempts BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'sign_in_attempts'; END;

DROP TRIGGER note_insert_of_api_keys;
CREATE TRIGGER note_insert_of_api_keys AFTER INSERT ON api_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'api_keys'; END;
DROP TRIGGER note_delete_of_api_keys;
CREATE TRIGGER note_delete_of_api_keys AFTER DELETE ON api_keys BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'api_keys'; END;

DROP TRIGGER note_insert_of_readiness_probe;
CREATE TRIGGER note_insert_of_readiness_probe AFTER INSERT ON readiness_probe BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'readiness_probe'; END;
DROP TRIGGER note_delete_of_readiness_probe;
CREATE TRIGGER note_delete_of_readiness_probe AFTER DELETE ON readiness_probe BEGIN UPDATE table_changes SET changes = changes + 1 WHERE name = 'readiness_probe'; END;

ALTER TABLE table_changes DROP COLUMN rows;
