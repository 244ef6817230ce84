DROP TABLE rating_changes;
