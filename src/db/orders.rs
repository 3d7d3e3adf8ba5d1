//! Orders: turning a live hold into sold seats, and reading an order back.

use time::OffsetDateTime;
use uuid::Uuid;

use super::{GenericClient, Pool, events, ga, holds, retrying};
use crate::domain::ids::{BuyerId, EventId, HoldId, OrderId};
use crate::domain::locale::EventLocale;
use crate::domain::rules::BuyerDetails;
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

#[derive(Debug, Clone)]
pub struct OrderCreated {
    pub order_id: OrderId,
    pub event_id: EventId,
    pub seat_ids: SeatIds,
}

#[derive(Debug, Clone)]
pub struct OrderLine {
    /// "Stalls, row C, seat 7", or "Standing floor × 2".
    pub place: String,
    pub tier_name: String,
    /// For the whole line.
    pub price_cents: i64,
}

#[derive(Debug, Clone)]
pub struct Order {
    pub id: OrderId,
    pub event_id: EventId,
    pub event_name: String,
    pub venue: String,
    pub starts_at: OffsetDateTime,
    pub buyer_name: String,
    pub buyer_email: String,
    pub created_at: OffsetDateTime,
    pub lines: Vec<OrderLine>,
    /// The event was cancelled: the order is kept, for a refund.
    pub event_cancelled: bool,
    /// How the event shows prices and times.
    pub locale: EventLocale,
}

/// Buys the buyer's hold in one transaction: every seat still held by it
/// becomes SOLD with an order line, or nothing happens. A lapsed hold is
/// refused with `HoldExpired`, even if nobody has taken its seats yet.
pub async fn purchase(
    pool: &Pool,
    hold_id: HoldId,
    buyer_id: BuyerId,
    buyer: &BuyerDetails,
) -> AppResult<OrderCreated> {
    let outcome = retrying(|| purchase_once(pool, hold_id, buyer_id, buyer)).await;
    if outcome.is_ok() {
        metrics::counter!(crate::observability::PURCHASES).increment(1);
    }
    outcome
}

async fn purchase_once(
    pool: &Pool,
    hold_id: HoldId,
    buyer_id: BuyerId,
    buyer: &BuyerDetails,
) -> AppResult<OrderCreated> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    // The event's lock comes before the hold's, as in claims and closing.
    let event_id = holds::event_of(&tx, hold_id, Some(buyer_id))
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Hold))?;
    events::lock_on_sale(&tx, event_id).await?;
    let hold = holds::lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
    match hold.state {
        holds::HoldState::Purchased => {
            return Err(AppError::Conflict(Conflict::AlreadyPurchased));
        }
        holds::HoldState::Released => {
            return Err(AppError::Conflict(Conflict::HoldReleased));
        }
        _ if !hold.live => return Err(AppError::HoldExpired),
        _ => {}
    }

    let count_held = tx
        .prepare_cached("SELECT count(*) FROM seats WHERE hold_id = $1 AND status = 'HELD'")
        .await?;
    let expected: i64 = tx.query_one(&count_held, &[&hold.id]).await?.get(0);
    let ga_held = ga::held_by(&tx, hold.id).await?;
    // `hold.live` was judged at the transaction's start. A claim that took
    // one of our lapsed seats or tickets after that, and before the counts
    // above, shrank what they found: we would sell part of the hold. Ask
    // the clock now, after counting; any claim after this point is caught
    // below, when fewer rows sell than were counted.
    if !holds::live_by_clock(&tx, hold.id).await? {
        return Err(AppError::HoldExpired);
    }
    if expected == 0 && ga_held.is_empty() {
        return Err(AppError::Invalid(Invalid::EmptyHold));
    }

    let order_id = OrderId(Uuid::new_v4());
    let insert_order = tx
        .prepare_cached(
            "INSERT INTO orders (id, event_id, hold_id, buyer_id, buyer_name, buyer_email)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .await?;
    tx.execute(
        &insert_order,
        &[
            &order_id,
            &hold.event_id,
            &hold.id,
            &buyer_id,
            &buyer.name,
            &buyer.email,
        ],
    )
    .await?;
    // GA before seats: the order every claim takes its locks in.
    if !ga::sell(&tx, hold.id, &ga_held, order_id).await? {
        return Err(AppError::HoldExpired);
    }
    let sell = tx
        .prepare_cached(
            "WITH sold AS (
                 UPDATE seats
                    SET status = 'SOLD', order_id = $1, hold_id = NULL, held_until = NULL
                  WHERE hold_id = $2 AND status = 'HELD' AND held_until > now()
              RETURNING id, tier_id
             )
             INSERT INTO order_lines (order_id, seat_id, price_cents)
             SELECT $1, sold.id, t.price_cents
               FROM sold JOIN price_tiers t ON t.id = sold.tier_id
          RETURNING seat_id",
        )
        .await?;
    let rows = tx.query(&sell, &[&order_id, &hold.id]).await?;
    // Fewer than expected means a seat's hold lapsed as we bought it and
    // another buyer claimed it: all or nothing, so refuse the whole order.
    if rows.len() as i64 != expected {
        return Err(AppError::HoldExpired);
    }
    holds::mark_purchased(&tx, hold.id).await?;
    tx.commit().await?;
    let seat_ids = rows.iter().map(|row| row.get(0)).collect();
    Ok(OrderCreated {
        order_id,
        event_id: hold.event_id,
        seat_ids,
    })
}

/// The order with its seats, if it exists and is the buyer's.
pub async fn find_for_buyer(
    client: &impl GenericClient,
    order_id: OrderId,
    buyer_id: BuyerId,
) -> AppResult<Option<Order>> {
    let header = client
        .prepare_cached(
            "SELECT o.id, o.event_id, e.name AS event_name, e.venue, e.starts_at,
                    o.buyer_name, o.buyer_email, o.created_at, o.event_cancelled,
                    e.currency, e.time_zone
               FROM orders o JOIN events e ON e.id = o.event_id
              WHERE o.id = $1 AND o.buyer_id = $2",
        )
        .await?;
    let Some(row) = client.query_opt(&header, &[&order_id, &buyer_id]).await? else {
        return Ok(None);
    };
    let lines = client
        .prepare_cached(
            "SELECT sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label AS place,
                    t.name AS tier_name, l.price_cents::bigint AS price_cents
               FROM order_lines l
               JOIN seats s ON s.id = l.seat_id
               JOIN sections sec ON sec.id = s.section_id
               JOIN price_tiers t ON t.id = s.tier_id
              WHERE l.order_id = $1
              ORDER BY sec.sort_order, s.row_index, s.position",
        )
        .await?;
    let ga_lines = client
        .prepare_cached(
            "SELECT a.name || ' × ' || g.quantity AS place, t.name AS tier_name,
                    (g.quantity * g.price_cents)::bigint AS price_cents
               FROM ga_tickets g
               JOIN ga_areas a ON a.id = g.area_id
               JOIN price_tiers t ON t.id = a.tier_id
              WHERE g.order_id = $1
              ORDER BY a.sort_order",
        )
        .await?;
    let mut rows = client.query(&lines, &[&order_id]).await?;
    rows.extend(client.query(&ga_lines, &[&order_id]).await?);
    let lines = rows
        .iter()
        .map(|line| OrderLine {
            place: line.get("place"),
            tier_name: line.get("tier_name"),
            price_cents: line.get("price_cents"),
        })
        .collect();
    Ok(Some(Order {
        id: row.get("id"),
        event_id: row.get("event_id"),
        event_name: row.get("event_name"),
        venue: row.get("venue"),
        starts_at: row.get("starts_at"),
        buyer_name: row.get("buyer_name"),
        buyer_email: row.get("buyer_email"),
        created_at: row.get("created_at"),
        lines,
        event_cancelled: row.get("event_cancelled"),
        locale: EventLocale::new(
            super::events::currency_column(row.get("currency")),
            row.get::<_, String>("time_zone"),
        ),
    }))
}
