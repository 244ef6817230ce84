DROP TABLE tax_bands;
