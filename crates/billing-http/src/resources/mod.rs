//! Every resource of the interface, declared once. `register_all` routes them and
//! `documentation` describes them for the OpenAPI document: one list, so the two cannot drift.

pub mod adhoc_bill_runs;
pub mod api_keys;
pub mod audit_events;
pub mod billing_cycles;
pub mod call_classes;
pub mod charge_group_categories;
pub mod charge_groups;
mod children;
pub mod common;
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
pub mod sites;
pub mod tax_bands;
pub mod user_roles;
pub mod users;

pub use children::*;

use crate::machinery::handlers::register;
use crate::machinery::resource::Resource;
use crate::openapi::ResourceDoc;

/// One served resource: how it is routed and how it is documented.
struct Served {
    path: &'static str,
    register: fn(&mut actix_web::web::ServiceConfig),
    document: fn() -> ResourceDoc,
}

const fn served<R: Resource>() -> Served {
    Served {
        path: R::PATH,
        register: register::<R>,
        document: ResourceDoc::of::<R>,
    }
}

/// Every resource, in the order the OpenAPI document lists them.
const SERVED: &[Served] = &[
    served::<users::Users>(),
    served::<user_roles::UserRoles>(),
    served::<api_keys::ApiKeys>(),
    served::<countries::Countries>(),
    served::<currencies::Currencies>(),
    served::<locales::Locales>(),
    served::<reference_data_sources::ReferenceDataSources>(),
    served::<charge_group_categories::ChargeGroupCategories>(),
    served::<charge_groups::ChargeGroups>(),
    served::<reference_data_source_charge_groups::ReferenceDataSourceChargeGroups>(),
    served::<tax_bands::TaxBands>(),
    served::<currency_rates::CurrencyRates>(),
    served::<ignored_service_ids::IgnoredServiceIds>(),
    served::<dialstrings::Dialstrings>(),
    served::<call_classes::CallClasses>(),
    served::<ignored_call_classes::IgnoredCallClasses>(),
    served::<contract_owners::ContractOwners>(),
    served::<billing_cycles::BillingCycles>(),
    served::<invoice_templates::InvoiceTemplates>(),
    served::<customers::Customers>(),
    served::<custom_field_definitions::CustomFieldDefinitions>(),
    served::<payment_provider_mandates::PaymentProviderMandates>(),
    served::<sites::Sites>(),
    served::<inventory_items::InventoryItems>(),
    served::<adhoc_bill_runs::AdhocBillRuns>(),
    served::<audit_events::AuditEvents>(),
];

/// Every collection an audit event can name (its `resource`): each resource's path and the
/// feed import's.
pub const AUDITED: [&str; SERVED.len() + 1] = audited();

const fn audited() -> [&'static str; SERVED.len() + 1] {
    let mut paths = [crate::machinery::audit::IMPORT_RESOURCE; SERVED.len() + 1];
    let mut index = 0;
    while index < SERVED.len() {
        paths[index] = SERVED[index].path;
        index += 1;
    }
    paths
}

/// Routes every resource under the current (`/v1`) scope.
pub fn register_all(config: &mut actix_web::web::ServiceConfig) {
    for resource in SERVED {
        (resource.register)(config);
    }
}

/// The declarations of every resource, for the OpenAPI document.
pub fn documentation() -> Vec<ResourceDoc> {
    SERVED
        .iter()
        .map(|resource| (resource.document)())
        .collect()
}
