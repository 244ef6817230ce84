DROP TABLE payment_provider_mandates;
DROP TABLE custom_field_definitions;
