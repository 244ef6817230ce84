//! Site declarations (docs/api.md "Sites"): a site and the records it owns (its
//! address, contacts, invoice details with their own address, assigned custom fields).

billing_declare::declare! {
    /// The physical locations of customers. A site either receives its own invoices
    /// (siteInvoiceDetails) or sends them to another active site of the same customer
    /// (siteIdReceivingInvoice). A user restricted to some contract owners sees only the
    /// sites of their customers.
    sites {
        /// Id of the customer the site belongs to.
        customer_id: required Id references(customers, "customer"),
        /// Name of the site (e.g. `Leeds office`).
        site_name: required Text<1, 100>,
        /// The customer's reference for the site (e.g. `LEEDS-01`).
        site_reference: required Text<1, 100>,
        /// Tag a matching component uses to tell rental product flavours apart (e.g. `north-region`).
        matchmaker_matching_tag: optional Text<1, 255>,
        /// The date the site starts (yyyy-MM-dd).
        start_date: required Date,
        /// The site's last date; null when open-ended. Not before startDate. A site whose
        /// end date is before today (UTC) is ended.
        end_date: optional Date,
        /// When the site was created (UTC).
        created_date: created DateTime,
        /// When the site was last changed (UTC).
        updated_date: updated DateTime,
        /// Id of another site of the same customer that receives this site's invoices;
        /// null when the site has siteInvoiceDetails (e.g. `null`).
        site_id_receiving_invoice: optional Id,
        /// Amount per repayment period, in major currency units: 1 to 100000, at most 2
        /// decimal places. Given with repaymentPlanRemainingPeriods, or neither (e.g. `150.00`).
        repayment_plan_amount: optional Decimal<2, 1, 100000>,
        /// Repayment periods remaining (typically months): 0 to 240 (e.g. `12`).
        repayment_plan_remaining_periods: optional Integer<0, 240>,
    }
    children {
        /// The site's address.
        site_address: one site_addresses,
        /// How the site is invoiced and pays; null when another site receives its invoices.
        site_invoice_details: optional_one site_invoice_details,
        /// The site's contacts, at least one. At most one has its name on invoices: when no
        /// contact gives contactNameToAppearOnInvoice the first does, receiving invoices by
        /// EMAIL if it has an e-mail address, else by POST; marking another contact moves the
        /// mark; all given false leaves the site without an invoice contact.
        site_contacts: non_empty_list site_contacts,
        /// Values of custom fields for the site.
        assigned_custom_fields: list site_assigned_custom_fields,
    }
    scope { customer_id in customers.contract_owner_id }
    headers {
        /// true: the end date this patch sets is also given to every inventory item of the
        /// site that ends later or never, in the same transaction. Needs an /endDate
        /// operation in the patch.
        cascade_end_date: Bool,
    }
    rules {
        validity(start_date, end_date),
        repayment_plan(repayment_plan_amount, repayment_plan_remaining_periods),
    }
    extra_filters {
        /// The mandate status of the site's invoice details.
        mandate_status: Text<1, 100>,
        /// The mandate reference of the site's invoice details.
        mandate_reference: Text<1, 255>,
        /// The day the site's mandate was created (UTC).
        mandate_created_date: Date,
        /// The day the site's mandate was last changed (UTC).
        mandate_updated_date: Date,
        /// Sites whose invoice details use this invoice template.
        invoice_template_id: Id,
        /// Sites of customers billed on this billing cycle.
        billing_cycle_id: Id,
        /// Sites of customers of this contract owner sub-brand.
        contract_owner_sub_brand_id: Id,
        /// Sites this ad hoc bill run bills.
        adhoc_bill_run_id: Id,
        /// true: only sites that have not ended (end date today or later, or none);
        /// false: every site.
        active_sites: Bool,
    }

    /// The address of a site.
    site_addresses {
        /// Business name at the address (e.g. `Acme Trading Ltd`).
        business_name: optional Text<0, 100>,
        /// First line of the address (e.g. `1 Park Row`).
        address1: required Text<1, 100>,
        /// Second line of the address (e.g. `Third floor`).
        address2: optional Text<0, 100>,
        /// Third line of the address (e.g. `City Centre`).
        address3: optional Text<0, 100>,
        /// Town (e.g. `Leeds`).
        town: required Text<1, 50>,
        /// County (e.g. `West Yorkshire`).
        county: optional Text<0, 30>,
        /// Postcode: up to 20 letters, digits, whitespace and @ . - + _.
        postcode: required Postcode,
        /// Country, ISO 3166 alpha-2.
        country: required CountryCode,
    }
    rules {}
    extra_filters {}

    /// The address invoices go to.
    site_invoice_addresses = site_addresses;

    /// A contact of a site.
    site_contacts {
        /// Name of the contact (e.g. `Ann Smith`).
        contact_name: required Text<1, 100>,
        /// Empty, or 4 to 100 letters, digits, whitespace and ( ) @ & . , - _ £ |.
        contact_telephone_number: optional Telephone,
        /// Same rule as contactTelephoneNumber.
        contact_alternative_telephone_number: optional Telephone,
        /// E-mail address, at most 255 characters.
        contact_email_address: optional Email,
        /// ACCOUNTS, TECHNICAL, SALES or GENERAL.
        contact_role: required Enum<ContactRole>,
        /// EMAIL, POST or EMAIL_AND_POST; required when contactNameToAppearOnInvoice is
        /// true (when the server marks the first contact, it defaults to EMAIL if the
        /// contact has an e-mail address, else POST).
        receive_invoice_by: optional Enum<ReceiveBy>,
        /// EMAIL, POST or EMAIL_AND_POST.
        receive_invoice_summary_by: optional Enum<ReceiveBy>,
        /// Whether the contact receives electronic summary reports.
        receive_electronic_summary_reports: optional Bool,
        /// The contact cannot receive e-mails.
        email_suspended: defaulted Bool = false,
        /// The contact's name appears on invoices; at most one contact of a site.
        contact_name_to_appear_on_invoice: defaulted Bool = false,
        /// The contact receives fraud alerts by e-mail.
        receive_email_fraud_alert: defaulted Bool = false,
        /// The contact receives fraud alerts by SMS.
        receive_sms_fraud_alert: defaulted Bool = false,
    }
    rules {}
    extra_filters {}

    /// How a site is invoiced and pays.
    site_invoice_details {
        /// Id of an INVOICE_SUMMARY invoice template (e.g. `2`). Set on creation of the site
        /// only.
        invoice_summary_template_id: optional Id,
        /// Id of an INVOICE invoice template. Set on creation of the site only.
        invoice_template_id: required Id,
        /// Ids of ELECTRONIC_SUMMARY invoice templates (at most 100, no repeats; e.g. `[3]`).
        electronic_summary_template_ids: defaulted IdList = [],
        /// Components of the summary template and their positions (at most 100).
        invoice_summary_template_components: defaulted TemplateComponents = [],
        /// Account package reference (e.g. `PKG-GOLD`).
        account_package_reference: optional Text<1, 100>,
        /// Days from invoice to due date: 0 to 365. This or preferredPaymentDay is required.
        payment_terms_in_days: optional Integer<0, 365>,
        /// Preferred day of the month for payment: 1 to 28.
        preferred_payment_day: optional Integer<1, 28>,
        /// How the site pays.
        payment_method: required Enum<PaymentMethod>,
        /// The provider's mandate reference; required for PROVIDER_B, PROVIDER_C and
        /// PROVIDER_D, and must name a known mandate of that provider (e.g. `MD-000123`).
        mandate_reference: optional Text<1, 255>,
        /// The mandate's status, read from the mandate.
        mandate_status: derived Text<1, 100>,
        /// When the mandate was created, read from the mandate.
        mandate_created_date: derived DateTime,
        /// When the mandate was last changed, read from the mandate.
        mandate_updated_date: derived DateTime,
        /// The customer's reference in a third-party system; required with a PROVIDER_C
        /// mandate.
        third_party_customer_reference: optional Text<1, 255>,
        /// Direct debit reference (e.g. `DD-4471`).
        direct_debit_reference: optional Text<1, 100>,
        /// Bank account name (e.g. `Acme Trading Ltd`).
        account_name: optional Text<1, 100>,
        /// Bank account number: 1 to 34 letters and digits (IBAN length).
        account_number: optional AccountNumber,
        /// Bank sort code: 1 to 20 digits, spaces and hyphens.
        sort_code: optional SortCode,
        /// Purchase order number (e.g. `PO-2026-118`).
        purchase_order_number: optional Text<1, 100>,
        /// Notes shown on invoices addressed to this site (e.g. `Quote the PO number on remittance`).
        invoice_notes: optional Text<1, 1000>,
        /// Whether the site is exempt from tax.
        tax_exempt: optional Bool,
        /// Tax registration number (e.g. `GB123456789`).
        tax_registration_number: optional Text<1, 50>,
    }
    children {
        /// The address invoices go to; null for the site's address.
        invoice_address: optional_one site_invoice_addresses,
    }
    rules {
        payment_terms(payment_terms_in_days, preferred_payment_day),
    }
    extra_filters {}

    /// A custom field's value for a site.
    site_assigned_custom_fields {
        /// Id of the custom field definition.
        custom_field_definition_id: required Id references(custom_field_definitions, "custom field definition"),
        /// Display label of the definition, read from it. A body may send it back as a read
        /// showed it; it is ignored (labels are set on the definition).
        label: derived Text<1, 255> [echoed],
        /// The value; null when not set (e.g. `CC-104`).
        value: optional Text<0, 1000>,
    }
    rules {}
    extra_filters {}

    /// The products and services attached to sites. A site patch with
    /// cascade_end_date: true ends them with the site. A user restricted to some contract
    /// owners sees only the items of their customers' sites.
    inventory_items {
        /// Id of the site the item is attached to.
        site_id: required Id references(sites, "site"),
        /// Code of the product (e.g. `BB-FTTP-900`).
        product_code: required Text<1, 100>,
        /// Description of the item (e.g. `Fibre broadband 900 Mb`).
        description: optional Text<1, 255>,
        /// How many: 1 to 1000000; 1 when left out.
        quantity: defaulted Integer<1, 1000000> = 1,
        /// The date the item starts (yyyy-MM-dd).
        start_date: required Date,
        /// The item's last date; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    scope { site_id in sites.customer_id in customers.contract_owner_id }
    rules { validity(start_date, end_date) }
    extra_filters {}
}
