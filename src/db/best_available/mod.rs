//! "N best available": finding and claiming seats for a party in one
//! transaction, with `FOR UPDATE SKIP LOCKED` so concurrent buyers get
//! different seats without waiting on each other.
//!
//! 1. Free seats are read in rank order (no locks) from partial indexes
//!    that hold only free seats, so the cost does not grow with seats sold.
//!    Their rows come out best-first.
//! 2. Those rows' free seats are read a few rows at a time (1, 2, 4, …)
//!    and handed to the pure block search, until no later row can beat the
//!    best block found.
//! 3. The best candidate blocks (up to 16, sharing no seat, best first)
//!    go to `lock_first_free_block` (migration V9), which locks the first
//!    one wholly free and unlocked, with SKIP LOCKED, trying each in a
//!    subtransaction so a block only partly lockable is let go at once.
//!    A herd of parties that computed the same candidates spreads over
//!    them, best first, in one round trip each; nothing is locked that is
//!    not claimed, so no one is turned away from a better row by seats
//!    nobody takes. If every candidate was taken, their seats are forgotten
//!    and the search goes on (reading further rows if it must).
//! 4. The chosen seats, locked by us, are claimed with the same conditional
//!    UPDATE as a pick, which answers with the whole hold.

use std::collections::HashSet;

use super::holds::Holder;
use super::{GenericClient, Pool, events, holds, seats};
use crate::domain::hold::{HoldRules, HoldSummary};
use crate::domain::ids::SectionId;
use crate::domain::ids::{EventId, HoldId, SeatId};
use crate::domain::seat::Seat;
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::observability as obs;

mod free_seats;
mod request;
mod walk;

use free_seats::refusal;
use request::Filters;
pub use request::{BestAvailableRequest, BestMode};
use walk::{find_apart, find_block};

#[derive(Debug, Clone)]
pub struct BestAvailableOutcome {
    pub hold: HoldSummary,
    pub added: SeatIds,
    /// Seats the buyer held before that went back on sale (a replace that
    /// did not find them again), in layout order.
    pub released: Vec<Seat>,
    /// Of `added`, the seats the buyer did not hold before: what an undo
    /// gives up (a seat found again stays either way).
    pub newly_taken: SeatIds,
    /// Whether the seats given are adjacent in one row.
    pub together: bool,
}

pub async fn hold_best_available(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    request: &BestAvailableRequest,
    rules: HoldRules,
) -> AppResult<BestAvailableOutcome> {
    let outcome = holds::counting_request(pool, holder, || {
        hold_best_available_once(pool, event_id, holder, request, rules)
    })
    .await;
    let label = match &outcome {
        Ok(found) => {
            metrics::counter!(obs::SEATS_CLAIMED).increment(found.added.len() as u64);
            "found"
        }
        Err(AppError::Conflict(conflict)) => conflict.code().as_str(),
        Err(AppError::HoldLimit { .. }) => "hold_limit",
        Err(AppError::Invalid(_) | AppError::NotFound(_)) => "invalid",
        Err(_) => "error",
    };
    metrics::counter!(obs::BEST_AVAILABLE, "outcome" => label).increment(1);
    outcome
}

async fn hold_best_available_once(
    pool: &Pool,
    event_id: EventId,
    holder: Holder,
    request: &BestAvailableRequest,
    rules: HoldRules,
) -> AppResult<BestAvailableOutcome> {
    super::in_transaction(pool, async |tx| {
        best_in(tx, event_id, holder, request, rules).await
    })
    .await
}

async fn best_in(
    tx: &impl GenericClient,
    event_id: EventId,
    holder: Holder,
    request: &BestAvailableRequest,
    rules: HoldRules,
) -> AppResult<BestAvailableOutcome> {
    // One round trip: the event's lock, the filters, the hold's lock.
    super::prepare_together(
        tx,
        &[
            &events::LOCK_ON_SALE,
            SECTION_BY_NAME,
            TIER_BY_CODE,
            holds::CLOSE_LAPSED,
            &holds::LOCK_OPEN,
        ],
    )
    .await?;
    let (generic, spent, on_sale, filters, hold) = tokio::join!(
        super::generic_plans(tx),
        holds::refuse_if_spent(tx, &holder),
        events::lock_on_sale_for_claim(tx, event_id),
        resolve_filters(tx, event_id, request),
        holds::lock_or_open(tx, event_id, holder, rules)
    );
    sent_together!(generic, spent, on_sale, filters, hold);
    let waitlist_waiting = on_sale?;
    let filters = Filters {
        waitlist_waiting,
        ..filters?
    };
    let hold = hold?;
    let mut given_back = SeatIds::default();
    let already = match request.mode {
        // Rolled back with everything else if no new seats are found.
        BestMode::Replace => {
            let (released, ga) = tokio::join!(
                seats::release_all(tx, hold.id),
                super::ga::held_by(tx, hold.id)
            );
            sent_together!(released, ga);
            given_back = released?;
            HoldSummary {
                hold_id: hold.id,
                expires_at: hold.expires_at,
                seat_ids: SeatIds::default(),
                hold: hold.clone(),
                seats: Vec::new(),
                ga: ga?,
            }
        }
        BestMode::Add => holds::summary(tx, &hold).await?,
    };
    already.refuse_if_over(request.count as usize, rules.max_seats)?;

    let chosen = SeatIds::new(find(tx, event_id, &filters, request).await?);
    // The request's count last, in the claim's round trip (see holds::claim,
    // which also says why the claim is prepared before the batch).
    super::prepare_together(tx, &[seats::CLAIM_INTO_HOLD.as_str()]).await?;
    let (claimed, counted) = tokio::join!(
        seats::claim_into_hold(
            tx,
            event_id,
            hold.id,
            hold.expires_at,
            &chosen,
            filters.waitlist_waiting,
        ),
        holds::count_request(tx, &holder)
    );
    sent_together!(claimed, counted);
    let claimed = claimed?;
    if claimed.claimed.ids.len() != chosen.len() {
        // We hold these rows' locks and the claim re-checks the same
        // predicate, so this would be a bug; refuse rather than half-claim.
        return Err(AppError::Internal(anyhow::anyhow!(
            "best available locked {chosen:?} but claimed only {:?}",
            claimed.claimed.ids
        )));
    }
    // Last: the client's share of the house, whose lock is held only to the commit.
    holds::refuse_past_share(tx, event_id, &holder, rules).await?;
    let added: Vec<&Seat> = claimed
        .held
        .iter()
        .filter(|seat| chosen.contains(&seat.id))
        .collect();
    let together = side_by_side(&added);
    let released: Vec<SeatId> = given_back
        .iter()
        .filter(|id| !chosen.contains(id))
        .copied()
        .collect();
    let released = match released.is_empty() {
        true => Vec::new(),
        false => seats::by_ids(tx, event_id, &released, Some(hold.id)).await?,
    };
    let newly_taken = SeatIds::new(chosen.iter().filter(|id| !given_back.contains(id)).copied());
    Ok(BestAvailableOutcome {
        released,
        newly_taken,
        hold: HoldSummary {
            hold_id: hold.id,
            expires_at: hold.expires_at,
            seat_ids: claimed.held.iter().map(|seat| seat.id).collect(),
            hold,
            seats: claimed.held,
            ga: already.ga,
        },
        added: chosen,
        together,
    })
}

/// The best seats for the request, locked for this transaction, or the
/// refusal saying how many are free.
async fn find(
    tx: &impl GenericClient,
    event_id: EventId,
    filters: &Filters,
    request: &BestAvailableRequest,
) -> AppResult<Vec<SeatId>> {
    let count = request.count as usize;
    let chosen = if request.together {
        find_block(tx, event_id, filters, count).await?
    } else {
        find_apart(tx, event_id, filters, count).await?
    };
    if let Some(chosen) = chosen {
        return Ok(chosen);
    }
    // Seats are free but the waitlist has them: say so, not "sold out".
    if filters.waitlist_waiting
        && !filters.for_waitlist
        && super::waitlist_first::keeps_free_seats(tx, event_id).await?
    {
        return Err(AppError::Conflict(
            crate::domain::refusal::Conflict::WaitlistFirst,
        ));
    }
    Err(AppError::Conflict(
        refusal(tx, event_id, filters, request).await?,
    ))
}

/// Seats for a waiting party, in its own new hold with the offer's window:
/// the same ranked, no-orphan search and the same claim as best available,
/// among the seats the waitlist keeps. None if nothing free fits the party
/// now (it keeps its place).
pub(crate) async fn offer_to_party(
    tx: &impl GenericClient,
    event_id: EventId,
    party: &WaitingParty,
    offer_for: std::time::Duration,
) -> AppResult<Option<HoldSummary>> {
    let filters = Filters {
        section_id: party.section_id,
        tier_id: party.tier_id,
        avoid_restricted_view: false,
        wheelchair: 0,
        for_waitlist: true,
        max_price_cents: party.max_price_cents,
        waitlist_waiting: false,
    };
    let count = party.party_size as usize;
    let chosen = if party.together {
        find_block(tx, event_id, &filters, count).await?
    } else {
        find_apart(tx, event_id, &filters, count).await?
    };
    let Some(chosen) = chosen else {
        return Ok(None);
    };
    let holder = Holder {
        buyer_id: party.hold_buyer,
        client_ip: None,
        api_key: None,
        request: None,
    };
    let rules = HoldRules {
        ttl: offer_for,
        max_seats: party.party_size as u32,
        max_holds_per_ip: 0,
        max_holds_per_key: 0,
        share_seats: 0,
    };
    let hold = holds::open_new(tx, event_id, holder, rules).await?;
    let chosen = SeatIds::new(chosen);
    let claimed =
        seats::claim_for_waitlist(tx, event_id, hold.id, hold.expires_at, &chosen).await?;
    if claimed.claimed.ids.len() != chosen.len() {
        return Err(AppError::Internal(anyhow::anyhow!(
            "the waitlist locked {chosen:?} but claimed only {:?}",
            claimed.claimed.ids
        )));
    }
    Ok(Some(HoldSummary {
        hold_id: hold.id,
        expires_at: hold.expires_at,
        seat_ids: claimed.held.iter().map(|seat| seat.id).collect(),
        hold,
        seats: claimed.held,
        ga: Vec::new(),
    }))
}

/// A waiting party as an offer needs it.
pub struct WaitingParty {
    pub party_size: i32,
    pub together: bool,
    pub section_id: Option<SectionId>,
    pub tier_id: Option<i64>,
    pub max_price_cents: Option<i32>,
    /// The offer's hold belongs to this buyer id (the entry's own).
    pub hold_buyer: crate::domain::ids::BuyerId,
}

/// The seats best available would give now, without holding them, for
/// the box office to sell across the counter: the sale then claims them
/// all or nothing, so a seat taken meanwhile is refused there.
pub async fn suggest(
    pool: &Pool,
    event_id: EventId,
    request: &BestAvailableRequest,
) -> AppResult<Vec<Seat>> {
    super::in_transaction(pool, async |tx| {
        let filters = resolve_filters(tx, event_id, request).await?;
        let chosen = find(tx, event_id, &filters, request).await?;
        seats::by_ids(tx, event_id, &chosen, None).await
    })
    .await
}

/// Whether the seats sit side by side in one row.
fn side_by_side(seats: &[&Seat]) -> bool {
    let Some(first) = seats.first() else {
        return false;
    };
    let same_row = seats
        .iter()
        .all(|s| s.section_id == first.section_id && s.row_index == first.row_index);
    let positions: HashSet<i32> = seats.iter().map(|s| s.position).collect();
    let (min, max) = (
        positions.iter().min().copied().unwrap_or(0),
        positions.iter().max().copied().unwrap_or(0),
    );
    same_row && positions.len() == seats.len() && (max - min) as usize == seats.len() - 1
}

const SECTION_BY_NAME: &str = "SELECT id FROM sections WHERE event_id = $1 AND name = $2";
const TIER_BY_CODE: &str = "SELECT id FROM price_tiers WHERE event_id = $1 AND code = $2";

async fn resolve_filters(
    client: &impl GenericClient,
    event_id: EventId,
    request: &BestAvailableRequest,
) -> AppResult<Filters> {
    use crate::domain::text::{MAX_CODE_CHARS, MAX_NAME_CHARS, is_plain};
    // A name no section can have is looked up nowhere: PostgreSQL would
    // refuse a NUL outright, and long strings cost index reads for nothing.
    let unknown_section = |name: &str| AppError::Invalid(Invalid::UnknownSection(name.into()));
    let unknown_tier = |code: &str| AppError::Invalid(Invalid::UnknownTier(code.into()));
    if let Some(name) = request
        .section
        .as_deref()
        .filter(|n| !is_plain(n, MAX_NAME_CHARS))
    {
        return Err(unknown_section(name));
    }
    if let Some(code) = request
        .tier
        .as_deref()
        .filter(|c| !is_plain(c, MAX_CODE_CHARS))
    {
        return Err(unknown_tier(code));
    }
    let section_id = match &request.section {
        None => None,
        Some(name) => Some(
            id_by_name(client, SECTION_BY_NAME, event_id, name)
                .await?
                .map(SectionId)
                .ok_or_else(|| unknown_section(name))?,
        ),
    };
    let tier_id = match &request.tier {
        None => None,
        Some(code) => Some(
            id_by_name(client, TIER_BY_CODE, event_id, code)
                .await?
                .ok_or_else(|| unknown_tier(code))?,
        ),
    };
    Ok(Filters {
        section_id,
        tier_id,
        avoid_restricted_view: request.avoid_restricted_view,
        wheelchair: request.wheelchair,
        for_waitlist: false,
        max_price_cents: None,
        waitlist_waiting: false,
    })
}

async fn id_by_name(
    client: &impl GenericClient,
    sql: &str,
    event_id: EventId,
    name: &str,
) -> AppResult<Option<i64>> {
    let statement = client.prepare_cached(sql).await?;
    let row = client.query_opt(&statement, &[&event_id, &name]).await?;
    Ok(row.map(|r| r.get(0)))
}

/// Undoes a best-available swap: in the buyer's hold `hold_id` (still
/// open and live), gives back `drop` and takes `restore` again, in one
/// transaction, all or nothing. If any of `restore` has been taken
/// meanwhile, nothing changes and the refusal names them. Returns the hold
/// as it then is.
pub async fn swap_back(
    pool: &Pool,
    event_id: EventId,
    hold_id: HoldId,
    holder: Holder,
    restore: &SeatIds,
    drop: &SeatIds,
    rules: HoldRules,
) -> AppResult<HoldSummary> {
    holds::counting_request(pool, holder, || {
        super::in_transaction(pool, async |tx| {
            holds::refuse_if_spent(tx, &holder).await?;
            // The event's lock before the hold's, as every claim takes them.
            let waitlist_waiting = events::lock_on_sale_for_claim(tx, event_id).await?;
            let hold = holds::lock_for_buyer_or_404(tx, hold_id, holder.buyer_id).await?;
            if hold.event_id != event_id {
                return Err(AppError::NotFound(Missing::Hold));
            }
            holds::refuse_unless_live(&hold)?;
            let known = seats::ids_in_event(tx, event_id, restore).await?;
            if known.len() != restore.len() {
                let unknown = restore.iter().filter(|id| !known.contains(id)).copied();
                return Err(AppError::NotFound(Missing::Seats(unknown.collect())));
            }
            seats::release_some(tx, hold.id, drop).await?;
            let claimed = seats::claim_into_hold(
                tx,
                event_id,
                hold.id,
                hold.expires_at,
                restore,
                waitlist_waiting,
            )
            .await?;
            if claimed.claimed.ids.len() != restore.len() {
                return Err(AppError::SeatsUnavailable {
                    seat_ids: seats::refused(restore, &claimed.claimed.ids),
                });
            }
            let summary = HoldSummary {
                hold_id: hold.id,
                expires_at: hold.expires_at,
                seat_ids: claimed.held.iter().map(|seat| seat.id).collect(),
                seats: claimed.held,
                ga: super::ga::held_by(tx, hold.id).await?,
                hold,
            };
            summary.refuse_if_over(0, rules.max_seats)?;
            holds::count_request(tx, &holder).await?;
            holds::refuse_past_share(tx, event_id, &holder, rules).await?;
            Ok(summary)
        })
    })
    .await
}
