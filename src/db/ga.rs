//! General admission: fungible stock counted in `ga_areas`, with each
//! hold's (or order's) tickets in `ga_tickets`.
//!
//! A claim is a guarded relative update on the area's counter, judged by
//! the rows it affected; the `ga_never_oversold` CHECK is the backstop. A
//! lapsed hold's tickets stay counted in `held` until the next claim on the
//! area returns them, in that claim's own transaction, before its guarded
//! update; pages count them as free all along. Every path that touches
//! several areas goes through them in id order, tickets before counter, so
//! two carts never wait on each other in a cycle.

use serde::Serialize;

use super::GenericClient;
use crate::domain::hold::{GaHeld, GaRequest};
use crate::domain::ids::AreaId;
use crate::domain::ids::{EventId, HoldId, OrderId};
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

/// An area as the map and the API show it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct GaAreaView {
    #[schema(value_type = i64)]
    pub id: AreaId,
    pub name: String,
    pub tier: String,
    pub tier_name: String,
    pub price_cents: i32,
    pub capacity: i32,
    /// Free now: lapsed holds count as free, as a claim treats them.
    pub available: i64,
    /// The viewer's own tickets here, if they hold any.
    pub mine: i32,
}

/// The event's areas in layout order, with the viewer's tickets.
pub async fn areas(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: Option<HoldId>,
) -> AppResult<Vec<GaAreaView>> {
    let statement = client
        .prepare_cached(
            "SELECT a.id, a.name, t.code AS tier, t.name AS tier_name, t.price_cents, a.capacity,
                    a.capacity - a.sold - coalesce(live.quantity, 0) AS available,
                    coalesce(mine.quantity, 0)::int AS mine
               FROM ga_areas a
               JOIN price_tiers t ON t.id = a.tier_id
               LEFT JOIN LATERAL (SELECT sum(quantity) AS quantity FROM ga_tickets
                                   WHERE area_id = a.id AND order_id IS NULL
                                     AND held_until > now()) live ON true
               LEFT JOIN LATERAL (SELECT sum(quantity) AS quantity FROM ga_tickets
                                   WHERE area_id = a.id AND hold_id = $2 AND order_id IS NULL
                                     AND held_until > now()) mine ON true
              WHERE a.event_id = $1
              ORDER BY a.sort_order",
        )
        .await?;
    let rows = client.query(&statement, &[&event_id, &hold_id]).await?;
    Ok(rows
        .iter()
        .map(|row| GaAreaView {
            id: row.get("id"),
            name: row.get("name"),
            tier: row.get("tier"),
            tier_name: row.get("tier_name"),
            price_cents: row.get("price_cents"),
            capacity: row.get("capacity"),
            available: row.get::<_, i64>("available"),
            mine: row.get("mine"),
        })
        .collect())
}

/// Checks every area is the event's; refuses naming those that aren't.
pub(super) const MUST_BELONG: &str = "SELECT id FROM ga_areas WHERE event_id = $1 AND id = ANY($2)";

pub(super) async fn must_belong(
    client: &impl GenericClient,
    event_id: EventId,
    requests: &[GaRequest],
) -> AppResult<()> {
    let ids: Vec<AreaId> = requests.iter().map(|r| r.area_id).collect();
    let statement = client.prepare_cached(MUST_BELONG).await?;
    let known: Vec<AreaId> = client
        .query(&statement, &[&event_id, &ids])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let unknown: Vec<AreaId> = ids
        .iter()
        .filter(|id| !known.contains(id))
        .copied()
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(AppError::NotFound(Missing::Areas(unknown)))
    }
}

/// Which held tickets of an area go back to its counter.
#[derive(Debug, Clone, Copy)]
pub(super) enum GiveBack {
    /// Lapsed ones (any hold's): what a claim on the area returns first.
    Lapsed,
    /// Lapsed ones, and all of this hold's.
    LapsedAndHold(HoldId),
    /// Every held ticket (sales closed, or the event cancelled); with
    /// `keep_paying`, not those of orders still within their payment
    /// deadline (closing sales leaves reservations to be paid).
    All { keep_paying: bool },
}

/// Returns tickets to the area's counter; how many went back.
pub(super) async fn give_back(
    client: &impl GenericClient,
    area_id: AreaId,
    which: GiveBack,
) -> AppResult<i64> {
    let (hold_id, all, keep_paying) = match which {
        GiveBack::Lapsed => (None, false, false),
        GiveBack::LapsedAndHold(hold_id) => (Some(hold_id), false, false),
        GiveBack::All { keep_paying } => (None, true, keep_paying),
    };
    // One statement: the tickets go and the counter drops together. The
    // counter row is locked after the tickets, as in a claim. The tickets
    // are locked in id order first: a bare DELETE takes them in whatever
    // order its plan visits them (a sequential scan, or the lapsing index
    // by expiry, differing between connections once a cached plan turns
    // generic), and two carts returning the same lapsed tickets in two
    // orders deadlocked.
    let statement = client
        .prepare_cached(
            "WITH doomed AS (
                 SELECT id FROM ga_tickets
                  WHERE area_id = $1 AND order_id IS NULL
                    AND ($3 OR held_until <= now() OR hold_id = $2)
                    AND NOT ($4 AND held_until > now()
                             AND EXISTS (SELECT 1 FROM holds h
                                          WHERE h.id = ga_tickets.hold_id AND h.state = 'PAYING'))
                  ORDER BY id
                    FOR UPDATE
             ), returned AS (
                 DELETE FROM ga_tickets t USING doomed
                  WHERE t.id = doomed.id
              RETURNING t.quantity
             ), total AS (SELECT sum(quantity)::int AS quantity FROM returned)
             UPDATE ga_areas a SET held = a.held - total.quantity
               FROM total
              WHERE a.id = $1 AND total.quantity IS NOT NULL
          RETURNING total.quantity",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&area_id, &hold_id, &all, &keep_paying])
        .await?;
    Ok(row.map_or(0, |row| i64::from(row.get::<_, i32>(0))))
}

/// Adds tickets to the hold, area by area in id order (`requests` sorted
/// by area, one entry each), all or nothing: the caller rolls back on an
/// error. Returns how many lapsed tickets were returned on the way.
pub(super) async fn claim(
    client: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
    held_until: time::OffsetDateTime,
    requests: &[GaRequest],
) -> AppResult<i64> {
    let take = client
        .prepare_cached(
            "UPDATE ga_areas SET held = held + $2
              WHERE id = $1 AND capacity - held - sold >= $2",
        )
        .await?;
    let add_ticket = client
        .prepare_cached(
            "INSERT INTO ga_tickets (event_id, area_id, hold_id, quantity, held_until)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (hold_id, area_id) WHERE order_id IS NULL
             DO UPDATE SET quantity = ga_tickets.quantity + excluded.quantity",
        )
        .await?;
    let mut returned = 0;
    for request in requests {
        returned += give_back(client, request.area_id, GiveBack::Lapsed).await?;
        let quantity = i32::try_from(request.quantity)
            .map_err(|_| AppError::Invalid(Invalid::MoreTicketsThanAnyArea))?;
        if client
            .execute(&take, &[&request.area_id, &quantity])
            .await?
            == 0
        {
            return Err(not_enough(client, request).await?);
        }
        client
            .execute(
                &add_ticket,
                &[
                    &event_id,
                    &request.area_id,
                    &hold_id,
                    &quantity,
                    &held_until,
                ],
            )
            .await?;
    }
    Ok(returned)
}

async fn not_enough(client: &impl GenericClient, request: &GaRequest) -> AppResult<AppError> {
    let row = client
        .query_one(
            "SELECT name, capacity - held - sold AS left FROM ga_areas WHERE id = $1",
            &[&request.area_id],
        )
        .await?;
    let name: String = row.get("name");
    let left: i32 = row.get("left");
    Ok(AppError::Conflict(Conflict::NotEnoughCapacity {
        area: name,
        left,
        asked: request.quantity,
    }))
}

/// The hold's held tickets, by area.
pub async fn held_by(client: &impl GenericClient, hold_id: HoldId) -> AppResult<Vec<GaHeld>> {
    let statement = client
        .prepare_cached(
            "SELECT area_id, quantity FROM ga_tickets
              WHERE hold_id = $1 AND order_id IS NULL ORDER BY area_id",
        )
        .await?;
    Ok(client
        .query(&statement, &[&hold_id])
        .await?
        .iter()
        .map(|row| GaHeld {
            area_id: row.get(0),
            quantity: row.get(1),
        })
        .collect())
}

/// Returns all the hold's tickets to their areas (release, staff release,
/// sales closed). Returns how many went back.
pub(super) async fn release_all(client: &impl GenericClient, hold_id: HoldId) -> AppResult<i64> {
    let mut returned = 0;
    for held in held_by(client, hold_id).await? {
        returned += give_back(client, held.area_id, GiveBack::LapsedAndHold(hold_id)).await?;
    }
    Ok(returned)
}

/// Moves the hold's tickets to its expiry after an extension.
pub(super) async fn extend(
    client: &impl GenericClient,
    hold_id: HoldId,
    held_until: time::OffsetDateTime,
) -> AppResult<()> {
    client
        .execute(
            "UPDATE ga_tickets SET held_until = $2 WHERE hold_id = $1 AND order_id IS NULL",
            &[&hold_id, &held_until],
        )
        .await?;
    Ok(())
}

/// Sells `held`, the tickets the purchase counted, on the order, area by
/// area. False if any line can't be sold whole: it lapsed, or a claim
/// gave it back to its area since it was counted (the caller refuses).
pub(super) async fn sell(
    client: &impl GenericClient,
    hold_id: HoldId,
    held: &[GaHeld],
    order_id: OrderId,
) -> AppResult<bool> {
    let sell = client
        .prepare_cached(
            "WITH sold AS (
                 UPDATE ga_tickets t
                    SET order_id = $3, held_until = NULL,
                        price_cents = (SELECT p.price_cents FROM ga_areas a
                                         JOIN price_tiers p ON p.id = a.tier_id WHERE a.id = $1)
                  WHERE t.area_id = $1 AND t.hold_id = $2 AND t.order_id IS NULL
                    AND t.held_until > now()
              RETURNING t.quantity
             ), total AS (SELECT sum(quantity)::int AS quantity FROM sold)
             UPDATE ga_areas a SET held = a.held - total.quantity, sold = a.sold + total.quantity
               FROM total
              WHERE a.id = $1 AND total.quantity IS NOT NULL
          RETURNING total.quantity",
        )
        .await?;
    for line in held {
        let sold = client
            .query_opt(&sell, &[&line.area_id, &hold_id, &order_id])
            .await?;
        if sold.map(|row| row.get::<_, i32>(0)) != Some(line.quantity) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Sells a waiting order's reserved places: the tickets its hold still
/// has (lapsed or not: nobody gave them back yet), and, when
/// `may_take_free`, the rest from the area's free capacity (after lapsed
/// holds' tickets go back). False, selling nothing more, if an area can't
/// give the whole quantity.
pub(super) async fn sell_reserved(
    client: &impl GenericClient,
    hold_id: HoldId,
    reserved: &[GaHeld],
    order_id: OrderId,
    may_take_free: bool,
) -> AppResult<bool> {
    let own = client
        .prepare_cached(
            "WITH mine AS (
                 SELECT id FROM ga_tickets
                  WHERE area_id = $1 AND hold_id = $2 AND order_id IS NULL
                    AND ($4 OR held_until > now())
                  ORDER BY id FOR UPDATE
             ), sold AS (
                 UPDATE ga_tickets t
                    SET order_id = $3, held_until = NULL,
                        price_cents = (SELECT r.price_cents FROM order_reserved_ga r
                                        WHERE r.order_id = $3 AND r.area_id = $1)
                   FROM mine WHERE t.id = mine.id
              RETURNING t.quantity
             ), total AS (SELECT coalesce(sum(quantity), 0)::int AS quantity FROM sold)
             UPDATE ga_areas a SET held = a.held - total.quantity, sold = a.sold + total.quantity
               FROM total
              WHERE a.id = $1
          RETURNING total.quantity",
        )
        .await?;
    let take = client
        .prepare_cached(
            "WITH taken AS (
                 UPDATE ga_areas a SET sold = a.sold + $2
                  WHERE a.id = $1 AND a.capacity - a.held - a.sold >= $2
              RETURNING a.event_id
             )
             INSERT INTO ga_tickets (event_id, area_id, hold_id, quantity, order_id, price_cents)
             SELECT taken.event_id, $1, $4, $2, $3,
                    (SELECT r.price_cents FROM order_reserved_ga r WHERE r.order_id = $3 AND r.area_id = $1)
               FROM taken",
        )
        .await?;
    for line in reserved {
        let sold: i32 = client
            .query_opt(&own, &[&line.area_id, &hold_id, &order_id, &may_take_free])
            .await?
            .map_or(0, |row| row.get(0));
        let missing = line.quantity - sold;
        if missing <= 0 {
            continue;
        }
        if !may_take_free {
            return Ok(false);
        }
        give_back(client, line.area_id, GiveBack::Lapsed).await?;
        if client
            .execute(&take, &[&line.area_id, &missing, &order_id, &hold_id])
            .await?
            == 0
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Returns every held ticket of the event to its area (sales closed).
pub(super) async fn release_event(
    client: &impl GenericClient,
    event_id: EventId,
    keep_paying: bool,
) -> AppResult<i64> {
    let areas = client
        .query(
            "SELECT id FROM ga_areas WHERE event_id = $1 ORDER BY id",
            &[&event_id],
        )
        .await?;
    let mut returned = 0;
    for area in areas {
        returned += give_back(client, area.get(0), GiveBack::All { keep_paying }).await?;
    }
    Ok(returned)
}

/// Sells places straight from the areas' counters on a box-office order
/// (no hold), area by area in id order, all or nothing: the caller rolls
/// back on an error. `free` prices them at nothing (a comp).
pub(super) async fn sell_walk_up(
    client: &impl GenericClient,
    event_id: EventId,
    order_id: OrderId,
    requests: &[GaRequest],
    free: bool,
) -> AppResult<()> {
    must_belong(client, event_id, requests).await?;
    let take = client
        .prepare_cached(
            "UPDATE ga_areas a SET sold = a.sold + $2
               FROM price_tiers p
              WHERE a.id = $1 AND p.id = a.tier_id AND a.capacity - a.held - a.sold >= $2
          RETURNING p.price_cents",
        )
        .await?;
    let add_line = client
        .prepare_cached(
            "INSERT INTO ga_tickets (event_id, area_id, quantity, order_id, price_cents)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .await?;
    for request in requests {
        give_back(client, request.area_id, GiveBack::Lapsed).await?;
        let quantity = i32::try_from(request.quantity)
            .map_err(|_| AppError::Invalid(Invalid::MoreTicketsThanAnyArea))?;
        let Some(taken) = client
            .query_opt(&take, &[&request.area_id, &quantity])
            .await?
        else {
            return Err(not_enough(client, request).await?);
        };
        let price: i32 = if free { 0 } else { taken.get(0) };
        client
            .execute(
                &add_line,
                &[&event_id, &request.area_id, &quantity, &order_id, &price],
            )
            .await?;
    }
    Ok(())
}

/// Gives refunded places back to their areas' counters: `per_area` is
/// (area, places) with each area once. Each line shrinks (or goes, when
/// all its places are refunded) and its counter drops, in one statement.
pub(super) async fn refund(
    client: &impl GenericClient,
    order_id: OrderId,
    per_area: &[(i64, i32)],
) -> AppResult<()> {
    let (areas, counts): (Vec<i64>, Vec<i32>) = per_area.iter().copied().unzip();
    let statement = client
        .prepare_cached(
            "WITH back AS (
                 SELECT * FROM unnest($2::bigint[], $3::int[]) AS b(area_id, places)
             ), shrunk AS (
                 UPDATE ga_tickets g SET quantity = g.quantity - back.places
                   FROM back
                  WHERE g.order_id = $1 AND g.area_id = back.area_id AND g.quantity > back.places
              RETURNING g.area_id
             ), gone AS (
                 DELETE FROM ga_tickets g USING back
                  WHERE g.order_id = $1 AND g.area_id = back.area_id AND g.quantity = back.places
              RETURNING g.area_id
             )
             UPDATE ga_areas a SET sold = a.sold - back.places
               FROM back
              WHERE a.id = back.area_id
                AND a.id IN (SELECT area_id FROM shrunk UNION ALL SELECT area_id FROM gone)",
        )
        .await?;
    let changed = client
        .execute(&statement, &[&order_id, &areas, &counts])
        .await?;
    if changed as usize != per_area.len() {
        return Err(AppError::Internal(anyhow::anyhow!(
            "order {order_id}: refunding GA places in {} areas changed {changed}",
            per_area.len()
        )));
    }
    Ok(())
}
