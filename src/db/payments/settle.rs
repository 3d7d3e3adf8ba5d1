//! Settling a waiting order: Stripe's events (paid, expired), the counter's
//! payment, and the paid-late path (re-claim the seats if free, else
//! refund). Each Stripe event acts once.

use super::stripe_events::record_stripe_event;
use crate::db::ga;
use crate::db::tickets;
use crate::db::{GenericClient, Pool, audit, outbox, retrying, webhooks};
use crate::domain::hold::GaHeld;
use crate::domain::ids::{Actor, AreaId, EventId, HoldId, OrderId, SeatId};
use crate::domain::payment::PaymentMode;
use crate::error::{AppError, AppResult, Missing};

/// The order's row, locked: what settling or letting it go needs.
pub(super) struct Locked {
    pub(super) event_id: EventId,
    /// None for an order made without a hold (a walk-up sale): it never
    /// waited for a payment.
    pub(super) hold_id: Option<HoldId>,
    pub(super) status: String,
    pub(super) payment: PaymentMode,
    pub(super) in_time: bool,
    buyer_email: String,
    event_cancelled: bool,
    /// The payment the order was paid with, once paid online.
    payment_intent: Option<String>,
    /// Its reserved GA places, read with the lock (one round trip).
    reserved_ga: Vec<GaHeld>,
    /// What the buyer was asked to pay at checkout.
    amount_cents: Option<i64>,
    /// The currency of the Checkout Session a payment came through, if
    /// that session is one this order made (None: another's, or none).
    session_currency: Option<String>,
}

/// Locks the order, reading with it the Checkout Session `session_id`
/// names if the order made that session.
pub(super) async fn lock_order(
    tx: &impl GenericClient,
    order_id: OrderId,
    session_id: Option<&str>,
) -> AppResult<Option<Locked>> {
    let statement = tx
        .prepare_cached(
            "SELECT o.event_id, o.hold_id, o.status, o.payment, o.pay_by > now() AS in_time,
                    coalesce(o.buyer_email, '') AS buyer_email, o.stripe_payment_intent, o.amount_cents,
                    (SELECT e.cancelled_at IS NOT NULL FROM events e WHERE e.id = o.event_id) AS cancelled,
                    (SELECT array_agg(area_id ORDER BY area_id) FROM order_reserved_ga
                      WHERE order_id = o.id) AS ga_areas,
                    (SELECT array_agg(quantity ORDER BY area_id) FROM order_reserved_ga
                      WHERE order_id = o.id) AS ga_quantities,
                    order_session_currency(o.id, o.event_id, o.stripe_session_id, $2)
                        AS session_currency
               FROM orders o WHERE o.id = $1 FOR UPDATE",
        )
        .await?;
    let Some(row) = tx.query_opt(&statement, &[&order_id, &session_id]).await? else {
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
        amount_cents: row.get("amount_cents"),
        session_currency: row.get("session_currency"),
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
    /// Paid through a Checkout Session the order never made (another app
    /// on the account, or a forgery): refunded, and the order left as it
    /// was, its own session still able to pay.
    ForeignSession,
}

/// Where the money came from, to keep on the order.
#[derive(Debug, Clone)]
pub struct Payment<'a> {
    pub amount_cents: i64,
    pub payment_intent: Option<&'a str>,
    /// The provider's session and currency, for a payment through one
    /// (None at the counter).
    pub session: Option<PaidSession<'a>>,
    pub tender: &'a str,
}

/// The Checkout Session a provider says was paid, and in what currency.
#[derive(Debug, Clone)]
pub struct PaidSession<'a> {
    pub id: Option<&'a str>,
    pub currency: Option<&'a str>,
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
    let outcome = retrying(|| {
        crate::db::in_transaction(pool, async |tx| {
            if !record_stripe_event(tx, stripe_event_id, event_type, Some(order_id), "settled")
                .await?
            {
                return Ok(None);
            }
            let settled = settle_in(tx, order_id, payment, None).await?;
            if settled == Settled::ForeignSession {
                let statement = tx
                    .prepare_cached(
                        "UPDATE stripe_events SET outcome = 'refunded_foreign_session' WHERE id = $1",
                    )
                    .await?;
                tx.execute(&statement, &[&stripe_event_id]).await?;
            }
            Ok(Some(settled))
        })
    })
    .await;
    // Counted once committed (a retried transaction counts once).
    if let Ok(Some(Settled::Paid { .. })) = outcome {
        metrics::counter!(crate::observability::PURCHASES).increment(1);
    }
    outcome
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
        crate::db::in_transaction(pool, async |tx| {
            if !record_stripe_event(tx, stripe_event_id, event_type, Some(order_id), "lapsed")
                .await?
            {
                return Ok(false);
            }
            let Some(order) = lock_order(tx, order_id, None).await? else {
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
                        "UPDATE orders SET stripe_session_id = NULL, stripe_session_url = NULL,
                                stripe_sessions_ended = stripe_sessions_ended + 1
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

/// A checkout that came to nothing to pay (a code took it all and the
/// event charges no fee, or its tiers are free): sold at once, in the
/// checkout's own transaction, as a purchase of an event that takes no
/// payment is. There is nothing to wait for, and Stripe takes no payment
/// of nothing.
pub(in crate::db) async fn settle_free_in(
    tx: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Vec<tickets::Issued>> {
    let order = lock_order(tx, order_id, None)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    let nothing = Payment {
        amount_cents: 0,
        payment_intent: None,
        session: None,
        tender: "online",
    };
    match settle_locked(tx, order_id, order, &nothing, None).await? {
        Settled::Paid { late: false, .. } => tickets::of_order(tx, order_id).await,
        // Its seats were the hold's a moment ago, in this transaction.
        other => Err(AppError::Internal(anyhow::anyhow!(
            "order {order_id}: nothing to pay, yet it settled as {other:?}"
        ))),
    }
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
     INSERT INTO order_lines (order_id, seat_id, price_cents, price_type_id, discount_cents)
     SELECT $1, sold.id, r.price_cents, r.price_type_id, r.discount_cents
       FROM sold JOIN order_reserved_seats r ON r.order_id = $1 AND r.seat_id = sold.id
  RETURNING seat_id";

/// Sells a waiting order, or, paid too late for its seats, refunds it.
async fn settle_in(
    tx: &impl GenericClient,
    order_id: OrderId,
    payment: &Payment<'_>,
    at_counter: Option<Actor>,
) -> AppResult<Settled> {
    let session_id = payment.session.as_ref().and_then(|s| s.id);
    let order = lock_order(tx, order_id, session_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    settle_locked(tx, order_id, order, payment, at_counter).await
}

/// [`settle_in`] once the order row is locked. Locks in the order every
/// claim takes them: the order's GA places (tickets, then areas), then its
/// seats in id order. What it sells before finding the order can't be
/// whole is rolled back to a savepoint, then the order is refunded.
pub(super) async fn settle_locked(
    tx: &impl GenericClient,
    order_id: OrderId,
    order: Locked,
    payment: &Payment<'_>,
    at_counter: Option<Actor>,
) -> AppResult<Settled> {
    // Money through a session this order never made is never the order's:
    // whatever its amount, it goes back, and the order waits on as it was.
    if let Some(paid) = &payment.session
        && order.session_currency.is_none()
    {
        // Only a payment that names its own payment intent can be given
        // back: a refund job without one would fall back to the order's
        // own payment. Without one it is recorded, and left to staff.
        if payment.amount_cents > 0 && payment.payment_intent.is_some() {
            queue_refund(
                tx,
                order_id,
                payment.amount_cents,
                None,
                &format!(
                    "a payment through a Checkout Session this order never made ({})",
                    crate::domain::text::shortened(paid.id.unwrap_or("no id"))
                ),
            )
            .await?;
            queue_extra_refund_intent(tx, order_id, payment.payment_intent).await?;
        }
        return Ok(Settled::ForeignSession);
    }
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
    // Money for a cancelled event's seats is never kept; nor is a provider's
    // payment of another amount than the order asked for (seats are never
    // given for less, and more is never kept): both are refunded in full.
    // Nor one in another currency than the session was made in.
    let currency_as_asked = payment.session.as_ref().is_none_or(|paid| {
        paid.currency
            .is_some_and(|c| Some(c.to_ascii_lowercase()) == order.session_currency)
    });
    let amount_as_asked = at_counter.is_some()
        || (order.amount_cents == Some(payment.amount_cents) && currency_as_asked);
    let mut whole = !order.event_cancelled && amount_as_asked;
    // A lapsed order gave its types' places and its code's use back: it is
    // sold late only if they can be counted again.
    let count_again = order.status == "lapsed";
    // What is sold or counted before the order is found not whole is
    // rolled back to here.
    let savepoint = whole && (with_ga || count_again);
    if savepoint {
        tx.batch_execute("SAVEPOINT settle_whole").await?;
    }
    if whole && count_again {
        whole = super::counts::take_again(tx, order_id).await?;
    }
    if whole && with_ga {
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
        if savepoint {
            tx.batch_execute("ROLLBACK TO SAVEPOINT settle_whole")
                .await?;
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
    let places = sold.len() + crate::domain::hold::ga_ticket_count(&order.reserved_ga);
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
    sent_together!(paid, purchased, issued, mailed, hooked, expire_done);
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
/// own) and, if it still held them, its types' places and its code's use;
/// closes its hold, and marks it `status`.
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
    if order.status == "pending_payment" {
        super::counts::give_back(tx, order_id).await?;
    }
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
pub(in crate::db) async fn queue_provider_refund(
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
