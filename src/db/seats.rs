//! Seat rows: reading them for a viewer, and the conditional updates that
//! claim and release them. No function here reads a status and then writes
//! it: each write carries its own condition and is judged by the rows it
//! touched.
//!
//! A seat has a hold exactly when it is HELD (the `seat_held_iff_hold_and_expiry`
//! CHECK), so reads by hold say `hold_id = $1` and nothing about status:
//! `status = 'HELD'` would let the planner pick the partial index of held
//! seats by expiry, and with statistics from before the sale started it
//! does, scanning every held seat of every event for each lookup (1 ms
//! with 3,800 held, growing as the venue fills; seen in
//! `pg_stat_statements`). The hot statements stamp `changed_xid` themselves (for the
//! live feed, see `db::live`), which spares them the trigger that stamps
//! any other change.

use std::sync::LazyLock;

use time::OffsetDateTime;
use tokio_postgres::Row;
use uuid::Uuid;

use super::GenericClient;
use super::snapshot::Snapshot;
use crate::domain::ids::SectionId;
use crate::domain::ids::{EventId, HoldId, OrderId, SeatId};
use crate::domain::seat::{Seat, SeatIds, SeatState};
use crate::error::AppResult;

/// `$2` is the viewer's hold (or NULL), to tell "mine" from "held".
const SEAT_SELECT: &str = "
    SELECT s.id, sec.name AS section, s.section_id, s.row_label, s.seat_label,
           s.row_index, s.position, s.x, s.y, sec.sort_order AS section_order,
           t.code AS tier_code, t.name AS tier_name, t.price_cents,
           CASE WHEN s.status = 'HELD' AND s.held_until < now() THEN 'AVAILABLE'
                ELSE s.status END AS effective_status,
           coalesce(s.hold_id = $2, false) AS held_by_viewer,
           s.accessibility, s.view_note,
           CASE WHEN s.status = 'HELD' AND s.held_until >= now() THEN s.held_until END AS held_until,
           -- Looked up for held seats only: a join hashed every hold the
           -- events ever had on each read of a map.
           CASE WHEN s.status = 'HELD' AND s.held_until >= now()
                THEN (SELECT h.buyer_id FROM holds h WHERE h.id = s.hold_id) END AS holder
      FROM seats s
      JOIN sections sec ON sec.id = s.section_id
      JOIN price_tiers t ON t.id = s.tier_id";

const LAYOUT_ORDER: &str = "ORDER BY sec.sort_order, sec.id, s.row_index, s.position";

/// Rows of [`SEAT_SELECT`] read without [`LAYOUT_ORDER`], put in that order
/// here: for a whole event's map the database's sort was most of the
/// read's cost (25 of 42 ms for 20,000 seats), and the app's CPU is the
/// cheaper to add.
fn in_layout_order(rows: &[Row]) -> Vec<Seat> {
    let mut keyed: Vec<((i32, SectionId, i32, i32), Seat)> = rows
        .iter()
        .map(|row| {
            let seat = seat_from_row(row);
            let key = (
                row.get("section_order"),
                seat.section_id,
                seat.row_index,
                seat.position,
            );
            (key, seat)
        })
        .collect();
    // Sections that share a sort order keep their seats together.
    keyed.sort_unstable_by_key(|(key, seat)| (*key, seat.id));
    keyed.into_iter().map(|(_, seat)| seat).collect()
}

/// A seat from a row with [`SEAT_SELECT`]'s columns (the season map's
/// too: `db::seasons`).
pub(super) fn seat_from_row(row: &Row) -> Seat {
    Seat {
        id: row.get("id"),
        section: row.get("section"),
        section_id: row.get("section_id"),
        row_label: row.get("row_label"),
        seat_label: row.get("seat_label"),
        row_index: row.get("row_index"),
        position: row.get("position"),
        x: row.get("x"),
        y: row.get("y"),
        tier_code: row.get("tier_code"),
        tier_name: row.get("tier_name"),
        price_cents: row.get("price_cents"),
        state: SeatState::from_row(row.get("effective_status"), row.get("held_by_viewer")),
        accessibility: row.get("accessibility"),
        view_note: row.get("view_note"),
        held_until: row.get("held_until"),
        holder: row.get("holder"),
    }
}

/// Every seat id of the event, in id order.
pub async fn all_ids(client: &impl GenericClient, event_id: EventId) -> AppResult<Vec<SeatId>> {
    let statement = client
        .prepare_cached("SELECT id FROM seats WHERE event_id = $1 ORDER BY id")
        .await?;
    let rows = client.query(&statement, &[&event_id]).await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// The requested seats a conditional update did not change (the refused ones).
pub fn refused(requested: &[SeatId], changed: &[SeatId]) -> Vec<SeatId> {
    requested
        .iter()
        .copied()
        .filter(|id| !changed.contains(id))
        .collect()
}

/// The event's seats changed by transactions that committed after `since`
/// was taken (viewer-neutral: "held", never "mine"), and a snapshot to
/// ask from next time. The snapshot is taken first, so a change committed
/// while the seats are read is sent again next time, never missed.
pub async fn changed_since(
    client: &impl GenericClient,
    event_id: EventId,
    since: &Snapshot,
) -> AppResult<(Vec<Seat>, Snapshot)> {
    let next = super::snapshot::snapshot_now(client).await?;
    let statement = client
        .prepare_cached(&format!(
            "{SEAT_SELECT}
              WHERE s.event_id = $1
                AND s.changed_xid >= pg_snapshot_xmin($3::text::pg_snapshot)
                AND NOT pg_visible_in_snapshot(s.changed_xid, $3::text::pg_snapshot)
              {LAYOUT_ORDER}"
        ))
        .await?;
    let rows = client
        .query(&statement, &[&event_id, &None::<Uuid>, &since.as_str()])
        .await?;
    Ok((rows.iter().map(seat_from_row).collect(), next))
}

/// Every seat of the event in layout order, as `viewer_hold`'s owner sees it.
pub async fn for_event(
    client: &impl GenericClient,
    event_id: EventId,
    viewer_hold: Option<HoldId>,
) -> AppResult<Vec<Seat>> {
    let statement = client
        .prepare_cached(&format!("{SEAT_SELECT} WHERE s.event_id = $1"))
        .await?;
    let rows = client.query(&statement, &[&event_id, &viewer_hold]).await?;
    Ok(in_layout_order(&rows))
}

/// One section's seats in layout order, as `viewer_hold`'s owner sees them.
pub async fn for_section(
    client: &impl GenericClient,
    event_id: EventId,
    viewer_hold: Option<HoldId>,
    section_id: SectionId,
) -> AppResult<Vec<Seat>> {
    let statement = client
        .prepare_cached(&format!(
            "{SEAT_SELECT} WHERE s.event_id = $1 AND s.section_id = $3 {LAYOUT_ORDER}"
        ))
        .await?;
    let rows = client
        .query(&statement, &[&event_id, &viewer_hold, &section_id])
        .await?;
    Ok(rows.iter().map(seat_from_row).collect())
}

/// The given seats of the event (unknown ids are left out), in layout order.
pub async fn by_ids(
    client: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
    viewer_hold: Option<HoldId>,
) -> AppResult<Vec<Seat>> {
    let statement = client
        .prepare_cached(&format!(
            "{SEAT_SELECT} WHERE s.event_id = $1 AND s.id = ANY($3) {LAYOUT_ORDER}"
        ))
        .await?;
    let rows = client
        .query(&statement, &[&event_id, &viewer_hold, &seat_ids])
        .await?;
    Ok(rows.iter().map(seat_from_row).collect())
}

/// The seats a hold has now, as its buyer sees them, in layout order.
pub async fn held_by_hold(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
) -> AppResult<Vec<Seat>> {
    let statement = client
        .prepare_cached(&format!(
            "{SEAT_SELECT} WHERE s.event_id = $1 AND s.hold_id = $2
             {LAYOUT_ORDER}"
        ))
        .await?;
    let rows = client.query(&statement, &[&event_id, &hold_id]).await?;
    Ok(rows.iter().map(seat_from_row).collect())
}

/// Which of `seat_ids` belong to the event.
pub(super) const IDS_IN_EVENT: &str =
    "SELECT id FROM seats WHERE event_id = $1 AND id = ANY($2) ORDER BY id";

pub async fn ids_in_event(
    client: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
) -> AppResult<Vec<SeatId>> {
    let statement = client.prepare_cached(IDS_IN_EVENT).await?;
    let rows = client.query(&statement, &[&event_id, &seat_ids]).await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// What a claim took: the seat ids, and how many of them it took back from
/// a hold that had lapsed (lazy expiry at work).
pub struct Claimed {
    pub ids: Vec<SeatId>,
    pub reclaimed: u64,
}

/// The claim [`claim`], [`claim_into_hold`] and [`claim_for_waitlist`]
/// make: lock the free seats among `$2` of event `$1` in id order (those
/// `only` allows), then hold them for hold `$3` until `$4` with the same
/// condition. `claimed` has each seat taken, whether it was taken back from
/// a lapsed hold, and its new expiry.
fn claim_ctes(only: &str) -> String {
    format!(
        "WITH target AS (
         SELECT id, (status = 'HELD' AND hold_id <> $3) AS reclaimed FROM seats
          WHERE event_id = $1 AND id = ANY($2)
            AND (status = 'AVAILABLE'
                 OR (status = 'HELD' AND (held_until < now() OR hold_id = $3)))
            {only}
          ORDER BY id
            FOR UPDATE
     ), claimed AS (
         UPDATE seats s
            SET status = 'HELD', hold_id = $3, held_until = $4, changed_xid = pg_current_xact_id()
           FROM target
          WHERE s.id = target.id
            AND (s.status = 'AVAILABLE'
                 OR (s.status = 'HELD' AND (s.held_until < now() OR s.hold_id = $3)))
      RETURNING s.id, target.reclaimed, s.held_until
     )"
    )
}

/// A buyer's claim leaves alone the free seats the waitlist keeps (judged
/// in the claim's own statement); a seat already in the buyer's hold stays
/// theirs.
fn buyer_may_claim() -> String {
    // $5: whether to ask at all: only when parties wait (the event's lock
    // read it), and never for an offer to one of them.
    format!(
        "AND (NOT $5::bool OR coalesce(hold_id = $3, false) OR NOT {})",
        super::waitlist_first::reserved_sql(
            "$1",
            "seats.section_id",
            "seats.tier_id",
            "seats.accessibility"
        )
    )
}

static CLAIM: LazyLock<String> =
    LazyLock::new(|| format!("{} SELECT id, reclaimed FROM claimed", claim_ctes("")));

/// Claims the free seats among `seat_ids` for the hold and returns the ids
/// it claimed. A seat is free if it is available or its hold has lapsed
/// (lazy expiry); a seat already in this hold counts as claimed. Row locks
/// are taken in id order, so two overlapping claims can't deadlock.
pub async fn claim(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
    held_until: OffsetDateTime,
    seat_ids: &[SeatId],
) -> AppResult<Claimed> {
    let statement = client.prepare_cached(&CLAIM).await?;
    let rows = client
        .query(&statement, &[&event_id, &seat_ids, &hold_id, &held_until])
        .await?;
    Ok(Claimed {
        ids: rows.iter().map(|row| row.get(0)).collect(),
        reclaimed: rows.iter().filter(|row| row.get::<_, bool>(1)).count() as u64,
    })
}

fn claim_into_hold_sql(only: &str) -> String {
    format!(
        "{}, hold_seats AS (
                 SELECT id, held_until, true AS claimed_now, reclaimed
                   FROM claimed
                 UNION ALL
                 SELECT s.id, s.held_until, false, false
                   FROM seats s
                  WHERE s.hold_id = $3
                    AND NOT EXISTS (SELECT 1 FROM claimed c WHERE c.id = s.id)
             )
             -- The seats' fixed columns (where, which tier) from the table;
             -- what the claim changed from hold_seats.
             SELECT s.id, sec.name AS section, s.section_id, s.row_label, s.seat_label,
                    s.row_index, s.position, s.x, s.y,
                    t.code AS tier_code, t.name AS tier_name, t.price_cents,
                    'HELD' AS effective_status, true AS held_by_viewer, s.accessibility, s.view_note,
                    hs.held_until, h.buyer_id AS holder,
                    hs.claimed_now, hs.reclaimed
               FROM hold_seats hs
               JOIN seats s ON s.id = hs.id
               JOIN sections sec ON sec.id = s.section_id
               JOIN price_tiers t ON t.id = s.tier_id
               JOIN holds h ON h.id = $3
              ORDER BY sec.sort_order, s.row_index, s.position",
        claim_ctes(only)
    )
}

pub(super) static CLAIM_INTO_HOLD: LazyLock<String> =
    LazyLock::new(|| claim_into_hold_sql(&buyer_may_claim()));

/// What a claim took, and the hold as it now is.
pub struct ClaimedIntoHold {
    pub claimed: Claimed,
    /// Every seat the hold has after the claim, as its buyer sees them
    /// ("mine"), in layout order.
    pub held: Vec<Seat>,
}

/// [`claim`], answering with the whole hold as well: one statement, so a
/// pick needs no second read to show the buyer what they hold. The seats
/// the claim changed are read as the update left them (its RETURNING);
/// the hold's other seats as the statement found them.
pub async fn claim_into_hold(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
    held_until: OffsetDateTime,
    seat_ids: &[SeatId],
    waitlist_waiting: bool,
) -> AppResult<ClaimedIntoHold> {
    claim_into_hold_with(
        client,
        event_id,
        hold_id,
        held_until,
        seat_ids,
        waitlist_waiting,
    )
    .await
}

/// [`claim_into_hold`] for an offer to a waiting party: the seats the
/// waitlist keeps are what it claims, so it doesn't ask.
pub async fn claim_for_waitlist(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
    held_until: OffsetDateTime,
    seat_ids: &[SeatId],
) -> AppResult<ClaimedIntoHold> {
    claim_into_hold_with(client, event_id, hold_id, held_until, seat_ids, false).await
}

async fn claim_into_hold_with(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
    held_until: OffsetDateTime,
    seat_ids: &[SeatId],
    judge_waitlist: bool,
) -> AppResult<ClaimedIntoHold> {
    let statement = client.prepare_cached(&CLAIM_INTO_HOLD).await?;
    let rows = client
        .query(
            &statement,
            &[&event_id, &seat_ids, &hold_id, &held_until, &judge_waitlist],
        )
        .await?;
    let mut ids: Vec<SeatId> = rows
        .iter()
        .filter(|row| row.get::<_, bool>("claimed_now"))
        .map(|row| row.get("id"))
        .collect();
    ids.sort_unstable();
    Ok(ClaimedIntoHold {
        claimed: Claimed {
            ids,
            reclaimed: rows
                .iter()
                .filter(|row| row.get::<_, bool>("reclaimed"))
                .count() as u64,
        },
        held: rows.iter().map(seat_from_row).collect(),
    })
}

/// The seats a hold still has, in id order.
pub async fn held_by(client: &impl GenericClient, hold_id: HoldId) -> AppResult<Vec<SeatId>> {
    let statement = client
        .prepare_cached("SELECT id FROM seats WHERE hold_id = $1 ORDER BY id")
        .await?;
    let rows = client.query(&statement, &[&hold_id]).await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// `$2`, back on sale if it is in hold `$1`.
const RELEASE_ONE: &str =
    "UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
                changed_xid = pg_current_xact_id()
          WHERE id = $2 AND hold_id = $1";

/// Puts one seat of the hold back on sale. False if the seat is not (or no
/// longer) in this hold.
pub async fn release_one(
    client: &impl GenericClient,
    hold_id: HoldId,
    seat_id: SeatId,
) -> AppResult<bool> {
    let statement = client.prepare_cached(RELEASE_ONE).await?;
    Ok(client.execute(&statement, &[&hold_id, &seat_id]).await? == 1)
}

/// Puts those of `seat_ids` the hold has back on sale; returns which.
pub async fn release_some(
    client: &impl GenericClient,
    hold_id: HoldId,
    seat_ids: &[SeatId],
) -> AppResult<SeatIds> {
    let statement = client
        .prepare_cached(
            "WITH mine AS (
                 SELECT id FROM seats WHERE hold_id = $1 AND id = ANY($2)
                  ORDER BY id FOR UPDATE
             )
             UPDATE seats s SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
                    changed_xid = pg_current_xact_id()
               FROM mine
              WHERE s.id = mine.id AND s.hold_id = $1
          RETURNING s.id",
        )
        .await?;
    Ok(sorted_ids(
        &client.query(&statement, &[&hold_id, &seat_ids]).await?,
    ))
}

/// Puts every seat of the hold back on sale and returns their ids.
pub async fn release_all(client: &impl GenericClient, hold_id: HoldId) -> AppResult<SeatIds> {
    let statement = client
        .prepare_cached(
            "UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
                    changed_xid = pg_current_xact_id()
              WHERE hold_id = $1
          RETURNING id",
        )
        .await?;
    Ok(sorted_ids(&client.query(&statement, &[&hold_id]).await?))
}

/// Puts every held seat of the event back on sale (sales closed), lapsed
/// holds' seats too, and returns their ids.
/// With `keep_paying`, seats of orders still within their payment deadline
/// stay held for them (closing sales leaves reservations to be paid; a
/// cancellation lets everything go).
pub async fn release_event(
    client: &impl GenericClient,
    event_id: EventId,
    keep_paying: bool,
) -> AppResult<SeatIds> {
    let rows = client
        .query(
            "UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
                    changed_xid = pg_current_xact_id()
              WHERE event_id = $1 AND status = 'HELD'
                AND NOT ($2 AND held_until > now()
                         AND EXISTS (SELECT 1 FROM holds h
                                      WHERE h.id = seats.hold_id AND h.state = 'PAYING'))
          RETURNING id",
            &[&event_id, &keep_paying],
        )
        .await?;
    Ok(sorted_ids(&rows))
}

/// The ids an `UPDATE … RETURNING id` gave, in id order.
fn sorted_ids(rows: &[tokio_postgres::Row]) -> SeatIds {
    rows.iter().map(|row| row.get(0)).collect()
}

/// Blocks the given seats that are free or already blocked (locks in id
/// order); returns those now blocked.
pub async fn block(
    client: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
    purpose: Option<&str>,
) -> AppResult<SeatIds> {
    let statement = client
        .prepare_cached(
            "WITH target AS (
                 SELECT id FROM seats
                  WHERE event_id = $1 AND id = ANY($2)
                    AND (status IN ('AVAILABLE', 'BLOCKED')
                         OR (status = 'HELD' AND held_until < now()))
                  ORDER BY id FOR UPDATE
             )
             UPDATE seats s SET status = 'BLOCKED', hold_id = NULL, held_until = NULL,
                                blocked_for = coalesce($3, s.blocked_for)
               FROM target WHERE s.id = target.id
          RETURNING s.id",
        )
        .await?;
    let rows = client
        .query(&statement, &[&event_id, &seat_ids, &purpose])
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Unblocks the given seats that are blocked (or already free); returns
/// those now available.
pub async fn unblock(
    client: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
) -> AppResult<SeatIds> {
    let statement = client
        .prepare_cached(
            "WITH target AS (
                 SELECT id FROM seats
                  WHERE event_id = $1 AND id = ANY($2) AND status IN ('BLOCKED', 'AVAILABLE')
                  ORDER BY id FOR UPDATE
             )
             UPDATE seats s SET status = 'AVAILABLE', blocked_for = NULL
               FROM target WHERE s.id = target.id
          RETURNING s.id",
        )
        .await?;
    let rows = client.query(&statement, &[&event_id, &seat_ids]).await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Sells the given seats that are blocked or free to `order_id`, writing
/// their order lines; returns the seats sold.
pub async fn sell_at_box_office(
    client: &impl GenericClient,
    event_id: EventId,
    order_id: OrderId,
    seat_ids: &[SeatId],
    free: bool,
) -> AppResult<Vec<SeatId>> {
    let statement = client
        .prepare_cached(
            "WITH target AS (
                 SELECT id FROM seats
                  WHERE event_id = $1 AND id = ANY($2)
                    AND (status IN ('AVAILABLE', 'BLOCKED')
                         OR (status = 'HELD' AND held_until < now()))
                  ORDER BY id FOR UPDATE
             ), sold AS (
                 UPDATE seats s
                    SET status = 'SOLD', order_id = $3, hold_id = NULL, held_until = NULL,
                        blocked_for = NULL
                   FROM target WHERE s.id = target.id
              RETURNING s.id, s.tier_id
             ), lines AS (
                 -- An event that sells price types sells at the counter as
                 -- the first open type priced for the seat's tier with
                 -- places left; one with none, at the tier's price.
                 INSERT INTO order_lines (order_id, seat_id, price_cents, price_type_id)
                 SELECT $3, sold.id,
                        CASE WHEN $4 THEN 0 ELSE coalesce(kind.price_cents, t.price_cents) END,
                        kind.price_type_id
                   FROM sold JOIN price_tiers t ON t.id = sold.tier_id
                   LEFT JOIN LATERAL (
                        SELECT p.price_type_id, p.price_cents
                          FROM price_types pt
                          JOIN price_type_prices p ON p.price_type_id = pt.id AND p.tier_id = sold.tier_id
                         WHERE pt.event_id = $1 AND NOT pt.closed AND NOT pt.hidden AND pt.requires IS NULL
                           AND (pt.quota IS NULL OR pt.sold < pt.quota)
                         ORDER BY pt.sort_order, pt.id LIMIT 1
                   ) kind ON true
              RETURNING seat_id, price_type_id
             ), counted AS (
                 -- Counted against the type's quota like any sale (its
                 -- CHECK refuses the sale rather than pass the quota).
                 UPDATE price_types pt SET sold = pt.sold + n.count
                   FROM (SELECT price_type_id, count(*)::int AS count FROM lines
                          WHERE price_type_id IS NOT NULL GROUP BY price_type_id) n
                  WHERE pt.id = n.price_type_id AND pt.quota IS NOT NULL
             )
             SELECT seat_id FROM lines",
        )
        .await?;
    let rows = client
        .query(&statement, &[&event_id, &seat_ids, &order_id, &free])
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Puts refunded seats of the order back on sale, and takes them off its
/// lines (so the seat can be sold again: a seat is on one line at most).
pub async fn return_sold(
    client: &impl GenericClient,
    order_id: OrderId,
    seat_ids: &[SeatId],
) -> AppResult<Vec<SeatId>> {
    let statement = client
        .prepare_cached(
            "WITH line AS (
                 DELETE FROM order_lines WHERE order_id = $1 AND seat_id = ANY($2)
                 RETURNING price_type_id
             ), given_back AS (
                 -- A refunded seat's type gets its place back under its quota.
                 UPDATE price_types pt SET sold = pt.sold - returned.n
                   FROM (SELECT price_type_id, count(*)::int AS n FROM line
                          WHERE price_type_id IS NOT NULL GROUP BY price_type_id) returned
                  WHERE pt.id = returned.price_type_id AND pt.quota IS NOT NULL
             )
             UPDATE seats SET status = 'AVAILABLE', order_id = NULL
              WHERE id = ANY($2) AND order_id = $1 AND status = 'SOLD'
          RETURNING id",
        )
        .await?;
    let rows = client.query(&statement, &[&order_id, &seat_ids]).await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}
