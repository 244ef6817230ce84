DROP TABLE ignored_call_classes;
DROP TABLE call_classes;
DROP TABLE dialstrings;
