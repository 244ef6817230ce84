//! `/v1/payment-provider-mandates` (decisions §4): the mandates sites name by reference.

use crate::machinery::declared::Hooks;

pub struct PaymentProviderMandates;

billing_domain::payment_provider_mandates!(
    crate::api_resource,
    PaymentProviderMandates {
        path: "payment-provider-mandates",
        noun: "payment provider mandate",
        read: ReadCustomers,
        write: WriteCustomers,
        storage: billing_persistence::payment_provider_mandates,
    }
);

impl Hooks for PaymentProviderMandates {}
