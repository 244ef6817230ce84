//! Table definitions, written by hand to match `migrations/*/` on both backends.

diesel::table! {
    users (id) {
        id -> BigInt,
        username -> Text,
        email -> Nullable<Text>,
        /// The password's argon2 hash (never the password); `password` in Rust, as the
        /// declaration names the member a body sets.
        #[sql_name = "password_hash"]
        password -> Text,
        active -> Bool,
        roles -> Text,
        created_date -> Timestamp,
        updated_date -> Timestamp,
        last_login_date -> Nullable<Timestamp>,
        version -> BigInt,
    }
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

diesel::table! {
    currencies (id) {
        id -> BigInt,
        code -> Text,
        symbol -> Text,
        major_currency_name -> Text,
        minor_currency_name -> Text,
        major_currency_format -> Text,
        minor_currency_format -> Text,
        sales_tax_name -> Text,
        version -> BigInt,
    }
}

diesel::table! {
    locales (id) {
        id -> BigInt,
        country_code -> Text,
        currency_id -> BigInt,
        version -> BigInt,
    }
}

diesel::table! {
    reference_data_sources (id) {
        id -> BigInt,
        name -> Text,
        locale_id -> BigInt,
        si_maintained -> Bool,
        version -> BigInt,
    }
}

diesel::table! {
    charge_group_categories (id) {
        id -> BigInt,
        name -> Text,
        charging_unit_type -> Text,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

diesel::table! {
    charge_groups (id) {
        id -> BigInt,
        name -> Text,
        charge_group_category_id -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

diesel::table! {
    reference_data_source_charge_groups (id) {
        id -> BigInt,
        name -> Text,
        code -> Text,
        charge_group_id -> BigInt,
        reference_data_source_id -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
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

diesel::table! {
    contract_owners (id) {
        id -> BigInt,
        name -> Text,
        version -> BigInt,
    }
}

diesel::table! {
    contract_owner_sub_brands (id) {
        id -> BigInt,
        contract_owner_id -> BigInt,
        ordinal -> BigInt,
        name -> Text,
    }
}

diesel::joinable!(contract_owner_sub_brands -> contract_owners (contract_owner_id));
diesel::table! {
    user_contract_owners (id) {
        id -> BigInt,
        user_id -> BigInt,
        ordinal -> BigInt,
        contract_owner_id -> BigInt,
    }
}

diesel::joinable!(user_contract_owners -> users (user_id));
diesel::joinable!(user_contract_owners -> contract_owners (contract_owner_id));
diesel::allow_tables_to_appear_in_same_query!(
    contract_owners,
    contract_owner_sub_brands,
    users,
    user_contract_owners,
);

diesel::table! {
    billing_cycles (id) {
        id -> BigInt,
        name -> Text,
        version -> BigInt,
    }
}

diesel::table! {
    invoice_templates (id) {
        id -> BigInt,
        name -> Text,
        r#type -> Text,
        version -> BigInt,
    }
}

diesel::table! {
    customers (id) {
        id -> BigInt,
        customer_name -> Text,
        customer_reference -> Text,
        contract_owner_id -> BigInt,
        contract_owner_sub_brand_id -> Nullable<BigInt>,
        billing_cycle_id -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        created_date -> Timestamp,
        updated_date -> Timestamp,
        version -> BigInt,
    }
}

diesel::joinable!(customers -> contract_owners (contract_owner_id));
diesel::joinable!(customers -> billing_cycles (billing_cycle_id));
diesel::allow_tables_to_appear_in_same_query!(customers, contract_owners, billing_cycles);
diesel::allow_tables_to_appear_in_same_query!(customers, contract_owner_sub_brands);

diesel::table! {
    custom_field_definitions (id) {
        id -> BigInt,
        label -> Text,
        version -> BigInt,
    }
}

diesel::table! {
    payment_provider_mandates (id) {
        id -> BigInt,
        provider -> Text,
        mandate_reference -> Text,
        status -> Text,
        third_party_customer_reference -> Nullable<Text>,
        created_date -> Timestamp,
        updated_date -> Timestamp,
        version -> BigInt,
    }
}

diesel::table! {
    tax_bands (id) {
        id -> BigInt,
        name -> Text,
        rate -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

diesel::table! {
    currency_rates (id) {
        id -> BigInt,
        from_currency_id -> BigInt,
        to_currency_id -> BigInt,
        rate -> BigInt,
        effective_date -> Date,
        version -> BigInt,
    }
}

diesel::table! {
    ignored_service_ids (id) {
        id -> BigInt,
        service_id -> Text,
        description -> Nullable<Text>,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

diesel::table! {
    dialstrings (id) {
        id -> BigInt,
        dialstring -> Text,
        reference_data_source_charge_group_id -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

diesel::table! {
    call_classes (id) {
        id -> BigInt,
        call_class -> Text,
        reference_data_source_charge_group_id -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

diesel::table! {
    ignored_call_classes (id) {
        id -> BigInt,
        call_class -> Text,
        reference_data_source_id -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

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

diesel::table! {
    sites (id) {
        id -> BigInt,
        customer_id -> BigInt,
        site_name -> Text,
        site_reference -> Text,
        matchmaker_matching_tag -> Nullable<Text>,
        start_date -> Date,
        end_date -> Nullable<Date>,
        created_date -> Timestamp,
        updated_date -> Timestamp,
        site_id_receiving_invoice -> Nullable<BigInt>,
        repayment_plan_amount -> Nullable<BigInt>,
        repayment_plan_remaining_periods -> Nullable<BigInt>,
        version -> BigInt,
    }
}

diesel::table! {
    site_addresses (id) {
        id -> BigInt,
        site_id -> BigInt,
        ordinal -> BigInt,
        business_name -> Nullable<Text>,
        address1 -> Text,
        address2 -> Nullable<Text>,
        address3 -> Nullable<Text>,
        town -> Text,
        county -> Nullable<Text>,
        postcode -> Text,
        country -> Text,
    }
}

diesel::table! {
    site_contacts (id) {
        id -> BigInt,
        site_id -> BigInt,
        ordinal -> BigInt,
        contact_name -> Text,
        contact_telephone_number -> Nullable<Text>,
        contact_alternative_telephone_number -> Nullable<Text>,
        contact_email_address -> Nullable<Text>,
        contact_role -> Text,
        receive_invoice_by -> Nullable<Text>,
        receive_invoice_summary_by -> Nullable<Text>,
        receive_electronic_summary_reports -> Nullable<Bool>,
        email_suspended -> Bool,
        contact_name_to_appear_on_invoice -> Bool,
        receive_email_fraud_alert -> Bool,
        receive_sms_fraud_alert -> Bool,
    }
}

diesel::table! {
    site_invoice_details (id) {
        id -> BigInt,
        site_id -> BigInt,
        ordinal -> BigInt,
        invoice_summary_template_id -> Nullable<BigInt>,
        invoice_template_id -> BigInt,
        electronic_summary_template_ids -> Text,
        invoice_summary_template_components -> Text,
        account_package_reference -> Nullable<Text>,
        payment_terms_in_days -> Nullable<BigInt>,
        preferred_payment_day -> Nullable<BigInt>,
        payment_method -> Text,
        mandate_reference -> Nullable<Text>,
        mandate_status -> Nullable<Text>,
        mandate_created_date -> Nullable<Timestamp>,
        mandate_updated_date -> Nullable<Timestamp>,
        third_party_customer_reference -> Nullable<Text>,
        direct_debit_reference -> Nullable<Text>,
        account_name -> Nullable<Text>,
        account_number -> Nullable<Text>,
        sort_code -> Nullable<Text>,
        purchase_order_number -> Nullable<Text>,
        invoice_notes -> Nullable<Text>,
        tax_exempt -> Nullable<Bool>,
        tax_registration_number -> Nullable<Text>,
    }
}

diesel::table! {
    site_invoice_addresses (id) {
        id -> BigInt,
        site_invoice_details_id -> BigInt,
        ordinal -> BigInt,
        business_name -> Nullable<Text>,
        address1 -> Text,
        address2 -> Nullable<Text>,
        address3 -> Nullable<Text>,
        town -> Text,
        county -> Nullable<Text>,
        postcode -> Text,
        country -> Text,
    }
}

diesel::table! {
    site_assigned_custom_fields (id) {
        id -> BigInt,
        site_id -> BigInt,
        ordinal -> BigInt,
        custom_field_definition_id -> BigInt,
        label -> Nullable<Text>,
        value -> Nullable<Text>,
    }
}

diesel::table! {
    inventory_items (id) {
        id -> BigInt,
        site_id -> BigInt,
        product_code -> Text,
        description -> Nullable<Text>,
        quantity -> BigInt,
        start_date -> Date,
        end_date -> Nullable<Date>,
        version -> BigInt,
    }
}

diesel::joinable!(sites -> customers (customer_id));
diesel::joinable!(site_invoice_details -> sites (site_id));
diesel::allow_tables_to_appear_in_same_query!(sites, site_invoice_details);
diesel::allow_tables_to_appear_in_same_query!(sites, inventory_items);
diesel::allow_tables_to_appear_in_same_query!(sites, customers);
diesel::allow_tables_to_appear_in_same_query!(sites, site_assigned_custom_fields);
diesel::allow_tables_to_appear_in_same_query!(inventory_items, customers);

diesel::table! {
    adhoc_bill_runs (id) {
        id -> BigInt,
        name -> Text,
        version -> BigInt,
    }
}

diesel::table! {
    adhoc_bill_run_sites (id) {
        id -> BigInt,
        adhoc_bill_run_id -> BigInt,
        ordinal -> BigInt,
        site_id -> BigInt,
    }
}

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
