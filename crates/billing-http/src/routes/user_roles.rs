//! `GET /v1/user-roles`: the built-in roles and their permissions; read-only.

use actix_web::{HttpRequest, HttpResponse};
use billing_domain::roles::Role;
use serde_json::json;

use crate::error::ApiError;
use crate::machinery::request::{Caller, reject_query};

pub async fn list(request: HttpRequest, Caller(_caller): Caller) -> Result<HttpResponse, ApiError> {
    reject_query(&request)?;
    let roles: Vec<_> = Role::ALL
        .iter()
        .map(|role| {
            json!({
                "code": role.code(),
                "name": role.name(),
                "description": role.description(),
                "permissions": role.permissions().iter().map(|p| p.code()).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(roles))
}
