//! Staff accounts.

use time::OffsetDateTime;

use super::GenericClient;
use crate::domain::ids::StaffId;
use crate::error::{AppError, AppResult, Conflict};

pub struct StaffAccount {
    pub id: StaffId,
    pub name: String,
    pub created_at: OffsetDateTime,
}

pub async fn create(
    client: &impl GenericClient,
    name: &str,
    password_hash: &str,
) -> AppResult<StaffId> {
    let row = client
        .query_opt(
            "INSERT INTO staff (name, password_hash) VALUES ($1, $2)
             ON CONFLICT (name) DO NOTHING RETURNING id",
            &[&name, &password_hash],
        )
        .await?;
    row.map(|r| r.get(0))
        .ok_or_else(|| AppError::Conflict(Conflict::StaffExists(name.to_string())))
}

pub async fn list(client: &impl GenericClient) -> AppResult<Vec<StaffAccount>> {
    let rows = client
        .query("SELECT id, name, created_at FROM staff ORDER BY name", &[])
        .await?;
    Ok(rows
        .iter()
        .map(|r| StaffAccount {
            id: r.get("id"),
            name: r.get("name"),
            created_at: r.get("created_at"),
        })
        .collect())
}

/// The account's id and password hash, by name.
pub async fn credentials(
    client: &impl GenericClient,
    name: &str,
) -> AppResult<Option<(StaffId, String)>> {
    let statement = client
        .prepare_cached("SELECT id, password_hash FROM staff WHERE name = $1")
        .await?;
    let row = client.query_opt(&statement, &[&name]).await?;
    Ok(row.map(|r| (r.get(0), r.get(1))))
}

pub async fn name_of(client: &impl GenericClient, staff_id: StaffId) -> AppResult<Option<String>> {
    let statement = client
        .prepare_cached("SELECT name FROM staff WHERE id = $1")
        .await?;
    let row = client.query_opt(&statement, &[&staff_id]).await?;
    Ok(row.map(|r| r.get(0)))
}
