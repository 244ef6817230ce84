-- The contract owners a user is restricted to (decisions §2, §4), as rows SQL can join and
-- filter on instead of comma-separated text. Every id a user held is kept: an id that names
-- no contract owner gets a placeholder owner, so no restricted user becomes unrestricted.
CREATE TABLE user_contract_owners (
    user_id BIGINT NOT NULL REFERENCES users (id),
    contract_owner_id BIGINT NOT NULL REFERENCES contract_owners (id),
    PRIMARY KEY (user_id, contract_owner_id)
);
CREATE INDEX user_contract_owners_owner_idx ON user_contract_owners (contract_owner_id);

CREATE TEMPORARY TABLE migrated_user_contract_owners AS
SELECT DISTINCT users.id AS user_id, CAST(part AS BIGINT) AS contract_owner_id
FROM users CROSS JOIN LATERAL unnest(string_to_array(users.contract_owner_ids, ',')) AS part
WHERE part <> '';

INSERT INTO contract_owners (id, name)
SELECT DISTINCT contract_owner_id,
       'Contract owner ' || contract_owner_id || ' (recreated by a migration: users were restricted to it)'
FROM migrated_user_contract_owners
WHERE contract_owner_id NOT IN (SELECT id FROM contract_owners);
SELECT setval(pg_get_serial_sequence('contract_owners', 'id'),
              COALESCE((SELECT MAX(id) FROM contract_owners), 0) + 1, false);

INSERT INTO user_contract_owners (user_id, contract_owner_id)
SELECT user_id, contract_owner_id FROM migrated_user_contract_owners;

DROP TABLE migrated_user_contract_owners;

ALTER TABLE users DROP COLUMN contract_owner_ids;
