CREATE TABLE user_contract_owner_pairs (
    user_id BIGINT NOT NULL REFERENCES users (id),
    contract_owner_id BIGINT NOT NULL REFERENCES contract_owners (id),
    PRIMARY KEY (user_id, contract_owner_id)
);
INSERT INTO user_contract_owner_pairs (user_id, contract_owner_id)
SELECT user_id, contract_owner_id FROM user_contract_owners;
DROP TABLE user_contract_owners;
ALTER TABLE user_contract_owner_pairs RENAME TO user_contract_owners;
CREATE INDEX user_contract_owners_owner_idx ON user_contract_owners (contract_owner_id);
