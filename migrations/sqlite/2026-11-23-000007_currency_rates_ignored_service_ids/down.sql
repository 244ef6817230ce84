DROP TABLE ignored_service_ids;
DROP TABLE currency_rates;
