//! What a waiting order holds besides its seats: its types' places under
//! their quotas and its promo code's use, counted by its checkout. Given
//! back when it is let go, counted again if it is paid after that, and
//! taken back lazily from orders past their deadline when a sale wants
//! them.

use crate::db::{GenericClient, Pool, retrying};
use crate::domain::ids::{EventId, OrderId};
use crate::error::AppResult;

/// Gives back what a waiting order's checkout counted: each reserved
/// seat's and GA place's place under its type's quota, and its code's use.
const GIVE_BACK: &str = "WITH types_back AS (
         UPDATE price_types pt SET sold = pt.sold - back.n
           FROM (SELECT price_type_id, count(*)::int AS n FROM order_typed_places
                  WHERE order_id = $1
                  GROUP BY price_type_id) back
          WHERE pt.id = back.price_type_id AND pt.quota IS NOT NULL
     )
     UPDATE promo_codes p SET uses = p.uses - 1
       FROM orders o
      WHERE o.id = $1 AND p.id = o.promo_code_id AND p.max_uses IS NOT NULL";

/// Counts a lapsed order's places and code use again, as its checkout did,
/// each only if its quota or its code's uses still allow: true if all were.
const TAKE_AGAIN: &str = "WITH wanted AS (
         SELECT r.price_type_id AS id, count(*)::int AS n
           FROM order_typed_places r JOIN price_types pt ON pt.id = r.price_type_id
          WHERE r.order_id = $1 AND pt.quota IS NOT NULL
          GROUP BY r.price_type_id
     ), types_counted AS (
         UPDATE price_types pt SET sold = pt.sold + wanted.n
           FROM wanted WHERE pt.id = wanted.id AND pt.sold + wanted.n <= pt.quota
       RETURNING pt.id
     ), code_wanted AS (
         SELECT p.id FROM orders o JOIN promo_codes p ON p.id = o.promo_code_id
          WHERE o.id = $1 AND p.max_uses IS NOT NULL
     ), code_counted AS (
         UPDATE promo_codes p SET uses = p.uses + 1
           FROM code_wanted WHERE p.id = code_wanted.id AND p.uses < p.max_uses
       RETURNING p.id
     )
     SELECT (SELECT count(*) FROM wanted) = (SELECT count(*) FROM types_counted)
            AND (SELECT count(*) FROM code_wanted) = (SELECT count(*) FROM code_counted)";

/// [`GIVE_BACK`] for the order.
pub(super) async fn give_back(tx: &impl GenericClient, order_id: OrderId) -> AppResult<()> {
    let statement = tx.prepare_cached(GIVE_BACK).await?;
    tx.execute(&statement, &[&order_id]).await?;
    Ok(())
}

/// [`TAKE_AGAIN`] for the order: true if every count was taken.
pub(super) async fn take_again(tx: &impl GenericClient, order_id: OrderId) -> AppResult<bool> {
    let statement = tx.prepare_cached(TAKE_AGAIN).await?;
    Ok(tx.query_one(&statement, &[&order_id]).await?.get(0))
}

/// Lets go of the event's waiting orders whose deadline has passed (at
/// most 200, skipping any being settled): each becomes `lapsed`, its hold
/// expired, and its types' places and its code's use are given back. Their
/// seats are free already (lazy expiry) and are left as they are; a
/// session still open at Stripe is expired by its job as before, and a
/// payment through it is settled late (`settle_locked`). The number let go.
///
/// Run when a checkout or a sale finds a quota or a code used up: a lapsed
/// order's counts are as free as its seats, and are taken back at the
/// moment they are wanted, whatever became of the webhook or the worker.
pub async fn lapse_overdue(pool: &Pool, event_id: EventId) -> AppResult<u64> {
    retrying(|| crate::db::in_transaction(pool, async |tx| lapse_overdue_in(tx, event_id).await))
        .await
}

/// [`lapse_overdue`] in the caller's transaction.
pub(in crate::db) async fn lapse_overdue_in(
    tx: &impl GenericClient,
    event_id: EventId,
) -> AppResult<u64> {
    const LAPSE_OVERDUE: &str = "WITH overdue AS (
             SELECT id, hold_id FROM orders
              WHERE event_id = $1 AND status = 'pending_payment' AND pay_by <= now()
              ORDER BY id LIMIT 200
                FOR UPDATE SKIP LOCKED
         ), types_back AS (
             UPDATE price_types pt SET sold = pt.sold - back.n
               FROM (SELECT r.price_type_id, count(*)::int AS n
                       FROM order_typed_places r JOIN overdue ON overdue.id = r.order_id
                      GROUP BY r.price_type_id) back
              WHERE pt.id = back.price_type_id AND pt.quota IS NOT NULL
         ), codes_back AS (
             UPDATE promo_codes p SET uses = p.uses - back.n
               FROM (SELECT o.promo_code_id, count(*)::int AS n
                       FROM orders o JOIN overdue ON overdue.id = o.id
                      WHERE o.promo_code_id IS NOT NULL GROUP BY o.promo_code_id) back
              WHERE p.id = back.promo_code_id AND p.max_uses IS NOT NULL
         ), holds_closed AS (
             UPDATE holds h SET state = 'EXPIRED'
               FROM overdue WHERE h.id = overdue.hold_id AND h.state = 'PAYING'
         )
         UPDATE orders o SET status = 'lapsed' FROM overdue WHERE o.id = overdue.id";
    let statement = tx.prepare_cached(LAPSE_OVERDUE).await?;
    Ok(tx.execute(&statement, &[&event_id]).await?)
}
