DROP TABLE customers;
DROP TABLE invoice_templates;
DROP TABLE billing_cycles;
