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
WITH RECURSIVE split (user_id, item, rest) AS (
    SELECT id, '', contract_owner_ids || ',' FROM users WHERE contract_owner_ids <> ''
    UNION ALL
    SELECT user_id, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1)
    FROM split WHERE rest <> ''
)
SELECT DISTINCT user_id, CAST(item AS INTEGER) AS contract_owner_id FROM split WHERE item <> '';

INSERT INTO contract_owners (id, name)
SELECT DISTINCT contract_owner_id,
       'Contract owner ' || contract_owner_id || ' (recreated by a migration: users were restricted to it)'
FROM migrated_user_contract_owners
WHERE contract_owner_id NOT IN (SELECT id FROM contract_owners);

INSERT INTO user_contract_owners (user_id, contract_owner_id)
SELECT user_id, contract_owner_id FROM migrated_user_contract_owners;

DROP TABLE migrated_user_contract_owners;

ALTER TABLE users DROP COLUMN contract_owner_ids;
