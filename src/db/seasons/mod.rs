//! Seasons: the same place in every one of a season's events, sold as one.
//!
//! A season's events share a layout, so a place is the same section, row
//! and seat in each; `season_places` writes the seat of each place in each
//! event once, when the season is made. A place is named by its seat in
//! the first event. Claims take their row locks in one order, event then
//! seat, so a season claim and single-event claims on the same seats never
//! deadlock: a single claim's locks (one event, by seat id) are a slice of
//! the same order.

mod claim;
mod hold;
mod purchase;
mod release;
mod renewal;
mod season;

pub use claim::{claim_best, claim_places, move_place};
pub use hold::{
    SeasonHold, StaffSeasonHold, live_hold, live_holds, refuse_season_night, release_by_staff,
    release_hold, release_place,
};
pub use purchase::{OfferAsked, purchase};
pub use release::{Released, release_to_sale, released_nights};
pub use renewal::{RenewalOffer, Renewals, renew, renewal_for_link};
pub use season::{
    MAX_EVENTS, NewSeason, Season, SeasonEvent, SeasonPrice, create, find, list, list_for_staff,
    map, orders_sold,
};
