//! The audit log: who did what, to which seats, when. Every write goes
//! through `record`, inside the transaction of the change it describes.

use time::OffsetDateTime;

use super::GenericClient;
use crate::domain::ids::{Actor, EventId, HoldId, OrderId, SeatId};
use crate::error::AppResult;

pub struct Entry<'a> {
    /// Who did it: staff or a box-office key; None for the system.
    pub actor: Option<Actor>,
    pub action: &'a str,
    pub event_id: Option<EventId>,
    pub hold_id: Option<HoldId>,
    pub order_id: Option<OrderId>,
    pub seat_ids: &'a [SeatId],
    pub detail: String,
}

pub async fn record(client: &impl GenericClient, entry: Entry<'_>) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "INSERT INTO audit_log (staff_id, api_key_id, action, event_id, hold_id, order_id,
                                    seat_ids, detail)
             VALUES ($1, $8, $2, $3, $4, $5, $6, $7)",
        )
        .await?;
    client
        .execute(
            &statement,
            &[
                &entry.actor.and_then(Actor::staff_id),
                &entry.action,
                &entry.event_id,
                &entry.hold_id,
                &entry.order_id,
                &entry.seat_ids,
                &entry.detail,
                &entry.actor.and_then(Actor::api_key_id),
            ],
        )
        .await?;
    Ok(())
}

pub struct LoggedAction {
    pub at: OffsetDateTime,
    pub staff: Option<String>,
    pub action: String,
    pub seats: Vec<String>,
    pub detail: String,
}

/// The event's most recent entries, newest first, with seats named: the
/// changes (each fetch of the door list is in the log too, but a device
/// fetches it every 15 s; the console's list leaves those reads out).
pub async fn recent(
    client: &impl GenericClient,
    event_id: EventId,
    limit: i64,
) -> AppResult<Vec<LoggedAction>> {
    let statement = client
        .prepare_cached(
            "SELECT a.at, coalesce(st.name, 'API key ' || k.name) AS staff, a.action, a.detail,
                    coalesce((SELECT array_agg(sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label
                                               ORDER BY sec.sort_order, s.row_index, s.position)
                                FROM seats s JOIN sections sec ON sec.id = s.section_id
                               WHERE s.id = ANY(a.seat_ids)), '{}') AS seats
               FROM audit_log a
               LEFT JOIN staff st ON st.id = a.staff_id
               LEFT JOIN api_keys k ON k.id = a.api_key_id
              WHERE a.event_id = $1 AND a.action <> 'door_list_fetched'
              ORDER BY a.at DESC, a.id DESC
              LIMIT $2",
        )
        .await?;
    let rows = client.query(&statement, &[&event_id, &limit]).await?;
    Ok(rows
        .iter()
        .map(|r| LoggedAction {
            at: r.get("at"),
            staff: r.get("staff"),
            action: r.get("action"),
            seats: r.get("seats"),
            detail: r.get("detail"),
        })
        .collect())
}
