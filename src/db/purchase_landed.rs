//! A purchase whose answer from PostgreSQL was lost (the connection died
//! during `COMMIT`, as in a failover): did it land? The hold names the
//! order it made, so the answer is looked up on the primary that serves
//! next, and the buyer is told what actually happened: neither reported
//! as failed when it was done, nor done twice.

use std::time::Duration;

use super::payments::PendingOrder;
use super::tickets::Issued;
use super::{GenericClient, Pool};
use crate::domain::ids::{BuyerId, EventId, HoldId, OrderId};
use crate::error::AppResult;

/// A purchase that landed, as its answer would have said.
pub(super) enum Landed {
    Paid {
        order_id: OrderId,
        event_id: EventId,
        tickets: Vec<Issued>,
    },
    Pending(PendingOrder),
}

/// How long a purchase whose answer was lost waits for a primary to ask.
const LOOKUP_FOR: Duration = Duration::from_secs(15);

/// The purchase the hold made, if one committed: asked again (with a
/// backoff) until a primary answers or [`LOOKUP_FOR`] is over; then the
/// original error stands (the buyer is told to retry, and a retry finds
/// the hold bought or still open).
pub(super) async fn lookup(
    pool: &Pool,
    hold_id: HoldId,
    buyer_id: BuyerId,
) -> AppResult<Option<Landed>> {
    // Pooled connections may lead to the old primary: checked before use
    // from now on (see `outage`).
    super::outage::connection_lost();
    let started = std::time::Instant::now();
    let mut pause = Duration::from_millis(100);
    loop {
        let looked = async {
            let client = pool.get().await?;
            // Only a primary's answer counts: a standby may not have the
            // commit yet, or be a demoted primary that has it alone.
            if !super::is_primary(&client).await? {
                return Err(crate::error::AppError::Unavailable(anyhow::anyhow!(
                    "the database answering is a standby"
                )));
            }
            order_of_hold(&client, hold_id, buyer_id).await
        };
        match looked.await {
            Ok(found) => return Ok(found),
            Err(err) if err.is_transient() && started.elapsed() < LOOKUP_FOR => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(1));
            }
            Err(err) => return Err(err),
        }
    }
}

/// The order the hold made, as the purchase would have answered it.
async fn order_of_hold(
    client: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: BuyerId,
) -> AppResult<Option<Landed>> {
    let Some(row) = client
        .query_opt(
            "SELECT o.id, o.event_id, o.status, o.payment, o.pay_by, o.amount_cents,
                    array(SELECT t.code FROM tickets t WHERE t.order_id = o.id ORDER BY t.id) AS codes,
                    array(SELECT coalesce(t.seat_id, 0) FROM tickets t WHERE t.order_id = o.id ORDER BY t.id)
                      AS seat_ids,
                    array(SELECT coalesce(t.ga_area_id, 0) FROM tickets t WHERE t.order_id = o.id ORDER BY t.id)
                      AS ga_area_ids
               FROM orders o WHERE o.hold_id = $1 AND o.buyer_id = $2",
            &[&hold_id, &buyer_id],
        )
        .await?
    else {
        return Ok(None);
    };
    let order_id: OrderId = row.get("id");
    let event_id: EventId = row.get("event_id");
    if row.get::<_, String>("status") == "pending_payment" {
        let payment: String = row.get("payment");
        return Ok(Some(Landed::Pending(PendingOrder {
            order_id,
            event_id,
            payment: crate::domain::payment::PaymentMode::parse(&payment)
                .ok_or_else(|| anyhow::anyhow!("an order's payment mode {payment:?}"))?,
            pay_by: row.get("pay_by"),
            amount_cents: row.get("amount_cents"),
        })));
    }
    let codes: Vec<String> = row.get("codes");
    let seats: Vec<i64> = row.get("seat_ids");
    let areas: Vec<i64> = row.get("ga_area_ids");
    let tickets: Vec<Issued> = codes
        .into_iter()
        .zip(seats)
        .zip(areas)
        .map(|((code, seat), area)| Issued {
            code,
            seat_id: (seat != 0).then_some(crate::domain::ids::SeatId(seat)),
            ga_area_id: (area != 0).then_some(area),
        })
        .collect();
    Ok(Some(Landed::Paid {
        order_id,
        event_id,
        tickets,
    }))
}
