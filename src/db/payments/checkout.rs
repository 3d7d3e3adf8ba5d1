//! Checking out: the purchase's transaction turns a live hold into an
//! order waiting for its payment, its seats held by it until `pay_by`.

use std::time::Duration;

use time::OffsetDateTime;
use uuid::Uuid;

use crate::db::GenericClient;
use crate::db::events::EventPayment;
use crate::domain::hold::GaHeld;
use crate::domain::ids::{EventId, HoldId, OrderId};
use crate::domain::payment::PaymentMode;
use crate::error::{AppError, AppResult};

/// An order now waiting for its payment.
#[derive(Debug, Clone)]
pub struct PendingOrder {
    pub order_id: OrderId,
    pub event_id: EventId,
    pub payment: PaymentMode,
    pub pay_by: OffsetDateTime,
    pub amount_cents: i64,
}

const INSERT_PENDING: &str =
    "INSERT INTO orders (id, event_id, hold_id, buyer_id, buyer_name, buyer_email,
                         status, payment, pay_by, amount_cents, lang)
     SELECT $1, $2, $3, $4, $5, $6, 'pending_payment', $7,
            least(now() + make_interval(secs => $8::float8),
                  greatest(e.starts_at, now() + interval '1 second')),
            0, $9
       FROM events e WHERE e.id = $2";

/// The hold's live seats now wait for the order: held until its deadline,
/// at today's prices.
const RESERVE_SEATS: &str = "WITH kept AS (
         UPDATE seats s SET held_until = o.pay_by
           FROM orders o
          WHERE o.id = $1 AND s.hold_id = $2 AND s.held_until > now()
      RETURNING s.id, s.tier_id
     )
     INSERT INTO order_reserved_seats (order_id, seat_id, price_cents)
     SELECT $1, kept.id, t.price_cents FROM kept JOIN price_tiers t ON t.id = kept.tier_id
  RETURNING seat_id";

const RESERVE_GA: &str = "WITH kept AS (
         UPDATE ga_tickets g SET held_until = o.pay_by
           FROM orders o
          WHERE o.id = $1 AND g.hold_id = $2 AND g.order_id IS NULL AND g.held_until > now()
      RETURNING g.area_id, g.quantity
     )
     INSERT INTO order_reserved_ga (order_id, area_id, quantity, price_cents)
     SELECT $1, kept.area_id, sum(kept.quantity)::int, p.price_cents
       FROM kept JOIN ga_areas a ON a.id = kept.area_id JOIN price_tiers p ON p.id = a.tier_id
      GROUP BY kept.area_id, p.price_cents
  RETURNING quantity";

const HOLD_PAYING: &str =
    "UPDATE holds h SET state = 'PAYING', closed_at = now(), expires_at = o.pay_by
       FROM orders o WHERE o.id = $2 AND h.id = $1 AND h.state = 'OPEN'";

// The receipt's totals say the same until the tickets are issued (an
// event that takes payment charges no fee or tax yet: `charges::set`).
const PRICE_PENDING: &str = "UPDATE orders o SET amount_cents = due.cents, subtotal_cents = due.cents,
                                 total_cents = due.cents
       FROM (SELECT coalesce((SELECT sum(price_cents) FROM order_reserved_seats WHERE order_id = $1), 0)
                  + coalesce((SELECT sum(price_cents::bigint * quantity) FROM order_reserved_ga
                               WHERE order_id = $1), 0) AS cents) due
      WHERE o.id = $1
  RETURNING o.amount_cents, o.pay_by";

const QUEUE_EXPIRE: &str = "INSERT INTO payment_jobs (kind, order_id, next_attempt_at)
     SELECT 'expire', o.id, o.pay_by FROM orders o WHERE o.id = $1";

/// Turns the locked, live hold into an order waiting for its payment, in
/// the purchase's transaction (`orders::purchase` has locked the event and
/// the hold and counted it): every seat and GA place the hold counted is
/// kept for the order, or nothing is (`HoldExpired`).
#[allow(clippy::too_many_arguments)]
pub(in crate::db) async fn checkout_in(
    tx: &impl GenericClient,
    hold_id: HoldId,
    event_id: EventId,
    buyer_id: crate::domain::ids::BuyerId,
    buyer: &crate::domain::rules::BuyerDetails,
    payment: EventPayment,
    online_window: Duration,
    counted_seats: i64,
    counted_ga: &[GaHeld],
) -> AppResult<PendingOrder> {
    let order_id = OrderId(Uuid::new_v4());
    let window = match payment.mode {
        PaymentMode::BoxOffice => payment.box_office_window,
        _ => online_window,
    };
    crate::db::prepare_together(
        tx,
        &[
            INSERT_PENDING,
            RESERVE_SEATS,
            RESERVE_GA,
            HOLD_PAYING,
            PRICE_PENDING,
            QUEUE_EXPIRE,
        ],
    )
    .await?;
    let insert = async {
        let statement = tx.prepare_cached(INSERT_PENDING).await?;
        tx.execute(
            &statement,
            &[
                &order_id,
                &event_id,
                &hold_id,
                &buyer_id,
                &buyer.name,
                &buyer.email.as_str(),
                &payment.mode.as_str(),
                &window.as_secs_f64(),
                &buyer.lang.tag(),
            ],
        )
        .await?;
        Ok::<_, AppError>(())
    };
    let seats = async {
        let statement = tx.prepare_cached(RESERVE_SEATS).await?;
        Ok::<_, AppError>(tx.query(&statement, &[&order_id, &hold_id]).await?.len() as i64)
    };
    let ga_places = async {
        let statement = tx.prepare_cached(RESERVE_GA).await?;
        let rows = tx.query(&statement, &[&order_id, &hold_id]).await?;
        Ok::<_, AppError>(
            rows.iter()
                .map(|row| row.get::<_, i32>(0) as usize)
                .sum::<usize>(),
        )
    };
    let paying = async {
        let statement = tx.prepare_cached(HOLD_PAYING).await?;
        tx.execute(&statement, &[&hold_id, &order_id]).await?;
        Ok::<_, AppError>(())
    };
    let priced = async {
        let statement = tx.prepare_cached(PRICE_PENDING).await?;
        Ok::<_, AppError>(tx.query_one(&statement, &[&order_id]).await?)
    };
    let expire = async {
        if payment.mode == PaymentMode::Online {
            let statement = tx.prepare_cached(QUEUE_EXPIRE).await?;
            tx.execute(&statement, &[&order_id]).await?;
        }
        Ok::<_, AppError>(())
    };
    // Sent in this order in one batch: the order first, since the seats
    // and the hold take its deadline from it.
    let (inserted, seats, ga_places, paying, priced, expire) =
        tokio::join!(insert, seats, ga_places, paying, priced, expire);
    sent_together!(inserted, seats, ga_places, paying, priced, expire);
    // Fewer kept than counted: one lapsed as we checked out and another
    // buyer took it. All or nothing, as in a purchase.
    if seats? != counted_seats || ga_places? != crate::domain::hold::ga_ticket_count(counted_ga) {
        return Err(AppError::HoldExpired);
    }
    let priced = priced?;
    Ok(PendingOrder {
        order_id,
        event_id,
        payment: payment.mode,
        pay_by: priced.get("pay_by"),
        amount_cents: priced.get("amount_cents"),
    })
}
