-- The contract owners a user is limited to become the elements of a `values` list, as every
-- owned list is stored: an id, the parent's id and an ordinal (ascending ids, as they were read).
CREATE TABLE user_contract_owner_elements (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id),
    ordinal BIGINT NOT NULL,
    contract_owner_id BIGINT NOT NULL REFERENCES contract_owners (id),
    UNIQUE (user_id, contract_owner_id)
);
INSERT INTO user_contract_owner_elements (user_id, ordinal, contract_owner_id)
SELECT user_id,
       ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY contract_owner_id) - 1,
       contract_owner_id
FROM user_contract_owners;
DROP TABLE user_contract_owners;
ALTER TABLE user_contract_owner_elements RENAME TO user_contract_owners;
CREATE INDEX user_contract_owners_user_idx ON user_contract_owners (user_id, ordinal);
CREATE INDEX user_contract_owners_owner_idx ON user_contract_owners (contract_owner_id);
