//! Why a request is refused, as data: which rule said no, with the facts
//! a message needs, and the code (`ErrorCode`) each is called by. The
//! words are `words`'s; the status code is `web::error`'s.

use time::OffsetDateTime;

use super::sale::SaleStatus;

pub use super::error_code::ErrorCode;

/// A rule's "no", as the domain gives it. The app's error type is built
/// from it at the edge (`From<Refusal> for AppError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("invalid: {0:?}")]
    Invalid(Invalid),
    #[error("over the hold limit of {max}")]
    HoldLimit { max: u32 },
}

impl From<Invalid> for Refusal {
    fn from(invalid: Invalid) -> Refusal {
        Refusal::Invalid(invalid)
    }
}

/// A request that can't be read before any rule applies (400): what was
/// wrong with it. A parser's own account of the problem is kept as it
/// gave it; the rest is worded by `words`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// A JSON body that doesn't parse or doesn't fit the request's shape.
    Json(String),
    Query(String),
    Form(String),
    FormTooLarge,
    /// A body sent with an `Idempotency-Key` past what is kept to compare.
    BodyTooLarge,
    /// A form field whose name carries an id that isn't a number.
    FormField(String),
    Upload(String),
    /// A sell key's `X-Customer-Ref` missing, empty or over 100 characters.
    CustomerRef,
    /// A seat form naming no seat.
    NoSeatInForm,
    /// A hold request with neither seats nor GA, or best available mixed in.
    HoldRequestShape,
    /// A refund's `ticket_ids` given but empty.
    EmptyTicketIds,
    /// A sale's GA quantity outside 1..=100.
    GaQuantity,
}

/// Refused whoever is asking (403): what is not allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// A change sent from another site.
    CrossSite,
    /// A form without this session's CSRF token (or an old one).
    FormExpired,
    /// An API key used for what its scope doesn't cover.
    KeyScope {
        has: &'static str,
        needs: &'static str,
    },
    /// A member of staff whose role doesn't reach this.
    Role {
        has: super::role::Role,
        needs: super::role::Role,
    },
    /// A claim on an event whose waiting room is on, without an admission
    /// that hasn't lapsed.
    QueueRequired { event_id: super::ids::EventId },
}

impl SaleStatus {
    /// The refusal for a hold or purchase attempted in this state.
    pub fn refuse(
        self,
        on_sale_at: Option<OffsetDateTime>,
        time_zone: &str,
    ) -> Result<(), Conflict> {
        match self {
            SaleStatus::OnSale => Ok(()),
            status => Err(Conflict::NotSelling {
                status,
                on_sale_at,
                time_zone: time_zone.to_string(),
            }),
        }
    }
}

/// What was asked for and does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    Event,
    Hold,
    Venue,
    /// A version number the venue never had.
    VenueVersion,
    /// A section of the event's map.
    Section,
    Order,
    Page,
    File,
    StaffAccount,
    WaitlistEntry,
    /// The event has no waiting room on.
    Queue,
    SeatInHold,
    TicketInHold,
    SeatInEvent,
    /// A ticket code nobody issued (or a ticket of another order).
    Ticket,
    /// A promo code staff named that the event doesn't have.
    PromoCode,
    /// A wallet pass asked for where that wallet is not configured.
    Wallet,
    Season,
    /// Seat ids that are not in the event.
    Seats(Vec<super::ids::SeatId>),
    /// General-admission area ids that are not in the event.
    Areas(Vec<super::ids::AreaId>),
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
    /// Until when tickets may be passed on.
    TransfersClose,
    /// Until when a renewal holds subscribers' places.
    RenewUntil,
}

/// Input that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// A language tag that is none of the app's ("en", "de", "fr", "es").
    Language,
    /// A waiting room's settings out of range (which field).
    QueueSettings(&'static str),
    /// A running queue's opening moved later, with people in line.
    QueueOpensLater,
    /// A proof of work that is forged, lapsed, for another event or short.
    ProofOfWork,
    /// A proof of work whose challenge another join already used.
    ProofOfWorkReused,
    /// A join with no proof of work, or one too easy, from a client that has
    /// joined often in the last minute: it needs a puzzle of `bits`.
    ProofOfWorkNeeded {
        bits: u32,
    },
    /// An `Idempotency-Key` that is empty, too long or not plain text.
    IdempotencyKey,
    /// An `Idempotency-Key` sent again with another request (its method,
    /// path or body differ from the first's).
    IdempotencyKeyReused,
    /// How often a ticket may be passed on, out of 0 to 20.
    TransfersPerTicket,
    /// A payment mode that is none of none, online, box_office, or a box
    /// office deadline out of range.
    Payment,
    NoSeats,
    DuplicateSeats,
    NoArea,
    /// More wheelchair users than the party has people (or fewer than 0).
    WheelchairUsers {
        count: u32,
    },
    /// Accessible-seating settings out of range (release time, or a mode
    /// that is none of auto, released, held).
    AccessibleSeating,
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
    /// Passing tickets on asked to close after the event starts.
    TransfersAfterStart,
    Time {
        field: TimeField,
        text: String,
    },
    /// A wall-clock time the venue's zone skips: its offsets either side.
    LocalTimeSkipped {
        field: TimeField,
        text: String,
        zone: String,
        offsets: (String, String),
    },
    /// A wall-clock time the venue's zone passes twice: its two offsets.
    LocalTimeTwice {
        field: TimeField,
        text: String,
        zone: String,
        offsets: (String, String),
    },
    /// What seats are blocked for: plain text, up to 40 characters.
    BlockPurpose,
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
    /// A season's events built from different layouts (venue versions,
    /// or events without a venue that are not copies of one another).
    SeasonEventsDiffer,
    /// A season of fewer than 2 or more than 100 events, one named twice,
    /// a choice count out of range, or a name out of bounds.
    Season,
    /// A season over events still drafts: it would be on sale to nobody.
    SeasonOverDrafts,
    /// A partial season's events chosen: not `choose` of the season's.
    SeasonChoice {
        choose: i32,
    },
    /// Copies of an event: 1 to 100 start times, each in the future and
    /// named once.
    Copies,
    /// More seats to copy in one request than it can make in time.
    CopiesTooLarge {
        most: i64,
        seats: i64,
    },
    /// A change to a whole event (closing sales, cancelling) sent without
    /// its confirmation.
    NotConfirmed,
    /// A walk-up sale sent with a review that no longer matches it.
    SaleChangedSinceReview,
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
    /// A seat written without its section ("C12") where several sections
    /// have one: the sections that do.
    AmbiguousSeatName {
        name: String,
        sections: Vec<String>,
    },
    /// A URL webhooks can't be sent to, and why.
    WebhookUrl(super::webhook::TargetProblem),
    /// A webhook endpoint that asks for no event.
    WebhookEvents,
    /// A staff name an account can't have.
    StaffName,
    /// A password shorter than `password::MIN_PASSWORD_CHARS`, or over 1 KiB.
    PasswordLength,
    /// A role that is none of door, box_office, manager, admin.
    Role,
    /// A waiting party's highest price out of range.
    MaxPrice,
    /// A door device's batch of offline admissions that can't be read:
    /// what is wrong with it.
    DoorBatch(&'static str),
    /// A list of price types that breaks a rule: which, in words.
    PriceType(String),
    /// A price type the event doesn't sell (or has closed).
    UnknownPriceType(String),
    /// A purchase's choice of types that breaks a rule of the offer
    /// (a tier the type has no price for, `max_per_order`): the rule.
    PriceTypeRule(String),
    /// A promo code staff make that breaks a rule: which, in words.
    PromoCode(String),
    /// A code the event doesn't have.
    PromoCodeUnknown,
    /// A code outside its window.
    PromoCodeExpired,
    /// A code that applies to none of the order's tickets.
    PromoCodeNotApplicable,
    /// A booking fee or tax staff set that breaks a rule: which, in words.
    Charges(String),
}

/// Free wheelchair spaces in a section, offered when the one asked for
/// has none that fit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SectionSpaces {
    pub section: String,
    pub free: i64,
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
    /// The first request with this `Idempotency-Key` is still running.
    IdempotencyKeyInUse,
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
    /// Passing on a ticket already admitted at the door.
    TicketUsed,
    /// Passing on (or opening) a code that was already passed on.
    TicketTransferred,
    /// The event's tickets can't be passed on.
    TransfersNotAllowed,
    /// Passing on closed at this time (the event's start, unless staff set
    /// another).
    TransfersClosed {
        at: OffsetDateTime,
    },
    /// The ticket was passed on as often as the event allows.
    TransferLimitReached {
        limit: i32,
    },
    /// Passing on a ticket of a cancelled event.
    TransferEventCancelled,
    /// Moving an event to another venue version while seats in it are
    /// sold or held, or it has orders (refunded ones too: their tickets
    /// name its seats).
    EventHasSales {
        sold_seats: i64,
        held_seats: i64,
        orders: i64,
    },
    /// Moving to another venue version would take these places from under
    /// a sale, a hold or a waitlist party's choice.
    PlacesInUse(Vec<super::place_in_use::PlaceInUse>),
    /// The event was not built from a venue (the demo hall, tests' grids).
    NotAVenueEvent,
    /// Adding a section an event already has (by name).
    SectionExists(String),
    /// Repricing a tier while seats or places of it are held.
    TierHasHolds {
        held: i64,
    },
    StaffExists(String),
    ApiKeyExists(String),
    /// The seats are free, but parties on the waitlist get them first.
    WaitlistFirst,
    /// Rejoining the waitlist other than once, after an offer lapsed.
    CannotRejoin,
    /// Joining a waitlist this buyer (or e-mail address) is already on.
    AlreadyWaiting,
    /// Opening a waitlist offer in a browser that already holds seats for
    /// the event.
    OfferNotTaken,
    /// Joining the waitlist while seats it would want are on sale.
    NotSoldOut {
        free: i64,
    },
    /// Disabling or demoting the last admin who can still sign in (or
    /// oneself): nobody could manage accounts afterwards.
    LastAdmin,
    /// The hold was checked out: it waits for its order's payment.
    HoldBeingPaid,
    /// Marking paid an order that is not a box-office reservation waiting
    /// for its money; its status is given.
    NotAwaitingPayment {
        status: &'static str,
    },
    /// The reservation's deadline passed: its seats went back on sale.
    PaymentDeadlinePassed,
    /// Changing how an event is paid for while orders wait for payment.
    OrdersAwaitingPayment {
        waiting: i64,
    },
    /// Online payment chosen where no payment provider is configured.
    PaymentUnavailable,
    NotEnoughTogether {
        count: u32,
        free: i64,
        filters: Filters,
    },
    NotEnoughSeats {
        count: u32,
        free: i64,
        /// Free wheelchair spaces and companion seats not counted in
        /// `free`: the event still holds them back.
        held_back: i64,
        filters: Filters,
    },
    /// A party with wheelchair users, and fewer free wheelchair spaces
    /// than they are (in the section asked for; `elsewhere` has others).
    NoWheelchairSpace {
        wheelchair: u32,
        free_spaces: i64,
        filters: Filters,
        elsewhere: Vec<SectionSpaces>,
    },
    /// Wheelchair spaces are free, but none with the rest of the party's
    /// seats free beside it.
    WheelchairNotTogether {
        count: u32,
        wheelchair: u32,
        free_spaces: i64,
        filters: Filters,
        elsewhere: Vec<SectionSpaces>,
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
    /// Releasing a night back to sale from a ticket that is not a season's.
    NotASeasonTicket,
    /// A renewal of a season into one whose layout is not the same, or
    /// asked twice for the same season.
    RenewalNotPossible,
    /// Staff acting on one night's hold of a season hold as if it were a
    /// hold of its own (the season hold is released or moved whole).
    SeasonNight,
    /// A buyer's season hold is a renewal: renew it (or give it up) first.
    RenewalPending,
    /// Moving an event of a season to another venue version.
    EventInSeason,
    NotSelling {
        status: SaleStatus,
        on_sale_at: Option<OffsetDateTime>,
        /// The venue's, to say `on_sale_at` in.
        time_zone: String,
    },
    /// A price type whose quota the purchase would pass.
    PriceTypeSoldOut {
        price_type: String,
    },
    /// Removing a price type that has sold tickets (close it instead).
    PriceTypeInUse {
        price_type: String,
    },
    /// A code whose uses are all taken.
    PromoCodeUsedUp,
    /// A code the event already has (by case-blind match).
    PromoCodeExists(String),
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
    /// Places on one event's waitlist from one address (or API key).
    WaitlistEntries {
        max: u32,
    },
    /// Seats and places a client's admitted buyers (an address's, or a
    /// key's customers) hold together on a queued event: its share.
    HouseShare {
        max_seats: u32,
    },
}

impl Invalid {
    pub fn code(&self) -> ErrorCode {
        match self {
            Invalid::NoSeats => ErrorCode::NoSeats,
            Invalid::DuplicateSeats => ErrorCode::DuplicateSeats,
            Invalid::NoArea => ErrorCode::NoArea,
            Invalid::WheelchairUsers { .. } => ErrorCode::InvalidCount,
            Invalid::AccessibleSeating => ErrorCode::InvalidAccessibleSeating,
            Invalid::CountOutOfRange { .. } | Invalid::MoreTicketsThanAnyArea => {
                ErrorCode::InvalidCount
            }
            Invalid::BuyerName { .. } | Invalid::EventName => ErrorCode::InvalidName,
            Invalid::Email => ErrorCode::InvalidEmail,
            Invalid::StartsInPast => ErrorCode::StartsInPast,
            Invalid::OnSaleAfterStart => ErrorCode::OnSaleAfterStart,
            Invalid::Time { .. } | Invalid::TransfersAfterStart => ErrorCode::InvalidTime,
            Invalid::QueueSettings(_) | Invalid::QueueOpensLater => ErrorCode::InvalidQueue,
            Invalid::ProofOfWork => ErrorCode::ProofOfWorkInvalid,
            Invalid::ProofOfWorkReused => ErrorCode::ProofOfWorkReused,
            Invalid::ProofOfWorkNeeded { .. } => ErrorCode::ProofOfWorkRequired,
            Invalid::IdempotencyKey => ErrorCode::InvalidIdempotencyKey,
            Invalid::IdempotencyKeyReused => ErrorCode::IdempotencyKeyReused,
            Invalid::LocalTimeSkipped { .. } => ErrorCode::NonexistentLocalTime,
            Invalid::LocalTimeTwice { .. } => ErrorCode::AmbiguousLocalTime,
            Invalid::BlockPurpose => ErrorCode::InvalidPurpose,
            Invalid::UnknownSection(_) => ErrorCode::UnknownSection,
            Invalid::UnknownTier(_) | Invalid::VenueHasNoTier(_) => ErrorCode::UnknownTier,
            Invalid::MissingPrice { .. } => ErrorCode::MissingPrice,
            Invalid::Price { .. } => ErrorCode::InvalidPrice,
            Invalid::EmptyHold => ErrorCode::EmptyHold,
            Invalid::NotConfirmed | Invalid::SaleChangedSinceReview => ErrorCode::InvalidInput,
            Invalid::Search { .. } => ErrorCode::InvalidSearch,
            Invalid::BestMode => ErrorCode::InvalidMode,
            Invalid::Currency(_) => ErrorCode::InvalidCurrency,
            Invalid::NoFile => ErrorCode::NoFile,
            Invalid::TicketCode => ErrorCode::InvalidTicketCode,
            Invalid::Tender => ErrorCode::InvalidTender,
            Invalid::Payment => ErrorCode::InvalidPayment,
            Invalid::SeasonEventsDiffer => ErrorCode::SeasonEventsDiffer,
            Invalid::Season | Invalid::SeasonOverDrafts | Invalid::SeasonChoice { .. } => {
                ErrorCode::InvalidSeason
            }
            Invalid::Copies | Invalid::CopiesTooLarge { .. } => ErrorCode::InvalidCopies,
            Invalid::Gate => ErrorCode::InvalidGate,
            Invalid::Language | Invalid::TransfersPerTicket => ErrorCode::InvalidInput,
            Invalid::NothingToSell => ErrorCode::NoSeats,
            Invalid::DuplicateAreas => ErrorCode::DuplicateAreas,
            Invalid::SeatName(_) | Invalid::AmbiguousSeatName { .. } => ErrorCode::UnknownSeat,
            Invalid::WebhookUrl(_) => ErrorCode::InvalidWebhookUrl,
            Invalid::WebhookEvents => ErrorCode::InvalidInput,
            Invalid::StaffName
            | Invalid::PasswordLength
            | Invalid::Role
            | Invalid::MaxPrice
            | Invalid::DoorBatch(_) => ErrorCode::InvalidInput,
            Invalid::PriceType(_) => ErrorCode::InvalidPriceType,
            Invalid::UnknownPriceType(_) => ErrorCode::UnknownPriceType,
            Invalid::PriceTypeRule(_) => ErrorCode::PriceTypeRule,
            Invalid::PromoCode(_) => ErrorCode::InvalidPromoCode,
            Invalid::PromoCodeUnknown => ErrorCode::PromoCodeUnknown,
            Invalid::PromoCodeExpired => ErrorCode::PromoCodeExpired,
            Invalid::PromoCodeNotApplicable => ErrorCode::PromoCodeNotApplicable,
            Invalid::Charges(_) => ErrorCode::InvalidCharges,
        }
    }
}

impl Conflict {
    pub fn code(&self) -> ErrorCode {
        match self {
            Conflict::AlreadyPurchased => ErrorCode::AlreadyPurchased,
            Conflict::IdempotencyKeyInUse => ErrorCode::IdempotencyKeyInUse,
            Conflict::HoldReleased => ErrorCode::HoldReleased,
            Conflict::AlreadyExtended => ErrorCode::AlreadyExtended,
            Conflict::TooEarlyToExtend { .. } => ErrorCode::TooEarly,
            Conflict::HoldStillLive => ErrorCode::HoldStillLive,
            Conflict::NothingToRevive => ErrorCode::NothingToRevive,
            Conflict::AlreadyClosed | Conflict::AlreadyCancelled => ErrorCode::AlreadyClosed,
            Conflict::VenueExists(_) => ErrorCode::VenueExists,
            Conflict::EventHasSales { .. } => ErrorCode::EventHasSales,
            Conflict::NotAVenueEvent => ErrorCode::NotAVenueEvent,
            Conflict::PlacesInUse(_) => ErrorCode::PlacesInUse,
            Conflict::TierHasHolds { .. } => ErrorCode::TierHasHolds,
            Conflict::SectionExists(_) => ErrorCode::SectionExists,
            Conflict::StaffExists(_) => ErrorCode::StaffExists,
            Conflict::ApiKeyExists(_) => ErrorCode::ApiKeyExists,
            Conflict::LastAdmin => ErrorCode::LastAdmin,
            Conflict::WaitlistFirst => ErrorCode::WaitlistFirst,
            Conflict::CannotRejoin => ErrorCode::CannotRejoin,
            Conflict::AlreadyWaiting => ErrorCode::AlreadyWaiting,
            Conflict::OfferNotTaken => ErrorCode::OfferNotTaken,
            Conflict::NotSoldOut { .. } => ErrorCode::NotSoldOut,
            Conflict::HoldBeingPaid => ErrorCode::AwaitingPayment,
            Conflict::NotAwaitingPayment { .. } => ErrorCode::NotAwaitingPayment,
            Conflict::PaymentDeadlinePassed => ErrorCode::PaymentDeadlinePassed,
            Conflict::OrdersAwaitingPayment { .. } => ErrorCode::OrdersAwaitingPayment,
            Conflict::PaymentUnavailable => ErrorCode::PaymentUnavailable,
            Conflict::NotEnoughTogether { .. } => ErrorCode::NotEnoughSeatsTogether,
            Conflict::NotEnoughSeats { .. } => ErrorCode::NotEnoughSeats,
            Conflict::NoWheelchairSpace { .. } => ErrorCode::NoWheelchairSpace,
            Conflict::WheelchairNotTogether { .. } => ErrorCode::WheelchairNotTogether,
            Conflict::NotEnoughCapacity { .. } => ErrorCode::NotEnoughCapacity,
            Conflict::TicketAdmitted => ErrorCode::TicketAdmitted,
            Conflict::PriceTypeSoldOut { .. } => ErrorCode::PriceTypeSoldOut,
            Conflict::PriceTypeInUse { .. } => ErrorCode::PriceTypeInUse,
            Conflict::PromoCodeUsedUp => ErrorCode::PromoCodeUsedUp,
            Conflict::PromoCodeExists(_) => ErrorCode::PromoCodeExists,
            Conflict::TicketVoided => ErrorCode::TicketRefunded,
            Conflict::TicketUsed => ErrorCode::TicketUsed,
            Conflict::NotASeasonTicket => ErrorCode::NotASeasonTicket,
            Conflict::RenewalNotPossible => ErrorCode::RenewalNotPossible,
            Conflict::SeasonNight => ErrorCode::SeasonNight,
            Conflict::RenewalPending => ErrorCode::RenewalPending,
            Conflict::EventInSeason => ErrorCode::EventInSeason,
            Conflict::TicketTransferred => ErrorCode::TicketTransferred,
            Conflict::TransfersNotAllowed => ErrorCode::TransfersNotAllowed,
            Conflict::TransfersClosed { .. } => ErrorCode::TransfersClosed,
            Conflict::TransferLimitReached { .. } => ErrorCode::TransferLimitReached,
            Conflict::TransferEventCancelled => ErrorCode::EventCancelled,
            Conflict::NotASeatTicket => ErrorCode::NotASeat,
            Conflict::NotSelling { status, .. } => match status {
                SaleStatus::NotYet => ErrorCode::NotOnSaleYet,
                SaleStatus::Closed => ErrorCode::SalesClosed,
                SaleStatus::Started => ErrorCode::EventStarted,
                SaleStatus::Draft => ErrorCode::EventNotPublished,
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
            Limit::WaitlistEntries { .. } => ErrorCode::TooManyEntries,
            Limit::HouseShare { .. } => ErrorCode::HouseShareReached,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::sale::SaleStatus;

    #[test]
    fn only_an_event_on_sale_lets_buyers_hold() {
        assert!(SaleStatus::OnSale.refuse(None, "UTC").is_ok());
        let at = time::macros::datetime!(2026-12-01 10:00 UTC);
        for (status, code) in [
            (SaleStatus::NotYet, ErrorCode::NotOnSaleYet),
            (SaleStatus::Closed, ErrorCode::SalesClosed),
            (SaleStatus::Started, ErrorCode::EventStarted),
            (SaleStatus::Draft, ErrorCode::EventNotPublished),
            (SaleStatus::Cancelled, ErrorCode::EventCancelled),
        ] {
            match status.refuse(Some(at), "UTC") {
                Err(conflict) => {
                    assert_eq!(conflict.code(), code);
                    assert_eq!(
                        conflict,
                        Conflict::NotSelling {
                            status,
                            on_sale_at: Some(at),
                            time_zone: "UTC".into(),
                        }
                    );
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
