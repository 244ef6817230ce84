-- An ADMINISTRATOR cannot be limited to contract owners (docs/api.md, "Users"): the limit meant
-- nothing for one (it manages users, so it could lift it), and now a write that keeps it is
-- refused. Administrators stored with contract owners lose them here, so that they can still
-- be changed. Kept in step with the other backend.
DELETE FROM user_contract_owners
WHERE user_id IN (SELECT id FROM users WHERE ',' || roles || ',' LIKE '%,ADMINISTRATOR,%');
