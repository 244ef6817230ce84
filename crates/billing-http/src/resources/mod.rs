//! Every resource of the interface, declared once. `register_all` routes them and
//! `documentation` describes them for the OpenAPI document: one list, so the two cannot drift.

pub mod adhoc_bill_run_sites;
pub mod adhoc_bill_runs;
pub mod api_keys;
pub mod audit_events;
pub mod billing_cycles;
pub mod call_classes;
pub mod charge_group_categories;
pub mod charge_groups;
pub mod common;
pub mod contract_owner_sub_brands;
pub mod contract_owners;
pub mod countries;
pub mod currencies;
pub mod currency_rates;
pub mod custom_field_definitions;
pub mod customers;
pub mod dialstrings;
pub mod ignored_call_classes;
pub mod ignored_service_ids;
pub mod inventory_items;
pub mod invoice_templates;
pub mod locales;
pub mod payment_provider_mandates;
pub mod rated_records;
pub mod reference_data_source_charge_groups;
pub mod reference_data_sources;
pub mod site_addresses;
pub mod site_assigned_custom_fields;
pub mod site_contacts;
pub mod site_invoice_addresses;
pub mod site_invoice_details;
pub mod sites;
pub mod tax_bands;
pub mod user_contract_owners;
pub mod user_roles;
pub mod users;

use crate::machinery::handlers::register;
use crate::openapi::ResourceDoc;

macro_rules! resources {
    ($($resource:ty),* $(,)?) => {
        /// Routes every resource under the current (`/v1`) scope.
        pub fn register_all(config: &mut actix_web::web::ServiceConfig) {
            $(register::<$resource>(config);)*
        }

        /// The declarations of every resource, for the OpenAPI document.
        pub fn documentation() -> Vec<ResourceDoc> {
            vec![$(ResourceDoc::of::<$resource>()),*]
        }
    };
}

resources!(
    users::Users,
    user_roles::UserRoles,
    api_keys::ApiKeys,
    countries::Countries,
    currencies::Currencies,
    locales::Locales,
    reference_data_sources::ReferenceDataSources,
    charge_group_categories::ChargeGroupCategories,
    charge_groups::ChargeGroups,
    reference_data_source_charge_groups::ReferenceDataSourceChargeGroups,
    tax_bands::TaxBands,
    currency_rates::CurrencyRates,
    ignored_service_ids::IgnoredServiceIds,
    dialstrings::Dialstrings,
    call_classes::CallClasses,
    ignored_call_classes::IgnoredCallClasses,
    contract_owners::ContractOwners,
    billing_cycles::BillingCycles,
    invoice_templates::InvoiceTemplates,
    customers::Customers,
    custom_field_definitions::CustomFieldDefinitions,
    payment_provider_mandates::PaymentProviderMandates,
    sites::Sites,
    inventory_items::InventoryItems,
    adhoc_bill_runs::AdhocBillRuns,
    audit_events::AuditEvents,
);
