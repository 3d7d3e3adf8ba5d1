//! What a best-available request asks for, and its filters once resolved.

use crate::domain::ids::SectionId;

#[derive(Debug, Clone)]
pub struct BestAvailableRequest {
    pub count: u32,
    /// A section name, as the seat listing gives it.
    pub section: Option<String>,
    /// A price tier code, as the seat listing gives it.
    pub tier: Option<String>,
    pub together: bool,
    pub mode: BestMode,
    /// How many of the party use a wheelchair (0 to `count`): each gets a
    /// wheelchair space, and the rest of the party sits beside them.
    pub wheelchair: u32,
    /// Never give a seat with a restricted view.
    pub avoid_restricted_view: bool,
}

/// What happens to the seats a buyer already holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BestMode {
    /// The count is the party size: seats already held are swapped for
    /// the new ones, in one transaction, so they go back on sale only if
    /// the new ones are found (and may be found again among them).
    #[default]
    Replace,
    /// The new seats join those already held.
    Add,
}

/// A request's filters, resolved to ids.
pub(super) struct Filters {
    pub(super) section_id: Option<SectionId>,
    pub(super) tier_id: Option<i64>,
    pub(super) avoid_restricted_view: bool,
    /// The party's wheelchair users.
    pub(super) wheelchair: u32,
    /// An offer to a waiting party: the seats the waitlist keeps from
    /// general buyers are what it looks for.
    pub(super) for_waitlist: bool,
    /// The party's highest price (waitlist parties may set one).
    pub(super) max_price_cents: Option<i32>,
    /// Parties wait on the event's waitlist (as the event's lock read
    /// it): a search that finds nothing asks whether the waitlist kept
    /// free seats, to say `waitlist_first` rather than sold out.
    pub(super) waitlist_waiting: bool,
}

impl Filters {
    /// Whether the search may skip asking, seat by seat, whether the
    /// waitlist keeps it: for an offer to a waiting party, and whenever
    /// nobody waits (the event's lock read it).
    pub(super) fn asks_nothing_of_the_waitlist(&self) -> bool {
        self.for_waitlist || !self.waitlist_waiting
    }
}
