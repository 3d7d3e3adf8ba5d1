//! Drafts and publishing. A new event is a draft: staff see and preview
//! it, buyers are told it doesn't exist, and nothing of it can be held or
//! bought. Publishing shows it to buyers, who can buy from its on-sale
//! time. Taking it back to a draft is allowed only while nobody has
//! anything of it: no order of any kind, no seat sold and no live hold.

use super::audit::{self, Entry};
use super::{GenericClient, Pool};
use crate::domain::ids::{Actor, EventId};
use crate::error::{AppError, AppResult, Conflict, Missing};

/// Judges and makes the change, once the event's row is locked (FOR
/// UPDATE, in the statement before: it waits for every claim and purchase
/// in flight, which hold a key-share lock on it, and new ones queue behind
/// it). Counted in a statement of its own, so its snapshot sees what those
/// committed. Returns whether it was published before, and what the event
/// has.
const PUBLISH: &str = "
    WITH locked AS (
        SELECT id, published_at FROM events WHERE id = $1
    ), has AS (
        SELECT (SELECT count(*) FROM seats WHERE event_id = $1 AND status = 'SOLD') AS sold,
               (SELECT count(*) FROM seats
                 WHERE event_id = $1 AND status = 'HELD' AND held_until > now())
             + (SELECT coalesce(sum(quantity), 0)::bigint FROM ga_tickets
                 WHERE event_id = $1 AND order_id IS NULL AND held_until > now())
                 AS held,
               (SELECT count(*) FROM orders WHERE event_id = $1) AS orders
    ), changed AS (
        UPDATE events e
           SET published_at = CASE WHEN $2 THEN coalesce(e.published_at, now()) END
          FROM locked, has
         WHERE e.id = locked.id
           AND ($2 OR (has.sold = 0 AND has.held = 0 AND has.orders = 0))
        RETURNING e.id
    )
    SELECT locked.published_at IS NOT NULL AS was_published,
           has.sold, has.held, has.orders,
           EXISTS (SELECT 1 FROM changed) AS changed
      FROM locked, has";

/// Publishes the event (`true`) or takes it back to a draft (`false`).
/// Doing what is already so changes nothing and records nothing. Audited.
pub async fn set_published(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    published: bool,
) -> AppResult<()> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    super::events::lock_for_closing(&tx, event_id).await?;
    let row = tx
        .query_opt(PUBLISH, &[&event_id, &published])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    if !row.get::<_, bool>("changed") {
        return Err(AppError::Conflict(Conflict::EventHasSales {
            sold_seats: row.get("sold"),
            held_seats: row.get("held"),
            orders: row.get("orders"),
        }));
    }
    if row.get::<_, bool>("was_published") == published {
        return Ok(());
    }
    nudge_live_feed(&tx, event_id).await?;
    audit::record(
        &tx,
        Entry {
            actor: Some(actor),
            action: if published { "publish" } else { "unpublish" },
            event_id: Some(event_id),
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: if published {
                "published: buyers see it".into()
            } else {
                "taken back to a draft: buyers no longer see it".into()
            },
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Names the event on every instance's live feed, as a seat change would,
/// so each drops the seat map it keeps for it (see `web::reads`) and reads
/// the event again: one seat's (or area's) stamp, nothing else written.
pub(super) async fn nudge_live_feed(tx: &impl GenericClient, event_id: EventId) -> AppResult<()> {
    tx.execute(
        "UPDATE seats SET changed_xid = pg_current_xact_id()
          WHERE id = (SELECT min(id) FROM seats WHERE event_id = $1)",
        &[&event_id],
    )
    .await?;
    tx.execute(
        "UPDATE ga_areas SET changed_xid = pg_current_xact_id()
          WHERE id = (SELECT min(id) FROM ga_areas WHERE event_id = $1)",
        &[&event_id],
    )
    .await?;
    Ok(())
}
