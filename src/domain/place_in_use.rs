//! Why an event can't move to another version of its venue: the places
//! the move would take from under a sale or a hold (see
//! `db::venue_move_check`).

use serde::Serialize;

/// A place the move would disturb, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PlaceInUse {
    /// The section (a seat's, or one removed), or the GA area's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// A tier's code, for a removed tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// sold, paying (its order waits for payment), held, sold_before
    /// (refunded; kept on record) or waitlist.
    pub in_use: String,
    /// removed, tier_changed or capacity_below_taken.
    pub change: String,
}

impl PlaceInUse {
    pub fn new(in_use: &str, change: &str) -> PlaceInUse {
        PlaceInUse {
            section: None,
            row: None,
            seat: None,
            area: None,
            tier: None,
            in_use: in_use.into(),
            change: change.into(),
        }
    }
}
