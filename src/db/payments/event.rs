//! How an event is paid for, and its reservations waiting for payment.

use time::OffsetDateTime;

use crate::db::{GenericClient, Pool, audit, retrying};
use crate::domain::ids::{Actor, EventId, OrderId};
use crate::domain::payment::PaymentMode;
use crate::error::{AppError, AppResult, Conflict, Missing};

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
        crate::db::in_transaction(pool, async |tx| {
            set_event_payment_in(tx, actor, event_id, mode, box_office_window_secs).await
        })
    })
    .await
}

/// [`set_event_payment`] in the caller's transaction (staff change charges
/// and payment in one).
pub(crate) async fn set_event_payment_in(
    tx: &impl GenericClient,
    actor: Actor,
    event_id: EventId,
    mode: PaymentMode,
    box_office_window_secs: Option<i32>,
) -> AppResult<()> {
    crate::db::events::lock_for_closing(tx, event_id).await?;
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
