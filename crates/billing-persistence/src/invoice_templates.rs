//! `invoice_templates`: the layouts invoices are printed with.

billing_domain::invoice_templates!(crate::stored_resource);
