//! Why a request is refused, as data: which rule said no, with the facts
//! a message needs. The words (and the status code) are `web::error`'s.

use time::OffsetDateTime;

use super::sale::SaleStatus;
use crate::error::ErrorCode;

/// What was asked for and does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    Event,
    Hold,
    Venue,
    /// A section of the event's map.
    Section,
    Order,
    Page,
    File,
    SeatInHold,
    TicketInHold,
    SeatInEvent,
    /// A ticket code nobody issued (or a ticket of another order).
    Ticket,
    /// Seat ids that are not in the event.
    Seats(Vec<crate::domain::ids::SeatId>),
    /// General-admission area ids that are not in the event.
    Areas(Vec<i64>),
}

/// What a count was of, for "ask for between 1 and N …".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    Seats,
    Tickets,
}

/// Which time field of the event form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeField {
    Start,
    OnSale,
}

/// Input that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    NoSeats,
    DuplicateSeats,
    NoArea,
    CountOutOfRange {
        max: u32,
        of: Counted,
    },
    MoreTicketsThanAnyArea,
    BuyerName {
        max_chars: usize,
    },
    EventName,
    Email,
    StartsInPast,
    OnSaleAfterStart,
    Time {
        field: TimeField,
        text: String,
    },
    UnknownSection(String),
    UnknownTier(String),
    /// A price given for a tier the venue doesn't have.
    VenueHasNoTier(String),
    MissingPrice {
        tier: String,
    },
    Price {
        tier: String,
        text: String,
    },
    EmptyHold,
    Search {
        max_chars: usize,
    },
    NoFile,
    /// Best available's mode is neither "replace" nor "add".
    BestMode,
    /// Not an ISO 4217 currency code.
    Currency(String),
    /// Not 32 letters and digits of a ticket code.
    TicketCode,
    /// Not cash, card or comp; or a comp without its reason.
    Tender,
    /// A gate name: 1 to 40 plain characters.
    Gate,
    /// A walk-up sale of nothing.
    NothingToSell,
    /// The same general-admission area twice in one request.
    DuplicateAreas,
    /// A seat written in a way that names no seat ("C12", "Stalls C12").
    SeatName(String),
    /// A URL webhooks can't be sent to, and why.
    WebhookUrl(super::webhook::TargetProblem),
    /// A webhook endpoint that asks for no event.
    WebhookEvents,
}

/// The best-available filters a refusal repeats back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    pub section: Option<String>,
    pub tier: Option<String>,
}

/// A request that the current state of things refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    AlreadyPurchased,
    HoldReleased,
    AlreadyExtended,
    TooEarlyToExtend {
        window_secs: i64,
    },
    HoldStillLive,
    NothingToRevive,
    AlreadyClosed,
    AlreadyCancelled,
    VenueExists(String),
    StaffExists(String),
    ApiKeyExists(String),
    NotEnoughTogether {
        count: u32,
        free: i64,
        filters: Filters,
    },
    NotEnoughSeats {
        count: u32,
        free: i64,
        filters: Filters,
    },
    NotEnoughCapacity {
        area: String,
        left: i32,
        asked: u32,
    },
    /// The ticket was admitted at the door: it can't be refunded or moved.
    TicketAdmitted,
    /// The ticket was already refunded (voided).
    TicketVoided,
    /// A general-admission ticket has no seat to move.
    NotASeatTicket,
    NotSelling {
        status: SaleStatus,
        on_sale_at: Option<OffsetDateTime>,
        /// The venue's, to say `on_sale_at` in.
        time_zone: String,
    },
}

/// A limit against hoarding or guessing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    HoldRequests,
    HoldsFromNetwork {
        live: i64,
    },
    /// Live holds made with one API key, all its customers together.
    HoldsForKey {
        live: i64,
    },
    SignIns,
    LiveStreams,
}

impl Invalid {
    pub fn code(&self) -> ErrorCode {
        match self {
            Invalid::NoSeats => ErrorCode::NoSeats,
            Invalid::DuplicateSeats => ErrorCode::DuplicateSeats,
            Invalid::NoArea => ErrorCode::NoArea,
            Invalid::CountOutOfRange { .. } | Invalid::MoreTicketsThanAnyArea => {
                ErrorCode::InvalidCount
            }
            Invalid::BuyerName { .. } | Invalid::EventName => ErrorCode::InvalidName,
            Invalid::Email => ErrorCode::InvalidEmail,
            Invalid::StartsInPast => ErrorCode::StartsInPast,
            Invalid::OnSaleAfterStart => ErrorCode::OnSaleAfterStart,
            Invalid::Time { .. } => ErrorCode::InvalidTime,
            Invalid::UnknownSection(_) => ErrorCode::UnknownSection,
            Invalid::UnknownTier(_) | Invalid::VenueHasNoTier(_) => ErrorCode::UnknownTier,
            Invalid::MissingPrice { .. } => ErrorCode::MissingPrice,
            Invalid::Price { .. } => ErrorCode::InvalidPrice,
            Invalid::EmptyHold => ErrorCode::EmptyHold,
            Invalid::Search { .. } => ErrorCode::InvalidSearch,
            Invalid::BestMode => ErrorCode::InvalidMode,
            Invalid::Currency(_) => ErrorCode::InvalidCurrency,
            Invalid::NoFile => ErrorCode::NoFile,
            Invalid::TicketCode => ErrorCode::InvalidTicketCode,
            Invalid::Tender => ErrorCode::InvalidTender,
            Invalid::Gate => ErrorCode::InvalidGate,
            Invalid::NothingToSell => ErrorCode::NoSeats,
            Invalid::DuplicateAreas => ErrorCode::DuplicateAreas,
            Invalid::SeatName(_) => ErrorCode::UnknownSeat,
            Invalid::WebhookUrl(_) => ErrorCode::InvalidWebhookUrl,
            Invalid::WebhookEvents => ErrorCode::InvalidInput,
        }
    }
}

impl Conflict {
    pub fn code(&self) -> ErrorCode {
        match self {
            Conflict::AlreadyPurchased => ErrorCode::AlreadyPurchased,
            Conflict::HoldReleased => ErrorCode::HoldReleased,
            Conflict::AlreadyExtended => ErrorCode::AlreadyExtended,
            Conflict::TooEarlyToExtend { .. } => ErrorCode::TooEarly,
            Conflict::HoldStillLive => ErrorCode::HoldStillLive,
            Conflict::NothingToRevive => ErrorCode::NothingToRevive,
            Conflict::AlreadyClosed | Conflict::AlreadyCancelled => ErrorCode::AlreadyClosed,
            Conflict::VenueExists(_) => ErrorCode::VenueExists,
            Conflict::StaffExists(_) => ErrorCode::StaffExists,
            Conflict::ApiKeyExists(_) => ErrorCode::StaffExists,
            Conflict::NotEnoughTogether { .. } => ErrorCode::NotEnoughSeatsTogether,
            Conflict::NotEnoughSeats { .. } => ErrorCode::NotEnoughSeats,
            Conflict::NotEnoughCapacity { .. } => ErrorCode::NotEnoughCapacity,
            Conflict::TicketAdmitted => ErrorCode::TicketAdmitted,
            Conflict::TicketVoided => ErrorCode::TicketRefunded,
            Conflict::NotASeatTicket => ErrorCode::NotASeat,
            Conflict::NotSelling { status, .. } => match status {
                SaleStatus::NotYet => ErrorCode::NotOnSaleYet,
                SaleStatus::Closed => ErrorCode::SalesClosed,
                SaleStatus::Started => ErrorCode::EventStarted,
                // Not refused while on sale; named for completeness.
                SaleStatus::Cancelled | SaleStatus::OnSale => ErrorCode::EventCancelled,
            },
        }
    }
}

impl Limit {
    pub fn code(self) -> ErrorCode {
        match self {
            Limit::HoldRequests => ErrorCode::RateLimited,
            Limit::HoldsFromNetwork { .. } | Limit::HoldsForKey { .. } => ErrorCode::TooManyHolds,
            Limit::SignIns => ErrorCode::TooManyLogins,
            Limit::LiveStreams => ErrorCode::TooManyStreams,
        }
    }
}
