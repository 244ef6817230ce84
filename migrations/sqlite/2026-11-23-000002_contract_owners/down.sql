DROP TABLE contract_owner_sub_brands;
DROP TABLE contract_owners;
