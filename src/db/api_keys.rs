//! API keys: made and revoked on the command line, looked up by the hash
//! of the key a request bears.

use time::OffsetDateTime;

use super::GenericClient;
use crate::domain::api_key::Scope;
use crate::domain::ids::ApiKeyId;
use crate::error::{AppError, AppResult, Conflict};

/// A key that may be used now.
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub name: String,
    pub scope: Scope,
}

pub async fn create(
    client: &impl GenericClient,
    name: &str,
    scope: Scope,
    key_hash: &[u8; 32],
) -> AppResult<ApiKeyId> {
    let inserted = client
        .query_opt(
            "INSERT INTO api_keys (name, scope, role, key_hash) VALUES ($1, $2, $3, $4)
             ON CONFLICT (name) DO NOTHING RETURNING id",
            &[
                &name,
                &scope.as_str(),
                &scope.role().map(|role| role.as_str()),
                &key_hash.as_slice(),
            ],
        )
        .await?;
    inserted
        .map(|row| row.get(0))
        .ok_or_else(|| AppError::Conflict(Conflict::ApiKeyExists(name.to_string())))
}

/// The live key with this hash, if any.
pub async fn authenticate(
    client: &impl GenericClient,
    key_hash: &[u8; 32],
) -> AppResult<Option<ApiKey>> {
    let statement = client
        .prepare_cached(
            "SELECT id, name, scope, role FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
        )
        .await?;
    Ok(client
        .query_opt(&statement, &[&key_hash.as_slice()])
        .await?
        .and_then(|row| {
            Some(ApiKey {
                id: row.get("id"),
                name: row.get("name"),
                scope: Scope::from_db(row.get("scope"), row.get("role"))?,
            })
        }))
}

/// Gives a live staff key another role; false if there is no live staff
/// key of that name.
pub async fn set_role(
    client: &impl GenericClient,
    name: &str,
    role: crate::domain::role::Role,
) -> AppResult<bool> {
    Ok(client
        .execute(
            "UPDATE api_keys SET role = $2
              WHERE name = $1 AND scope = 'box-office' AND revoked_at IS NULL",
            &[&name, &role.as_str()],
        )
        .await?
        == 1)
}

/// Revokes the key; false if there is no live key of that name.
pub async fn revoke(client: &impl GenericClient, name: &str) -> AppResult<bool> {
    Ok(client
        .execute(
            "UPDATE api_keys SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL",
            &[&name],
        )
        .await?
        == 1)
}

pub struct Listed {
    pub name: String,
    pub scope: String,
    pub created_at: OffsetDateTime,
    pub revoked_at: Option<OffsetDateTime>,
}

pub async fn list(client: &impl GenericClient) -> AppResult<Vec<Listed>> {
    Ok(client
        .query(
            "SELECT name, scope, role, created_at, revoked_at FROM api_keys ORDER BY name",
            &[],
        )
        .await?
        .iter()
        .map(|row| Listed {
            name: row.get("name"),
            scope: Scope::from_db(row.get("scope"), row.get("role"))
                .map_or_else(|| row.get("scope"), Scope::label),
            created_at: row.get("created_at"),
            revoked_at: row.get("revoked_at"),
        })
        .collect())
}
