use crate::domain::ids::SeatId;
use serde::Serialize;

/// Seat ids in id order, each once: the order every claim locks seats in.
/// Built where ids arrive (a request, a query's result), so nothing after
/// sorts or deduplicates them again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct SeatIds(Vec<SeatId>);

impl SeatIds {
    pub fn new(ids: impl IntoIterator<Item = SeatId>) -> SeatIds {
        let mut ids: Vec<SeatId> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        SeatIds(ids)
    }
}

impl std::ops::Deref for SeatIds {
    type Target = [SeatId];

    fn deref(&self) -> &[SeatId] {
        &self.0
    }
}

impl From<SeatIds> for Vec<SeatId> {
    fn from(ids: SeatIds) -> Vec<SeatId> {
        ids.0
    }
}

impl FromIterator<SeatId> for SeatIds {
    fn from_iter<I: IntoIterator<Item = SeatId>>(ids: I) -> SeatIds {
        SeatIds::new(ids)
    }
}

/// A seat as one viewer sees it. A hold that has passed its expiry is
/// already `Available` here: expiry is lazy, and the read agrees with what
/// the next claim would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SeatState {
    Available,
    /// Held by someone else.
    Held,
    /// Held by the viewer.
    Mine,
    Sold,
    Blocked,
}

impl SeatState {
    /// From the row's effective status (expired holds already read as
    /// `AVAILABLE`) and whether its hold is the viewer's.
    pub fn from_row(effective_status: &str, held_by_viewer: bool) -> SeatState {
        match effective_status {
            "AVAILABLE" => SeatState::Available,
            "HELD" if held_by_viewer => SeatState::Mine,
            "HELD" => SeatState::Held,
            "SOLD" => SeatState::Sold,
            _ => SeatState::Blocked,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SeatState::Available => "available",
            SeatState::Held => "held",
            SeatState::Mine => "mine",
            SeatState::Sold => "sold",
            SeatState::Blocked => "blocked",
        }
    }

    /// What a person reads (and a screen reader says) for this state.
    pub fn label(self) -> &'static str {
        match self {
            SeatState::Available => "available",
            SeatState::Held => "held by another buyer",
            SeatState::Mine => "held by you",
            SeatState::Sold => "sold",
            SeatState::Blocked => "not for sale",
        }
    }

    /// A glyph drawn on the seat, so the state never depends on colour alone.
    pub fn glyph(self) -> &'static str {
        match self {
            SeatState::Available => "",
            SeatState::Held => "◷",
            SeatState::Mine => "✓",
            SeatState::Sold => "✕",
            SeatState::Blocked => "—",
        }
    }

    pub const ALL: [SeatState; 5] = [
        SeatState::Available,
        SeatState::Mine,
        SeatState::Held,
        SeatState::Sold,
        SeatState::Blocked,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_seats_are_mine_only_when_the_hold_is_the_viewers() {
        assert_eq!(SeatState::from_row("HELD", true), SeatState::Mine);
        assert_eq!(SeatState::from_row("HELD", false), SeatState::Held);
        assert_eq!(
            SeatState::from_row("AVAILABLE", false),
            SeatState::Available
        );
        assert_eq!(SeatState::from_row("SOLD", false), SeatState::Sold);
        assert_eq!(SeatState::from_row("BLOCKED", false), SeatState::Blocked);
    }

    #[test]
    fn every_state_but_available_has_a_glyph_and_all_glyphs_differ() {
        let glyphs: Vec<&str> = SeatState::ALL
            .iter()
            .filter(|s| **s != SeatState::Available)
            .map(|s| s.glyph())
            .collect();
        assert!(glyphs.iter().all(|g| !g.is_empty()));
        let mut unique = glyphs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), glyphs.len());
    }

    #[test]
    fn seat_ids_are_sorted_and_unique_however_they_arrive() {
        let ids = SeatIds::new([9, 3, 9, 5, 3].map(SeatId));
        assert_eq!(&*ids, &[3, 5, 9].map(SeatId));
        assert!(SeatIds::new([]).is_empty());
    }
}
