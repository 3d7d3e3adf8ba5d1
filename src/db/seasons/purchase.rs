//! Buying a season hold: one order whose seats are in every night, a
//! ticket per place per night, all in one transaction or not at all.

use uuid::Uuid;

use super::claim::refuse_unless_selling;
use crate::db::orders::OrderCreated;
use crate::db::tickets::{self, Issued};
use crate::db::{GenericClient, Pool, outbox, retrying, webhooks};
use crate::domain::ids::{BuyerId, EventId, HoldId, OrderId, SeasonId, SeatId};
use crate::domain::rules::BuyerDetails;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

/// What a season purchase asked for that an event's purchase may: a
/// season is sold at its own prices, so each is refused, saying which.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfferAsked {
    pub price_types: bool,
    pub promo_code: bool,
}

/// Buys the buyer's season hold. A lapsed hold is refused with
/// `HoldExpired` even if nobody has taken its seats yet; fewer seats sold
/// than the hold had (one lapsed as it was bought, and another buyer took
/// it) refuses the whole order, in every night.
pub async fn purchase(
    pool: &Pool,
    hold_id: HoldId,
    buyer_id: BuyerId,
    buyer: &BuyerDetails,
    offer_asked: OfferAsked,
) -> AppResult<OrderCreated> {
    let bought = retrying(|| {
        crate::db::in_transaction(pool, async |tx| {
            purchase_in(tx, hold_id, buyer_id, buyer, offer_asked).await
        })
    })
    .await?;
    metrics::counter!(crate::observability::PURCHASES).increment(1);
    Ok(bought)
}

async fn purchase_in(
    tx: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: BuyerId,
    buyer: &BuyerDetails,
    offer_asked: OfferAsked,
) -> AppResult<OrderCreated> {
    // Read unlocked first, so the events are locked before the hold, the
    // order claims keep.
    let found = tx
        .query_opt(
            "SELECT season_id, event_ids, renewal_of IS NOT NULL AS renewal
               FROM season_holds WHERE id = $1 AND buyer_id = $2",
            &[&hold_id, &buyer_id],
        )
        .await?
        .ok_or(AppError::NotFound(Missing::Hold))?;
    // A season is sold at its own prices: no price types, no codes.
    if offer_asked.price_types {
        return Err(AppError::Invalid(Invalid::PriceTypeRule(
            "a season is sold at its own prices, so it takes no ticket types".into(),
        )));
    }
    if offer_asked.promo_code {
        return Err(AppError::Invalid(Invalid::PromoCodeNotApplicable));
    }
    let season_id: SeasonId = found.get("season_id");
    let nights: Vec<EventId> = found.get("event_ids");
    refuse_unless_selling(tx, season_id, &nights, found.get("renewal")).await?;
    let locked = tx
        .query_one(
            "SELECT state, expires_at > clock_timestamp() AS live
               FROM season_holds WHERE id = $1 FOR UPDATE",
            &[&hold_id],
        )
        .await?;
    match locked.get::<_, &str>("state") {
        "PURCHASED" => return Err(AppError::Conflict(Conflict::AlreadyPurchased)),
        "RELEASED" => return Err(AppError::Conflict(Conflict::HoldReleased)),
        "OPEN" if locked.get("live") => {}
        _ => return Err(AppError::HoldExpired),
    }
    // Counted after the clock said "live" (the statement above): a claim
    // that saw these seats lapsed can't have committed before this count,
    // and one after it is caught by fewer seats selling than counted.
    let held: i64 = tx
        .query_one(
            "SELECT count(*) FROM seats s JOIN holds h ON h.id = s.hold_id
              WHERE h.season_hold_id = $1",
            &[&hold_id],
        )
        .await?
        .get(0);
    if held == 0 {
        return Err(AppError::Invalid(Invalid::EmptyHold));
    }
    let first_night: EventId = tx
        .query_one(
            "SELECT event_id FROM season_events
              WHERE season_id = $1 AND event_id = ANY($2) ORDER BY position LIMIT 1",
            &[&season_id, &nights],
        )
        .await?
        .get(0);
    let order_id = OrderId(Uuid::new_v4());
    tx.execute(
        "INSERT INTO orders (id, event_id, season_id, season_hold_id, buyer_id, buyer_name,
                             buyer_email, lang)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        &[
            &order_id,
            &first_night,
            &season_id,
            &hold_id,
            &buyer_id,
            &buyer.name,
            &buyer.email.as_str(),
            &buyer.lang.tag(),
        ],
    )
    .await?;
    let sold = tx.query(SELL, &[&order_id, &hold_id, &season_id]).await?;
    if sold.len() as i64 != held {
        return Err(AppError::HoldExpired);
    }
    let tickets = issue(tx, order_id, sold.len()).await?;
    tx.execute(
        "WITH closed AS (
             UPDATE season_holds SET state = 'PURCHASED', closed_at = now()
              WHERE id = $1 RETURNING id
         )
         UPDATE holds SET state = 'PURCHASED', closed_at = now()
          WHERE season_hold_id IN (SELECT id FROM closed)",
        &[&hold_id],
    )
    .await?;
    outbox::queue_season_confirmation(tx, order_id, season_id, buyer.email.as_str()).await?;
    webhooks::queue(
        tx,
        "order.created",
        serde_json::json!({ "order_id": order_id, "event_id": first_night, "season_id": season_id }),
    )
    .await?;
    Ok(OrderCreated {
        order_id,
        event_id: first_night,
        seat_ids: sold.iter().map(|row| row.get::<_, SeatId>(0)).collect(),
        tickets,
    })
}

/// Sells every seat the season hold still holds (live by its expiry) and
/// writes its line: the place's season price shared over its nights, the
/// cents that don't divide on the first night's.
const SELL: &str = "WITH sold AS (
         UPDATE seats s
            SET status = 'SOLD', order_id = $1, hold_id = NULL, held_until = NULL,
                changed_xid = pg_current_xact_id()
           FROM holds h
          WHERE h.season_hold_id = $2 AND s.hold_id = h.id AND s.held_until > now()
      RETURNING s.id, s.event_id
     ), priced AS (
         SELECT sold.id, sp.price_cents,
                row_number() OVER (PARTITION BY p.place_id ORDER BY se.position) AS night,
                count(*) OVER (PARTITION BY p.place_id) AS nights
           FROM sold
           JOIN season_places p ON p.season_id = $3 AND p.seat_id = sold.id
           JOIN season_events se ON se.season_id = $3 AND se.event_id = sold.event_id
           JOIN seats s0 ON s0.id = p.place_id
           JOIN price_tiers t0 ON t0.id = s0.tier_id
           JOIN season_prices sp ON sp.season_id = $3 AND sp.tier_code = t0.code
     )
     INSERT INTO order_lines (order_id, seat_id, price_cents)
     SELECT $1, id, (price_cents / nights
                     + CASE WHEN night = 1 THEN price_cents % nights ELSE 0 END)::int
       FROM priced
  RETURNING seat_id";

/// A ticket per line, each in its seat's own event, taxed as the first
/// night's event taxes; a season charges no booking fee per night. The
/// order's totals are its tickets' sums, written by the same statement.
const ISSUE: &str = "WITH numbered AS (
         SELECT l.seat_id, l.price_cents, s.event_id,
                row_number() OVER (ORDER BY s.event_id, l.seat_id) AS n
           FROM order_lines l JOIN seats s ON s.id = l.seat_id
          WHERE l.order_id = $1
     ), charges AS (
         SELECT e.tax_rate, e.tax_included, e.fees_refundable
           FROM orders o JOIN events e ON e.id = o.event_id WHERE o.id = $1
     ), issued AS (
         INSERT INTO tickets (code, event_id, order_id, seat_id, price_cents, tax_cents)
         SELECT c.code, numbered.event_id, $1, numbered.seat_id, numbered.price_cents,
                ticket_tax_cents(numbered.price_cents, charges.tax_rate, charges.tax_included)
           FROM numbered JOIN unnest($2::text[]) WITH ORDINALITY AS c(code, n) USING (n)
                CROSS JOIN charges
      RETURNING code, seat_id, ga_area_id, price_cents, tax_cents
     ), sums AS (
         SELECT coalesce(sum(price_cents), 0) AS subtotal, coalesce(sum(tax_cents), 0) AS tax
           FROM issued
     ), totalled AS (
         UPDATE orders o
            SET subtotal_cents = sums.subtotal, tax_cents = sums.tax,
                tax_rate = charges.tax_rate, tax_included = charges.tax_included,
                fees_refundable = charges.fees_refundable,
                total_cents = sums.subtotal + CASE WHEN charges.tax_included THEN 0 ELSE sums.tax END
           FROM sums CROSS JOIN charges
          WHERE o.id = $1
     )
     SELECT code, seat_id, ga_area_id FROM issued";

async fn issue(
    tx: &impl GenericClient,
    order_id: OrderId,
    places: usize,
) -> AppResult<Vec<Issued>> {
    let codes: Vec<String> = (0..places)
        .map(|_| TicketCode::generate().as_str().to_string())
        .collect();
    let rows = tx.query(ISSUE, &[&order_id, &codes]).await?;
    if rows.len() != places {
        return Err(AppError::Internal(anyhow::anyhow!(
            "season order {order_id}: {places} seats sold but {} tickets issued",
            rows.len()
        )));
    }
    Ok(tickets::issued(&rows))
}
