//! The walk: free seats read in rank order a few rows at a time, handed
//! to the pure block search, and the best candidate blocks locked with
//! SKIP LOCKED (steps 2 and 3 of the module's account).

use std::collections::HashSet;

use tokio_postgres::Row;

use super::free_seats::{HELD_BACK, WalkOf, walk_statement};
use super::request::Filters;
use crate::db::GenericClient;
use crate::domain::best_available::{BlockSearch, FreeSeat, WheelchairSpaces};
use crate::domain::ids::{EventId, SeatId, SectionId};
use crate::error::{AppError, AppResult};

/// How many free seats one read of the rank-ordered walk returns.
const WALK_BATCH: i64 = 128;
/// The most rows read in one round trip.
const MAX_ROWS_PER_ROUND: usize = 64;
/// Rounds lost to other buyers before we give up as unavailable (try again).
const MAX_LOCK_ATTEMPTS: u32 = 100;
/// The most candidate blocks tried, best first, in one round trip.
const CANDIDATE_BLOCKS: usize = 16;
/// Fresh reads after running out of candidates under contention.
const MAX_FRESH_STARTS: usize = 4;

/// A free seat from the rank-ordered walk.
struct Candidate {
    id: SeatId,
    section_id: SectionId,
    row_index: i32,
    rank: i32,
}

/// The next free seats of the kind after `(rank, id)` in rank order.
/// Takes no locks.
async fn walk(
    client: &impl GenericClient,
    event_id: EventId,
    filters: &Filters,
    of: WalkOf,
    after: (i32, SeatId),
) -> AppResult<Vec<Candidate>> {
    let statement = client.prepare_cached(walk_statement(of)).await?;
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
                &filters.avoid_restricted_view,
                &filters.asks_nothing_of_the_waitlist(),
                &filters.max_price_cents,
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

/// The free seats of the given rows, per row in position order. No locks.
/// Available seats come from `seats_available_by_row` (migration V30), one
/// index range per row, so a nearly full row costs its few free seats and
/// not every seat in it; lapsed holds come from `seats_held_by_expiry`,
/// which holds only held seats and is read up to now. The lateral join
/// keeps the available side to the rows asked for even when statistics
/// are stale and claim the event has no free seat.
async fn read_rows(
    client: &impl GenericClient,
    event_id: EventId,
    rows: &[(SectionId, i32)],
    filters: &Filters,
) -> AppResult<Vec<Vec<FreeSeat>>> {
    static READ_ROWS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let reserved = crate::db::waitlist_first::reserved_sql(
            "$1",
            "s.section_id",
            "s.tier_id",
            "s.accessibility",
        );
        format!(
            "WITH wanted AS (SELECT * FROM unnest($2::bigint[], $3::int[]) AS w (section_id, row_index)),
             free AS (
               SELECT a.id, a.section_id, a.row_index, a.position, a.rank, a.tier_id, a.accessibility
                 FROM wanted w
                CROSS JOIN LATERAL (
                      SELECT id, section_id, row_index, position, rank, tier_id, accessibility
                        FROM seats
                       WHERE event_id = $1 AND section_id = w.section_id
                         AND row_index = w.row_index AND status = 'AVAILABLE') a
               UNION ALL
               SELECT id, section_id, row_index, position, rank, tier_id, accessibility
                 FROM seats
                WHERE event_id = $1 AND status = 'HELD' AND held_until < now()
                  AND (section_id, row_index) IN (SELECT section_id, row_index FROM wanted))
             SELECT s.id, s.section_id, s.row_index, s.position, s.rank,
                    ($4::bigint IS NULL OR s.tier_id = $4)
                    AND NOT ($5::bool AND 'restricted_view' = ANY (s.accessibility))
                    AND ($6::bool OR NOT s.accessibility && ARRAY['wheelchair', 'companion']
                         OR NOT {HELD_BACK})
                    AND ($7::bool OR NOT {reserved})
                    AND ($8::int IS NULL
                         OR s.tier_id IN (SELECT id FROM price_tiers
                                           WHERE event_id = $1 AND price_cents <= $8)) AS eligible,
                    'wheelchair' = ANY (s.accessibility) AS wheelchair,
                    'companion' = ANY (s.accessibility) AS companion
               FROM free s
              ORDER BY s.section_id, s.row_index, s.position"
        )
    });
    let statement = client.prepare_cached(&READ_ROWS).await?;
    let sections: Vec<SectionId> = rows.iter().map(|r| r.0).collect();
    let row_indexes: Vec<i32> = rows.iter().map(|r| r.1).collect();
    let found = client
        .query(
            &statement,
            &[
                &event_id,
                &sections,
                &row_indexes,
                &filters.tier_id,
                &filters.avoid_restricted_view,
                &(filters.wheelchair > 0),
                &filters.asks_nothing_of_the_waitlist(),
                &filters.max_price_cents,
            ],
        )
        .await?;
    let mut by_row: Vec<Vec<FreeSeat>> = vec![Vec::new(); rows.len()];
    for row in &found {
        let key = (
            row.get::<_, SectionId>("section_id"),
            row.get::<_, i32>("row_index"),
        );
        if let Some(i) = rows.iter().position(|k| *k == key) {
            by_row[i].push(free_seat(row));
        }
    }
    Ok(by_row)
}

/// Locks those of `seat_ids` that are still free and that no one else has
/// locked (never waiting), and returns their ids.
async fn lock_free(client: &impl GenericClient, seat_ids: &[SeatId]) -> AppResult<HashSet<SeatId>> {
    let statement = client
        .prepare_cached(
            "SELECT id FROM seats
              WHERE id = ANY($1)
                AND (status = 'AVAILABLE' OR (status = 'HELD' AND held_until < now()))
                FOR UPDATE SKIP LOCKED",
        )
        .await?;
    Ok(client
        .query(&statement, &[&seat_ids])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect())
}

/// Locks the first of the candidate blocks (`block_size` seats each, best
/// first) that is wholly free and unlocked, and nothing else; see migration
/// V9. Returns it, or the seats of the blocks tried that others had.
async fn lock_first_free_block(
    client: &impl GenericClient,
    blocks: &[SeatId],
    block_size: usize,
) -> AppResult<(Option<Vec<SeatId>>, HashSet<SeatId>)> {
    let statement = client
        .prepare_cached("SELECT locked, unavailable FROM lock_first_free_block($1, $2)")
        .await?;
    let row = client
        .query_one(&statement, &[&blocks, &(block_size as i32)])
        .await?;
    let unavailable: Vec<SeatId> = row.get::<_, Option<Vec<SeatId>>>(1).unwrap_or_default();
    Ok((row.get(0), unavailable.into_iter().collect()))
}

fn free_seat(row: &Row) -> FreeSeat {
    FreeSeat {
        id: row.get("id"),
        position: row.get("position"),
        rank: row.get("rank"),
        eligible: row.get("eligible"),
        wheelchair: row.get("wheelchair"),
        companion: row.get("companion"),
    }
}

/// Rows in best-first order, read from the rank-ordered walk on demand.
struct RowWalk<'a> {
    event_id: EventId,
    filters: &'a Filters,
    of: WalkOf,
    seen: HashSet<(SectionId, i32)>,
    /// Rows found by the walk but not read yet, with their best free rank.
    pending: std::collections::VecDeque<((SectionId, i32), i32)>,
    after: (i32, SeatId),
    done: bool,
}

impl RowWalk<'_> {
    /// The best free rank of the next unread row, walking further if needed.
    async fn peek(&mut self, client: &impl GenericClient) -> AppResult<Option<i32>> {
        while self.pending.is_empty() && !self.done {
            let batch = walk(client, self.event_id, self.filters, self.of, self.after).await?;
            self.done = (batch.len() as i64) < WALK_BATCH;
            if let Some(last) = batch.last() {
                self.after = (last.rank, last.id);
            }
            for seat in batch {
                let key = (seat.section_id, seat.row_index);
                if self.seen.insert(key) {
                    self.pending.push_back((key, seat.rank));
                }
            }
        }
        Ok(self.pending.front().map(|(_, rank)| *rank))
    }

    /// Up to `n` of the next rows, each with its best free rank.
    async fn take(
        &mut self,
        client: &impl GenericClient,
        n: usize,
    ) -> AppResult<Vec<(SectionId, i32)>> {
        let mut rows = Vec::with_capacity(n);
        while rows.len() < n && self.peek(client).await?.is_some() {
            if let Some((key, _)) = self.pending.pop_front() {
                rows.push(key);
            }
        }
        Ok(rows)
    }
}

/// The best block of `count` adjacent seats, locked, or None if there is
/// none. A party with wheelchair users walks the rows that have a free
/// wheelchair space, and its block holds exactly its spaces.
pub(super) async fn find_block(
    client: &impl GenericClient,
    event_id: EventId,
    filters: &Filters,
    count: usize,
) -> AppResult<Option<Vec<SeatId>>> {
    let (of, spaces) = match filters.wheelchair {
        0 => (WalkOf::General, WheelchairSpaces::Any),
        w => (
            WalkOf::WheelchairSpaces,
            WheelchairSpaces::Exactly(w as usize),
        ),
    };
    let mut attempts = 0;
    for _ in 0..MAX_FRESH_STARTS {
        let mut walk = RowWalk {
            event_id,
            filters,
            of,
            seen: HashSet::new(),
            pending: Default::default(),
            after: (i32::MIN, SeatId(i64::MIN)),
            done: false,
        };
        let mut search = BlockSearch::with_spaces(count, spaces);
        let mut round_size = 1;
        let mut contended = false;
        loop {
            if let Some(next_rank) = walk.peek(client).await?
                && !search.is_settled_before(next_rank)
            {
                let keys = walk.take(client, round_size).await?;
                for row in read_rows(client, event_id, &keys, filters).await? {
                    search.consider_row(&row);
                }
                round_size = (round_size * 2).min(MAX_ROWS_PER_ROUND);
                continue;
            }
            let candidates = search.ranked(CANDIDATE_BLOCKS);
            if candidates.is_empty() {
                break;
            }
            let wanted: Vec<SeatId> = candidates.iter().flat_map(|b| b.seat_ids.clone()).collect();
            let (locked, lost) = lock_first_free_block(client, &wanted, count).await?;
            if let Some(block) = locked {
                return Ok(Some(block));
            }
            // Other buyers got some of each: those seats are taken now.
            contended = true;
            attempts += 1;
            if attempts >= MAX_LOCK_ATTEMPTS {
                return Err(AppError::Unavailable(anyhow::anyhow!(
                    "best available lost {attempts} rounds to other buyers"
                )));
            }
            search.forget(&lost);
        }
        // Out of candidates. Without contention that is the answer; with
        // it, some seats we gave up on may have been only briefly locked by
        // a buyer who took others: look again from a fresh read.
        if !contended {
            return Ok(None);
        }
    }
    Ok(None)
}

/// The best `count` free seats by rank, wherever they are, locked: for a
/// party with wheelchair users, its spaces first and then the rest.
pub(super) async fn find_apart(
    client: &impl GenericClient,
    event_id: EventId,
    filters: &Filters,
    count: usize,
) -> AppResult<Option<Vec<SeatId>>> {
    let mut chosen: Vec<SeatId> = Vec::with_capacity(count);
    let wheelchair = filters.wheelchair as usize;
    let walks = match wheelchair {
        0 => vec![(WalkOf::General, count)],
        w => vec![
            (WalkOf::WheelchairSpaces, w),
            (WalkOf::Companions, count - w),
        ],
    };
    for (of, wanted) in walks {
        if wanted > 0 && !lock_best(client, event_id, filters, of, wanted, &mut chosen).await? {
            return Ok(None);
        }
    }
    Ok(Some(chosen))
}

/// Adds the best `wanted` free seats of the walk to `chosen`, locked.
/// Locks only as many as are still needed at each step, so a party of 2
/// never locks a whole batch away from other buyers. False if there are
/// not enough.
async fn lock_best(
    client: &impl GenericClient,
    event_id: EventId,
    filters: &Filters,
    of: WalkOf,
    wanted: usize,
    chosen: &mut Vec<SeatId>,
) -> AppResult<bool> {
    let goal = chosen.len() + wanted;
    let mut after = (i32::MIN, SeatId(i64::MIN));
    loop {
        let batch = walk(client, event_id, filters, of, after).await?;
        let Some(last) = batch.last() else {
            return Ok(false);
        };
        after = (last.rank, last.id);
        let mut candidates: &[Candidate] = &batch;
        while !candidates.is_empty() {
            let take = (goal - chosen.len()).min(candidates.len());
            let (next, rest) = candidates.split_at(take);
            let ids: Vec<SeatId> = next.iter().map(|c| c.id).collect();
            let locked = lock_free(client, &ids).await?;
            chosen.extend(ids.into_iter().filter(|id| locked.contains(id)));
            if chosen.len() == goal {
                return Ok(true);
            }
            candidates = rest;
        }
        if (batch.len() as i64) < WALK_BATCH {
            return Ok(false);
        }
    }
}
