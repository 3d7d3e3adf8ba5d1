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
    // Wheelchair spaces and companion seats are never kept: offers don't
    // give them (best available holds them back from general parties), so
    // kept they would be stranded.
    format!(
        "(NOT {accessibility} && ARRAY['wheelchair', 'companion'] AND EXISTS (SELECT 1 FROM waitlist_entries w JOIN events we ON we.id = w.event_id
                  WHERE w.event_id = {event} AND w.status = 'waiting' AND NOT we.waitlist_paused
                    AND (w.section_id IS NULL OR w.section_id = {section})
                    AND (w.tier_id IS NULL OR w.tier_id = {tier})
                    AND (w.max_price_cents IS NULL
                         OR w.max_price_cents >= (SELECT wt.price_cents FROM price_tiers wt
                                                   WHERE wt.id = {tier}))))"
    )
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
