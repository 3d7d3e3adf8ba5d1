use serde::Serialize;

use time::OffsetDateTime;

use crate::domain::ids::{BuyerId, SeatId, SectionId};

/// Seat ids in id order, each once: the order every claim locks seats in.
/// Built where ids arrive (a request, a query's result), so nothing after
/// sorts or deduplicates them again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(transparent)]
pub struct SeatIds(Vec<SeatId>);

/// What seats are set aside for ("house", "press", "sponsor"), as staff
/// typed it, trimmed; None for none.
pub fn block_purpose(text: Option<&str>) -> Result<Option<String>, super::refusal::Invalid> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(purpose) if super::text::is_plain(purpose, 40) => Ok(Some(purpose.to_string())),
        Some(_) => Err(super::refusal::Invalid::BlockPurpose),
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
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

    pub const ALL: [SeatState; 5] = [
        SeatState::Available,
        SeatState::Mine,
        SeatState::Held,
        SeatState::Sold,
        SeatState::Blocked,
    ];
}

/// A seat of an event, as one viewer sees it: where it is, what it costs,
/// and its state.
#[derive(Debug, Clone)]
pub struct Seat {
    pub id: SeatId,
    pub section: String,
    pub section_id: SectionId,
    pub row_label: String,
    pub seat_label: String,
    pub row_index: i32,
    pub position: i32,
    pub x: f32,
    pub y: f32,
    pub tier_code: String,
    pub tier_name: String,
    pub price_cents: i32,
    pub state: SeatState,
    /// Seat attributes (`domain::layout::Flag`): wheelchair, companion,
    /// restricted_view, …
    pub accessibility: Vec<String>,
    /// Why the view is restricted, when the layout says.
    pub view_note: Option<String>,
    /// When the hold on this seat lapses (held seats only).
    pub held_until: Option<OffsetDateTime>,
    /// The buyer holding it (held seats only): the live feed uses this to
    /// tell each viewer "held by you" from "held".
    pub holder: Option<BuyerId>,
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
    fn seat_ids_are_sorted_and_unique_however_they_arrive() {
        let ids = SeatIds::new([9, 3, 9, 5, 3].map(SeatId));
        assert_eq!(&*ids, &[3, 5, 9].map(SeatId));
        assert!(SeatIds::new([]).is_empty());
    }
}
