//! `dialstrings`: number prefixes, each rated as a source charge group.

billing_domain::dialstrings!(crate::stored_resource);

crate::in_force::in_force_conflict!(dialstrings, dialstring);
