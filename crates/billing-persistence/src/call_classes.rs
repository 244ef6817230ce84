//! `call_classes`: call classes, each rated as a source charge group.

billing_domain::call_classes!(crate::stored_resource);

crate::in_force::in_force_conflict!(call_classes, call_class);
