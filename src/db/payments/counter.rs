//! The box office takes the money for a reservation at the counter.

use super::settle::{Locked, Payment, Settled, lock_order, settle_locked};
use crate::db::{GenericClient, Pool, retrying};
use crate::domain::ids::{Actor, EventId, OrderId};
use crate::domain::payment::{OrderStatus, PaymentMode};
use crate::error::{AppError, AppResult, Conflict, Missing};

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
    let outcome = retrying(|| {
        crate::db::in_transaction(pool, async |tx| {
            let order = lock_order(tx, order_id, None)
                .await?
                .filter(|order| order.event_id == event_id)
                .ok_or(AppError::NotFound(Missing::Order))?;
            // Lapsed by a checkout that wanted its counts back: as late as
            // one read lapsed by its deadline.
            if order.payment == PaymentMode::BoxOffice && order.status == "lapsed" {
                return Err(AppError::Conflict(Conflict::PaymentDeadlinePassed));
            }
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
                    session: None,
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
    .await;
    if outcome.is_ok() {
        metrics::counter!(crate::observability::PURCHASES).increment(1);
    }
    outcome
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
