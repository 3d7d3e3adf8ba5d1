//! Series: "add performances" copies an event to new start times in one
//! transaction. A copy shares the event's layout (venue version, sections,
//! seats and their blocks), its tiers, price types, fees, tax and payment
//! mode, and starts as a draft. Nothing sold or held is copied.

use time::OffsetDateTime;

use super::Pool;
use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult, Invalid, Missing};

/// The most copies one request makes.
pub const MAX_COPIES: usize = 100;
/// The most seats one request copies, all copies together: a copy's seats
/// are one statement each (well within the statement timeout: the arena's
/// 20,000 are about a second), and the request must end within its own
/// deadline. 100 copies of the 1,038-seat hall are 103,800; 20 of the
/// arena are 400,000.
pub const MAX_COPIED_SEATS: i64 = 400_000;

/// Copies the event once per start time; answers the new events' ids in
/// the order the times were given. Each copy joins the event's series
/// (the event the series began with names it).
pub async fn copy_event(
    pool: &Pool,
    event_id: EventId,
    starts: &[OffsetDateTime],
) -> AppResult<Vec<EventId>> {
    // PostgreSQL keeps microseconds: the times as it will store them, so
    // the new rows can be matched back to the times given.
    let starts: Vec<OffsetDateTime> = starts
        .iter()
        .map(|at| {
            at.replace_nanosecond(at.nanosecond() / 1_000 * 1_000)
                .unwrap_or(*at)
        })
        .collect();
    let starts = starts.as_slice();
    let mut distinct = starts.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let now = OffsetDateTime::now_utc();
    if distinct.len() != starts.len()
        || !(1..=MAX_COPIES).contains(&starts.len())
        || starts.iter().any(|at| *at <= now)
    {
        return Err(AppError::Invalid(Invalid::Copies));
    }
    let copies = super::in_transaction(pool, async |tx| {
        let source = tx
            .execute(
                "UPDATE events SET series_id = coalesce(series_id, id) WHERE id = $1",
                &[&event_id],
            )
            .await?;
        if source != 1 {
            return Err(AppError::NotFound(Missing::Event));
        }
        let seats: i64 = tx
            .query_one(
                "SELECT count(*) FROM seats WHERE event_id = $1",
                &[&event_id],
            )
            .await?
            .get(0);
        let seats = seats * starts.len() as i64;
        if seats > MAX_COPIED_SEATS {
            return Err(AppError::Invalid(Invalid::CopiesTooLarge {
                most: MAX_COPIED_SEATS,
                seats,
            }));
        }
        let rows = tx
            .query(
                "INSERT INTO events (name, venue, starts_at, venue_id, venue_version, on_sale_at,
                                     stage, currency, time_zone, labels, payment,
                                     box_office_window_secs, accessible_release_secs,
                                     accessible_seats, booking_fee_cents, tax_rate, tax_included,
                                     fees_refundable, transfers_allowed, transfers_close_at,
                                     transfers_per_ticket, series_id)
                 SELECT e.name, e.venue, u.starts_at, e.venue_id, e.venue_version,
                        CASE WHEN e.on_sale_at < u.starts_at THEN e.on_sale_at END,
                        e.stage, e.currency, e.time_zone, e.labels, e.payment,
                        e.box_office_window_secs, e.accessible_release_secs, e.accessible_seats,
                        e.booking_fee_cents, e.tax_rate, e.tax_included, e.fees_refundable,
                        e.transfers_allowed, e.transfers_close_at + (u.starts_at - e.starts_at),
                        e.transfers_per_ticket, e.series_id
                   FROM events e CROSS JOIN unnest($2::timestamptz[]) AS u(starts_at)
                  WHERE e.id = $1
              RETURNING id, starts_at",
                &[&event_id, &starts],
            )
            .await?;
        let new_ids: Vec<EventId> = rows.iter().map(|row| row.get(0)).collect();
        for statement in COPY_CONTENTS {
            tx.execute(*statement, &[&event_id, &new_ids]).await?;
        }
        // A copy's seats a statement: all copies' in one took past the
        // statement timeout from three copies of the arena.
        for new_id in &new_ids {
            tx.execute(COPY_SEATS, &[&event_id, &vec![*new_id]]).await?;
        }
        // In the order the times were given.
        Ok(starts
            .iter()
            .filter_map(|at| {
                rows.iter()
                    .find(|row| row.get::<_, OffsetDateTime>(1) == *at)
                    .map(|row| row.get(0))
            })
            .collect::<Vec<EventId>>())
    })
    .await?;
    // As `events::create` does: the planner learns of the new seats now.
    pool.get().await?.batch_execute("ANALYZE seats").await?;
    Ok(copies)
}

/// What each copy gets of the event `$1`, for each new event in `$2`, in
/// the order the foreign keys need: tiers and sections, then areas (tiers
/// found by code), then price types and their prices; its seats after
/// ([`COPY_SEATS`], sections found by name).
const COPY_CONTENTS: &[&str] = &[
    "INSERT INTO price_tiers (event_id, code, name, price_cents, sort_order)
     SELECT n.id, t.code, t.name, t.price_cents, t.sort_order
       FROM price_tiers t CROSS JOIN unnest($2::bigint[]) AS n(id) WHERE t.event_id = $1",
    "INSERT INTO sections (event_id, name, sort_order, outline)
     SELECT n.id, s.name, s.sort_order, s.outline
       FROM sections s CROSS JOIN unnest($2::bigint[]) AS n(id) WHERE s.event_id = $1",
    "INSERT INTO ga_areas (event_id, name, tier_id, capacity, sort_order, outline)
     SELECT n.id, a.name, nt.id, a.capacity, a.sort_order, a.outline
       FROM ga_areas a
       JOIN price_tiers ot ON ot.id = a.tier_id
       CROSS JOIN unnest($2::bigint[]) AS n(id)
       JOIN price_tiers nt ON nt.event_id = n.id AND nt.code = ot.code
      WHERE a.event_id = $1",
    "INSERT INTO price_types (event_id, code, labels, sort_order, quota, max_per_order, closed,
                              hidden, requires)
     SELECT n.id, p.code, p.labels, p.sort_order, p.quota, p.max_per_order, p.closed, p.hidden,
            p.requires
       FROM price_types p CROSS JOIN unnest($2::bigint[]) AS n(id) WHERE p.event_id = $1",
    "INSERT INTO price_type_prices (event_id, price_type_id, tier_id, price_cents)
     SELECT n.id, np.id, nt.id, pp.price_cents
       FROM price_type_prices pp
       JOIN price_types op ON op.id = pp.price_type_id
       JOIN price_tiers ot ON ot.id = pp.tier_id
       CROSS JOIN unnest($2::bigint[]) AS n(id)
       JOIN price_types np ON np.event_id = n.id AND np.code = op.code
       JOIN price_tiers nt ON nt.event_id = n.id AND nt.code = ot.code
      WHERE pp.event_id = $1",
];

/// The seats of the event `$1` for each new event in `$2` (one at a time).
const COPY_SEATS: &str =
    "INSERT INTO seats (event_id, section_id, tier_id, row_label, seat_label, row_index, position,
                        x, y, rank, status, accessibility, view_note, blocked_for)
     SELECT n.id, ns.id, nt.id, s.row_label, s.seat_label, s.row_index, s.position, s.x, s.y,
            s.rank, CASE WHEN s.status = 'BLOCKED' THEN 'BLOCKED' ELSE 'AVAILABLE' END,
            s.accessibility, s.view_note, CASE WHEN s.status = 'BLOCKED' THEN s.blocked_for END
       FROM seats s
       JOIN sections os ON os.id = s.section_id
       JOIN price_tiers ot ON ot.id = s.tier_id
       CROSS JOIN unnest($2::bigint[]) AS n(id)
       JOIN sections ns ON ns.event_id = n.id AND ns.name = os.name
       JOIN price_tiers nt ON nt.event_id = n.id AND nt.code = ot.code
      WHERE s.event_id = $1";
