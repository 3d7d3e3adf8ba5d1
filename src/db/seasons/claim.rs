//! Claiming places for a season: one transaction that holds each place in
//! every night the buyer takes, or nothing.
//!
//! A season hold (`season_holds`) holds its seats through one ordinary
//! hold per night, all with its expiry. The claim is one statement: it
//! locks the free seats of the places in every night in one order (event,
//! then seat) and holds them; a place short in any night refuses the whole
//! claim, which rolls back. Best available reads the places free in every
//! night, ranks blocks of them side by side, and claims the best block with
//! SKIP LOCKED inside a savepoint, so buyers racing for one block don't
//! wait on each other: the loser rolls back to the savepoint (its locks go
//! with it) and tries the next block.

use time::OffsetDateTime;

use super::hold::{
    SeasonHold, close_lapsed, finish, lock_hold, lock_open, open_new, release_place_in,
    release_seats,
};
use super::season::Season;
use crate::db::holds::{Holder, count_request, counting_request, refuse_if_spent};
use crate::db::{GenericClient, Pool};
use crate::domain::hold::HoldRules;
use crate::domain::ids::{EventId, HoldId, SeasonId, SeatId};
use crate::domain::refusal::Filters;
use crate::domain::sale::SaleStatus;
use crate::domain::season::{FreePlace, TakenNight, best_blocks};
use crate::error::{AppError, AppResult, Conflict, Missing};

/// Holds `places` (first-event seat ids) in every night, adding them to
/// the buyer's season hold (opened if they have none), all or nothing.
pub async fn claim_places(
    pool: &Pool,
    season: &Season,
    holder: Holder,
    places: &[SeatId],
    chosen: Option<&[EventId]>,
    rules: HoldRules,
) -> AppResult<SeasonHold> {
    let mut places = places.to_vec();
    places.sort_unstable();
    places.dedup();
    counting_request(pool, holder, || async {
        crate::db::in_transaction(pool, async |tx| {
            let hold = open_or_lock(tx, season, &holder, chosen, rules).await?;
            // One round trip: the places checked, the claim, and the
            // request's count last (prepared first: see holds::claim).
            crate::db::prepare_together(tx, &[MUST_BE_PLACES, CLAIM_WAITING.as_str()]).await?;
            let (known, taken, counted) = tokio::join!(
                must_be_places(tx, season.id, &places),
                claim_in(tx, season.id, &hold, &places, Locking::Wait),
                count_request(tx, &holder)
            );
            sent_together!(known, taken, counted);
            let taken = taken?;
            if !taken.is_empty() {
                return Err(AppError::SeasonPlacesTaken { taken });
            }
            finish(hold, &places, rules)
        })
        .await
    })
    .await
}

/// The best `count` places side by side, free in every night, in place of
/// whatever the buyer's season hold had; and which places were added.
pub async fn claim_best(
    pool: &Pool,
    season: &Season,
    holder: Holder,
    count: u32,
    chosen: Option<&[EventId]>,
    rules: HoldRules,
) -> AppResult<(SeasonHold, Vec<SeatId>)> {
    counting_request(pool, holder, || async {
        crate::db::in_transaction(pool, async |tx| {
            let mut hold = open_or_lock(tx, season, &holder, chosen, rules).await?;
            // The party size is the count: what the hold had goes back first
            // (and may be found again, in this transaction, as the best).
            release_seats(tx, hold.id).await?;
            hold.seat_ids.clear();
            let block = best_block(tx, season.id, &hold, count as usize).await?;
            count_request(tx, &holder).await?;
            let hold = finish(hold, &block, rules)?;
            Ok((hold, block))
        })
        .await
    })
    .await
}

/// How many rounds of reading the free places best available makes, and
/// how many blocks it tries from each: enough that a herd on one season
/// finds blocks past the ones others are claiming, few enough to answer
/// "sold out" soon.
const BEST_ROUNDS: usize = 3;
const BLOCKS_PER_ROUND: usize = 12;

async fn best_block(
    tx: &impl GenericClient,
    season_id: SeasonId,
    hold: &SeasonHold,
    count: usize,
) -> AppResult<Vec<SeatId>> {
    let mut free_now = 0;
    for _ in 0..BEST_ROUNDS {
        let free = free_places(tx, season_id, &hold.nights).await?;
        free_now = free.len();
        let blocks = best_blocks(&free, count, BLOCKS_PER_ROUND);
        if blocks.is_empty() {
            break;
        }
        for block in blocks {
            tx.batch_execute("SAVEPOINT season_best").await?;
            let taken = claim_in(tx, season_id, hold, &block, Locking::SkipLocked).await?;
            if taken.is_empty() {
                tx.batch_execute("RELEASE SAVEPOINT season_best").await?;
                return Ok(block);
            }
            // Its locks and writes go with it: the next block starts clean.
            tx.batch_execute("ROLLBACK TO SAVEPOINT season_best")
                .await?;
        }
    }
    let filters = Filters::default();
    Err(AppError::Conflict(if free_now >= count {
        Conflict::NotEnoughTogether {
            count: count as u32,
            free: free_now as i64,
            filters,
        }
    } else {
        Conflict::NotEnoughSeats {
            count: count as u32,
            free: free_now as i64,
            held_back: 0,
            filters,
        }
    }))
}

/// The places free in every night (lapsed holds count as free), where
/// they sit in the first event. Wheelchair spaces and companion seats are
/// left to a buyer who picks them.
async fn free_places(
    tx: &impl GenericClient,
    season_id: SeasonId,
    nights: &[EventId],
) -> AppResult<Vec<FreePlace>> {
    let statement = tx
        .prepare_cached(
            "SELECT s0.id, s0.section_id, s0.row_index, s0.position, s0.rank
               FROM season_places p
               JOIN seats s ON s.id = p.seat_id
               JOIN seats s0 ON s0.id = p.place_id
              WHERE p.season_id = $1 AND p.event_id = ANY($2)
                AND NOT s0.accessibility && ARRAY['wheelchair', 'companion']
              GROUP BY s0.id
             HAVING count(*) = cardinality($2)
                AND bool_and(s.status = 'AVAILABLE'
                             OR (s.status = 'HELD' AND s.held_until < now()))",
        )
        .await?;
    let rows = tx.query(&statement, &[&season_id, &nights]).await?;
    Ok(rows
        .iter()
        .map(|row| FreePlace {
            seat_id: row.get(0),
            section_id: row.get(1),
            row_index: row.get(2),
            position: row.get(3),
            rank: row.get(4),
        })
        .collect())
}

/// Whether a claim waits for a seat another transaction has locked (a
/// pick: the buyer asked for that place) or passes it by (best available:
/// another block will do).
#[derive(Clone, Copy)]
pub(super) enum Locking {
    Wait,
    SkipLocked,
}

/// The claim, as one statement: lock the free seats of `places` in every
/// night of the hold, in event then seat order, and hold them for the
/// night's hold. Answers the nights it could not have, by place and event
/// (none: every one was claimed). A seat already in this hold counts as
/// claimed; a seat held by a lapsed hold is free (lazy expiry).
pub(super) async fn claim_in(
    tx: &impl GenericClient,
    season_id: SeasonId,
    hold: &SeasonHold,
    places: &[SeatId],
    locking: Locking,
) -> AppResult<Vec<TakenNight>> {
    let statement = tx
        .prepare_cached(match locking {
            Locking::Wait => &CLAIM_WAITING,
            Locking::SkipLocked => &CLAIM_SKIPPING,
        })
        .await?;
    let rows = tx
        .query(
            &statement,
            &[&hold.id, &season_id, &places, &hold.expires_at],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| TakenNight {
            seat_id: row.get(0),
            event_id: row.get(1),
        })
        .collect())
}

fn claim_sql(locking: &str) -> String {
    format!(
        "WITH nights AS (
             SELECT id AS hold_id, event_id FROM holds WHERE season_hold_id = $1
         ), target AS (
             SELECT s.id, n.hold_id
               FROM season_places p
               JOIN nights n ON n.event_id = p.event_id
               JOIN seats s ON s.id = p.seat_id
              WHERE p.season_id = $2 AND p.place_id = ANY($3)
                AND (s.status = 'AVAILABLE'
                     OR (s.status = 'HELD' AND (s.held_until < now() OR s.hold_id = n.hold_id)))
              ORDER BY s.event_id, s.id
                FOR UPDATE OF s {locking}
         ), claimed AS (
             UPDATE seats s
                SET status = 'HELD', hold_id = target.hold_id, held_until = $4,
                    changed_xid = pg_current_xact_id()
               FROM target
              WHERE s.id = target.id
                AND (s.status = 'AVAILABLE'
                     OR (s.status = 'HELD' AND (s.held_until < now() OR s.hold_id = target.hold_id)))
          RETURNING s.id
         )
         SELECT p.place_id, p.event_id
           FROM season_places p JOIN nights n ON n.event_id = p.event_id
          WHERE p.season_id = $2 AND p.place_id = ANY($3)
            AND NOT EXISTS (SELECT 1 FROM claimed c WHERE c.id = p.seat_id)
          ORDER BY p.event_id, p.place_id"
    )
}

static CLAIM_WAITING: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| claim_sql(""));
static CLAIM_SKIPPING: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| claim_sql("SKIP LOCKED"));

const MUST_BE_PLACES: &str = "SELECT DISTINCT place_id FROM season_places
      WHERE season_id = $1 AND place_id = ANY($2)";

/// Refuses place ids that are not the season's (seats of the first event).
async fn must_be_places(
    tx: &impl GenericClient,
    season_id: SeasonId,
    places: &[SeatId],
) -> AppResult<()> {
    let statement = tx.prepare_cached(MUST_BE_PLACES).await?;
    let known: Vec<SeatId> = tx
        .query(&statement, &[&season_id, &places])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let unknown = crate::db::seats::refused(places, &known);
    match unknown.is_empty() {
        true => Ok(()),
        false => Err(AppError::NotFound(Missing::Seats(unknown))),
    }
}

/// Checks the season and its nights are on sale (their rows key-share
/// locked, in id order, as the claim then locks their seats), closes the
/// buyer's lapsed season hold, and locks their open one or opens one. The
/// first round trip sends the plan setting, the request limits' check, the
/// closing and the lock together.
async fn open_or_lock(
    tx: &impl GenericClient,
    season: &Season,
    holder: &Holder,
    chosen: Option<&[EventId]>,
    rules: HoldRules,
) -> AppResult<SeasonHold> {
    crate::db::prepare_together(
        tx,
        &[super::hold::CLOSE_LAPSED, super::hold::LOCK_OPEN.as_str()],
    )
    .await?;
    let (generic, spent, closed, open) = tokio::join!(
        crate::db::generic_plans(tx),
        refuse_if_spent(tx, holder),
        close_lapsed(tx, season.id, holder.buyer_id),
        lock_open(tx, season.id, holder.buyer_id)
    );
    sent_together!(generic, spent, closed, open);
    let open = open?;
    if open.as_ref().is_some_and(|hold| hold.renewal_of.is_some()) {
        return Err(AppError::Conflict(Conflict::RenewalPending));
    }
    let nights = match (&open, chosen) {
        (Some(hold), None) => hold.nights.clone(),
        (Some(hold), Some(_)) => {
            let nights = season.nights(chosen)?;
            if nights != hold.nights {
                return Err(AppError::Invalid(crate::error::Invalid::SeasonChoice {
                    choose: nights.len() as i32,
                }));
            }
            nights
        }
        (None, _) => season.nights(chosen)?,
    };
    refuse_unless_selling(tx, season.id, &nights, false).await?;
    match open {
        Some(hold) => Ok(hold),
        None => {
            crate::db::holds::refuse_if_capped(tx, holder, rules).await?;
            open_new(tx, season.id, holder, &nights, rules, None).await
        }
    }
}

/// Refuses unless every night sells (a cancelled, closed or started event
/// doesn't) and the season is on sale: a renewal is bought before then.
pub(super) async fn refuse_unless_selling(
    tx: &impl GenericClient,
    season_id: SeasonId,
    nights: &[EventId],
    renewal: bool,
) -> AppResult<()> {
    let statement = tx
        .prepare_cached(&format!(
            "SELECT {} AS sale, e.on_sale_at, e.time_zone,
                    (SELECT s.on_sale_at FROM seasons s WHERE s.id = $2) AS season_on_sale_at
               FROM events e WHERE e.id = ANY($1) ORDER BY e.id FOR KEY SHARE",
            crate::db::events::SALE_STATUS
        ))
        .await?;
    let rows = tx.query(&statement, &[&nights, &season_id]).await?;
    if rows.len() != nights.len() {
        return Err(AppError::NotFound(Missing::Event));
    }
    for row in &rows {
        // The season's own on-sale time rules, not the events': a season
        // is often sold (and renewed) before single tickets.
        match SaleStatus::from_db(row.get("sale")) {
            SaleStatus::OnSale | SaleStatus::NotYet => {}
            SaleStatus::Draft => return Err(AppError::NotFound(Missing::Event)),
            status => {
                return Err(AppError::Conflict(Conflict::NotSelling {
                    status,
                    on_sale_at: row.get("on_sale_at"),
                    time_zone: row.get("time_zone"),
                }));
            }
        }
    }
    let season_on_sale: OffsetDateTime = rows[0].get("season_on_sale_at");
    if !renewal && season_on_sale > OffsetDateTime::now_utc() {
        return Err(AppError::Conflict(Conflict::NotSelling {
            status: SaleStatus::NotYet,
            on_sale_at: Some(season_on_sale),
            time_zone: rows[0].get("time_zone"),
        }));
    }
    Ok(())
}

/// Staff move one place of a live season hold (a renewal, say) to
/// another, in every night at once: the old place goes back on sale and
/// the new one is claimed, or nothing changes.
pub async fn move_place(
    pool: &Pool,
    hold_id: HoldId,
    from: SeatId,
    to: SeatId,
) -> AppResult<SeasonHold> {
    crate::db::retrying(|| {
        crate::db::in_transaction(pool, async |tx| {
            let found = lock_hold(tx, hold_id, false)
                .await?
                .ok_or(AppError::NotFound(Missing::Hold))?;
            refuse_unless_selling(tx, found.season_id, &found.nights, true).await?;
            let hold = lock_hold(tx, hold_id, true)
                .await?
                .ok_or(AppError::NotFound(Missing::Hold))?;
            let live = tx
                .query_one(
                    "SELECT state = 'OPEN' AND expires_at > now() FROM season_holds WHERE id = $1",
                    &[&hold_id],
                )
                .await?
                .get::<_, bool>(0);
            if !live {
                return Err(AppError::HoldExpired);
            }
            if !hold.seat_ids.contains(&from) {
                return Err(AppError::NotFound(Missing::SeatInHold));
            }
            must_be_places(tx, hold.season_id, &[to]).await?;
            release_place_in(tx, &hold, from).await?;
            let taken = claim_in(tx, hold.season_id, &hold, &[to], Locking::Wait).await?;
            if !taken.is_empty() {
                return Err(AppError::SeasonPlacesTaken { taken });
            }
            lock_hold(tx, hold_id, false)
                .await?
                .ok_or(AppError::NotFound(Missing::Hold))
        })
    })
    .await
}
