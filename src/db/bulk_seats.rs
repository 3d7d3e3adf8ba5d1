//! Seats staff act on many at a time: the event's sections to choose a
//! whole one from, and which seats of a section a block or a release would
//! change. The change itself is `box_office::set_blocked`, all or nothing.

use super::GenericClient;
use crate::domain::ids::{EventId, SeatId, SectionId};
use crate::error::{AppError, AppResult, Missing};

/// The event's sections, in map order, with their seat counts.
pub async fn sections(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<(SectionId, String, i64)>> {
    let rows = client
        .query(
            "SELECT sec.id, sec.name, count(s.id) AS seats
               FROM sections sec LEFT JOIN seats s ON s.section_id = sec.id
              WHERE sec.event_id = $1
              GROUP BY sec.id ORDER BY sec.sort_order, sec.id",
            &[&event_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect())
}

/// The section's seats a block (`block`) would set aside: free ones, and
/// those of lapsed holds; or that a release would put back on sale: the
/// blocked ones. Read without a lock: the change that follows claims each
/// one conditionally and refuses if any was taken meanwhile.
pub async fn changeable_in_section(
    client: &impl GenericClient,
    event_id: EventId,
    section_id: SectionId,
    block: bool,
) -> AppResult<Vec<SeatId>> {
    let exists = client
        .query_opt(
            "SELECT 1 FROM sections WHERE id = $1 AND event_id = $2",
            &[&section_id, &event_id],
        )
        .await?;
    if exists.is_none() {
        return Err(AppError::NotFound(Missing::Section));
    }
    let rows = client
        .query(
            "SELECT id FROM seats
              WHERE event_id = $1 AND section_id = $2
                AND CASE WHEN $3 THEN status = 'AVAILABLE'
                                      OR (status = 'HELD' AND held_until < now())
                         ELSE status = 'BLOCKED' END
              ORDER BY id",
            &[&event_id, &section_id, &block],
        )
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// What a blocked seat is set aside for, if staff said.
pub async fn blocked_for(
    client: &impl GenericClient,
    seat_id: SeatId,
) -> AppResult<Option<String>> {
    let row = client
        .query_opt("SELECT blocked_for FROM seats WHERE id = $1", &[&seat_id])
        .await?;
    Ok(row.and_then(|row| row.get(0)))
}
