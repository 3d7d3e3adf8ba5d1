//! Which free seats the waitlist keeps from buyers: the SQL a buyer's
//! claim and best available judge each seat by, and the questions a
//! refusal asks. A leaf of `db`: claims, best available and the waitlist
//! all use it.

use super::GenericClient;
use crate::domain::ids::{EventId, SeatId};
use crate::error::AppResult;

/// SQL: whether a free seat (its event, section and tier as SQL
/// expressions) is kept for the waitlist: some party waits that would
/// take it, and staff haven't paused the list. Correlated per seat; the
/// partial index of waiting parties makes it one empty probe for an event
/// with none.
pub(crate) fn reserved_sql(event: &str, section: &str, tier: &str, accessibility: &str) -> String {
    // The rule itself is the SQL function waitlist_keeps (migration V20),
    // so statements stay short enough for pg_stat_activity to show whole.
    format!("waitlist_keeps({event}, {section}, {tier}, {accessibility})")
}

pub(super) const FREE: &str =
    "(s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.held_until < now()))";

/// Whether any of these seats is free and kept for the waitlist (why a
/// buyer's claim of them took nothing).
pub(super) async fn keeps_any(
    client: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
) -> AppResult<bool> {
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM seats s WHERE s.event_id = $1 AND s.id = ANY($2)
                          AND {FREE} AND {})",
        reserved_sql("$1", "s.section_id", "s.tier_id", "s.accessibility")
    );
    let statement = client.prepare_cached(&sql).await?;
    Ok(client
        .query_one(&statement, &[&event_id, &seat_ids])
        .await?
        .get(0))
}

/// Whether the event has any free seat kept for the waitlist.
pub(super) async fn keeps_free_seats(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<bool> {
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM seats s WHERE s.event_id = $1 AND {FREE} AND {})",
        reserved_sql("$1", "s.section_id", "s.tier_id", "s.accessibility")
    );
    let statement = client.prepare_cached(&sql).await?;
    Ok(client.query_one(&statement, &[&event_id]).await?.get(0))
}
