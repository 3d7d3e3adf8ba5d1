//! Seasons: the rules that don't need the database. A place of a season
//! is named by its seat in the season's first event; it is free when it
//! is free in every event the buyer takes.

use serde::Serialize;

use super::ids::{EventId, SeatId};

/// One night a place could not be had in: which place (its first-event
/// seat id) and in which event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TakenNight {
    pub seat_id: SeatId,
    pub event_id: EventId,
}

/// A place free on every night asked for, where it sits in the first
/// event's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreePlace {
    pub seat_id: SeatId,
    pub section_id: i64,
    pub row_index: i32,
    pub position: i32,
    /// Lower is better.
    pub rank: i32,
}

/// The best blocks of `count` places side by side in one row (consecutive
/// positions), best (lowest total rank) first, none sharing a place, at
/// most `max_blocks` of them. The season's best available tries them in
/// this order, skipping any another buyer is claiming.
pub fn best_blocks(places: &[FreePlace], count: usize, max_blocks: usize) -> Vec<Vec<SeatId>> {
    if count == 0 {
        return Vec::new();
    }
    let mut sorted: Vec<&FreePlace> = places.iter().collect();
    sorted.sort_by_key(|p| (p.section_id, p.row_index, p.position));
    let mut blocks: Vec<(i64, usize, Vec<SeatId>)> = Vec::new();
    for row in sorted.chunk_by(|a, b| (a.section_id, a.row_index) == (b.section_id, b.row_index)) {
        for window in row.windows(count) {
            let side_by_side = window
                .windows(2)
                .all(|pair| pair[1].position == pair[0].position + 1);
            if side_by_side {
                let rank: i64 = window.iter().map(|p| i64::from(p.rank)).sum();
                // The layout's order breaks ties: the same answer every time.
                blocks.push((
                    rank,
                    blocks.len(),
                    window.iter().map(|p| p.seat_id).collect(),
                ));
            }
        }
    }
    blocks.sort_by_key(|(rank, order, _)| (*rank, *order));
    let mut taken = std::collections::HashSet::new();
    let mut chosen = Vec::new();
    for (_, _, block) in blocks {
        if chosen.len() == max_blocks {
            break;
        }
        if block.iter().all(|id| !taken.contains(id)) {
            taken.extend(block.iter().copied());
            chosen.push(block);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(id: i64, section: i64, row: i32, position: i32, rank: i32) -> FreePlace {
        FreePlace {
            seat_id: SeatId(id),
            section_id: section,
            row_index: row,
            position,
            rank,
        }
    }

    #[test]
    fn blocks_are_side_by_side_in_one_row_best_first() {
        let places = vec![
            place(1, 1, 0, 1, 10),
            place(2, 1, 0, 2, 10),
            // a gap: 4 is not beside 2
            place(4, 1, 0, 4, 1),
            place(5, 1, 0, 5, 1),
            // another row: 6 and 7 sit beside each other by position, but
            // 5 and 6 are in different rows
            place(6, 1, 1, 6, 50),
            place(7, 1, 1, 7, 50),
        ];
        let blocks = best_blocks(&places, 2, 10);
        assert_eq!(
            blocks,
            vec![
                vec![SeatId(4), SeatId(5)],
                vec![SeatId(1), SeatId(2)],
                vec![SeatId(6), SeatId(7)]
            ]
        );
    }

    #[test]
    fn blocks_never_share_a_place_and_stop_at_the_limit() {
        let places: Vec<FreePlace> = (1..=5).map(|id| place(id, 1, 0, id as i32, 1)).collect();
        let blocks = best_blocks(&places, 2, 10);
        assert_eq!(blocks.len(), 2, "1-2 and 3-4; 5 is left alone");
        let blocks = best_blocks(&places, 2, 1);
        assert_eq!(blocks, vec![vec![SeatId(1), SeatId(2)]]);
        assert!(best_blocks(&places, 6, 10).is_empty());
    }
}
