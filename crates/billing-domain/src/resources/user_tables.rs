//! User declarations (docs/api.md "Authentication and users").

billing_declare::declare! {
    /// API users. password is write-only (12..128 characters) and never returned.
    /// contractOwnerIds limits what the user sees (empty: every contract owner).
    /// Deactivating a user or changing the password signs the user out everywhere. The
    /// last active ADMINISTRATOR cannot be removed (409).
    users {
        /// Unique, case-sensitive: 1..100 letters, digits and `._@-` (e.g. `jsmith`).
        username: required Username,
        /// Email address (e.g. `jsmith@example.com`).
        email: optional Email,
        /// 12..128 characters of any kind, not only whitespace. Required on create; never
        /// returned (stored as its argon2 hash).
        password: write_only Password,
        /// Inactive users cannot sign in; their tokens stop working.
        active: defaulted Bool = true,
        /// Role codes (see /v1/user-roles); at least one (e.g. `["BILLING_MANAGER"]`).
        roles: required RoleCodes,
        /// When the user was created (UTC).
        created_date: created DateTime,
        /// When the user was last changed (UTC).
        updated_date: updated DateTime,
        /// When the user last signed in (UTC), or null.
        last_login_date: kept DateTime,
    }
    children {
        /// Contract owners the user is limited to; empty means all.
        contract_owner_ids: values user_contract_owners,
    }
    rules {}
    extra_filters {}

    /// A contract owner the user is limited to.
    user_contract_owners {
        /// The contract owner's id.
        contract_owner_id: required Id references(contract_owners, "contract owner"),
    }
    rules {}
    extra_filters {}
}
