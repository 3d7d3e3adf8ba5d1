//! Staff accounts: their roles, disabling, password resets, and the audit
//! of every change to them (in the change's own transaction).

use time::OffsetDateTime;

use super::GenericClient;
use crate::domain::ids::StaffId;
use crate::domain::role::Role;
use crate::error::{AppError, AppResult, Conflict, Missing};

pub struct StaffAccount {
    pub id: StaffId,
    pub name: String,
    pub role: Role,
    pub disabled_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
}

/// A signed-in account as each staff request sees it.
pub struct SignedIn {
    pub name: String,
    pub role: Role,
}

fn role_of(row: &tokio_postgres::Row, column: &str) -> Role {
    let name: &str = row.get(column);
    Role::parse(name).unwrap_or_else(|| {
        // The column's CHECK holds the same names: this is unreachable
        // unless a migration and Role disagree, and then the least role
        // is the safe reading.
        tracing::error!(role = name, "staff.role holds a name Role doesn't know");
        Role::Door
    })
}

pub async fn create(
    client: &impl GenericClient,
    name: &str,
    password_hash: &str,
    role: Role,
) -> AppResult<StaffId> {
    let row = client
        .query_opt(
            "INSERT INTO staff (name, password_hash, role) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO NOTHING RETURNING id",
            &[&name, &password_hash, &role.as_str()],
        )
        .await?;
    row.map(|r| r.get(0))
        .ok_or_else(|| AppError::Conflict(Conflict::StaffExists(name.to_string())))
}

pub async fn list(client: &impl GenericClient) -> AppResult<Vec<StaffAccount>> {
    let rows = client
        .query(
            "SELECT id, name, role, disabled_at, created_at FROM staff ORDER BY name",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| StaffAccount {
            id: r.get("id"),
            name: r.get("name"),
            role: role_of(r, "role"),
            disabled_at: r.get("disabled_at"),
            created_at: r.get("created_at"),
        })
        .collect())
}

/// The id, password hash and credentials version of the account that may
/// sign in with this name: a disabled account has none.
pub async fn credentials(
    client: &impl GenericClient,
    name: &str,
) -> AppResult<Option<(StaffId, String, i32)>> {
    let statement = client
        .prepare_cached(
            "SELECT id, password_hash, credentials_version FROM staff
              WHERE name = $1 AND disabled_at IS NULL",
        )
        .await?;
    let row = client.query_opt(&statement, &[&name]).await?;
    Ok(row.map(|r| (r.get(0), r.get(1), r.get(2))))
}

/// The account a session names, if it may still act: not disabled, and
/// signed in since its password was last reset.
pub async fn signed_in(
    client: &impl GenericClient,
    staff_id: StaffId,
    credentials_version: i32,
) -> AppResult<Option<SignedIn>> {
    let statement = client
        .prepare_cached(
            "SELECT name, role FROM staff
              WHERE id = $1 AND disabled_at IS NULL AND credentials_version = $2",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&staff_id, &credentials_version])
        .await?;
    Ok(row.map(|r| SignedIn {
        name: r.get("name"),
        role: role_of(&r, "role"),
    }))
}

/// What an admin changes about an account.
pub enum Change<'a> {
    Role(Role),
    Disable,
    Enable,
    /// A new password hash; every session of the account ends.
    Password(&'a str),
}

/// Changes an account and audits it, in one transaction. The accounts are
/// locked first (all of them, in id order, so two admins changing two
/// accounts can't deadlock) so that "someone can still administer" is
/// judged on what is, not on what was read before another admin's change.
pub async fn change(
    tx: &deadpool_postgres::Transaction<'_>,
    admin: StaffId,
    subject: StaffId,
    change: Change<'_>,
) -> AppResult<()> {
    tx.execute("SELECT id FROM staff ORDER BY id FOR UPDATE", &[])
        .await?;
    // The actor is judged again under the lock: an admin demoted or
    // disabled by another admin a moment ago changes nothing now.
    let still_admin = tx
        .query_opt(
            "SELECT 1 FROM staff WHERE id = $1 AND role = 'admin' AND disabled_at IS NULL",
            &[&admin],
        )
        .await?
        .is_some();
    if !still_admin {
        return Err(AppError::Unauthorized);
    }
    let row = tx
        .query_opt(
            "SELECT name, role, disabled_at IS NOT NULL AS disabled FROM staff WHERE id = $1",
            &[&subject],
        )
        .await?
        .ok_or(AppError::NotFound(Missing::StaffAccount))?;
    let name: String = row.get("name");
    let before = role_of(&row, "role");
    let takes_admin_away = match change {
        Change::Role(role) => before == Role::Admin && role != Role::Admin,
        Change::Disable => before == Role::Admin || subject == admin,
        Change::Enable | Change::Password(_) => false,
    };
    if takes_admin_away {
        let other_admins: i64 = tx
            .query_one(
                "SELECT count(*) FROM staff
                  WHERE role = 'admin' AND disabled_at IS NULL AND id <> $1",
                &[&subject],
            )
            .await?
            .get(0);
        if subject == admin || other_admins == 0 {
            return Err(AppError::Conflict(Conflict::LastAdmin));
        }
    }
    let (action, detail) = match change {
        Change::Role(role) => {
            tx.execute(
                "UPDATE staff SET role = $2 WHERE id = $1",
                &[&subject, &role.as_str()],
            )
            .await?;
            ("staff_role", format!("{name}: {before} → {role}"))
        }
        Change::Disable => {
            tx.execute(
                // Its sessions end for good: enabling it again later
                // doesn't bring them back.
                "UPDATE staff SET disabled_at = coalesce(disabled_at, now()),
                                  credentials_version = credentials_version + 1
                  WHERE id = $1",
                &[&subject],
            )
            .await?;
            ("staff_disabled", format!("{name} disabled"))
        }
        Change::Enable => {
            tx.execute(
                "UPDATE staff SET disabled_at = NULL WHERE id = $1",
                &[&subject],
            )
            .await?;
            ("staff_enabled", format!("{name} enabled"))
        }
        Change::Password(hash) => {
            tx.execute(
                "UPDATE staff SET password_hash = $2,
                                  credentials_version = credentials_version + 1
                  WHERE id = $1",
                &[&subject, &hash],
            )
            .await?;
            ("staff_password_reset", format!("{name}: password reset"))
        }
    };
    audit(tx, Some(admin), subject, action, &detail).await
}

/// The command line's role change: whoever runs it owns the server, so no
/// admin rule applies.
pub async fn set_role_from_command_line(
    client: &impl GenericClient,
    subject: StaffId,
    role: Role,
) -> AppResult<()> {
    client
        .execute(
            "UPDATE staff SET role = $2 WHERE id = $1",
            &[&subject, &role.as_str()],
        )
        .await?;
    Ok(())
}

/// Records a change to an account; `actor` None is the command line.
pub async fn audit(
    client: &impl GenericClient,
    actor: Option<StaffId>,
    subject: StaffId,
    action: &str,
    detail: &str,
) -> AppResult<()> {
    client
        .execute(
            "INSERT INTO audit_log (staff_id, subject_staff_id, action, detail)
             VALUES ($1, $2, $3, $4)",
            &[&actor, &subject, &action, &detail],
        )
        .await?;
    Ok(())
}

/// The account's credentials version (what a session signed in under).
pub async fn credentials_version(client: &impl GenericClient, staff_id: StaffId) -> AppResult<i32> {
    Ok(client
        .query_one(
            "SELECT credentials_version FROM staff WHERE id = $1",
            &[&staff_id],
        )
        .await?
        .get(0))
}

/// An account's id by name.
pub async fn id_of(client: &impl GenericClient, name: &str) -> AppResult<Option<StaffId>> {
    let row = client
        .query_opt("SELECT id FROM staff WHERE name = $1", &[&name])
        .await?;
    Ok(row.map(|r| r.get(0)))
}

/// Changes to accounts, newest first, with who made them.
pub struct AccountChange {
    pub at: OffsetDateTime,
    pub by: Option<String>,
    pub detail: String,
}

pub async fn recent_changes(client: &impl GenericClient) -> AppResult<Vec<AccountChange>> {
    let rows = client
        .query(
            "SELECT a.at, s.name AS by, a.detail FROM audit_log a
               LEFT JOIN staff s ON s.id = a.staff_id
              WHERE a.subject_staff_id IS NOT NULL
              ORDER BY a.id DESC LIMIT 50",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| AccountChange {
            at: r.get("at"),
            by: r.get("by"),
            detail: r.get("detail"),
        })
        .collect())
}
