//! Choosing the best block of N adjacent seats: pure rules, no I/O.
//!
//! Rows are offered in order of their best free seat's rank. Within a row,
//! free seats form runs of consecutive positions; a block is N adjacent
//! eligible seats inside a run. A block's score is the sum of its seats'
//! ranks (lower is better).
//!
//! The orphan rule: blocks in the same row count as equally good. Within the
//! chosen row we never leave a single empty seat between the block and a
//! taken seat or the row's end if another block of that row leaves none,
//! even if it sits a little further from the centre; a lone seat is the
//! hardest seat to sell. Across rows the best score wins, so a better row is
//! never given up to avoid an orphan.
//!
//! A party with wheelchair users asks for `w` wheelchair spaces: its block
//! holds exactly `w` of them, the rest of the party beside them (on
//! companion seats or ordinary ones). Other parties' blocks may hold any
//! number; whether a held-back space may be given to them at all is the
//! seat's `eligible`, decided by the caller.

use super::ids::SeatId;
/// A free seat of one row, in position order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreeSeat {
    pub id: SeatId,
    pub position: i32,
    pub rank: i32,
    /// Matches the request's filters (a free seat of another tier still
    /// counts as empty for the orphan rule, but can't be given).
    pub eligible: bool,
    /// A wheelchair space.
    pub wheelchair: bool,
    /// A companion seat (beside a wheelchair space).
    pub companion: bool,
}

/// How many wheelchair spaces a block must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WheelchairSpaces {
    /// A general request: as many as eligibility allows.
    Any,
    /// A party with this many wheelchair users (at least 1).
    Exactly(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub seat_ids: Vec<SeatId>,
    pub rank_sum: i64,
    pub leaves_orphan: bool,
    pub start: i32,
    /// Companion seats in the block.
    pub companions: usize,
}

/// Every block of `n` adjacent eligible seats in the row (holding the
/// wheelchair spaces asked for).
pub fn blocks(row: &[FreeSeat], n: usize, spaces: WheelchairSpaces) -> Vec<Block> {
    let mut found = Vec::new();
    if n == 0 {
        return found;
    }
    for run in runs(row) {
        let (first, last) = (run[0].position, run[run.len() - 1].position);
        for window in run.windows(n) {
            if !window.iter().all(|s| s.eligible) {
                continue;
            }
            if let WheelchairSpaces::Exactly(w) = spaces
                && window.iter().filter(|s| s.wheelchair).count() != w
            {
                continue;
            }
            let start = window[0].position;
            let end = window[n - 1].position;
            found.push(Block {
                seat_ids: window.iter().map(|s| s.id).collect(),
                rank_sum: window.iter().map(|s| i64::from(s.rank)).sum(),
                leaves_orphan: start - first == 1 || last - end == 1,
                start,
                companions: window.iter().filter(|s| s.companion).count(),
            });
        }
    }
    found
}

/// Maximal stretches of seats at consecutive positions.
fn runs(row: &[FreeSeat]) -> Vec<&[FreeSeat]> {
    let mut runs = Vec::new();
    let mut begin = 0;
    for i in 1..=row.len() {
        if i == row.len() || row[i].position != row[i - 1].position + 1 {
            if begin < i {
                runs.push(&row[begin..i]);
            }
            begin = i;
        }
    }
    runs
}

/// Finds the best block over rows offered best-first, and says when no
/// later row can beat what was found.
#[derive(Debug)]
pub struct BlockSearch {
    n: usize,
    spaces: WheelchairSpaces,
    /// Every block of every row considered, with the row's order of arrival.
    blocks: Vec<(usize, Block)>,
    rows: usize,
}

impl BlockSearch {
    pub fn new(n: usize) -> BlockSearch {
        BlockSearch::with_spaces(n, WheelchairSpaces::Any)
    }

    /// A search for blocks holding exactly the wheelchair spaces asked for.
    /// Its rows must be offered in order of their best free wheelchair
    /// space's rank (see `is_settled_before`).
    pub fn with_spaces(n: usize, spaces: WheelchairSpaces) -> BlockSearch {
        BlockSearch {
            n,
            spaces,
            blocks: Vec::new(),
            rows: 0,
        }
    }

    pub fn consider_row(&mut self, row: &[FreeSeat]) {
        let row_number = self.rows;
        self.blocks.extend(
            blocks(row, self.n, self.spaces)
                .into_iter()
                .map(|b| (row_number, b)),
        );
        self.rows += 1;
    }

    /// A row's score is its best remaining block's rank sum.
    fn row_scores(&self) -> std::collections::HashMap<usize, i64> {
        let mut scores = std::collections::HashMap::new();
        for (row, block) in &self.blocks {
            let score = scores.entry(*row).or_insert(block.rank_sum);
            *score = (*score).min(block.rank_sum);
        }
        scores
    }

    /// A row whose best free seat has rank `min_rank` scores at least
    /// `n * min_rank`; once that can't beat the best so far, stop looking.
    /// For a wheelchair party, rows come in order of their best free
    /// wheelchair space, and only its `w` spaces are sure to rank at
    /// `min_rank` or worse (the others may rank better, but never below 0:
    /// ranks are 0 or more, a CHECK of the seats table).
    pub fn is_settled_before(&self, min_rank: i32) -> bool {
        let sure = match self.spaces {
            WheelchairSpaces::Any => self.n,
            WheelchairSpaces::Exactly(w) => w,
        };
        self.blocks
            .iter()
            .map(|(_, b)| b.rank_sum)
            .min()
            .is_some_and(|best| best <= sure as i64 * i64::from(min_rank))
    }

    /// Up to `k` blocks that share no seat, best first: the best row first
    /// (rows by their best block's score), and within a row orphan-free
    /// blocks first, then (for a wheelchair party) those using more
    /// companion seats, then by rank. The first is the best block.
    pub fn ranked(&self, k: usize) -> Vec<Block> {
        let scores = self.row_scores();
        let prefer_companions = matches!(self.spaces, WheelchairSpaces::Exactly(_));
        let mut order: Vec<&(usize, Block)> = self.blocks.iter().collect();
        order.sort_by_key(|(row, b)| {
            let companions = if prefer_companions { b.companions } else { 0 };
            (
                scores[row],
                *row,
                b.leaves_orphan,
                std::cmp::Reverse(companions),
                b.rank_sum,
                b.start,
            )
        });
        let mut chosen: Vec<Block> = Vec::new();
        let mut used: std::collections::HashSet<SeatId> = std::collections::HashSet::new();
        for (_, block) in order {
            if chosen.len() == k {
                break;
            }
            if block.seat_ids.iter().all(|id| !used.contains(id)) {
                used.extend(block.seat_ids.iter().copied());
                chosen.push(block.clone());
            }
        }
        chosen
    }

    /// Forgets seats another buyer took: blocks using them are dropped.
    pub fn forget(&mut self, lost: &std::collections::HashSet<SeatId>) {
        self.blocks
            .retain(|(_, b)| b.seat_ids.iter().all(|id| !lost.contains(id)));
    }

    pub fn into_best(self) -> Option<Block> {
        self.ranked(1).into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row from a picture: '.' free, 'x' taken, 'o' free but ineligible,
    /// 'w' a free wheelchair space, 'h' one held back (ineligible), 'c' a
    /// companion seat.
    /// Seat ids are positions + 100; rank is distance from the row's centre.
    fn row(picture: &str) -> Vec<FreeSeat> {
        let width = picture.len() as i32;
        picture
            .chars()
            .enumerate()
            .filter(|(_, c)| *c != 'x')
            .map(|(p, c)| {
                let p = p as i32;
                FreeSeat {
                    id: SeatId(100 + i64::from(p)),
                    position: p,
                    rank: (2 * p - (width - 1)).abs(),
                    eligible: c == '.' || c == 'w' || c == 'c',
                    wheelchair: c == 'w' || c == 'h',
                    companion: c == 'c',
                }
            })
            .collect()
    }

    fn positions(block: &Block) -> Vec<i64> {
        block.seat_ids.iter().map(|id| id.0 - 100).collect()
    }

    fn choose(pictures: &[&str], n: usize) -> Option<Vec<i64>> {
        let mut search = BlockSearch::new(n);
        for picture in pictures {
            search.consider_row(&row(picture));
        }
        search.into_best().map(|b| positions(&b))
    }

    #[test]
    fn an_empty_row_gives_the_centre_block() {
        assert_eq!(choose(&["........"], 2), Some(vec![3, 4]));
        assert_eq!(choose(&["........"], 4), Some(vec![2, 3, 4, 5]));
    }

    #[test]
    fn a_block_never_spans_a_taken_seat() {
        assert_eq!(choose(&["xx..x..xxx"], 3), None);
        assert_eq!(choose(&["xx..x...xx"], 3), Some(vec![5, 6, 7]));
    }

    #[test]
    fn the_centre_block_is_passed_over_when_it_strands_a_single_seat() {
        // Free run at positions 2..=7 of a 10-seat row; ranks 5,3,1,1,3,5.
        // The centre blocks 3..=5 and 4..=6 (score 5) each strand one seat
        // (2 or 7). The orphan-free blocks 2..=4 and 5..=7 both score 9;
        // the leftmost wins the tie.
        let picture = "xx......xx";
        let all = blocks(&row(picture), 3, WheelchairSpaces::Any);
        for start in [3, 4] {
            assert!(all.iter().find(|b| b.start == start).unwrap().leaves_orphan);
        }
        assert_eq!(choose(&[picture], 3), Some(vec![2, 3, 4]));
    }

    #[test]
    fn when_every_block_of_the_row_strands_a_seat_the_best_by_rank_is_taken() {
        // Run of 4 (ranks 3,1,1,3) for a party of 3: both blocks strand one
        // seat and both score 5, so the leftmost is taken, not refused.
        assert_eq!(choose(&["xxx....xxx"], 3), Some(vec![3, 4, 5]));
    }

    #[test]
    fn row_ends_count_like_taken_seats() {
        // "x....": ranks 2,0,2,4 at positions 1..=4. The block 2,3 strands
        // seat 1 against the taken seat and seat 4 against the row's end.
        // 1,2 (score 2) leaves 3,4 together, and wins.
        let picture = "x....";
        let middle = blocks(&row(picture), 2, WheelchairSpaces::Any)
            .into_iter()
            .find(|b| b.start == 2)
            .unwrap();
        assert!(middle.leaves_orphan);
        assert_eq!(choose(&[picture], 2), Some(vec![1, 2]));
    }

    #[test]
    fn a_better_row_is_not_given_up_to_avoid_an_orphan() {
        // Front row: only blocks that strand a seat. Second row: perfect.
        // Seats in the second row rank worse (add 1000 per row).
        let front = row("xxx....xxx");
        let back: Vec<FreeSeat> = row("..........")
            .into_iter()
            .map(|s| FreeSeat {
                id: SeatId(s.id.0 + 1000),
                rank: s.rank + 1000,
                ..s
            })
            .collect();
        let mut search = BlockSearch::new(3);
        search.consider_row(&front);
        search.consider_row(&back);
        let best = search.into_best().unwrap();
        assert!(best.seat_ids.iter().all(|id| id.0 < 1000), "front row kept");
    }

    #[test]
    fn ineligible_free_seats_are_empty_space_but_never_given() {
        // 'o' is a free seat of another tier: it can't be in the block, but
        // the block may not strand a single eligible-or-not seat either.
        let picture = "x.o....x";
        let chosen = choose(&[picture], 2).unwrap();
        assert!(!chosen.contains(&2));
        assert_eq!(chosen, vec![3, 4]);
    }

    #[test]
    fn the_search_settles_once_no_later_row_can_win() {
        let mut search = BlockSearch::new(2);
        assert!(!search.is_settled_before(0));
        search.consider_row(&row("...."));
        // Best block is positions 1,2 with ranks 1+1 = 2.
        assert!(search.is_settled_before(1));
        assert!(!search.is_settled_before(0));
    }

    #[test]
    fn ranked_blocks_share_no_seat_and_start_with_the_best() {
        let mut search = BlockSearch::new(2);
        search.consider_row(&row("......"));
        let ranked = search.ranked(3);
        assert_eq!(ranked.len(), 3);
        assert_eq!(positions(&ranked[0]), vec![2, 3]);
        let mut all: Vec<SeatId> = ranked.iter().flat_map(|b| b.seat_ids.clone()).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 6, "disjoint");
        // Losing a seat to another buyer removes the blocks that used it.
        search.forget(&[SeatId(103)].into_iter().collect());
        assert!(
            search
                .ranked(3)
                .iter()
                .all(|b| !b.seat_ids.contains(&SeatId(103)))
        );
    }

    fn choose_for_wheelchairs(pictures: &[&str], n: usize, w: usize) -> Option<Vec<i64>> {
        let mut search = BlockSearch::with_spaces(n, WheelchairSpaces::Exactly(w));
        for picture in pictures {
            search.consider_row(&row(picture));
        }
        search.into_best().map(|b| positions(&b))
    }

    #[test]
    fn a_wheelchair_party_gets_exactly_its_spaces_with_the_rest_beside_them() {
        // Spaces at both ends; the party of 3 with one wheelchair user gets
        // a space and the two seats next to it, never the centre alone.
        assert_eq!(
            choose_for_wheelchairs(&["w......w"], 3, 1),
            Some(vec![0, 1, 2])
        );
        // Two spaces side by side: a party with one user takes one of them,
        // not both.
        assert_eq!(choose_for_wheelchairs(&["..ww.."], 2, 1), Some(vec![1, 2]));
        assert_eq!(choose_for_wheelchairs(&["..ww.."], 2, 2), Some(vec![2, 3]));
        // No space, or none with room beside it: nothing.
        assert_eq!(choose_for_wheelchairs(&["........"], 2, 1), None);
        assert_eq!(choose_for_wheelchairs(&["wx......"], 2, 1), None);
    }

    #[test]
    fn a_wheelchair_party_sits_its_companion_on_the_companion_seat() {
        // The companion seat (2, rank 4) is further from the centre than
        // the space's other neighbour (4, rank 0), but it is for them.
        assert_eq!(
            choose_for_wheelchairs(&["..cw....."], 2, 1),
            Some(vec![2, 3])
        );
        // Without one, the better-ranked neighbour.
        assert_eq!(
            choose_for_wheelchairs(&["...w....."], 2, 1),
            Some(vec![3, 4])
        );
    }

    #[test]
    fn a_general_party_never_gets_a_held_back_space_but_may_get_a_released_one() {
        // 'h' (held back, ineligible) splits the row: the block goes round it.
        assert_eq!(choose(&["..h.."], 2), Some(vec![0, 1]));
        // Released ('w', eligible): it is an ordinary seat to a general party.
        // (The centre block would strand seat 0: the orphan rule moves it.)
        assert_eq!(choose(&["..w.."], 3), Some(vec![0, 1, 2]));
    }

    #[test]
    fn a_wheelchair_search_settles_on_its_spaces_ranks_only() {
        let mut search = BlockSearch::with_spaces(3, WheelchairSpaces::Exactly(1));
        // Space at position 0 (rank 7) with seats 1, 2 (ranks 5, 3): 15.
        search.consider_row(&row("w......."));
        // A later row whose best space ranks 8 may still hold a block
        // scoring 8 + 0 + 0 < 15: not settled. One ranking 15 can't win.
        assert!(!search.is_settled_before(8));
        assert!(search.is_settled_before(15));
    }
}
