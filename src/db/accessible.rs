//! Accessible seating: when an event's held-back wheelchair spaces and
//! companion seats join general best available, and how many of them are
//! sold, held and free. The hold-back itself is judged in best
//! available's own statements (`accessible_held_back`, migration V16).

use time::OffsetDateTime;

use super::{GenericClient, Pool, audit, retrying};
use crate::domain::accessible::AccessibleRelease;
use crate::domain::ids::{Actor, EventId};
use crate::error::{AppError, AppResult, Missing};

/// An event's accessible-seating settings, and what they mean now.
#[derive(Debug, Clone)]
pub struct AccessibleSettings {
    pub release: AccessibleRelease,
    /// How long before the start held-back seats join general sale, if
    /// they do by time.
    pub release_secs: Option<i32>,
    /// When that is (None if never by time).
    pub release_at: Option<OffsetDateTime>,
    /// Whether general best available skips them now.
    pub held_back_now: bool,
}

pub async fn settings(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<AccessibleSettings> {
    let statement = client
        .prepare_cached(
            "SELECT accessible_seats, accessible_release_secs,
                    starts_at - make_interval(secs => accessible_release_secs) AS release_at,
                    accessible_held_back(accessible_seats, accessible_release_secs, starts_at)
               FROM events WHERE id = $1",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    Ok(AccessibleSettings {
        release: AccessibleRelease::parse(row.get(0)).unwrap_or_default(),
        release_secs: row.get(1),
        release_at: row.get(2),
        held_back_now: row.get(3),
    })
}

/// Sets when held-back seats join general sale, audited. `release_secs`
/// None keeps the time as it is unless `clear_time`.
pub async fn set(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    release: AccessibleRelease,
    release_secs: Option<i32>,
    clear_time: bool,
) -> AppResult<AccessibleSettings> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            // FOR UPDATE waits for every claim in flight (each holds the
            // event's key-share lock), so none that read the old setting
            // commits after the staff are told the new one.
            let lock = tx
                .prepare_cached("SELECT 1 FROM events WHERE id = $1 FOR UPDATE")
                .await?;
            tx.query_opt(&lock, &[&event_id])
                .await?
                .ok_or(AppError::NotFound(Missing::Event))?;
            let before = settings(tx, event_id).await?;
            let update = tx
                .prepare_cached(
                    "UPDATE events SET accessible_seats = $2,
                            accessible_release_secs = CASE WHEN $4 THEN NULL
                                ELSE coalesce($3, accessible_release_secs) END
                      WHERE id = $1",
                )
                .await?;
            tx.execute(
                &update,
                &[&event_id, &release.as_str(), &release_secs, &clear_time],
            )
            .await?;
            let after = settings(tx, event_id).await?;
            let time = |secs: Option<i32>| match secs {
                Some(secs) => format!("{} h before the start", f64::from(secs) / 3600.0),
                None => "never by time".to_string(),
            };
            audit::record(
                tx,
                audit::Entry {
                    actor: Some(actor),
                    action: "set_accessible_seating",
                    event_id: Some(event_id),
                    hold_id: None,
                    order_id: None,
                    seat_ids: &[],
                    detail: format!(
                        "wheelchair spaces and companion seats: {} ({}) → {} ({}); held back now: {}",
                        before.release.as_str(),
                        time(before.release_secs),
                        after.release.as_str(),
                        time(after.release_secs),
                        if after.held_back_now { "yes" } else { "no" }
                    ),
                },
            )
            .await?;
            Ok(after)
        })
    })
    .await
}

/// One section's wheelchair spaces or companion seats, by state. A lapsed
/// hold counts as free, as it does for every buyer.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct AccessibleCounts {
    pub section: String,
    /// "wheelchair" or "companion".
    pub kind: String,
    pub sold: i64,
    pub held: i64,
    pub free: i64,
    pub blocked: i64,
}

/// Wheelchair spaces and companion seats per section, for the report.
pub async fn counts(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<AccessibleCounts>> {
    let statement = client
        .prepare_cached(
            "SELECT sec.name, f.kind,
                    count(*) FILTER (WHERE s.status = 'SOLD') AS sold,
                    count(*) FILTER (WHERE s.status = 'HELD' AND s.held_until >= now()) AS held,
                    count(*) FILTER (WHERE s.status = 'AVAILABLE'
                                        OR (s.status = 'HELD' AND s.held_until < now())) AS free,
                    count(*) FILTER (WHERE s.status = 'BLOCKED') AS blocked
               FROM seats s
               JOIN sections sec ON sec.id = s.section_id
              CROSS JOIN LATERAL unnest(s.accessibility) AS f(kind)
              WHERE s.event_id = $1 AND f.kind IN ('wheelchair', 'companion')
              GROUP BY sec.id, sec.name, f.kind
              ORDER BY sec.id, f.kind DESC",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| AccessibleCounts {
            section: row.get(0),
            kind: row.get(1),
            sold: row.get("sold"),
            held: row.get("held"),
            free: row.get("free"),
            blocked: row.get("blocked"),
        })
        .collect())
}
