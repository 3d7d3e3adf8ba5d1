//! Claiming into a hold: opening one under the live-hold caps, and the
//! all-or-nothing claim of a cart, in the fixed order every claim keeps.

use uuid::Uuid;

use super::pick::{Picked, as_sql_int, pick_once, refusal};
use super::requests::Holder;
use super::requests::{count_request, counting_request, refuse_if_spent};
use super::row::{CLOSE_LAPSED, HOLD_COLUMNS, LOCK_OPEN, close_lapsed, hold_from_row, lock_open};
use crate::db::{GenericClient, Pool, events, ga, seats};
use crate::domain::hold::{Cart, Hold, HoldRules, HoldSummary};
use crate::domain::ids::{EventId, HoldId, SeatId};
use crate::error::{AppError, AppResult, Conflict, Missing};
use crate::observability as obs;

/// Opens a hold for a buyer who has none. It counts against its client
/// address, or its API key (see [`refuse_if_capped`]).
pub(in crate::db) async fn open_new(
    client: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    rules: HoldRules,
) -> AppResult<Hold> {
    refuse_if_capped(client, &holder, rules).await?;
    let open = client
        .prepare_cached(&format!(
            "INSERT INTO holds (id, event_id, buyer_id, expires_at, client_ip, api_key_id)
             SELECT $3, $1, $2, now() + make_interval(secs => $4), $5, $6
              WHERE EXISTS (SELECT 1 FROM events WHERE id = $1)
             ON CONFLICT (event_id, buyer_id) WHERE state = 'OPEN' DO NOTHING
             RETURNING {HOLD_COLUMNS}"
        ))
        .await?;
    let opened = client
        .query_opt(
            &open,
            &[
                &event_id,
                &holder.buyer_id,
                &HoldId(Uuid::new_v4()),
                &rules.ttl.as_secs_f64(),
                &holder.client_ip,
                &holder.api_key,
            ],
        )
        .await?;
    match opened {
        Some(row) => Ok(hold_from_row(&row)),
        // The buyer's other request opened one first; it has committed
        // (the insert waited for it), so it can be locked now. Or there is
        // no such event: the insert is guarded rather than left to fail on
        // the foreign key, because a failed statement aborts the
        // transaction and the statements sent with this one (the event's
        // lock, say, asking why it found nothing) would fail with it.
        None => lock_open(client, event_id, holder.buyer_id)
            .await?
            .ok_or(AppError::NotFound(Missing::Event)),
    }
}

/// Refuses a new hold when its client address (or API key) already has
/// as many live holds as the rules allow. A season hold counts as one. The
/// rule is the SQL function `refuse_if_holds_capped` (migration V29), which
/// the one-statement pick calls too; its refusals map as the pick's do.
pub(in crate::db) async fn refuse_if_capped(
    client: &impl GenericClient,
    holder: &Holder,
    rules: HoldRules,
) -> AppResult<()> {
    let capped = (holder.client_ip.is_some() && rules.max_holds_per_ip > 0)
        || (holder.api_key.is_some() && rules.max_holds_per_key > 0);
    if !capped {
        return Ok(());
    }
    let statement = client
        .prepare_cached("SELECT refuse_if_holds_capped($1, $2, $3, $4)")
        .await?;
    client
        .execute(
            &statement,
            &[
                &holder.client_ip,
                &holder.api_key,
                &as_sql_int(rules.max_holds_per_ip),
                &as_sql_int(rules.max_holds_per_key),
            ],
        )
        .await
        .map_err(refusal)?;
    Ok(())
}

/// Adds `seat_ids` (sorted, distinct) to the buyer's hold for the event, all
/// or nothing. On any refusal the transaction rolls back, so a failed
/// attempt neither creates a hold nor changes its expiry.
pub async fn claim_seats(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    seat_ids: &[SeatId],
    rules: HoldRules,
) -> AppResult<HoldSummary> {
    claim(pool, event_id, holder, &Cart::seats(seat_ids), rules).await
}

/// Adds the cart to the buyer's hold for the event, all or nothing: GA
/// areas first, by id, then seats by id, the order every claim keeps. A
/// cart of seats alone is one statement (`super::pick`); with GA areas,
/// the transaction below.
pub async fn claim(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    cart: &Cart,
    rules: HoldRules,
) -> AppResult<HoldSummary> {
    let cart = &cart.in_claim_order();
    let outcome = match cart.ga.is_empty() && !cart.seat_ids.is_empty() {
        // Seats alone: the one-statement pick.
        true => counting_request(pool, holder, || {
            pick_once(pool, event_id, holder, &cart.seat_ids, rules)
        })
        .await
        .and_then(|picked| match picked {
            Picked::Held(summary, reclaimed) => Ok((summary, reclaimed)),
            Picked::Refused(refusal) => Err(refusal),
        }),
        false => {
            counting_request(pool, holder, || {
                claim_once(pool, event_id, holder, cart, rules)
            })
            .await
        }
    };
    match &outcome {
        Ok((_, reclaimed)) => {
            metrics::counter!(obs::SEATS_CLAIMED).increment(cart.seat_ids.len() as u64);
            metrics::counter!(obs::SEATS_EXPIRED_RECLAIMED).increment(*reclaimed);
        }
        Err(AppError::SeatsUnavailable { .. }) => {
            metrics::counter!(obs::CLAIMS_CONFLICTED).increment(1)
        }
        Err(_) => {}
    }
    outcome.map(|(summary, _)| summary)
}

/// One attempt. Statements that don't depend on each other's answers are
/// sent together, in the order they must run (PostgreSQL runs a
/// connection's statements one after another): the sale check, the seat
/// ids and the buyer's hold in one round trip; the claim and the read of
/// what the hold now has in another.
async fn claim_once(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    cart: &Cart,
    rules: HoldRules,
) -> AppResult<(HoldSummary, u64)> {
    crate::db::in_transaction(pool, async |tx| {
        claim_in(tx, event_id, holder, cart, rules).await
    })
    .await
}

async fn claim_in(
    tx: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    cart: &Cart,
    rules: HoldRules,
) -> AppResult<(HoldSummary, u64)> {
    let seat_ids = &cart.seat_ids;
    // One round trip: the event's lock, then the hold's (the fixed order).
    let flight: &[&str] = match cart.ga.is_empty() {
        true => &[
            &events::LOCK_ON_SALE,
            seats::IDS_IN_EVENT,
            CLOSE_LAPSED,
            &LOCK_OPEN,
        ],
        false => &[
            &events::LOCK_ON_SALE,
            ga::MUST_BELONG,
            seats::IDS_IN_EVENT,
            CLOSE_LAPSED,
            &LOCK_OPEN,
        ],
    };
    crate::db::prepare_together(tx, flight).await?;
    let (generic, spent, on_sale, areas_known, known, hold) = tokio::join!(
        crate::db::generic_plans(tx),
        refuse_if_spent(tx, &holder),
        events::lock_on_sale_for_claim(tx, event_id),
        async {
            match cart.ga.is_empty() {
                true => Ok(()),
                false => ga::must_belong(tx, event_id, &cart.ga).await,
            }
        },
        seats::ids_in_event(tx, event_id, seat_ids),
        async {
            let (closed, open) = tokio::join!(
                close_lapsed(tx, event_id, holder.buyer_id),
                lock_open(tx, event_id, holder.buyer_id)
            );
            closed.and(open)
        },
    );
    sent_together!(generic, spent, on_sale, areas_known, known, hold);
    let waitlist_waiting = on_sale?;
    let known = known?;
    if known.len() != seat_ids.len() {
        let unknown: Vec<SeatId> = seat_ids
            .iter()
            .filter(|id| !known.contains(id))
            .copied()
            .collect();
        return Err(AppError::NotFound(Missing::Seats(unknown)));
    }
    let hold = match hold? {
        Some(hold) => hold,
        None => open_new(tx, event_id, holder, rules).await?,
    };
    if !cart.ga.is_empty() {
        ga::claim(tx, event_id, hold.id, hold.expires_at, &cart.ga).await?;
    }
    // One round trip; none depends on another's answer. The request's
    // count goes last: its counters' locks are then held only to the commit.
    // The claim is prepared first: a statement prepared inside the batch is
    // sent after the others, and a count that ran before the claim would
    // hold the counters' locks while the claim waits on a seat's, which a
    // claim holding that seat and waiting to count would close into a
    // deadlock (seen with a herd on fresh connections).
    crate::db::prepare_together(tx, &[seats::CLAIM_INTO_HOLD.as_str()]).await?;
    let (claimed, ga, counted) = tokio::join!(
        seats::claim_into_hold(
            tx,
            event_id,
            hold.id,
            hold.expires_at,
            seat_ids,
            waitlist_waiting
        ),
        ga::held_by(tx, hold.id),
        count_request(tx, &holder)
    );
    sent_together!(claimed, ga, counted);
    let claimed = claimed?;
    let ga = ga?;
    if claimed.claimed.ids.len() != seat_ids.len() {
        let refused = seats::refused(seat_ids, &claimed.claimed.ids);
        if waitlist_waiting && crate::db::waitlist_first::keeps_any(tx, event_id, &refused).await? {
            return Err(AppError::Conflict(Conflict::WaitlistFirst));
        }
        return Err(AppError::SeatsUnavailable { seat_ids: refused });
    }
    let summary = HoldSummary {
        hold_id: hold.id,
        expires_at: hold.expires_at,
        seat_ids: claimed.held.iter().map(|seat| seat.id).collect(),
        hold,
        seats: claimed.held,
        ga,
    };
    summary.refuse_if_over(0, rules.max_seats)?;
    refuse_past_share(tx, event_id, &holder, rules).await?;
    Ok((summary, claimed.claimed.reclaimed))
}

/// Refuses a claim that takes its client's admitted buyers past their
/// share of the house: the SQL function `refuse_past_address_share` (V34),
/// which the one-statement pick calls too. Last in the claim's
/// transaction, so its lock is held only to the commit.
pub(in crate::db) async fn refuse_past_share(
    client: &impl GenericClient,
    event_id: EventId,
    holder: &Holder,
    rules: HoldRules,
) -> AppResult<()> {
    if rules.share_seats == 0 || (holder.client_ip.is_none() && holder.api_key.is_none()) {
        return Ok(());
    }
    let statement = client
        .prepare_cached("SELECT refuse_past_address_share($1, $2, $3, $4)")
        .await?;
    client
        .execute(
            &statement,
            &[
                &event_id,
                &holder.client_ip,
                &holder.api_key,
                &as_sql_int(rules.share_seats),
            ],
        )
        .await
        .map_err(refusal)?;
    Ok(())
}
