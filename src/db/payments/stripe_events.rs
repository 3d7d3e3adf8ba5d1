//! Stripe's webhook events, each kept once by its id: a redelivery finds
//! it and does nothing.

use crate::db::{GenericClient, Pool};
use crate::domain::ids::OrderId;
use crate::error::AppResult;

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
