ALTER TABLE users ADD COLUMN contract_owner_ids TEXT NOT NULL DEFAULT '';
UPDATE users SET contract_owner_ids = COALESCE((
    SELECT string_agg(CAST(contract_owner_id AS TEXT), ',' ORDER BY contract_owner_id)
    FROM user_contract_owners WHERE user_contract_owners.user_id = users.id
), '');
DROP TABLE user_contract_owners;
