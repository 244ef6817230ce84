DROP INDEX charge_groups_name_idx;
