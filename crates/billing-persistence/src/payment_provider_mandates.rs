//! `payment_provider_mandates`: the mandates known to the platform, unique per provider.

billing_domain::payment_provider_mandates!(crate::stored_resource);
