DROP TABLE inventory_items;
DROP TABLE site_assigned_custom_fields;
DROP TABLE site_invoice_addresses;
DROP TABLE site_invoice_details;
DROP TABLE site_contacts;
DROP TABLE site_addresses;
DROP TABLE sites;
