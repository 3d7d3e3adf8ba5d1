//! Moving an event to another version of its venue, and what staff may
//! change in an event already on sale: a tier's price, and a section added
//! from a later version.
//!
//! A move rebuilds the event's seats in place: a seat the new version
//! still has (same section, row and seat label) keeps its id and takes its
//! new place, tier and flags; a seat it lacks is deleted, a new one
//! inserted. It is allowed on sale, while every seat that is sold, held or
//! waiting for its payment keeps its match in the same tier (see
//! `venue_move_check`), judged under locks on the event and every one of
//! its seats, in the transaction that rebuilds them.

use std::collections::{BTreeMap, HashMap};

use super::audit::{self, Entry};
use super::events::{SeatColumns, insert_seats_sql, outline_column};
use super::{GenericClient, Pool};
use crate::domain::geometry;
use crate::domain::ids::{Actor, EventId, VenueId};
use crate::domain::venue::VenueLayout;
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub from_version: i32,
    pub version: i32,
    /// Seats the new version still has, by section, row and label: their
    /// ids (and so any page or hold naming them) stay good.
    pub seats_kept: u64,
    pub seats_added: u64,
    pub seats_removed: u64,
}

/// Seats one statement writes (see `events::SEATS_PER_STATEMENT`).
const SEATS_PER_STATEMENT: usize = 5_000;

/// Moves the event's seats to `version` of its venue. New tiers need a
/// price in `prices` (minor units); a price given for a tier the event
/// already has replaces it. A deadlock with a release (which locks seats
/// in its own order) runs the move again.
pub async fn move_event(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    version: i32,
    prices: &BTreeMap<String, i32>,
) -> AppResult<Moved> {
    let venue_id = venue_of_event(&pool.get().await?, event_id).await?;
    // A season's places are this event's seats (`season_places`).
    if pool
        .get()
        .await?
        .query_opt(
            "SELECT 1 FROM season_events WHERE event_id = $1 LIMIT 1",
            &[&event_id],
        )
        .await?
        .is_some()
    {
        return Err(AppError::Conflict(Conflict::EventInSeason));
    }
    let layout = super::venues::version_layout(&pool.get().await?, venue_id, version).await?;
    let moved =
        super::retrying(|| move_once(pool, actor, event_id, version, &layout, prices)).await?;
    // New seats the planner has not seen (see `events::create`).
    pool.get().await?.batch_execute("ANALYZE seats").await?;
    Ok(moved)
}

/// What moving the event to `version` would do now, without doing it:
/// read without locks, so a moment's sales may change the answer (the
/// move judges again under its own).
pub async fn preview(
    client: &impl GenericClient,
    event_id: EventId,
    version: i32,
) -> AppResult<super::venue_move_check::MovePreview> {
    let venue_id = venue_of_event(client, event_id).await?;
    let layout = super::venues::version_layout(client, venue_id, version).await?;
    let from_version: i32 = client
        .query_one(
            "SELECT venue_version FROM events WHERE id = $1",
            &[&event_id],
        )
        .await?
        .get(0);
    super::venue_move_check::compare(client, event_id, from_version, version, &layout).await
}

async fn move_once(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    version: i32,
    layout: &VenueLayout,
    prices: &BTreeMap<String, i32>,
) -> AppResult<Moved> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let locked = tx
        .query_opt(
            "SELECT venue_version FROM events WHERE id = $1 FOR UPDATE",
            &[&event_id],
        )
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let from_version: i32 = locked.get(0);
    // Tickets before seats: the order releasing a hold locks them in.
    tx.execute(
        "SELECT 1 FROM ga_tickets WHERE event_id = $1 ORDER BY id FOR UPDATE",
        &[&event_id],
    )
    .await?;
    // Every seat too, in id order: releasing and extending a hold change
    // seats without the event's lock.
    tx.execute(
        "SELECT 1 FROM seats WHERE event_id = $1 ORDER BY id FOR UPDATE",
        &[&event_id],
    )
    .await?;
    super::venue_move_check::reclaim_lapsed_places(&tx, event_id).await?;
    let judged =
        super::venue_move_check::compare(&tx, event_id, from_version, version, layout).await?;
    if !judged.in_use.is_empty() {
        return Err(AppError::Conflict(Conflict::PlacesInUse(judged.in_use)));
    }
    tx.execute(
        "UPDATE events SET venue_version = $2, venue = $3, stage = $4, time_zone = $5, labels = $6
          WHERE id = $1",
        &[
            &event_id,
            &version,
            &layout.name,
            &outline_column(&layout.stage),
            &layout.time_zone,
            &layout.labels_json(),
        ],
    )
    .await?;
    let tier_ids = rebuild_tiers(&tx, event_id, layout, prices).await?;
    let counts = rebuild_seats(&tx, event_id, layout).await?;
    rebuild_areas(&tx, event_id, layout, &tier_ids).await?;
    let codes: Vec<&str> = layout.tiers.iter().map(|t| t.code.as_str()).collect();
    tx.execute(
        "DELETE FROM price_tiers WHERE event_id = $1 AND NOT (code = ANY($2))",
        &[&event_id, &codes],
    )
    .await?;
    let moved = Moved {
        from_version,
        version,
        ..counts
    };
    audit::record(
        &tx,
        Entry {
            actor: Some(actor),
            action: "move_to_venue_version",
            event_id: Some(event_id),
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: format!(
                "version {} to {}: {} seats kept, {} added, {} removed{}",
                moved.from_version,
                moved.version,
                moved.seats_kept,
                moved.seats_added,
                moved.seats_removed,
                prices
                    .iter()
                    .map(|(code, cents)| format!("; tier {code} priced {cents} (minor units)"))
                    .collect::<String>()
            ),
        },
    )
    .await?;
    // Every instance drops the seat map it keeps (seats moved, came, went).
    super::publishing::nudge_live_feed(&tx, event_id).await?;
    tx.commit().await?;
    Ok(moved)
}

/// The venue the event was built from; 409 for one that wasn't.
pub async fn venue_of_event(client: &impl GenericClient, event_id: EventId) -> AppResult<VenueId> {
    let row = client
        .query_opt("SELECT venue_id FROM events WHERE id = $1", &[&event_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    row.get::<_, Option<VenueId>>(0)
        .ok_or(AppError::Conflict(Conflict::NotAVenueEvent))
}

/// The layout's tiers, by code: kept tiers keep their price unless one is
/// given, new tiers must be given one.
async fn rebuild_tiers(
    tx: &impl GenericClient,
    event_id: EventId,
    layout: &VenueLayout,
    prices: &BTreeMap<String, i32>,
) -> AppResult<HashMap<String, i64>> {
    if let Some(code) = prices
        .keys()
        .find(|code| !layout.tiers.iter().any(|t| &t.code == *code))
    {
        return Err(AppError::Invalid(Invalid::VenueHasNoTier(code.clone())));
    }
    let existing: HashMap<String, i32> = tx
        .query(
            "SELECT code, price_cents FROM price_tiers WHERE event_id = $1",
            &[&event_id],
        )
        .await?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    // A new price for a tier the event has: not under a live hold (the
    // move runs on sale now), and audited with the move.
    for (code, price) in prices {
        if existing.get(code).is_some_and(|was| was != price) {
            refuse_if_held(tx, event_id, code).await?;
        }
    }
    let mut ids = HashMap::new();
    for (order, tier) in layout.tiers.iter().enumerate() {
        let price = prices
            .get(&tier.code)
            .or_else(|| existing.get(&tier.code))
            .copied()
            .ok_or_else(|| {
                AppError::Invalid(Invalid::MissingPrice {
                    tier: tier.name.clone(),
                })
            })?;
        let row = tx
            .query_one(
                "INSERT INTO price_tiers (event_id, code, name, price_cents, sort_order)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (event_id, code) DO UPDATE
                    SET name = EXCLUDED.name, price_cents = EXCLUDED.price_cents,
                        sort_order = EXCLUDED.sort_order
                 RETURNING id",
                &[&event_id, &tier.code, &tier.name, &price, &(order as i32)],
            )
            .await?;
        ids.insert(tier.code.clone(), row.get(0));
    }
    Ok(ids)
}

async fn rebuild_seats(
    tx: &impl GenericClient,
    event_id: EventId,
    layout: &VenueLayout,
) -> AppResult<Moved> {
    let mut section_ids = Vec::with_capacity(layout.sections.len());
    for (order, section) in layout.sections.iter().enumerate() {
        let row = tx
            .query_one(
                "INSERT INTO sections (event_id, name, sort_order, outline)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (event_id, name) DO UPDATE
                    SET sort_order = EXCLUDED.sort_order, outline = EXCLUDED.outline
                 RETURNING id",
                &[
                    &event_id,
                    &section.name,
                    &(order as i32),
                    &outline_column(&section.venue_outline()),
                ],
            )
            .await?;
        section_ids.push(row.get::<_, i64>(0));
    }
    let seats = layout.seat_specs();
    if seats.iter().any(|s| s.position < 0) {
        return Err(anyhow::anyhow!("a layout seat has a negative position").into());
    }
    let section_col: Vec<i64> = seats.iter().map(|s| section_ids[s.section_index]).collect();
    let row_col: Vec<&str> = seats.iter().map(|s| s.row_label.as_str()).collect();
    let label_col: Vec<&str> = seats.iter().map(|s| s.seat_label.as_str()).collect();
    let removed = tx
        .execute(
            "DELETE FROM seats s
              WHERE s.event_id = $1
                AND NOT EXISTS (
                    SELECT 1 FROM unnest($2::bigint[], $3::text[], $4::text[])
                                  AS l(section_id, row_label, seat_label)
                     WHERE l.section_id = s.section_id AND l.row_label = s.row_label
                       AND l.seat_label = s.seat_label)",
            &[&event_id, &section_col, &row_col, &label_col],
        )
        .await?;
    let names: Vec<&str> = layout.sections.iter().map(|s| s.name.as_str()).collect();
    tx.execute(
        "DELETE FROM sections WHERE event_id = $1 AND NOT (name = ANY($2))",
        &[&event_id, &names],
    )
    .await?;
    // Kept seats may swap places along a row: those whose row or place
    // changes step out of the way first (every batch of them before any
    // takes its new place), so no two share (section, row, position) while
    // they move. A seat that stays where it is is not written at all.
    let make_way = tx
        .prepare(
            "UPDATE seats s SET position = -1 - s.position
               FROM unnest($2::bigint[], $3::text[], $4::text[], $5::int[], $6::int[])
                    AS l(section_id, row_label, seat_label, row_index, position)
              WHERE s.event_id = $1 AND s.section_id = l.section_id
                AND s.row_label = l.row_label AND s.seat_label = l.seat_label
                AND (s.row_index, s.position) <> (l.row_index, l.position)",
        )
        .await?;
    for batch in seats.chunks(SEATS_PER_STATEMENT) {
        let columns = SeatColumns::new(batch, &section_ids);
        tx.execute(
            &make_way,
            &[
                &event_id,
                &columns.section,
                &columns.row,
                &columns.label,
                &columns.row_index,
                &columns.position,
            ],
        )
        .await?;
    }
    let update = tx
        .prepare(
            "UPDATE seats s
                SET tier_id = t.id, row_index = l.row_index, position = l.position,
                    x = l.x, y = l.y, rank = l.rank,
                    accessibility = coalesce(string_to_array(nullif(l.flags, ''), ','), '{}'),
                    view_note = l.view_note
               FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[],
                           $6::int[], $7::int[], $8::real[], $9::real[], $10::int[], $11::text[],
                           $12::text[])
                    AS l(section_id, tier, row_label, seat_label, row_index, position, x, y, rank, flags,
                         view_note)
               JOIN price_tiers t ON t.event_id = $1 AND t.code = l.tier
              WHERE s.section_id = l.section_id AND s.row_label = l.row_label
                AND s.seat_label = l.seat_label
                AND (s.tier_id, s.row_index, s.position, s.x, s.y, s.rank, s.accessibility,
                     s.view_note)
                    IS DISTINCT FROM
                    (t.id, l.row_index, l.position, l.x, l.y, l.rank,
                     coalesce(string_to_array(nullif(l.flags, ''), ','), '{}'), l.view_note)",
        )
        .await?;
    let insert = tx.prepare(&insert_seats_sql(true)).await?;
    let (mut changed, mut added) = (0, 0);
    for batch in seats.chunks(SEATS_PER_STATEMENT) {
        let columns = SeatColumns::new(batch, &section_ids);
        let params = columns.params(&event_id);
        changed += tx.execute(&update, &params).await?;
        added += tx.execute(&insert, &params).await?;
    }
    // Every seat of the layout is now the event's, kept or added; a seat
    // whose tier the event lacked would be neither.
    let present = tx
        .query_one(
            "SELECT count(*) FROM seats WHERE event_id = $1",
            &[&event_id],
        )
        .await?
        .get::<_, i64>(0);
    if present != seats.len() as i64 {
        return Err(anyhow::anyhow!(
            "rebuilt {present} of {} seats (a tier the layout names is missing)",
            seats.len()
        )
        .into());
    }
    let kept = seats.len() as u64 - added;
    tracing::debug!(kept, changed, added, "seats rebuilt");
    Ok(Moved {
        from_version: 0,
        version: 0,
        seats_kept: kept,
        seats_added: added,
        seats_removed: removed,
    })
}

async fn rebuild_areas(
    tx: &impl GenericClient,
    event_id: EventId,
    layout: &VenueLayout,
    tier_ids: &HashMap<String, i64>,
) -> AppResult<()> {
    let names: Vec<&str> = layout.ga_areas.iter().map(|a| a.name.as_str()).collect();
    tx.execute(
        "DELETE FROM ga_areas WHERE event_id = $1 AND NOT (name = ANY($2))",
        &[&event_id, &names],
    )
    .await?;
    for (order, area) in layout.ga_areas.iter().enumerate() {
        let outline = area
            .outline
            .as_ref()
            .map(|o| geometry::flatten(&geometry::from_pairs(o)));
        let tier_id = tier_ids
            .get(&area.tier)
            .ok_or_else(|| anyhow::anyhow!("area {:?} names a tier it lacks", area.name))?;
        tx.execute(
            "INSERT INTO ga_areas (event_id, name, tier_id, capacity, sort_order, outline)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (event_id, name) DO UPDATE
                SET tier_id = EXCLUDED.tier_id, capacity = EXCLUDED.capacity,
                    sort_order = EXCLUDED.sort_order, outline = EXCLUDED.outline",
            &[
                &event_id,
                &area.name,
                tier_id,
                &(area.capacity as i32),
                &(order as i32),
                &outline,
            ],
        )
        .await?;
    }
    Ok(())
}

/// A tier's new price, for seats not yet sold: a sold seat's order line
/// and ticket keep the price it was sold for. Refused while any seat or
/// place of the tier is held live: a purchase charges the tier's price at
/// the time, and a buyer must not pay a price their page never showed.
/// Judged under the event's lock, which claims and purchases share, so
/// none is in flight. Audited.
pub async fn set_tier_price(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    code: &str,
    price_cents: i32,
) -> AppResult<i32> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    super::events::lock_for_closing(&tx, event_id).await?;
    refuse_if_held(&tx, event_id, code).await?;
    let row = tx
        .query_opt(
            "WITH before AS (
                 SELECT id, price_cents FROM price_tiers WHERE event_id = $1 AND code = $2 FOR UPDATE)
             UPDATE price_tiers t SET price_cents = $3 FROM before
              WHERE t.id = before.id RETURNING before.price_cents",
            &[&event_id, &code, &price_cents],
        )
        .await?;
    let Some(row) = row else {
        return Err(if super::events::exists(&tx, event_id).await? {
            AppError::Invalid(Invalid::UnknownTier(code.to_string()))
        } else {
            AppError::NotFound(Missing::Event)
        });
    };
    let before: i32 = row.get(0);
    audit::record(
        &tx,
        Entry {
            actor: Some(actor),
            action: "set_tier_price",
            event_id: Some(event_id),
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: format!("tier {code}: {before} to {price_cents} (minor units)"),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(before)
}

/// Refuses a new price for a tier while any seat or place of it is held
/// live: its buyer must not pay a price their page never showed. Under the
/// event's lock, which claims and purchases share.
async fn refuse_if_held(tx: &impl GenericClient, event_id: EventId, code: &str) -> AppResult<()> {
    let held: i64 = tx
        .query_one(
            "SELECT (SELECT count(*) FROM seats s JOIN price_tiers t ON t.id = s.tier_id
                      WHERE s.event_id = $1 AND t.code = $2
                        AND s.status = 'HELD' AND s.held_until > now())
                  + (SELECT coalesce(sum(g.quantity), 0) FROM ga_tickets g
                       JOIN ga_areas a ON a.id = g.area_id
                       JOIN price_tiers t ON t.id = a.tier_id
                      WHERE g.event_id = $1 AND t.code = $2
                        AND g.order_id IS NULL AND g.held_until > now())",
            &[&event_id, &code],
        )
        .await?
        .get(0);
    if held > 0 {
        return Err(AppError::Conflict(Conflict::TierHasHolds { held }));
    }
    Ok(())
}

/// What adding a section did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionAdded {
    pub section: String,
    pub seats: u64,
}

/// Adds one section of a venue version to an event, on sale or not: its
/// seats join the event's, nothing already there changes. The section must
/// be new to the event (by name); a tier the event lacks needs a price.
/// Audited.
pub async fn add_section(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    version: i32,
    section_name: &str,
    prices: &BTreeMap<String, i32>,
) -> AppResult<SectionAdded> {
    let venue_id = venue_of_event(&pool.get().await?, event_id).await?;
    let layout = super::venues::version_layout(&pool.get().await?, venue_id, version).await?;
    let index = layout
        .sections
        .iter()
        .position(|s| s.name == section_name)
        .ok_or(AppError::NotFound(Missing::Section))?;
    let section = &layout.sections[index];
    let seats: Vec<_> = layout
        .seat_specs()
        .into_iter()
        .filter(|s| s.section_index == index)
        .map(|mut s| {
            s.section_index = 0;
            s
        })
        .collect();
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    // The claims' own lock, shared: selling goes on while seats are added,
    // but a move (which locks the event for update) waits, or is waited
    // for, rather than rebuild seats under a half-added section.
    tx.execute(
        "SELECT 1 FROM events WHERE id = $1 FOR KEY SHARE",
        &[&event_id],
    )
    .await?;
    let existing: Vec<(String, i32)> = tx
        .query(
            "SELECT code, price_cents FROM price_tiers WHERE event_id = $1",
            &[&event_id],
        )
        .await?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let mut needed: Vec<&str> = seats.iter().map(|s| s.tier.as_str()).collect();
    needed.sort_unstable();
    needed.dedup();
    for code in needed {
        if existing.iter().any(|(have, _)| have == code) {
            continue;
        }
        let tier = layout
            .tiers
            .iter()
            .find(|t| t.code == code)
            .ok_or_else(|| {
                anyhow::anyhow!("section {section_name:?} names tier {code:?} its layout lacks")
            })?;
        let price = prices.get(code).copied().ok_or_else(|| {
            AppError::Invalid(Invalid::MissingPrice {
                tier: tier.name.clone(),
            })
        })?;
        // Another section added at the same moment may bring the same
        // tier: the first to commit sets its price, and this one waits on
        // that row, then uses it.
        tx.execute(
            "INSERT INTO price_tiers (event_id, code, name, price_cents, sort_order)
             SELECT $1, $2, $3, $4, coalesce(max(sort_order) + 1, 0) FROM price_tiers WHERE event_id = $1
             ON CONFLICT (event_id, code) DO NOTHING",
            &[&event_id, &tier.code, &tier.name, &price],
        )
        .await?;
    }
    let inserted = tx
        .query_opt(
            "INSERT INTO sections (event_id, name, sort_order, outline)
             SELECT $1, $2, coalesce(max(sort_order) + 1, 0), $3 FROM sections WHERE event_id = $1
             ON CONFLICT (event_id, name) DO NOTHING RETURNING id",
            &[
                &event_id,
                &section.name,
                &outline_column(&section.venue_outline()),
            ],
        )
        .await?;
    let Some(row) = inserted else {
        return Err(AppError::Conflict(Conflict::SectionExists(
            section.name.clone(),
        )));
    };
    let section_id: i64 = row.get(0);
    let count = super::events::insert_seats(&tx, event_id, &[section_id], &seats).await?;
    audit::record(
        &tx,
        Entry {
            actor: Some(actor),
            action: "add_section",
            event_id: Some(event_id),
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: format!(
                "section {} ({count} seats) from venue version {version}",
                section.name
            ),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(SectionAdded {
        section: section.name.clone(),
        seats: count,
    })
}
