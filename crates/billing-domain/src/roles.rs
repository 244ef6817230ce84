//! The built-in roles and what each may do.

/// One thing a user may be allowed to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Permission {
    ReadReferenceData,
    WriteReferenceData,
    ManageReferenceDataSources,
    ReadCustomers,
    WriteCustomers,
    ManageUsers,
    ReadAudit,
    /// Create, list and revoke one's own API keys (every role).
    ManageOwnApiKeys,
}

impl Permission {
    pub const ALL: [Permission; 8] = [
        Permission::ReadReferenceData,
        Permission::WriteReferenceData,
        Permission::ManageReferenceDataSources,
        Permission::ReadCustomers,
        Permission::WriteCustomers,
        Permission::ManageUsers,
        Permission::ReadAudit,
        Permission::ManageOwnApiKeys,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Permission::ReadReferenceData => "REFERENCE_DATA_READ",
            Permission::WriteReferenceData => "REFERENCE_DATA_WRITE",
            Permission::ManageReferenceDataSources => "REFERENCE_DATA_SOURCES_MANAGE",
            Permission::ReadCustomers => "CUSTOMERS_READ",
            Permission::WriteCustomers => "CUSTOMERS_WRITE",
            Permission::ManageUsers => "USERS_MANAGE",
            Permission::ReadAudit => "AUDIT_READ",
            Permission::ManageOwnApiKeys => "API_KEYS_MANAGE_OWN",
        }
    }
}

/// A built-in role. Users hold one or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Administrator,
    BillingManager,
    ReferenceDataManager,
    CustomerManager,
    ReadOnly,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Administrator,
        Role::BillingManager,
        Role::ReferenceDataManager,
        Role::CustomerManager,
        Role::ReadOnly,
    ];

    /// The codes of [`Role::ALL`], in the same order.
    pub const CODES: &'static [&'static str] = &[
        "ADMINISTRATOR",
        "BILLING_MANAGER",
        "REFERENCE_DATA_MANAGER",
        "CUSTOMER_MANAGER",
        "READ_ONLY",
    ];

    pub fn code(self) -> &'static str {
        Self::CODES[self as usize]
    }

    pub fn from_code(code: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.code() == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::Administrator => "Administrator",
            Role::BillingManager => "Billing manager",
            Role::ReferenceDataManager => "Reference data manager",
            Role::CustomerManager => "Customer manager",
            Role::ReadOnly => "Read only",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Role::Administrator => {
                "Everything, including users, reference data sources and the audit trail."
            }
            Role::BillingManager => "Reads and writes customers, sites and reference data.",
            Role::ReferenceDataManager => {
                "Writes reference data; reads customers and sites (not users or the audit trail)."
            }
            Role::CustomerManager => "Writes customers and sites; reads reference data.",
            Role::ReadOnly => {
                "Reads reference data, customers and sites (not users or the audit trail)."
            }
        }
    }

    pub fn permissions(self) -> &'static [Permission] {
        use Permission::*;
        match self {
            Role::Administrator => &Permission::ALL,
            Role::BillingManager => &[
                ReadReferenceData,
                WriteReferenceData,
                ReadCustomers,
                WriteCustomers,
                ManageOwnApiKeys,
            ],
            Role::ReferenceDataManager => &[
                ReadReferenceData,
                WriteReferenceData,
                ReadCustomers,
                ManageOwnApiKeys,
            ],
            Role::CustomerManager => &[
                ReadReferenceData,
                ReadCustomers,
                WriteCustomers,
                ManageOwnApiKeys,
            ],
            Role::ReadOnly => &[ReadReferenceData, ReadCustomers, ManageOwnApiKeys],
        }
    }
}

/// True when any of `roles` grants `permission`.
pub fn roles_grant(roles: &[Role], permission: Permission) -> bool {
    roles
        .iter()
        .any(|role| role.permissions().contains(&permission))
}

/// Which contract owners' customers and sites a user may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContractOwnerScope {
    All,
    Only(Vec<i64>),
}

impl ContractOwnerScope {
    /// An empty list means every contract owner.
    pub fn from_ids(ids: &[i64]) -> Self {
        if ids.is_empty() {
            ContractOwnerScope::All
        } else {
            ContractOwnerScope::Only(ids.to_vec())
        }
    }

    /// Whether every contract owner is allowed (no restriction).
    pub fn is_all(&self) -> bool {
        matches!(self, Self::All)
    }

    pub fn allows(&self, contract_owner_id: i64) -> bool {
        match self {
            ContractOwnerScope::All => true,
            ContractOwnerScope::Only(ids) => ids.contains(&contract_owner_id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_permission_matrix() {
        let matrix: Vec<String> = Role::ALL
            .iter()
            .map(|role| {
                let codes: Vec<&str> = role.permissions().iter().map(|p| p.code()).collect();
                format!("{}: {}", role.code(), codes.join(" "))
            })
            .collect();
        insta::assert_snapshot!(matrix.join("\n"), @r"
        ADMINISTRATOR: REFERENCE_DATA_READ REFERENCE_DATA_WRITE REFERENCE_DATA_SOURCES_MANAGE CUSTOMERS_READ CUSTOMERS_WRITE USERS_MANAGE AUDIT_READ API_KEYS_MANAGE_OWN
        BILLING_MANAGER: REFERENCE_DATA_READ REFERENCE_DATA_WRITE CUSTOMERS_READ CUSTOMERS_WRITE API_KEYS_MANAGE_OWN
        REFERENCE_DATA_MANAGER: REFERENCE_DATA_READ REFERENCE_DATA_WRITE CUSTOMERS_READ API_KEYS_MANAGE_OWN
        CUSTOMER_MANAGER: REFERENCE_DATA_READ CUSTOMERS_READ CUSTOMERS_WRITE API_KEYS_MANAGE_OWN
        READ_ONLY: REFERENCE_DATA_READ CUSTOMERS_READ API_KEYS_MANAGE_OWN
        ");
    }

    #[test]
    fn only_administrators_manage_users() {
        for role in Role::ALL {
            assert_eq!(
                roles_grant(&[role], Permission::ManageUsers),
                role == Role::Administrator
            );
        }
        assert!(!roles_grant(&[], Permission::ReadReferenceData));
    }

    #[test]
    fn codes_round_trip() {
        for role in Role::ALL {
            assert_eq!(Role::from_code(role.code()), Some(role));
        }
        assert_eq!(Role::from_code("administrator"), None);
    }

    #[test]
    fn contract_owner_scope() {
        assert!(ContractOwnerScope::from_ids(&[]).allows(42));
        let scope = ContractOwnerScope::from_ids(&[1, 2]);
        assert!(scope.allows(2));
        assert!(!scope.allows(3));
    }
}
