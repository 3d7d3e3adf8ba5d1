//! Checking out: the purchase's transaction turns a live hold into an
//! order waiting for its payment, its seats held by it until `pay_by`.

use std::time::Duration;

use time::OffsetDateTime;
use uuid::Uuid;

use crate::db::GenericClient;
use crate::db::events::EventPayment;
use crate::domain::hold::GaHeld;
use crate::domain::ids::{BuyerId, EventId, HoldId, OrderId};
use crate::domain::payment::PaymentMode;
use crate::domain::price_type::PricedLine;
use crate::domain::rules::BuyerDetails;
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
                         status, payment, pay_by, amount_cents, lang, promo_code_id,
                         booking_fee_cents, tax_rate, tax_included, fees_refundable)
     SELECT $1, $2, $3, $4, $5, $6, 'pending_payment', $7,
            least(now() + make_interval(secs => $8::float8),
                  greatest(e.starts_at, now() + interval '1 second')),
            0, $9, $10, e.booking_fee_cents, e.tax_rate, e.tax_included, e.fees_refundable
       FROM events e WHERE e.id = $2";

/// The hold's live seats now wait for the order: held until its deadline,
/// at their tiers' prices (an event without an offer).
const RESERVE_SEATS: &str = "WITH kept AS (
         UPDATE seats s SET held_until = o.pay_by
           FROM orders o
          WHERE o.id = $1 AND s.hold_id = $2 AND s.held_until > now()
      RETURNING s.id, s.tier_id
     )
     INSERT INTO order_reserved_seats (order_id, seat_id, price_cents)
     SELECT $1, kept.id, t.price_cents FROM kept JOIN price_tiers t ON t.id = kept.tier_id
  RETURNING seat_id";

/// [`RESERVE_SEATS`] at the prices, types and discounts the offer gave
/// each seat (`offer_lines::line_arrays`).
const RESERVE_SEATS_PRICED: &str = "WITH kept AS (
         UPDATE seats s SET held_until = o.pay_by
           FROM orders o
          WHERE o.id = $1 AND s.hold_id = $2 AND s.held_until > now()
      RETURNING s.id
     )
     INSERT INTO order_reserved_seats (order_id, seat_id, price_cents, price_type_id,
                                       discount_cents)
     SELECT $1, kept.id, line.price_cents, line.price_type_id, line.discount_cents
       FROM kept JOIN unnest($3::bigint[], $4::int[], $5::bigint[], $6::int[])
                      AS line(seat_id, price_cents, price_type_id, discount_cents)
                   ON line.seat_id = kept.id
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

/// The order's receipt as it will be once paid, and the amount it asks:
/// the sums `tickets::ISSUE` will write from the tickets, per place with
/// the charges fixed on the order (each tax rounded half up per ticket by
/// the same `ticket_tax_cents`), so the payment asked for is what the
/// tickets will add up to.
const PRICE_PENDING: &str = "WITH places AS (
         SELECT price_cents::bigint AS price, discount_cents::bigint AS discount
           FROM order_reserved_seats WHERE order_id = $1
         UNION ALL
         SELECT price_cents, discount_cents FROM order_ga_lines WHERE order_id = $1
         UNION ALL
         SELECT g.price_cents, 0 FROM order_reserved_ga g CROSS JOIN generate_series(1, g.quantity)
          WHERE g.order_id = $1
            AND NOT EXISTS (SELECT 1 FROM order_ga_lines WHERE order_id = $1)
     ), sums AS (
         SELECT coalesce(sum(p.price + p.discount), 0) AS subtotal,
                coalesce(sum(p.discount), 0) AS discount,
                count(p.*) * o.booking_fee_cents AS fees,
                coalesce(sum(ticket_tax_cents(p.price, o.tax_rate, o.tax_included)), 0)
                  + count(p.*) * ticket_tax_cents(o.booking_fee_cents, o.tax_rate, o.tax_included)
                  AS tax,
                o.tax_included
           FROM orders o LEFT JOIN places p ON true
          WHERE o.id = $1
          GROUP BY o.id
     )
     UPDATE orders o
        SET subtotal_cents = sums.subtotal, discount_cents = sums.discount,
            fees_cents = sums.fees, tax_cents = sums.tax,
            total_cents = sums.subtotal - sums.discount + sums.fees
                          + CASE WHEN sums.tax_included THEN 0 ELSE sums.tax END,
            amount_cents = sums.subtotal - sums.discount + sums.fees
                           + CASE WHEN sums.tax_included THEN 0 ELSE sums.tax END
       FROM sums
      WHERE o.id = $1
  RETURNING o.amount_cents, o.pay_by";

const QUEUE_EXPIRE: &str = "INSERT INTO payment_jobs (kind, order_id, next_attempt_at)
     SELECT 'expire', o.id, o.pay_by FROM orders o WHERE o.id = $1";

/// What a checkout turns into an order waiting for its payment.
pub(in crate::db) struct Checkout<'a> {
    pub hold_id: HoldId,
    pub event_id: EventId,
    pub buyer_id: BuyerId,
    pub buyer: &'a BuyerDetails,
    pub payment: EventPayment,
    /// How long an online payment may take.
    pub online_window: Duration,
    /// The hold's seats and GA places the purchase counted.
    pub counted_seats: i64,
    pub counted_ga: &'a [GaHeld],
    /// The seats as the offer priced them (None: at their tiers' prices).
    pub priced: Option<&'a [PricedLine]>,
    /// The promo code the offer redeemed, its use counted.
    pub promo_code_id: Option<i64>,
}

/// Turns the locked, live hold into an order waiting for its payment, in
/// the purchase's transaction (`orders::purchase` has locked the event and
/// the hold, counted it, and priced its offer: each type's quota and the
/// code's use are counted now, held by the order until it is paid or let
/// go): every seat and GA place the hold counted is kept for the order, or
/// nothing is (`HoldExpired`).
pub(in crate::db) async fn checkout_in(
    tx: &impl GenericClient,
    checkout: Checkout<'_>,
) -> AppResult<PendingOrder> {
    let Checkout {
        hold_id,
        event_id,
        buyer_id,
        buyer,
        payment,
        online_window,
        counted_seats,
        counted_ga,
        priced,
        promo_code_id,
    } = checkout;
    let order_id = OrderId(Uuid::new_v4());
    let window = match payment.mode {
        PaymentMode::BoxOffice => payment.box_office_window,
        _ => online_window,
    };
    let reserve_seats = match priced {
        Some(_) => RESERVE_SEATS_PRICED,
        None => RESERVE_SEATS,
    };
    crate::db::prepare_together(
        tx,
        &[
            INSERT_PENDING,
            reserve_seats,
            RESERVE_GA,
            crate::db::offer_lines::WRITE_GA_LINES,
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
                &promo_code_id,
            ],
        )
        .await?;
        Ok::<_, AppError>(())
    };
    let seats = async {
        let statement = tx.prepare_cached(reserve_seats).await?;
        let rows = match priced {
            Some(lines) => {
                let arrays = crate::db::offer_lines::line_arrays(lines);
                tx.query(
                    &statement,
                    &[
                        &order_id,
                        &hold_id,
                        &arrays.seats,
                        &arrays.cents,
                        &arrays.types,
                        &arrays.discounts,
                    ],
                )
                .await?
            }
            None => tx.query(&statement, &[&order_id, &hold_id]).await?,
        };
        Ok::<_, AppError>(rows.len() as i64)
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
    // The GA places as the offer priced them, before the receipt sums them.
    let ga_lines = async {
        match priced {
            Some(lines) => crate::db::offer_lines::write_ga_lines(tx, order_id, lines).await,
            None => Ok(()),
        }
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
    let (inserted, seats, ga_places, ga_lines, paying, priced, expire) =
        tokio::join!(insert, seats, ga_places, ga_lines, paying, priced, expire);
    sent_together!(inserted, seats, ga_places, ga_lines, paying, priced, expire);
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
