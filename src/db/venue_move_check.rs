//! What moving an event to another version of its venue would disturb, and
//! what it would change: the judge the move itself runs under its locks,
//! and the preview staff see before they ask for it.
//!
//! A seat is matched across versions by section, row and seat label. A
//! seat that is sold, held, or waiting for its payment must keep its
//! match, in the same tier (what its buyer paid for or was quoted); its
//! place on the drawing may move. A seat that was ever ordered (its
//! refunded order and tickets are kept on record) can't be removed. A
//! general-admission area with places held or sold keeps its tier and at
//! least that many places. A section or tier a waitlist party chose can't
//! be removed.

use serde::Serialize;

use super::GenericClient;
use crate::domain::ids::EventId;
use crate::domain::place_in_use::PlaceInUse;
use crate::domain::venue::VenueLayout;
use crate::error::AppResult;

/// What a move would do to the event's seats, before it is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct MovePreview {
    pub from_version: i32,
    pub version: i32,
    /// Seats the new version still has (by section, row and label).
    pub seats_kept: i64,
    pub seats_added: i64,
    pub seats_removed: i64,
    /// Kept seats whose tier changes (none of them sold or held).
    pub seats_retiered: i64,
    /// Tiers the version has and the event lacks: the move needs a price
    /// for each (code, name).
    pub new_tiers: Vec<(String, String)>,
    /// Empty: the move may be made.
    pub in_use: Vec<PlaceInUse>,
}

/// The layout's seats as four parallel columns: section, row, label, tier.
fn seat_columns(layout: &VenueLayout) -> [Vec<String>; 4] {
    let mut columns: [Vec<String>; 4] = Default::default();
    for seat in layout.seat_specs() {
        columns[0].push(layout.sections[seat.section_index].name.clone());
        columns[1].push(seat.row_label);
        columns[2].push(seat.seat_label);
        columns[3].push(seat.tier);
    }
    columns
}

/// Every seat of the event beside its match in the layout: whether it is
/// in use and how, and its tier before and after (NULL: not in the layout).
const SEATS_AGAINST_LAYOUT: &str = "
    WITH layout AS (
        SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                      AS l(section, row_label, seat_label, tier)
    ), paying AS (
        SELECT DISTINCT r.seat_id FROM order_reserved_seats r JOIN orders o ON o.id = r.order_id
         WHERE o.event_id = $1 AND o.status = 'pending_payment'
    ), ordered_before AS (
        SELECT l.seat_id FROM order_lines l JOIN orders o ON o.id = l.order_id WHERE o.event_id = $1
        UNION SELECT seat_id FROM tickets WHERE event_id = $1 AND seat_id IS NOT NULL
        UNION SELECT r.seat_id FROM order_reserved_seats r JOIN orders o ON o.id = r.order_id
               WHERE o.event_id = $1
    )
    SELECT sec.name AS section, s.row_label, s.seat_label, t.code AS tier, l.tier AS new_tier,
           CASE WHEN s.status = 'SOLD' THEN 'sold'
                WHEN p.seat_id IS NOT NULL THEN 'paying'
                WHEN s.status = 'HELD' AND s.held_until > now() THEN 'held'
                WHEN b.seat_id IS NOT NULL THEN 'sold_before'
           END AS in_use
      FROM seats s
      JOIN sections sec ON sec.id = s.section_id
      JOIN price_tiers t ON t.id = s.tier_id
      LEFT JOIN layout l ON l.section = sec.name AND l.row_label = s.row_label
                        AND l.seat_label = s.seat_label
      LEFT JOIN paying p ON p.seat_id = s.id
      LEFT JOIN ordered_before b ON b.seat_id = s.id
     WHERE s.event_id = $1
     ORDER BY sec.sort_order, s.row_index, s.position";

/// The event's GA areas beside the layout's: what is taken of each (held,
/// lapsed holds included until the move reclaims them, and sold), whether
/// any was ever ordered, and the area's tier and size in the layout.
const AREAS_AGAINST_LAYOUT: &str = "
    WITH layout AS (
        SELECT * FROM unnest($2::text[], $3::text[], $4::int[]) AS l(name, tier, capacity)
    ), ordered_before AS (
        SELECT area_id FROM ga_tickets WHERE event_id = $1 AND order_id IS NOT NULL
        UNION SELECT r.area_id FROM order_reserved_ga r JOIN orders o ON o.id = r.order_id
               WHERE o.event_id = $1
        UNION SELECT g.area_id FROM order_ga_lines g JOIN orders o ON o.id = g.order_id
               WHERE o.event_id = $1
        UNION SELECT ga_area_id FROM tickets WHERE event_id = $1 AND ga_area_id IS NOT NULL
    )
    SELECT a.name, a.held, a.sold, t.code AS tier, l.tier AS new_tier, l.capacity AS new_capacity,
           b.area_id IS NOT NULL AS ordered_before
      FROM ga_areas a
      JOIN price_tiers t ON t.id = a.tier_id
      LEFT JOIN layout l ON l.name = a.name
      LEFT JOIN ordered_before b ON b.area_id = a.id
     WHERE a.event_id = $1
     ORDER BY a.sort_order";

/// Sections and tiers the layout drops that a waitlist party chose.
const CHOSEN_BY_WAITLIST: &str = "
    SELECT DISTINCT s.name, NULL::text AS tier FROM sections s
      JOIN waitlist_entries w ON w.section_id = s.id
     WHERE s.event_id = $1 AND NOT (s.name = ANY($2))
    UNION
    SELECT DISTINCT NULL::text, t.code FROM price_tiers t
      JOIN waitlist_entries w ON w.tier_id = t.id
     WHERE t.event_id = $1 AND NOT (t.code = ANY($3))";

/// Compares the event as it is now with `layout`. Under the move's locks
/// this is the judge; without them, a preview that may be a moment old.
pub async fn compare(
    client: &impl GenericClient,
    event_id: EventId,
    from_version: i32,
    version: i32,
    layout: &VenueLayout,
) -> AppResult<MovePreview> {
    let [sections, rows, labels, tiers] = seat_columns(layout);
    let mut preview = MovePreview {
        from_version,
        version,
        seats_kept: 0,
        seats_added: 0,
        seats_removed: 0,
        seats_retiered: 0,
        new_tiers: Vec::new(),
        in_use: Vec::new(),
    };
    let priced: Vec<String> = client
        .query(
            "SELECT code FROM price_tiers WHERE event_id = $1",
            &[&event_id],
        )
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();
    preview.new_tiers = layout
        .tiers
        .iter()
        .filter(|tier| !priced.contains(&tier.code))
        .map(|tier| (tier.code.clone(), tier.name.clone()))
        .collect();
    let seats = client
        .query(
            SEATS_AGAINST_LAYOUT,
            &[&event_id, &sections, &rows, &labels, &tiers],
        )
        .await?;
    for seat in &seats {
        let tier: String = seat.get("tier");
        let new_tier: Option<String> = seat.get("new_tier");
        let in_use: Option<String> = seat.get("in_use");
        let change = match &new_tier {
            None => {
                preview.seats_removed += 1;
                Some("removed")
            }
            Some(new_tier) => {
                preview.seats_kept += 1;
                let retiered = *new_tier != tier;
                preview.seats_retiered += i64::from(retiered);
                // Kept: a seat ordered before may change tier.
                retiered.then_some("tier_changed")
            }
        };
        let disturbed = match (&in_use, change) {
            (Some(use_), Some("tier_changed")) if use_ == "sold_before" => None,
            (Some(use_), Some(change)) => Some((use_.clone(), change)),
            _ => None,
        };
        if let Some((in_use, change)) = disturbed {
            preview.in_use.push(PlaceInUse {
                section: Some(seat.get("section")),
                row: Some(seat.get("row_label")),
                seat: Some(seat.get("seat_label")),
                ..PlaceInUse::new(&in_use, change)
            });
        }
    }
    preview.seats_added = labels.len() as i64 - preview.seats_kept;

    let area_names: Vec<&str> = layout.ga_areas.iter().map(|a| a.name.as_str()).collect();
    let area_tiers: Vec<&str> = layout.ga_areas.iter().map(|a| a.tier.as_str()).collect();
    let area_sizes: Vec<i32> = layout
        .ga_areas
        .iter()
        .map(|a| i32::try_from(a.capacity).unwrap_or(i32::MAX))
        .collect();
    let areas = client
        .query(
            AREAS_AGAINST_LAYOUT,
            &[&event_id, &area_names, &area_tiers, &area_sizes],
        )
        .await?;
    for area in &areas {
        let (held, sold): (i32, i32) = (area.get("held"), area.get("sold"));
        let in_use = match (sold, held, area.get::<_, bool>("ordered_before")) {
            (1.., _, _) => Some("sold"),
            (_, 1.., _) => Some("held"),
            (_, _, true) => Some("sold_before"),
            _ => None,
        };
        let Some(in_use) = in_use else { continue };
        let new_tier: Option<String> = area.get("new_tier");
        let new_capacity: Option<i32> = area.get("new_capacity");
        let change = match (new_tier, new_capacity) {
            (None, _) => Some("removed"),
            _ if in_use == "sold_before" => None,
            (Some(new_tier), _) if new_tier != area.get::<_, String>("tier") => {
                Some("tier_changed")
            }
            (_, Some(capacity)) if capacity < held + sold => Some("capacity_below_taken"),
            _ => None,
        };
        if let Some(change) = change {
            preview.in_use.push(PlaceInUse {
                area: Some(area.get("name")),
                ..PlaceInUse::new(in_use, change)
            });
        }
    }

    let section_names: Vec<&str> = layout.sections.iter().map(|s| s.name.as_str()).collect();
    let tier_codes: Vec<&str> = layout.tiers.iter().map(|t| t.code.as_str()).collect();
    for chosen in client
        .query(
            CHOSEN_BY_WAITLIST,
            &[&event_id, &section_names, &tier_codes],
        )
        .await?
    {
        preview.in_use.push(PlaceInUse {
            section: chosen.get(0),
            tier: chosen.get(1),
            ..PlaceInUse::new("waitlist", "removed")
        });
    }
    Ok(preview)
}

/// Gives back what lapsed general-admission holds still count as held
/// (their tickets go), so an area's size is judged against what is really
/// taken. Not those of an order waiting for its payment: the order keeps
/// them until it is paid or let go.
pub async fn reclaim_lapsed_places(tx: &impl GenericClient, event_id: EventId) -> AppResult<()> {
    tx.execute(
        "WITH lapsed AS (
             DELETE FROM ga_tickets g
              WHERE g.event_id = $1 AND g.order_id IS NULL AND g.held_until <= now()
                AND NOT EXISTS (SELECT 1 FROM orders o
                                 WHERE o.hold_id = g.hold_id AND o.status = 'pending_payment')
             RETURNING area_id, quantity
         ), per_area AS (
             SELECT area_id, sum(quantity) AS quantity FROM lapsed GROUP BY area_id
         )
         UPDATE ga_areas a SET held = a.held - per_area.quantity
           FROM per_area WHERE a.id = per_area.area_id",
        &[&event_id],
    )
    .await?;
    Ok(())
}
