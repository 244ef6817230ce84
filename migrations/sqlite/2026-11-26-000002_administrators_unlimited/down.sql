-- The removed limits are not restored: they meant nothing.
SELECT 1;
