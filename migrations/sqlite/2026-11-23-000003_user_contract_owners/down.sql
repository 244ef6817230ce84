ALTER TABLE users ADD COLUMN contract_owner_ids TEXT NOT NULL DEFAULT '';
UPDATE users SET contract_owner_ids = COALESCE((
    SELECT group_concat(contract_owner_id, ',')
    FROM (SELECT contract_owner_id FROM user_contract_owners
          WHERE user_contract_owners.user_id = users.id ORDER BY contract_owner_id)
), '');
DROP TABLE user_contract_owners;
