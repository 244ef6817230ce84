//! The caller of a request, as the database says it is now.

use billing_domain::roles::{ContractOwnerScope, Permission, Role, roles_grant};

use crate::error::AuthError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticatedUser {
    pub id: i64,
    pub username: String,
    pub roles: Vec<Role>,
    pub contract_owners: ContractOwnerScope,
    /// The API key the request was made with (`None`: an access token). Its roles are already
    /// in `roles` (the key's that the user still holds).
    pub api_key_id: Option<i64>,
}

impl AuthenticatedUser {
    pub fn has(&self, permission: Permission) -> bool {
        roles_grant(&self.roles, permission)
    }

    /// `Err(Forbidden)` naming the permission when the user lacks it.
    pub fn require(&self, permission: Permission) -> Result<(), AuthError> {
        if self.has(permission) {
            Ok(())
        } else {
            Err(AuthError::Forbidden(permission.code()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn require_names_the_missing_permission() {
        let user = AuthenticatedUser {
            id: 1,
            username: "reader".into(),
            roles: vec![Role::ReadOnly],
            contract_owners: ContractOwnerScope::All,
            api_key_id: None,
        };
        assert!(user.require(Permission::ReadReferenceData).is_ok());
        insta::assert_snapshot!(user.require(Permission::WriteReferenceData).unwrap_err(), @"missing permission REFERENCE_DATA_WRITE");
    }
}
