DROP TABLE api_keys;
