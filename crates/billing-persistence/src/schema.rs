//! Table definitions, matching `migrations/*/` on both backends
//! (`tests/schema_matches_migrations.rs`). A declared table's definition is written from its
//! declaration by `stored_resource!` / `stored_child!` in the table's module (its columns: `id`,
//! an owned child's parent column and `ordinal`, the members by kind, a resource's `version`)
//! and re-exported here; the service's own tables (tokens, idempotency, audit, …) are written
//! by hand below, with the relations between tables.

pub use crate::{
    adhoc_bill_run_sites::adhoc_bill_run_sites, adhoc_bill_runs::adhoc_bill_runs,
    billing_cycles::billing_cycles, call_classes::call_classes,
    charge_group_categories::charge_group_categories, charge_groups::charge_groups,
    contract_owner_sub_brands::contract_owner_sub_brands, contract_owners::contract_owners,
    currencies::currencies, currency_rates::currency_rates,
    custom_field_definitions::custom_field_definitions, customers::customers,
    dialstrings::dialstrings, ignored_call_classes::ignored_call_classes,
    ignored_service_ids::ignored_service_ids, inventory_items::inventory_items,
    invoice_templates::invoice_templates, locales::locales,
    payment_provider_mandates::payment_provider_mandates,
    reference_data_source_charge_groups::reference_data_source_charge_groups,
    reference_data_sources::reference_data_sources, site_addresses::site_addresses,
    site_assigned_custom_fields::site_assigned_custom_fields, site_contacts::site_contacts,
    site_invoice_addresses::site_invoice_addresses, site_invoice_details::site_invoice_details,
    sites::sites, tax_bands::tax_bands, user_contract_owners::user_contract_owners, users::users,
};

/// `"name -> Type"` of a column whose SQL type is `Sql` (`Nullable<Date>`, `BigInt`, …): the
/// text `tests/schema_matches_migrations.rs` compares with what the migrations made.
pub fn stored_column<Sql>(name: &str) -> String {
    let full = std::any::type_name::<Sql>();
    let mut short = String::with_capacity(full.len());
    let mut word = String::new();
    for character in full.chars() {
        if character.is_alphanumeric() || character == '_' || character == ':' {
            word.push(character);
        } else {
            short.push_str(word.rsplit("::").next().unwrap_or_default());
            word.clear();
            short.push(character);
        }
    }
    short.push_str(word.rsplit("::").next().unwrap_or_default());
    format!("{name} -> {short}")
}

diesel::table! {
    refresh_tokens (id) {
        id -> BigInt,
        user_id -> BigInt,
        family_id -> Text,
        token_hash -> Text,
        expires_at -> Timestamp,
        used -> Bool,
        revoked -> Bool,
        created_date -> Timestamp,
    }
}

diesel::table! {
    idempotency_keys (id) {
        id -> BigInt,
        user_id -> BigInt,
        idempotency_key -> Text,
        request_fingerprint -> Text,
        response_status -> Integer,
        response_body -> Text,
        location -> Nullable<Text>,
        created_date -> Timestamp,
        etag -> Nullable<Text>,
    }
}

diesel::table! {
    countries (code) {
        code -> Text,
        name -> Text,
    }
}

diesel::joinable!(locales -> countries (country_code));
diesel::joinable!(locales -> currencies (currency_id));
diesel::joinable!(reference_data_sources -> locales (locale_id));
diesel::joinable!(charge_groups -> charge_group_categories (charge_group_category_id));
diesel::joinable!(reference_data_source_charge_groups -> charge_groups (charge_group_id));
diesel::joinable!(reference_data_source_charge_groups -> reference_data_sources (reference_data_source_id));
diesel::joinable!(refresh_tokens -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    audit_events,
    users,
    refresh_tokens,
    idempotency_keys,
    countries,
    currencies,
    locales,
    reference_data_sources,
    charge_group_categories,
    charge_groups,
    reference_data_source_charge_groups,
);

diesel::table! {
    audit_events (id) {
        id -> BigInt,
        occurred_at -> Timestamp,
        user_id -> BigInt,
        username -> Text,
        action -> Text,
        resource -> Text,
        record_id -> BigInt,
        before_state -> Nullable<Text>,
        after_state -> Nullable<Text>,
        request_id -> Text,
    }
}

diesel::joinable!(contract_owner_sub_brands -> contract_owners (contract_owner_id));
diesel::joinable!(user_contract_owners -> users (user_id));
diesel::joinable!(user_contract_owners -> contract_owners (contract_owner_id));
diesel::allow_tables_to_appear_in_same_query!(
    contract_owners,
    contract_owner_sub_brands,
    users,
    user_contract_owners,
);

diesel::joinable!(customers -> contract_owners (contract_owner_id));
diesel::joinable!(customers -> billing_cycles (billing_cycle_id));
diesel::allow_tables_to_appear_in_same_query!(customers, contract_owners, billing_cycles);
diesel::allow_tables_to_appear_in_same_query!(customers, contract_owner_sub_brands);

diesel::joinable!(dialstrings -> reference_data_source_charge_groups (reference_data_source_charge_group_id));
diesel::joinable!(call_classes -> reference_data_source_charge_groups (reference_data_source_charge_group_id));
diesel::joinable!(ignored_call_classes -> reference_data_sources (reference_data_source_id));
diesel::allow_tables_to_appear_in_same_query!(
    dialstrings,
    call_classes,
    ignored_call_classes,
    reference_data_source_charge_groups,
);
diesel::allow_tables_to_appear_in_same_query!(dialstrings, reference_data_sources);
diesel::allow_tables_to_appear_in_same_query!(call_classes, reference_data_sources);
diesel::allow_tables_to_appear_in_same_query!(ignored_call_classes, reference_data_sources);

diesel::joinable!(sites -> customers (customer_id));
diesel::joinable!(site_invoice_details -> sites (site_id));
diesel::allow_tables_to_appear_in_same_query!(sites, site_invoice_details);
diesel::allow_tables_to_appear_in_same_query!(sites, inventory_items);
diesel::allow_tables_to_appear_in_same_query!(sites, customers);
diesel::allow_tables_to_appear_in_same_query!(sites, site_assigned_custom_fields);
diesel::allow_tables_to_appear_in_same_query!(inventory_items, customers);

diesel::allow_tables_to_appear_in_same_query!(sites, adhoc_bill_run_sites);
diesel::allow_tables_to_appear_in_same_query!(sites, site_addresses);

diesel::table! {
    rating_changes (id) {
        id -> BigInt,
        recorded_at -> Timestamp,
        resource -> Text,
        record_id -> BigInt,
        before_state -> Nullable<Text>,
        after_state -> Nullable<Text>,
    }
}

diesel::table! {
    sign_in_attempts (id) {
        id -> BigInt,
        throttle_key -> Text,
        attempted_at -> Timestamp,
    }
}

diesel::table! {
    api_keys (id) {
        id -> BigInt,
        user_id -> BigInt,
        name -> Text,
        key_prefix -> Text,
        key_hash -> Text,
        roles -> Text,
        created_date -> Timestamp,
        last_used_at -> Nullable<Timestamp>,
        version -> BigInt,
    }
}

diesel::joinable!(api_keys -> users (user_id));
diesel::allow_tables_to_appear_in_same_query!(api_keys, users);
diesel::allow_tables_to_appear_in_same_query!(api_keys, user_contract_owners);

diesel::table! {
    readiness_probe (id) {
        id -> BigInt,
        probed_at -> Timestamp,
    }
}
