-- A page of charge groups sorted by name walks this index and stops after the page, instead
-- of sorting every matching row first (docs/performance.md, the list of 100).
CREATE INDEX charge_groups_name_idx ON charge_groups (name);
