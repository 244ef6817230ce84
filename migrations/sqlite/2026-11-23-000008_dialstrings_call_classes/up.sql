-- Dialstrings, call classes and ignored call classes (decisions §3): what rating matches.
CREATE TABLE dialstrings (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    dialstring TEXT NOT NULL,
    reference_data_source_charge_group_id BIGINT NOT NULL REFERENCES reference_data_source_charge_groups (id),
    start_date DATE NOT NULL,
    end_date DATE,
    version BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX dialstrings_dialstring_idx ON dialstrings (dialstring);
CREATE INDEX dialstrings_group_idx ON dialstrings (reference_data_source_charge_group_id);

CREATE TABLE call_classes (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    call_class TEXT NOT NULL,
    reference_data_source_charge_group_id BIGINT NOT NULL REFERENCES reference_data_source_charge_groups (id),
    start_date DATE NOT NULL,
    end_date DATE,
    version BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX call_classes_call_class_idx ON call_classes (call_class);
CREATE INDEX call_classes_group_idx ON call_classes (reference_data_source_charge_group_id);

CREATE TABLE ignored_call_classes (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    call_class TEXT NOT NULL,
    reference_data_source_id BIGINT NOT NULL REFERENCES reference_data_sources (id),
    start_date DATE NOT NULL,
    end_date DATE,
    version BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX ignored_call_classes_source_idx ON ignored_call_classes (reference_data_source_id);
