//! Holds: one buyer's basket of seats for one event, with a fixed expiry.

use std::sync::LazyLock;
use std::time::Duration;

use time::OffsetDateTime;

use super::ga;
use super::{GenericClient, Pool, retrying, seats};
use crate::domain::hold::{Hold, HoldRules, HoldState, HoldSummary};
use crate::domain::ids::AreaId;
use crate::domain::ids::{Actor, BuyerId, EventId, HoldId, SeatId};
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Conflict, Missing};

mod claim;
mod pick;
mod requests;
mod row;

pub use claim::{claim, claim_seats};
pub(super) use claim::{open_new, refuse_if_capped, refuse_past_share};
pub(super) use requests::counting_request;
pub use requests::{CodeTry, Holder, count_code_try, count_request, refuse_if_spent};
pub(super) use row::{CLOSE_LAPSED, LOCK_OPEN};
use row::{HOLD_COLUMNS, close_lapsed, hold_from_row, lock_open};

/// The hold's contents now, for answering a request that changed it: its
/// seats and GA tickets, read together (one round trip).
pub(super) async fn summary(client: &impl GenericClient, hold: &Hold) -> AppResult<HoldSummary> {
    let (held, ga) = tokio::join!(
        seats::held_by_hold(client, hold.event_id, hold.id),
        ga::held_by(client, hold.id)
    );
    sent_together!(held, ga);
    let held = held?;
    Ok(HoldSummary {
        hold_id: hold.id,
        expires_at: hold.expires_at,
        seat_ids: held.iter().map(|seat| seat.id).collect(),
        hold: hold.clone(),
        seats: held,
        ga: ga?,
    })
}

/// The buyer's live hold for the event, if any.
pub async fn live_for_buyer(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {HOLD_COLUMNS} FROM holds
              WHERE event_id = $1 AND buyer_id = $2 AND state = 'OPEN' AND expires_at > now()"
        ))
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id, &buyer_id])
        .await?;
    Ok(row.as_ref().map(hold_from_row))
}

pub(super) static LOCK_FOR_BUYER: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {HOLD_COLUMNS} FROM holds WHERE id = $1 AND buyer_id = $2 FOR UPDATE")
});

/// The hold, locked for this transaction, if it exists and is the buyer's.
async fn lock_for_buyer(
    client: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let statement = client.prepare_cached(&LOCK_FOR_BUYER).await?;
    let row = client.query_opt(&statement, &[&hold_id, &buyer_id]).await?;
    Ok(row.as_ref().map(hold_from_row))
}

/// The event of the hold (if it is the buyer's, when one is given), read
/// without a lock, so the event can be locked before the hold.
pub(super) async fn event_of(
    client: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: Option<BuyerId>,
) -> AppResult<Option<EventId>> {
    let statement = client
        .prepare_cached(
            "SELECT event_id FROM holds WHERE id = $1 AND ($2::uuid IS NULL OR buyer_id = $2)",
        )
        .await?;
    let row = client.query_opt(&statement, &[&hold_id, &buyer_id]).await?;
    Ok(row.map(|row| row.get(0)))
}

pub(super) async fn lock_for_buyer_or_404(
    client: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: BuyerId,
) -> AppResult<Hold> {
    lock_for_buyer(client, hold_id, buyer_id)
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Hold))
}

/// The buyer's open hold for the event, locked; a new one expiring
/// `rules.ttl` from now if there is none. A lapsed open hold is closed
/// first, so the one-open-hold-per-buyer index lets the new one in. The
/// lock serialises one buyer's concurrent requests for the event.
pub(super) async fn lock_or_open(
    client: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    rules: HoldRules,
) -> AppResult<Hold> {
    let (closed, open) = tokio::join!(
        close_lapsed(client, event_id, holder.buyer_id),
        lock_open(client, event_id, holder.buyer_id)
    );
    sent_together!(closed, open);
    match open? {
        Some(hold) => Ok(hold),
        None => open_new(client, event_id, holder, rules).await,
    }
}

/// Any buyer's hold, locked for this transaction (for staff).
pub(super) async fn lock_by_id(client: &impl GenericClient, hold_id: HoldId) -> AppResult<Hold> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {HOLD_COLUMNS} FROM holds WHERE id = $1 FOR UPDATE"
        ))
        .await?;
    let row = client.query_opt(&statement, &[&hold_id]).await?;
    row.as_ref()
        .map(hold_from_row)
        .ok_or_else(|| AppError::NotFound(Missing::Hold))
}

/// Closes the hold as released by staff, so its buyer can be told why.
pub(super) async fn close_by_staff(
    client: &impl GenericClient,
    hold_id: HoldId,
    actor: Actor,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE holds SET state = 'RELEASED', closed_at = now(), released_by_staff = $2,
                    released_by_key = $3
              WHERE id = $1 AND state IN ('OPEN', 'EXPIRED')",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&hold_id, &actor.staff_id(), &actor.api_key_id()],
        )
        .await?;
    Ok(())
}

pub(super) const CLOSE_OPEN_HOLD: &str =
    "UPDATE holds SET state = $2, closed_at = now() WHERE id = $1 AND state = 'OPEN'";

async fn close(client: &impl GenericClient, hold_id: HoldId, state: &str) -> AppResult<()> {
    let statement = client.prepare_cached(CLOSE_OPEN_HOLD).await?;
    client.execute(&statement, &[&hold_id, &state]).await?;
    Ok(())
}

pub(super) async fn mark_purchased(client: &impl GenericClient, hold_id: HoldId) -> AppResult<()> {
    close(client, hold_id, "PURCHASED").await
}

/// Refuses a hold that is no longer open and live: bought, released, or
/// past its expiry.
pub(super) fn refuse_unless_live(hold: &Hold) -> AppResult<()> {
    match hold.state {
        HoldState::Purchased => Err(AppError::Conflict(Conflict::AlreadyPurchased)),
        HoldState::Released => Err(AppError::Conflict(Conflict::HoldReleased)),
        HoldState::Paying => Err(AppError::Conflict(Conflict::HoldBeingPaid)),
        _ if !hold.live => Err(AppError::HoldExpired),
        _ => Ok(()),
    }
}

pub(super) fn refuse_if_purchased(hold: &Hold) -> AppResult<()> {
    match hold.state {
        HoldState::Purchased => return Err(AppError::Conflict(Conflict::AlreadyPurchased)),
        HoldState::Paying => return Err(AppError::Conflict(Conflict::HoldBeingPaid)),
        _ => {}
    }
    Ok(())
}

/// Puts one seat of the buyer's hold back on sale. The hold closes when its
/// last seat goes, so an empty hold never keeps a timer running. One
/// statement: the SQL function `release_seat_of_buyer` (migration V29)
/// locks the hold, then releases the seat and counts what is left.
pub async fn release_seat(
    pool: &Pool,
    hold_id: HoldId,
    seat_id: SeatId,
    buyer_id: BuyerId,
) -> AppResult<()> {
    retrying(|| async {
        let client = pool.get().await?;
        let statement = client
            .prepare_cached("SELECT release_seat_of_buyer($1, $2, $3)")
            .await?;
        let row = client
            .query_one(&statement, &[&hold_id, &buyer_id, &seat_id])
            .await?;
        match row.get::<_, &str>(0) {
            "released" => Ok(()),
            "not_in_hold" => Err(AppError::NotFound(Missing::SeatInHold)),
            "purchased" => Err(AppError::Conflict(Conflict::AlreadyPurchased)),
            "paying" => Err(AppError::Conflict(Conflict::HoldBeingPaid)),
            _ => Err(AppError::NotFound(Missing::Hold)),
        }
    })
    .await
}

/// Gives the buyer's tickets in one GA area back. The hold closes when it
/// has nothing left, as when its last seat goes. Returns how many were the buyer's.
pub async fn release_ga(
    pool: &Pool,
    hold_id: HoldId,
    area_id: AreaId,
    buyer_id: BuyerId,
) -> AppResult<i64> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let hold = lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
        refuse_if_purchased(&hold)?;
        let Some(held) = ga::held_by(&tx, hold.id)
            .await?
            .into_iter()
            .find(|h| h.area_id == area_id)
        else {
            return Err(AppError::NotFound(Missing::TicketInHold));
        };
        ga::give_back(&tx, area_id, ga::GiveBack::LapsedAndHold(hold.id)).await?;
        if is_empty(&tx, hold.id).await? {
            close(&tx, hold.id, "RELEASED").await?;
        }
        tx.commit().await?;
        Ok(i64::from(held.quantity))
    })
    .await
}

/// Whether the hold has no seats and no GA tickets left.
pub(super) async fn is_empty(client: &impl GenericClient, hold_id: HoldId) -> AppResult<bool> {
    Ok(seats::held_by(client, hold_id).await?.is_empty()
        && ga::held_by(client, hold_id).await?.is_empty())
}

/// Puts every seat of the buyer's hold back on sale and closes it. Returns
/// the seats released (none if it was already closed).
pub async fn release_hold(pool: &Pool, hold_id: HoldId, buyer_id: BuyerId) -> AppResult<SeatIds> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let hold = lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
        refuse_if_purchased(&hold)?;
        ga::release_all(&tx, hold.id).await?;
        let released = seats::release_all(&tx, hold.id).await?;
        close(&tx, hold.id, "RELEASED").await?;
        tx.commit().await?;
        Ok(released)
    })
    .await
}

/// The buyer's most recent hold for the event, in any state.
pub async fn latest_for_buyer(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<Hold>> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT {HOLD_COLUMNS} FROM holds
              WHERE event_id = $1 AND buyer_id = $2
              ORDER BY created_at DESC LIMIT 1"
        ))
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id, &buyer_id])
        .await?;
    Ok(row.as_ref().map(hold_from_row))
}

/// How close to expiry a hold must be before it may be extended.
pub const EXTENSION_WINDOW_SECS: i64 = 120;

/// "Need more time?": pushes the buyer's live hold (and its seats) back by
/// `extra`, once per hold, only in its last two minutes.
pub async fn extend(
    pool: &Pool,
    hold_id: HoldId,
    buyer_id: BuyerId,
    extra: Duration,
) -> AppResult<HoldSummary> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let hold = lock_for_buyer_or_404(&tx, hold_id, buyer_id).await?;
        refuse_if_purchased(&hold)?;
        if !hold.live {
            return Err(AppError::HoldExpired);
        }
        if hold.extended {
            return Err(AppError::Conflict(Conflict::AlreadyExtended));
        }
        let extended = tx
            .query_opt(
                "UPDATE holds SET expires_at = expires_at + make_interval(secs => $2), extended = true
                  WHERE id = $1 AND expires_at - now() <= make_interval(secs => $3)
              RETURNING expires_at",
                &[&hold.id, &extra.as_secs_f64(), &(EXTENSION_WINDOW_SECS as f64)],
            )
            .await?;
        let Some(row) = extended else {
            return Err(AppError::Conflict(Conflict::TooEarlyToExtend {
                window_secs: EXTENSION_WINDOW_SECS,
            }));
        };
        let expires_at: OffsetDateTime = row.get(0);
        tx.execute(
            "UPDATE seats SET held_until = $2 WHERE hold_id = $1",
            &[&hold.id, &expires_at],
        )
        .await?;
        ga::extend(&tx, hold.id, expires_at).await?;
        let summary = summary(&tx, &Hold { expires_at, ..hold }).await?;
        tx.commit().await?;
        Ok(summary)
    })
    .await
}
