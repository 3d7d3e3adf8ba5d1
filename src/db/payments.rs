//! Orders that wait for their money. A checkout turns a live hold into an
//! order `pending_payment` whose seats stay HELD by that hold until the
//! order's deadline (`pay_by`); lazy expiry then frees them like any
//! lapsed hold's. The payment (Stripe's webhook, or staff at the counter)
//! sells them in one conditional transaction. A payment that arrives after
//! the deadline re-claims the seats with the same conditional claim if they
//! are still free, and otherwise becomes `refunded_unfulfilled` with a
//! refund queued: never a seat sold twice, never money kept for a seat not
//! given. No network call happens inside any of these transactions; calls
//! to Stripe are queued in `payment_jobs` and made after the commit.

use std::time::Duration;

use time::OffsetDateTime;
use tokio_postgres::Row;
use uuid::Uuid;

use super::events::EventPayment;
use super::ga::{self, GaHeld};
use super::tickets;
use super::{GenericClient, Pool, audit, outbox, retrying, webhooks};
use crate::domain::ids::{Actor, AreaId, EventId, HoldId, OrderId, SeatId};
use crate::domain::locale::EventLocale;
use crate::domain::payment::{OrderStatus, PaymentMode};
use crate::error::{AppError, AppResult, Conflict, Missing};

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
                         status, payment, pay_by, amount_cents)
     SELECT $1, $2, $3, $4, $5, $6, 'pending_payment', $7,
            least(now() + make_interval(secs => $8::float8),
                  greatest(e.starts_at, now() + interval '1 second')),
            0
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

const PRICE_PENDING: &str = "UPDATE orders o SET amount_cents =
         coalesce((SELECT sum(price_cents) FROM order_reserved_seats WHERE order_id = o.id), 0)
       + coalesce((SELECT sum(price_cents::bigint * quantity) FROM order_reserved_ga WHERE order_id = o.id), 0)
      WHERE o.id = $1
  RETURNING o.amount_cents, o.pay_by";

const QUEUE_EXPIRE: &str = "INSERT INTO payment_jobs (kind, order_id, next_attempt_at)
     SELECT 'expire', o.id, o.pay_by FROM orders o WHERE o.id = $1";

/// Turns the locked, live hold into an order waiting for its payment, in
/// the purchase's transaction (`orders::purchase` has locked the event and
/// the hold and counted it): every seat and GA place the hold counted is
/// kept for the order, or nothing is (`HoldExpired`).
#[allow(clippy::too_many_arguments)]
pub(super) async fn checkout_in(
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
    super::prepare_together(
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
    inserted?;
    paying?;
    expire?;
    // Fewer kept than counted: one lapsed as we checked out and another
    // buyer took it. All or nothing, as in a purchase.
    if seats? != counted_seats || ga_places? != ga::ticket_count(counted_ga) {
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

/// The order's row, locked: what settling or letting it go needs.
struct Locked {
    event_id: EventId,
    /// None for an order made without a hold (a walk-up sale): it never
    /// waited for a payment.
    hold_id: Option<HoldId>,
    status: String,
    payment: PaymentMode,
    in_time: bool,
    buyer_email: String,
    event_cancelled: bool,
    /// The payment the order was paid with, once paid online.
    payment_intent: Option<String>,
    /// Its reserved GA places, read with the lock (one round trip).
    reserved_ga: Vec<GaHeld>,
}

async fn lock_order(tx: &impl GenericClient, order_id: OrderId) -> AppResult<Option<Locked>> {
    let statement = tx
        .prepare_cached(
            "SELECT o.event_id, o.hold_id, o.status, o.payment, o.pay_by > now() AS in_time,
                    o.buyer_email, o.stripe_payment_intent,
                    (SELECT e.cancelled_at IS NOT NULL FROM events e WHERE e.id = o.event_id) AS cancelled,
                    (SELECT array_agg(area_id ORDER BY area_id) FROM order_reserved_ga
                      WHERE order_id = o.id) AS ga_areas,
                    (SELECT array_agg(quantity ORDER BY area_id) FROM order_reserved_ga
                      WHERE order_id = o.id) AS ga_quantities
               FROM orders o WHERE o.id = $1 FOR UPDATE",
        )
        .await?;
    let Some(row) = tx.query_opt(&statement, &[&order_id]).await? else {
        return Ok(None);
    };
    let areas: Option<Vec<AreaId>> = row.get("ga_areas");
    let quantities: Option<Vec<i32>> = row.get("ga_quantities");
    Ok(Some(Locked {
        event_id: row.get("event_id"),
        hold_id: row.get("hold_id"),
        status: row.get("status"),
        payment: PaymentMode::parse(row.get("payment")).unwrap_or_default(),
        in_time: row.get::<_, Option<bool>>("in_time").unwrap_or(false),
        buyer_email: row.get("buyer_email"),
        event_cancelled: row.get("cancelled"),
        payment_intent: row.get("stripe_payment_intent"),
        reserved_ga: areas
            .unwrap_or_default()
            .into_iter()
            .zip(quantities.unwrap_or_default())
            .map(|(area_id, quantity)| GaHeld { area_id, quantity })
            .collect(),
    }))
}

impl Locked {
    /// The hold of an order still waiting for (or past) its payment.
    fn waiting_hold(&self) -> Option<HoldId> {
        match self.status.as_str() {
            "pending_payment" | "lapsed" => self.hold_id,
            _ => None,
        }
    }
}

/// What a payment did to its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The order is paid and its tickets issued.
    Paid { tickets: usize, late: bool },
    /// Paid after its seats went to someone else: a refund is queued.
    RefundedUnfulfilled,
    /// The order was settled before (its status is given). A payment that
    /// is not the one it was settled with is refunded: money is never
    /// kept for seats not given.
    Unchanged { status: String, refunded: bool },
}

/// Where the money came from, to keep on the order.
#[derive(Debug, Clone)]
pub struct Payment<'a> {
    pub amount_cents: i64,
    pub payment_intent: Option<&'a str>,
    pub tender: &'a str,
}

/// Records a Stripe event once; false if its id was seen before (a
/// redelivery, which then does nothing). Waits on a concurrent delivery of
/// the same id until that one commits or rolls back.
pub async fn record_stripe_event(
    tx: &impl GenericClient,
    event_id: &str,
    event_type: &str,
    order_id: Option<OrderId>,
    outcome: &str,
) -> AppResult<bool> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO stripe_events (id, type, order_id, outcome)
             SELECT $1, $2, o.id, $4 FROM (SELECT $3::uuid AS wanted) w
               LEFT JOIN orders o ON o.id = w.wanted
             ON CONFLICT (id) DO NOTHING",
        )
        .await?;
    Ok(tx
        .execute(&statement, &[&event_id, &event_type, &order_id, &outcome])
        .await?
        == 1)
}

/// Stripe says the order's session was paid: sells its seats if they are
/// still its own (or free again), else refunds. Once per Stripe event id.
pub async fn settle_from_stripe(
    pool: &Pool,
    stripe_event_id: &str,
    event_type: &str,
    order_id: OrderId,
    payment: &Payment<'_>,
) -> AppResult<Option<Settled>> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            if !record_stripe_event(tx, stripe_event_id, event_type, Some(order_id), "settled")
                .await?
            {
                return Ok(None);
            }
            Ok(Some(settle_in(tx, order_id, payment, None).await?))
        })
    })
    .await
}

/// Stripe says the order's session expired unpaid. Past the order's
/// deadline its seats go back on sale (if still its own). Within it (a
/// session Stripe ended early), the session is forgotten, so "Pay" makes
/// a new one and the buyer keeps their seats until the deadline. Once per
/// Stripe event id.
pub async fn lapse_from_stripe(
    pool: &Pool,
    stripe_event_id: &str,
    event_type: &str,
    order_id: OrderId,
    session_id: Option<&str>,
) -> AppResult<bool> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            if !record_stripe_event(tx, stripe_event_id, event_type, Some(order_id), "lapsed")
                .await?
            {
                return Ok(false);
            }
            let Some(order) = lock_order(tx, order_id).await? else {
                return Ok(false);
            };
            let Some(hold_id) = order
                .waiting_hold()
                .filter(|_| order.status == "pending_payment")
            else {
                return Ok(false);
            };
            if order.in_time {
                let forget = tx
                    .prepare_cached(
                        "UPDATE orders SET stripe_session_id = NULL, stripe_session_url = NULL
                          WHERE id = $1 AND stripe_session_id = $2",
                    )
                    .await?;
                tx.execute(&forget, &[&order_id, &session_id]).await?;
                return Ok(false);
            }
            let_go(tx, order_id, &order, hold_id, "lapsed").await?;
            Ok(true)
        })
    })
    .await
}

/// Any other Stripe event: kept once, so its redelivery is seen as one.
pub async fn note_stripe_event(
    pool: &Pool,
    stripe_event_id: &str,
    event_type: &str,
    order_id: Option<OrderId>,
) -> AppResult<bool> {
    let client = pool.get().await?;
    record_stripe_event(&client, stripe_event_id, event_type, order_id, "ignored").await
}

/// Staff take the money at the counter for a box-office reservation: its
/// seats are sold if the reservation is still within its deadline (and so
/// its seats still its own), all or nothing. A lapsed one is refused, as a
/// lapsed hold is, even if nobody has taken its seats yet.
pub async fn mark_paid_at_counter(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    order_id: OrderId,
    tender: &str,
) -> AppResult<Settled> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            let order = lock_order(tx, order_id)
                .await?
                .filter(|order| order.event_id == event_id)
                .ok_or(AppError::NotFound(Missing::Order))?;
            if order.payment != PaymentMode::BoxOffice
                || order.status != "pending_payment"
                || order.hold_id.is_none()
            {
                return Err(AppError::Conflict(Conflict::NotAwaitingPayment {
                    status: stored_status(&order).as_str(),
                }));
            }
            if !order.in_time {
                return Err(AppError::Conflict(Conflict::PaymentDeadlinePassed));
            }
            let amount: i64 = reserved_total(tx, order_id).await?;
            let settled = settle_locked(
                tx,
                order_id,
                order,
                &Payment {
                    amount_cents: amount,
                    payment_intent: None,
                    tender,
                },
                Some(actor),
            )
            .await?;
            match settled {
                Settled::Paid { late: false, .. } => Ok(settled),
                // The reservation's seats were no longer its own (its
                // deadline passed as this ran, and a rival took one; or
                // sales were cancelled): nothing is sold.
                _ => Err(AppError::Conflict(Conflict::PaymentDeadlinePassed)),
            }
        })
    })
    .await
}

fn stored_status(order: &Locked) -> OrderStatus {
    OrderStatus::read(&order.status, !order.in_time, 0, 1)
}

async fn reserved_total(tx: &impl GenericClient, order_id: OrderId) -> AppResult<i64> {
    let statement = tx
        .prepare_cached("SELECT amount_cents FROM orders WHERE id = $1")
        .await?;
    Ok(tx
        .query_one(&statement, &[&order_id])
        .await?
        .get::<_, Option<i64>>(0)
        .unwrap_or(0))
}

/// The reserved seats, locked in id order, each with whether this order
/// may sell it now: still held by its hold (within the deadline, or
/// `late` and lapsed), or free (AVAILABLE, or HELD by a lapsed hold).
const LOCK_RESERVED_SEATS: &str = "SELECT s.id,
            ((s.status = 'HELD' AND s.hold_id = $2 AND (s.held_until > now() OR $3))
             OR ($3 AND (s.status = 'AVAILABLE'
                         OR (s.status = 'HELD' AND s.held_until <= now())))) AS ours
       FROM seats s JOIN order_reserved_seats r ON r.seat_id = s.id
      WHERE r.order_id = $1
      ORDER BY s.id
        FOR UPDATE OF s";

const SELL_RESERVED_SEATS: &str = "WITH sold AS (
         UPDATE seats s
            SET status = 'SOLD', order_id = $1, hold_id = NULL, held_until = NULL,
                changed_xid = pg_current_xact_id()
          WHERE s.id = ANY($2)
      RETURNING s.id
     )
     INSERT INTO order_lines (order_id, seat_id, price_cents)
     SELECT $1, sold.id, r.price_cents
       FROM sold JOIN order_reserved_seats r ON r.order_id = $1 AND r.seat_id = sold.id
  RETURNING seat_id";

/// Sells a waiting order, or, paid too late for its seats, refunds it.
async fn settle_in(
    tx: &impl GenericClient,
    order_id: OrderId,
    payment: &Payment<'_>,
    at_counter: Option<Actor>,
) -> AppResult<Settled> {
    let order = lock_order(tx, order_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    settle_locked(tx, order_id, order, payment, at_counter).await
}

/// [`settle_in`] once the order row is locked. Locks in the order every
/// claim takes them: the order's GA places (tickets, then areas), then its
/// seats in id order. What it sells before finding the order can't be
/// whole is rolled back to a savepoint, then the order is refunded.
async fn settle_locked(
    tx: &impl GenericClient,
    order_id: OrderId,
    order: Locked,
    payment: &Payment<'_>,
    at_counter: Option<Actor>,
) -> AppResult<Settled> {
    let Some(hold_id) = order.waiting_hold() else {
        // Settled before. A payment other than the one it was settled
        // with (a second session paid, say) goes back.
        let other_payment = payment.payment_intent.is_some()
            && payment.payment_intent != order.payment_intent.as_deref()
            && payment.amount_cents > 0;
        if other_payment {
            queue_refund(
                tx,
                order_id,
                payment.amount_cents,
                None,
                "a second payment for a settled order",
            )
            .await?;
            queue_extra_refund_intent(tx, order_id, payment.payment_intent).await?;
        }
        return Ok(Settled::Unchanged {
            status: order.status,
            refunded: other_payment,
        });
    };
    let late = !order.in_time || order.status == "lapsed";
    // A payment from the provider has been taken already: it may re-claim
    // seats that are free again. Staff at the counter sell only what is
    // still the reservation's own.
    let may_take_free = at_counter.is_none();
    let with_ga = !order.reserved_ga.is_empty();
    // Money for a cancelled event's seats is never kept.
    let mut whole = !order.event_cancelled;
    if whole && with_ga {
        tx.batch_execute("SAVEPOINT settle_ga").await?;
        whole = ga::sell_reserved(tx, hold_id, &order.reserved_ga, order_id, may_take_free).await?;
    }
    let mut ours: Vec<SeatId> = Vec::new();
    if whole {
        let lock = tx.prepare_cached(LOCK_RESERVED_SEATS).await?;
        let seats = tx
            .query(&lock, &[&order_id, &hold_id, &may_take_free])
            .await?;
        ours = seats
            .iter()
            .filter(|row| row.get::<_, bool>("ours"))
            .map(|row| row.get("id"))
            .collect();
        whole = ours.len() == seats.len();
    }
    if !whole {
        if with_ga {
            tx.batch_execute("ROLLBACK TO SAVEPOINT settle_ga").await?;
        }
        if at_counter.is_some() {
            return Ok(Settled::Unchanged {
                status: "lapsed".into(),
                refunded: false,
            });
        }
        return refund_unfulfilled(tx, order_id, &order, hold_id, payment).await;
    }
    let sell = tx.prepare_cached(SELL_RESERVED_SEATS).await?;
    let sold = tx.query(&sell, &[&order_id, &ours]).await?;
    if sold.len() != ours.len() {
        return Err(AppError::Internal(anyhow::anyhow!(
            "order {order_id}: {} seats locked as ours but {} sold",
            ours.len(),
            sold.len()
        )));
    }
    let places = sold.len() + ga::ticket_count(&order.reserved_ga);
    let paid = tx
        .prepare_cached(
            "UPDATE orders SET status = 'paid', paid_at = now(), amount_paid_cents = $2,
                    stripe_payment_intent = coalesce($3, stripe_payment_intent), tender = $4
              WHERE id = $1",
        )
        .await?;
    let paid_params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] = [
        &order_id,
        &payment.amount_cents,
        &payment.payment_intent,
        &payment.tender,
    ];
    let (paid, purchased, issued, mailed, hooked, expire_done) = tokio::join!(
        tx.execute(&paid, &paid_params),
        close_hold(tx, hold_id, "PURCHASED"),
        tickets::issue(tx, order_id, order.event_id, places),
        outbox::queue_order_confirmation(tx, order_id, order.event_id, &order.buyer_email),
        webhooks::queue(
            tx,
            "order.created",
            serde_json::json!({ "order_id": order_id, "event_id": order.event_id })
        ),
        skip_expire(tx, order_id)
    );
    paid?;
    purchased?;
    mailed?;
    hooked?;
    expire_done?;
    let tickets = issued?.len();
    if let Some(actor) = at_counter {
        audit::record(
            tx,
            audit::Entry {
                actor: Some(actor),
                action: "box_office_payment",
                event_id: Some(order.event_id),
                hold_id: Some(hold_id),
                order_id: Some(order_id),
                seat_ids: &ours,
                detail: format!(
                    "reservation paid at the counter ({}), {} in minor units",
                    payment.tender, payment.amount_cents
                ),
            },
        )
        .await?;
    }
    metrics::counter!(crate::observability::PURCHASES).increment(1);
    Ok(Settled::Paid { tickets, late })
}

/// A refund of a payment other than the order's own names that payment.
async fn queue_extra_refund_intent(
    tx: &impl GenericClient,
    order_id: OrderId,
    payment_intent: Option<&str>,
) -> AppResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE payment_jobs SET payment_intent = $2
              WHERE id = (SELECT max(id) FROM payment_jobs WHERE order_id = $1 AND kind = 'refund')",
        )
        .await?;
    tx.execute(&statement, &[&order_id, &payment_intent])
        .await?;
    Ok(())
}

async fn close_hold(tx: &impl GenericClient, hold_id: HoldId, state: &str) -> AppResult<()> {
    let statement = tx
        .prepare_cached("UPDATE holds SET state = $2 WHERE id = $1 AND state = 'PAYING'")
        .await?;
    tx.execute(&statement, &[&hold_id, &state]).await?;
    Ok(())
}

/// The order no longer needs its session expired.
async fn skip_expire(tx: &impl GenericClient, order_id: OrderId) -> AppResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE payment_jobs SET done_at = now(), lease = NULL, leased_until = NULL,
                    last_error = 'not needed: the order was settled'
              WHERE order_id = $1 AND kind = 'expire' AND done_at IS NULL",
        )
        .await?;
    tx.execute(&statement, &[&order_id]).await?;
    Ok(())
}

/// Gives the order's seats and places back to the sale (those still its
/// own), closes its hold, and marks it `status`.
async fn let_go(
    tx: &impl GenericClient,
    order_id: OrderId,
    order: &Locked,
    hold_id: HoldId,
    status: &str,
) -> AppResult<Vec<SeatId>> {
    for area in &order.reserved_ga {
        ga::give_back(tx, area.area_id, ga::GiveBack::LapsedAndHold(hold_id)).await?;
    }
    let release = tx
        .prepare_cached(
            "UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
                    changed_xid = pg_current_xact_id()
              WHERE id IN (SELECT s.id FROM seats s
                             JOIN order_reserved_seats r ON r.seat_id = s.id AND r.order_id = $1
                            WHERE s.status = 'HELD' AND s.hold_id = $2
                            ORDER BY s.id FOR UPDATE OF s)
          RETURNING id",
        )
        .await?;
    let released: Vec<SeatId> = tx
        .query(&release, &[&order_id, &hold_id])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let mark = tx
        .prepare_cached("UPDATE orders SET status = $2 WHERE id = $1")
        .await?;
    tx.execute(&mark, &[&order_id, &status]).await?;
    close_hold(tx, hold_id, "EXPIRED").await?;
    skip_expire(tx, order_id).await?;
    Ok(released)
}

async fn refund_unfulfilled(
    tx: &impl GenericClient,
    order_id: OrderId,
    order: &Locked,
    hold_id: HoldId,
    payment: &Payment<'_>,
) -> AppResult<Settled> {
    let paid = tx
        .prepare_cached(
            "UPDATE orders SET amount_paid_cents = $2,
                    stripe_payment_intent = coalesce($3, stripe_payment_intent)
              WHERE id = $1",
        )
        .await?;
    tx.execute(
        &paid,
        &[&order_id, &payment.amount_cents, &payment.payment_intent],
    )
    .await?;
    // After the amount: the status needs it (order_unfulfilled_was_paid_online).
    let released = let_go(tx, order_id, order, hold_id, "refunded_unfulfilled").await?;
    if payment.amount_cents > 0 {
        queue_refund(
            tx,
            order_id,
            payment.amount_cents,
            None,
            "paid after its seats were sold",
        )
        .await?;
    }
    outbox::queue_payment_refunded(tx, order_id, order.event_id, &order.buyer_email).await?;
    audit::record(
        tx,
        audit::Entry {
            actor: None,
            action: "payment_refunded_unfulfilled",
            event_id: Some(order.event_id),
            hold_id: Some(hold_id),
            order_id: Some(order_id),
            seat_ids: &released,
            detail: format!(
                "paid after its deadline when its seats were no longer free; {} in minor units to refund",
                payment.amount_cents
            ),
        },
    )
    .await?;
    Ok(Settled::RefundedUnfulfilled)
}

async fn queue_refund(
    tx: &impl GenericClient,
    order_id: OrderId,
    amount_cents: i64,
    staff: Option<Actor>,
    reason: &str,
) -> AppResult<()> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO payment_jobs (kind, order_id, amount_cents, reason, staff_id)
             VALUES ('refund', $1, $2, $3, $4)",
        )
        .await?;
    tx.execute(
        &statement,
        &[
            &order_id,
            &amount_cents,
            &reason,
            &staff.and_then(Actor::staff_id),
        ],
    )
    .await?;
    Ok(())
}

/// After staff refunded tickets of an order paid online: the money goes
/// back through the provider, queued in the refund's own transaction.
/// True if a provider refund was queued.
pub(super) async fn queue_provider_refund(
    tx: &impl GenericClient,
    order_id: OrderId,
    amount_cents: i64,
    actor: Actor,
) -> AppResult<bool> {
    let statement = tx
        .prepare_cached(
            "SELECT payment = 'online' AND stripe_payment_intent IS NOT NULL FROM orders WHERE id = $1",
        )
        .await?;
    let online = tx
        .query_opt(&statement, &[&order_id])
        .await?
        .is_some_and(|row| row.get::<_, bool>(0));
    if !online || amount_cents <= 0 {
        return Ok(false);
    }
    queue_refund(tx, order_id, amount_cents, Some(actor), "refunded by staff").await?;
    Ok(true)
}

/// What a Checkout Session for the order is made from.
#[derive(Debug, Clone)]
pub struct SessionRequest {
    pub order_id: OrderId,
    pub event_name: String,
    pub currency: String,
    pub buyer_email: String,
    pub created_at: OffsetDateTime,
    pub pay_by: OffsetDateTime,
    /// When the event starts (the order's signed link lasts until after).
    pub starts_at: OffsetDateTime,
    /// One per ticket: its place and price.
    pub lines: Vec<(String, i64)>,
    /// A session already made for it.
    pub session: Option<(String, Option<String>)>,
    pub status: OrderStatus,
}

/// The order's lines for a Checkout Session, if it is an online order.
pub async fn session_request(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Option<SessionRequest>> {
    let statement = client
        .prepare_cached(
            "SELECT o.status, o.pay_by <= now() AS past, o.created_at, o.pay_by, o.buyer_email,
                    o.stripe_session_id, o.stripe_session_url, e.name, e.currency, e.starts_at,
                    coalesce((SELECT array_agg(sec.name || ' ' || s.row_label || s.seat_label
                                               ORDER BY s.section_id, s.row_index, s.position)
                                FROM order_reserved_seats r JOIN seats s ON s.id = r.seat_id
                                JOIN sections sec ON sec.id = s.section_id
                               WHERE r.order_id = o.id), '{}') AS seat_names,
                    coalesce((SELECT array_agg(r.price_cents::bigint
                                               ORDER BY s.section_id, s.row_index, s.position)
                                FROM order_reserved_seats r JOIN seats s ON s.id = r.seat_id
                               WHERE r.order_id = o.id), '{}') AS seat_prices,
                    coalesce((SELECT array_agg(a.name ORDER BY a.id, n)
                                FROM order_reserved_ga r JOIN ga_areas a ON a.id = r.area_id
                                CROSS JOIN generate_series(1, r.quantity) n
                               WHERE r.order_id = o.id), '{}') AS ga_names,
                    coalesce((SELECT array_agg(r.price_cents::bigint ORDER BY a.id, n)
                                FROM order_reserved_ga r JOIN ga_areas a ON a.id = r.area_id
                                CROSS JOIN generate_series(1, r.quantity) n
                               WHERE r.order_id = o.id), '{}') AS ga_prices
               FROM orders o JOIN events e ON e.id = o.event_id
              WHERE o.id = $1 AND o.payment = 'online'",
        )
        .await?;
    let Some(row) = client.query_opt(&statement, &[&order_id]).await? else {
        return Ok(None);
    };
    let names: Vec<String> = row.get("seat_names");
    let prices: Vec<i64> = row.get("seat_prices");
    let ga_names: Vec<String> = row.get("ga_names");
    let ga_prices: Vec<i64> = row.get("ga_prices");
    let session_id: Option<String> = row.get("stripe_session_id");
    Ok(Some(SessionRequest {
        order_id,
        event_name: row.get("name"),
        currency: super::events::currency_column(row.get("currency"))
            .code()
            .to_ascii_lowercase(),
        buyer_email: row.get("buyer_email"),
        created_at: row.get("created_at"),
        pay_by: row.get("pay_by"),
        starts_at: row.get("starts_at"),
        lines: names
            .into_iter()
            .zip(prices)
            .chain(ga_names.into_iter().zip(ga_prices))
            .collect(),
        session: session_id.map(|id| (id, row.get("stripe_session_url"))),
        status: OrderStatus::read(row.get("status"), row.get("past"), 0, 1),
    }))
}

/// Keeps the session made for the order (the first one, should two
/// requests race to make it: the idempotency key makes them the same).
pub async fn store_session(
    client: &impl GenericClient,
    order_id: OrderId,
    session_id: &str,
    url: &str,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE orders SET stripe_session_id = $2, stripe_session_url = $3
              WHERE id = $1 AND stripe_session_id IS NULL",
        )
        .await?;
    client
        .execute(&statement, &[&order_id, &session_id, &url])
        .await?;
    Ok(())
}

/// A provider refund as staff see it.
#[derive(Debug, Clone)]
pub struct RefundView {
    pub amount_cents: i64,
    pub reason: String,
    pub created_at: OffsetDateTime,
    pub attempts: i32,
    pub done_at: Option<OffsetDateTime>,
    pub provider_ref: Option<String>,
    pub last_error: Option<String>,
}

impl RefundView {
    /// "queued", "sent", "refused" (last attempt failed; retried later).
    pub fn state(&self) -> &'static str {
        match (&self.done_at, &self.last_error, self.attempts) {
            (Some(_), _, _) => "sent",
            (None, Some(_), _) => "refused",
            _ => "queued",
        }
    }
}

/// An order's payment, as its pages and the API show it.
#[derive(Debug, Clone)]
pub struct OrderPayment {
    pub status: OrderStatus,
    pub payment: PaymentMode,
    pub pay_by: Option<OffsetDateTime>,
    pub amount_cents: Option<i64>,
    pub amount_paid_cents: Option<i64>,
    pub session_url: Option<String>,
    pub refunds: Vec<RefundView>,
    pub locale: EventLocale,
}

pub async fn of_order(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Option<OrderPayment>> {
    let statement = client
        .prepare_cached(
            "SELECT o.status, o.payment, o.pay_by, o.pay_by <= now() AS past, o.amount_cents,
                    o.amount_paid_cents, o.stripe_session_url, e.currency, e.time_zone,
                    (SELECT count(*) FROM tickets t WHERE t.order_id = o.id) AS tickets,
                    (SELECT count(*) FROM tickets t WHERE t.order_id = o.id AND t.voided_at IS NULL) AS valid
               FROM orders o JOIN events e ON e.id = o.event_id WHERE o.id = $1",
        )
        .await?;
    let Some(row) = client.query_opt(&statement, &[&order_id]).await? else {
        return Ok(None);
    };
    let refunds = client
        .prepare_cached(
            "SELECT amount_cents, reason, created_at, attempts, done_at, provider_ref, last_error
               FROM payment_jobs WHERE order_id = $1 AND kind = 'refund' ORDER BY id",
        )
        .await?;
    let refunds = client
        .query(&refunds, &[&order_id])
        .await?
        .iter()
        .map(refund_from_row)
        .collect();
    Ok(Some(OrderPayment {
        status: OrderStatus::read(
            row.get("status"),
            row.get::<_, Option<bool>>("past").unwrap_or(false),
            row.get("tickets"),
            row.get("valid"),
        ),
        payment: PaymentMode::parse(row.get("payment")).unwrap_or_default(),
        pay_by: row.get("pay_by"),
        amount_cents: row.get("amount_cents"),
        amount_paid_cents: row.get("amount_paid_cents"),
        session_url: row.get("stripe_session_url"),
        refunds,
        locale: EventLocale::new(
            super::events::currency_column(row.get("currency")),
            row.get::<_, String>("time_zone"),
        ),
    }))
}

fn refund_from_row(row: &Row) -> RefundView {
    RefundView {
        amount_cents: row.get("amount_cents"),
        reason: row.get("reason"),
        created_at: row.get("created_at"),
        attempts: row.get("attempts"),
        done_at: row.get("done_at"),
        provider_ref: row.get("provider_ref"),
        last_error: row.get("last_error"),
    }
}

/// A call to the provider a worker has leased.
#[derive(Debug, Clone)]
pub struct LeasedJob {
    pub id: i64,
    pub lease: Uuid,
    pub kind: String,
    pub order_id: OrderId,
    pub amount_cents: Option<i64>,
    pub attempts: i32,
    pub session_id: Option<String>,
    pub payment_intent: Option<String>,
    /// The order still waits for its money (an expiry is then worth asking for).
    pub order_pending: bool,
}

/// Leases one due call for `lease_for` (SKIP LOCKED, one statement).
pub async fn lease_due_job(
    client: &impl GenericClient,
    lease_for: Duration,
) -> AppResult<Option<LeasedJob>> {
    let statement = client
        .prepare_cached(
            "WITH leased AS (
                 UPDATE payment_jobs j
                    SET lease = $1, leased_until = now() + make_interval(secs => $2::float8),
                        attempts = j.attempts + 1
                  WHERE j.id = (SELECT id FROM payment_jobs
                                 WHERE done_at IS NULL AND next_attempt_at <= now()
                                   AND (leased_until IS NULL OR leased_until < now())
                                 ORDER BY next_attempt_at, id
                                 LIMIT 1
                                   FOR UPDATE SKIP LOCKED)
              RETURNING j.*
             )
             SELECT l.id, l.lease, l.kind, l.order_id, l.amount_cents, l.attempts,
                    o.stripe_session_id,
                    coalesce(l.payment_intent, o.stripe_payment_intent) AS stripe_payment_intent,
                    o.status = 'pending_payment' AS pending
               FROM leased l JOIN orders o ON o.id = l.order_id",
        )
        .await?;
    let lease = Uuid::new_v4();
    let row = client
        .query_opt(&statement, &[&lease, &lease_for.as_secs_f64()])
        .await?;
    Ok(row.map(|row| LeasedJob {
        id: row.get("id"),
        lease: row.get("lease"),
        kind: row.get("kind"),
        order_id: row.get("order_id"),
        amount_cents: row.get("amount_cents"),
        attempts: row.get("attempts"),
        session_id: row.get("stripe_session_id"),
        payment_intent: row.get("stripe_payment_intent"),
        order_pending: row.get("pending"),
    }))
}

/// The call went through (or has nothing left to do).
pub async fn job_done(
    client: &impl GenericClient,
    job: &LeasedJob,
    provider_ref: Option<&str>,
    note: Option<&str>,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE payment_jobs SET done_at = now(), lease = NULL, leased_until = NULL,
                    provider_ref = $3, last_error = $4
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    client
        .execute(&statement, &[&job.id, &job.lease, &provider_ref, &note])
        .await?;
    Ok(())
}

/// The call failed; it is due again after `retry_in`, its error kept for staff.
pub async fn job_failed(
    client: &impl GenericClient,
    job: &LeasedJob,
    error: &str,
    retry_in: Duration,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE payment_jobs SET lease = NULL, leased_until = NULL, last_error = left($3, 500),
                    next_attempt_at = now() + make_interval(secs => $4::float8)
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&job.id, &job.lease, &error, &retry_in.as_secs_f64()],
        )
        .await?;
    Ok(())
}

/// Sets how the event is paid for. Locks the event against purchases in
/// flight (FOR UPDATE waits for their key-share locks), so no checkout of
/// the old mode commits after the count; refused while orders wait for
/// their payment.
pub async fn set_event_payment(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    mode: PaymentMode,
    box_office_window_secs: Option<i32>,
) -> AppResult<()> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            super::events::lock_for_closing(tx, event_id).await?;
            let pending = tx
                .prepare_cached(
                    "SELECT count(*) FROM orders
                      WHERE event_id = $1 AND status = 'pending_payment' AND pay_by > now()",
                )
                .await?;
            let waiting: i64 = tx.query_one(&pending, &[&event_id]).await?.get(0);
            let current = tx
                .prepare_cached("SELECT payment FROM events WHERE id = $1")
                .await?;
            let before: String = tx.query_one(&current, &[&event_id]).await?.get(0);
            if waiting > 0 && before != mode.as_str() {
                return Err(AppError::Conflict(Conflict::OrdersAwaitingPayment {
                    waiting,
                }));
            }
            let update = tx
                .prepare_cached(
                    "UPDATE events SET payment = $2,
                            box_office_window_secs = coalesce($3, box_office_window_secs)
                      WHERE id = $1",
                )
                .await?;
            tx.execute(
                &update,
                &[&event_id, &mode.as_str(), &box_office_window_secs],
            )
            .await?;
            audit::record(
                tx,
                audit::Entry {
                    actor: Some(actor),
                    action: "set_payment",
                    event_id: Some(event_id),
                    hold_id: None,
                    order_id: None,
                    seat_ids: &[],
                    detail: format!(
                        "payment {before} → {}{}",
                        mode.as_str(),
                        box_office_window_secs
                            .map(|secs| format!(", box office deadline {secs} s after reserving"))
                            .unwrap_or_default()
                    ),
                },
            )
            .await?;
            Ok(())
        })
    })
    .await
}

/// How the event is paid for, and the box office's deadline in seconds.
pub async fn event_payment(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<(PaymentMode, i32)> {
    let statement = client
        .prepare_cached("SELECT payment, box_office_window_secs FROM events WHERE id = $1")
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    Ok((
        PaymentMode::parse(row.get(0)).unwrap_or_default(),
        row.get(1),
    ))
}

/// Box-office reservations of the event still within their deadline, for the console.
#[derive(Debug, Clone)]
pub struct Reservation {
    pub order_id: OrderId,
    pub buyer_name: String,
    pub pay_by: OffsetDateTime,
    pub amount_cents: i64,
    pub seats: i64,
}

pub async fn reservations(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<Reservation>> {
    let statement = client
        .prepare_cached(
            "SELECT o.id, o.buyer_name, o.pay_by, o.amount_cents,
                    (SELECT count(*) FROM order_reserved_seats r WHERE r.order_id = o.id) AS seats
               FROM orders o
              WHERE o.event_id = $1 AND o.status = 'pending_payment' AND o.pay_by > now()
              ORDER BY o.pay_by, o.id
              LIMIT 200",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| Reservation {
            order_id: row.get("id"),
            buyer_name: row.get("buyer_name"),
            pay_by: row.get("pay_by"),
            amount_cents: row.get::<_, Option<i64>>("amount_cents").unwrap_or(0),
            seats: row.get("seats"),
        })
        .collect())
}
