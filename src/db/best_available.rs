//! "N best available": finding and claiming seats for a party in one
//! transaction, with `FOR UPDATE SKIP LOCKED` so concurrent buyers get
//! different seats without waiting on each other.
//!
//! 1. Free seats are read in rank order (no locks) from partial indexes
//!    that hold only free seats, so the cost does not grow with seats sold.
//!    Their rows come out best-first.
//! 2. The free seats of those rows are locked with SKIP LOCKED, a few rows
//!    at a time (1, 2, 4, … rows), and handed to the pure block search. A
//!    seat another buyer has locked is skipped and so counts as taken.
//! 3. The search stops as soon as no later row can beat the best block, and
//!    the chosen seats, already locked by us, are claimed with the same
//!    conditional UPDATE as a pick. Seats locked but not chosen are simply
//!    left at commit.

use std::collections::HashSet;
use std::time::Duration;

use tokio_postgres::Row;
use uuid::Uuid;

use super::{GenericClient, Pool, events, holds, retrying, seats};
use crate::domain::best_available::{BlockSearch, FreeSeat};
use crate::error::{AppError, AppResult};

#[derive(Debug, Clone)]
pub struct BestAvailableRequest {
    pub count: u32,
    /// A section name, as the seat listing gives it.
    pub section: Option<String>,
    /// A price tier code, as the seat listing gives it.
    pub tier: Option<String>,
    pub together: bool,
}

#[derive(Debug, Clone)]
pub struct BestAvailableOutcome {
    pub hold: holds::HoldSummary,
    pub added: Vec<i64>,
    /// Whether the seats given are adjacent in one row.
    pub together: bool,
}

/// How many free seats one read of the rank-ordered walk returns.
const WALK_BATCH: i64 = 128;
/// The most rows locked and searched in one round trip.
const MAX_ROWS_PER_ROUND: usize = 64;

struct Filters {
    section_id: Option<i64>,
    tier_id: Option<i64>,
}

/// A free seat from the rank-ordered walk.
struct Candidate {
    id: i64,
    section_id: i64,
    row_index: i32,
    rank: i32,
}

pub async fn hold_best_available(
    pool: &Pool,
    event_id: i64,
    buyer_id: Uuid,
    request: &BestAvailableRequest,
    ttl: Duration,
    max_seats: u32,
) -> AppResult<BestAvailableOutcome> {
    retrying(|| hold_best_available_once(pool, event_id, buyer_id, request, ttl, max_seats)).await
}

async fn hold_best_available_once(
    pool: &Pool,
    event_id: i64,
    buyer_id: Uuid,
    request: &BestAvailableRequest,
    ttl: Duration,
    max_seats: u32,
) -> AppResult<BestAvailableOutcome> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    if !events::exists(&tx, event_id).await? {
        return Err(AppError::not_found("Event"));
    }
    let filters = resolve_filters(&tx, event_id, request).await?;
    let hold = holds::lock_or_open(&tx, event_id, buyer_id, ttl).await?;
    let already = seats::held_by(&tx, hold.id).await?;
    if already.len() + request.count as usize > max_seats as usize {
        return Err(AppError::HoldLimit { max: max_seats });
    }

    let count = request.count as usize;
    let chosen = if request.together {
        find_block(&tx, event_id, &filters, count).await?
    } else {
        find_apart(&tx, event_id, &filters, count).await?
    };
    let Some(mut chosen) = chosen else {
        let free = count_free(&tx, event_id, &filters).await?;
        return Err(if request.together && free >= count as i64 {
            AppError::Conflict {
                code: "not_enough_seats_together",
                message: format!(
                    "There are no {count} seats together{}, but {free} seats are free apart. \
                     Ask again with \"together\": false to take the best {count} even if apart.",
                    filter_words(request)
                ),
            }
        } else {
            AppError::Conflict {
                code: "not_enough_seats",
                message: format!(
                    "Only {free} seat(s) are free{}; {count} were asked for.",
                    filter_words(request)
                ),
            }
        });
    };
    chosen.sort_unstable();
    let claimed = seats::claim(&tx, event_id, hold.id, hold.expires_at, &chosen).await?;
    if claimed.len() != chosen.len() {
        // We hold these rows' locks and the claim re-checks the same
        // predicate, so this would be a bug; refuse rather than half-claim.
        return Err(AppError::Internal(anyhow::anyhow!(
            "best available locked {chosen:?} but claimed only {claimed:?}"
        )));
    }
    let together = are_adjacent(&tx, &chosen).await?;
    let held = seats::held_by(&tx, hold.id).await?;
    tx.commit().await?;
    Ok(BestAvailableOutcome {
        hold: holds::HoldSummary {
            hold_id: hold.id,
            expires_at: hold.expires_at,
            seat_ids: held,
        },
        added: chosen,
        together,
    })
}

fn filter_words(request: &BestAvailableRequest) -> String {
    let mut words = String::new();
    if let Some(section) = &request.section {
        words.push_str(&format!(" in {section}"));
    }
    if let Some(tier) = &request.tier {
        words.push_str(&format!(" at tier {tier}"));
    }
    words
}

async fn resolve_filters(
    client: &impl GenericClient,
    event_id: i64,
    request: &BestAvailableRequest,
) -> AppResult<Filters> {
    let section_id = match &request.section {
        None => None,
        Some(name) => {
            let statement = client
                .prepare_cached("SELECT id FROM sections WHERE event_id = $1 AND name = $2")
                .await?;
            let row = client.query_opt(&statement, &[&event_id, name]).await?;
            Some(row.map(|r| r.get::<_, i64>(0)).ok_or_else(|| {
                AppError::validation(
                    "unknown_section",
                    format!("This event has no section {name:?}."),
                )
            })?)
        }
    };
    let tier_id = match &request.tier {
        None => None,
        Some(code) => {
            let statement = client
                .prepare_cached("SELECT id FROM price_tiers WHERE event_id = $1 AND code = $2")
                .await?;
            let row = client.query_opt(&statement, &[&event_id, code]).await?;
            Some(row.map(|r| r.get::<_, i64>(0)).ok_or_else(|| {
                AppError::validation(
                    "unknown_tier",
                    format!("This event has no price tier {code:?}."),
                )
            })?)
        }
    };
    Ok(Filters {
        section_id,
        tier_id,
    })
}

/// The next free seats after `(rank, id)` in rank order, from the two
/// partial indexes (available, and held but lapsed). Takes no locks.
async fn walk(
    client: &impl GenericClient,
    event_id: i64,
    filters: &Filters,
    after: (i32, i64),
) -> AppResult<Vec<Candidate>> {
    let statement = client
        .prepare_cached(
            "SELECT id, section_id, row_index, rank FROM (
                 (SELECT id, section_id, row_index, rank FROM seats
                   WHERE event_id = $1 AND status = 'AVAILABLE' AND (rank, id) > ($2, $3)
                     AND ($4::bigint IS NULL OR section_id = $4)
                     AND ($5::bigint IS NULL OR tier_id = $5)
                   ORDER BY rank, id LIMIT $6)
                 UNION ALL
                 (SELECT id, section_id, row_index, rank FROM seats
                   WHERE event_id = $1 AND status = 'HELD' AND held_until < now()
                     AND (rank, id) > ($2, $3)
                     AND ($4::bigint IS NULL OR section_id = $4)
                     AND ($5::bigint IS NULL OR tier_id = $5)
                   ORDER BY rank, id LIMIT $6)
             ) free ORDER BY rank, id LIMIT $6",
        )
        .await?;
    let rows = client
        .query(
            &statement,
            &[
                &event_id,
                &after.0,
                &after.1,
                &filters.section_id,
                &filters.tier_id,
                &WALK_BATCH,
            ],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Candidate {
            id: row.get("id"),
            section_id: row.get("section_id"),
            row_index: row.get("row_index"),
            rank: row.get("rank"),
        })
        .collect())
}

/// Locks the free seats of the given rows that no one else has locked, and
/// returns them per row in position order.
async fn lock_rows(
    client: &impl GenericClient,
    event_id: i64,
    rows: &[(i64, i32)],
    tier_id: Option<i64>,
) -> AppResult<Vec<((i64, i32), Vec<FreeSeat>)>> {
    let statement = client
        .prepare_cached(
            "SELECT s.id, s.section_id, s.row_index, s.position, s.rank,
                    ($4::bigint IS NULL OR s.tier_id = $4) AS eligible
               FROM seats s
              WHERE s.event_id = $1
                AND (s.section_id, s.row_index) IN (SELECT * FROM unnest($2::bigint[], $3::int[]))
                AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.held_until < now()))
              ORDER BY s.section_id, s.row_index, s.position
                FOR UPDATE OF s SKIP LOCKED",
        )
        .await?;
    let sections: Vec<i64> = rows.iter().map(|r| r.0).collect();
    let row_indexes: Vec<i32> = rows.iter().map(|r| r.1).collect();
    let locked = client
        .query(&statement, &[&event_id, &sections, &row_indexes, &tier_id])
        .await?;
    let mut by_row: Vec<((i64, i32), Vec<FreeSeat>)> =
        rows.iter().map(|r| (*r, Vec::new())).collect();
    for row in &locked {
        let key = (
            row.get::<_, i64>("section_id"),
            row.get::<_, i32>("row_index"),
        );
        if let Some((_, seats)) = by_row.iter_mut().find(|(k, _)| *k == key) {
            seats.push(free_seat(row));
        }
    }
    Ok(by_row)
}

fn free_seat(row: &Row) -> FreeSeat {
    FreeSeat {
        id: row.get("id"),
        position: row.get("position"),
        rank: row.get("rank"),
        eligible: row.get("eligible"),
    }
}

/// The best block of `count` adjacent seats, locked, or None if there is none.
async fn find_block(
    client: &impl GenericClient,
    event_id: i64,
    filters: &Filters,
    count: usize,
) -> AppResult<Option<Vec<i64>>> {
    let mut search = BlockSearch::new(count);
    let mut seen_rows: HashSet<(i64, i32)> = HashSet::new();
    let mut pending: Vec<((i64, i32), i32)> = Vec::new();
    let mut after = (i32::MIN, i64::MIN);
    let mut round_size = 1;
    let mut walk_done = false;
    loop {
        // Keep enough rows queued for the next round, walking further if needed.
        while pending.len() < round_size && !walk_done {
            let batch = walk(client, event_id, filters, after).await?;
            walk_done = (batch.len() as i64) < WALK_BATCH;
            if let Some(last) = batch.last() {
                after = (last.rank, last.id);
            }
            for seat in batch {
                let key = (seat.section_id, seat.row_index);
                if seen_rows.insert(key) {
                    pending.push((key, seat.rank));
                }
            }
        }
        if pending.is_empty() {
            break;
        }
        let round: Vec<((i64, i32), i32)> =
            pending.drain(..round_size.min(pending.len())).collect();
        if search.is_settled_before(round[0].1) {
            break;
        }
        let keys: Vec<(i64, i32)> = round.iter().map(|(key, _)| *key).collect();
        for (_, row) in lock_rows(client, event_id, &keys, filters.tier_id).await? {
            search.consider_row(&row);
        }
        round_size = (round_size * 2).min(MAX_ROWS_PER_ROUND);
    }
    Ok(search.into_best().map(|block| block.seat_ids))
}

/// The best `count` free seats by rank, wherever they are, locked.
async fn find_apart(
    client: &impl GenericClient,
    event_id: i64,
    filters: &Filters,
    count: usize,
) -> AppResult<Option<Vec<i64>>> {
    let lock = client
        .prepare_cached(
            "SELECT id FROM seats
              WHERE id = ANY($1)
                AND (status = 'AVAILABLE' OR (status = 'HELD' AND held_until < now()))
                FOR UPDATE SKIP LOCKED",
        )
        .await?;
    let mut chosen: Vec<i64> = Vec::with_capacity(count);
    let mut after = (i32::MIN, i64::MIN);
    loop {
        let batch = walk(client, event_id, filters, after).await?;
        let Some(last) = batch.last() else {
            return Ok(None);
        };
        after = (last.rank, last.id);
        let wanted: Vec<i64> = batch.iter().map(|c| c.id).collect();
        let locked: HashSet<i64> = client
            .query(&lock, &[&wanted])
            .await?
            .iter()
            .map(|row| row.get(0))
            .collect();
        for id in wanted.into_iter().filter(|id| locked.contains(id)) {
            chosen.push(id);
            if chosen.len() == count {
                return Ok(Some(chosen));
            }
        }
        if (batch.len() as i64) < WALK_BATCH {
            return Ok(None);
        }
    }
}

async fn count_free(
    client: &impl GenericClient,
    event_id: i64,
    filters: &Filters,
) -> AppResult<i64> {
    let statement = client
        .prepare_cached(
            "SELECT count(*) FROM seats
              WHERE event_id = $1
                AND (status = 'AVAILABLE' OR (status = 'HELD' AND held_until < now()))
                AND ($2::bigint IS NULL OR section_id = $2)
                AND ($3::bigint IS NULL OR tier_id = $3)",
        )
        .await?;
    Ok(client
        .query_one(
            &statement,
            &[&event_id, &filters.section_id, &filters.tier_id],
        )
        .await?
        .get(0))
}

/// Whether the seats (sorted ids) sit side by side in one row.
async fn are_adjacent(client: &impl GenericClient, seat_ids: &[i64]) -> AppResult<bool> {
    let statement = client
        .prepare_cached(
            "SELECT count(DISTINCT (section_id, row_index)) = 1
                    AND max(position) - min(position) = count(*) - 1
               FROM seats WHERE id = ANY($1)",
        )
        .await?;
    Ok(client.query_one(&statement, &[&seat_ids]).await?.get(0))
}
