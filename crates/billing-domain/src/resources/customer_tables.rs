//! Customer-side declarations (docs/api.md "Sites").

billing_declare::declare! {
    /// The companies customers are contracted with, each with the sub-brands it trades
    /// under. A user restricted to some contract owners sees only those.
    contract_owners {
        /// Name of the contract owner (e.g. `Northern Telecom Ltd`).
        name: required Text<1, 255>,
    }
    children {
        /// The brands it trades under, in order. A body never carries an element's id: a
        /// `PUT` gives every element a new one, while a patch of nested members
        /// (`/subBrands/0/name`, `add /subBrands/-`, `remove /subBrands/1`) keeps the ids of
        /// the elements it leaves in place.
        sub_brands: list contract_owner_sub_brands,
    }
    rules {}
    extra_filters {}

    /// A brand a contract owner trades under.
    contract_owner_sub_brands {
        /// Name of the sub-brand (e.g. `Northern Mobile`).
        name: required Text<1, 255>,
    }
    rules {}
    extra_filters {}

    /// The cycles customers are billed on.
    billing_cycles {
        /// Name of the billing cycle (e.g. `Monthly on the 1st`).
        name: required Text<1, 255>,
    }
    rules {}
    extra_filters {}

    /// The layouts invoices are printed with. A site's invoice template must be of type
    /// INVOICE and its summary template of type INVOICE_SUMMARY, so a template's type is
    /// fixed when it is created.
    invoice_templates {
        /// Name of the template (e.g. `Standard invoice`).
        name: required Text<1, 255>,
        /// INVOICE, INVOICE_SUMMARY or ELECTRONIC_SUMMARY. Set on creation only: a change
        /// afterwards is refused (400).
        r#type: required Enum<InvoiceTemplateType> [create_only],
    }
    rules {}
    extra_filters {}

    /// The people and companies contracted with a contract owner. A user restricted to
    /// some contract owners sees only their customers (lists and counts are filtered); a
    /// request for another owner's customer, or a write that would give a customer to
    /// one, is refused (403).
    customers {
        /// Name of the customer (e.g. `Acme Trading Ltd`).
        customer_name: required Text<1, 100>,
        /// The customer's reference (e.g. `ACME-0042`).
        customer_reference: required Text<1, 100>,
        /// Id of the contract owner the customer is contracted with.
        contract_owner_id: required Id references(contract_owners, "contract owner"),
        /// Id of one of that contract owner's sub-brands, or null (e.g. `null`).
        contract_owner_sub_brand_id: optional Id,
        /// Id of the billing cycle the customer is billed on.
        billing_cycle_id: required Id references(billing_cycles, "billing cycle"),
        /// The date the customer starts (yyyy-MM-dd).
        start_date: required Date,
        /// The customer's last date; null when open-ended. Not before startDate.
        end_date: optional Date,
        /// When the customer was created (UTC).
        created_date: created DateTime,
        /// When the customer was last changed (UTC).
        updated_date: updated DateTime,
    }
    scope { contract_owner_id }
    rules { validity(start_date, end_date) }
    extra_filters {}

    /// The custom fields sites can carry values for.
    custom_field_definitions {
        /// Display label of the field (e.g. `Cost centre`).
        label: required Text<1, 255>,
    }
    rules {}
    extra_filters {}

    /// The direct-debit mandates known to the platform. A site paying by PROVIDER_B,
    /// PROVIDER_C or PROVIDER_D names one by its mandateReference, and shows its status
    /// and dates. A reference is unique per provider (409).
    payment_provider_mandates {
        /// PROVIDER_B, PROVIDER_C or PROVIDER_D.
        provider: required Enum<MandateProvider>,
        /// The provider's reference of the mandate; unique per provider (e.g. `MD-000123`).
        mandate_reference: required Text<1, 255>,
        /// The mandate's status as the provider reports it (free text) (e.g. `ACTIVE`).
        status: required Text<1, 100>,
        /// The customer's reference in the provider's system, or null (e.g. `CUS-7781`).
        third_party_customer_reference: optional Text<1, 255>,
        /// When the mandate was recorded (UTC).
        created_date: created DateTime,
        /// When the mandate was last changed (UTC).
        updated_date: updated DateTime,
    }
    rules {}
    extra_filters {}

    /// Bill runs made outside the billing cycles, for a chosen set of sites. A user
    /// restricted to some contract owners may name only their sites.
    adhoc_bill_runs {
        /// Name of the bill run (e.g. `Year-end adjustments`).
        name: required Text<1, 255>,
    }
    children {
        /// Ids of the sites the run bills, in order, none twice.
        site_ids: values adhoc_bill_run_sites,
    }
    rules {}
    extra_filters {}

    /// A site an ad hoc bill run bills.
    adhoc_bill_run_sites {
        /// Id of the site.
        site_id: required Id references(sites, "site"),
    }
    rules {}
    extra_filters {}
}
