//! Renaming and rescheduling an event, on sale or not: its name, its start
//! and its on-sale time. The database keeps sales opening before the start
//! (a CHECK); a start moved into the past is refused here. Audited.

use time::OffsetDateTime;

use super::Pool;
use super::audit::{self, Entry};
use crate::domain::ids::{Actor, EventId};
use crate::error::{AppError, AppResult, Invalid, Missing};

/// What staff asked to change; None leaves a detail as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DetailsChange {
    pub name: Option<String>,
    pub starts_at: Option<OffsetDateTime>,
    /// Some(None): on sale as soon as it is published.
    pub on_sale_at: Option<Option<OffsetDateTime>>,
}

impl DetailsChange {
    pub fn is_empty(&self) -> bool {
        *self == DetailsChange::default()
    }
}

/// Applies the change in one statement; returns nothing when nothing was
/// asked. A start that is not in the future, or sales opening at or after
/// the start (as changed), is refused and nothing changes.
pub async fn change(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    change: &DetailsChange,
) -> AppResult<()> {
    if change.is_empty() {
        return Ok(());
    }
    if change
        .starts_at
        .is_some_and(|at| at <= OffsetDateTime::now_utc())
    {
        return Err(AppError::Invalid(Invalid::StartsInPast));
    }
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let updated = tx
        .query_opt(
            "WITH before AS (
                 SELECT id, name, starts_at, on_sale_at FROM events WHERE id = $1 FOR NO KEY UPDATE
             )
             UPDATE events e
                SET name = coalesce($2, e.name),
                    starts_at = coalesce($3, e.starts_at),
                    on_sale_at = CASE WHEN $4 THEN $5 ELSE e.on_sale_at END
               FROM before WHERE e.id = before.id
             RETURNING before.name AS old_name, before.starts_at AS old_start,
                       before.on_sale_at AS old_on_sale,
                       e.name, e.starts_at, e.on_sale_at",
            &[
                &event_id,
                &change.name,
                &change.starts_at,
                &change.on_sale_at.is_some(),
                &change.on_sale_at.flatten(),
            ],
        )
        .await
        .map_err(|err| {
            let sales_after_start = err
                .as_db_error()
                .is_some_and(|db| db.constraint() == Some("event_on_sale_before_start"));
            if sales_after_start {
                AppError::Invalid(Invalid::OnSaleAfterStart)
            } else {
                err.into()
            }
        })?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let mut changed = Vec::new();
    let (old_name, name): (String, String) = (updated.get("old_name"), updated.get("name"));
    if old_name != name {
        changed.push(format!("name {old_name:?} to {name:?}"));
    }
    let (old_start, start): (OffsetDateTime, OffsetDateTime) =
        (updated.get("old_start"), updated.get("starts_at"));
    if old_start != start {
        changed.push(format!("start {old_start} to {start}"));
    }
    let (old_on_sale, on_sale): (Option<OffsetDateTime>, Option<OffsetDateTime>) =
        (updated.get("old_on_sale"), updated.get("on_sale_at"));
    if old_on_sale != on_sale {
        let shown =
            |at: Option<OffsetDateTime>| at.map_or("at once".to_string(), |at| at.to_string());
        changed.push(format!(
            "on sale {} to {}",
            shown(old_on_sale),
            shown(on_sale)
        ));
    }
    if !changed.is_empty() {
        audit::record(
            &tx,
            Entry {
                actor: Some(actor),
                action: "change_event_details",
                event_id: Some(event_id),
                hold_id: None,
                order_id: None,
                seat_ids: &[],
                detail: changed.join("; "),
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}
