//! The name of every reason a request is refused, as a JSON error's
//! `error` field says it: one enum, matched everywhere, never text.

/// What a refusal (or failure) is called in a JSON error's `error` field:
/// one name per reason, matched as an enum everywhere, never as text.
macro_rules! error_codes {
    ($($variant:ident => $text:literal,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ErrorCode { $($variant,)* }

        impl ErrorCode {
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $text,)* }
            }

            /// Every code there is (the OpenAPI document lists them).
            pub const ALL: &'static [&'static str] = &[$($text,)*];
        }
    };
}

error_codes! {
    AlreadyClosed => "already_closed",
    AlreadyExtended => "already_extended",
    AlreadyPurchased => "already_purchased",
    BadRequest => "bad_request",
    DuplicateAreas => "duplicate_areas",
    DuplicateSeats => "duplicate_seats",
    EmptyHold => "empty_hold",
    EventCancelled => "event_cancelled",
    EventStarted => "event_started",
    EventNotPublished => "event_not_published",
    Forbidden => "forbidden",
    HoldExpired => "hold_expired",
    HoldLimit => "hold_limit",
    HoldReleased => "hold_released",
    HoldStillLive => "hold_still_live",
    Internal => "internal",
    InvalidCount => "invalid_count",
    InvalidEmail => "invalid_email",
    InvalidMode => "invalid_mode",
    InvalidInput => "invalid_input",
    InvalidName => "invalid_name",
    InvalidPrice => "invalid_price",
    InvalidCurrency => "invalid_currency",
    InvalidSearch => "invalid_search",
    InvalidTime => "invalid_time",
    InvalidQueue => "invalid_queue",
    ProofOfWorkInvalid => "proof_of_work_invalid",
    ProofOfWorkReused => "proof_of_work_reused",
    QueueRequired => "queue_required",
    InvalidPurpose => "invalid_purpose",
    NonexistentLocalTime => "nonexistent_local_time",
    AmbiguousLocalTime => "ambiguous_local_time",
    InvalidTicketCode => "invalid_ticket_code",
    InvalidTender => "invalid_tender",
    InvalidGate => "invalid_gate",
    InvalidApiKey => "invalid_api_key",
    InvalidWebhookUrl => "invalid_webhook_url",
    MissingPrice => "missing_price",
    NoArea => "no_area",
    NoFile => "no_file",
    NoSeats => "no_seats",
    NotEnoughCapacity => "not_enough_capacity",
    NotEnoughSeats => "not_enough_seats",
    NotEnoughSeatsTogether => "not_enough_seats_together",
    NotASeat => "not_a_seat",
    NotFound => "not_found",
    NotOnSaleYet => "not_on_sale_yet",
    NothingToRevive => "nothing_to_revive",
    OnSaleAfterStart => "on_sale_after_start",
    RateLimited => "rate_limited",
    RequestTimeout => "request_timeout",
    SalesClosed => "sales_closed",
    SeatsUnavailable => "seats_unavailable",
    StaffExists => "staff_exists",
    StartsInPast => "starts_in_past",
    TicketAdmitted => "ticket_admitted",
    TicketRefunded => "ticket_refunded",
    TicketUsed => "ticket_used",
    TicketTransferred => "ticket_transferred",
    TransfersNotAllowed => "transfers_not_allowed",
    TransfersClosed => "transfers_closed",
    TransferLimitReached => "transfer_limit_reached",
    WalletNotConfigured => "wallet_not_configured",
    TooEarly => "too_early",
    TooManyHolds => "too_many_holds",
    TooManyLogins => "too_many_logins",
    TooManyStreams => "too_many_streams",
    TooManyEntries => "too_many_entries",
    Unauthorized => "unauthorized",
    Unavailable => "unavailable",
    UnknownSeat => "unknown_seat",
    UnknownSection => "unknown_section",
    UnknownTier => "unknown_tier",
    UnknownPriceType => "unknown_price_type",
    InvalidPriceType => "invalid_price_type",
    PriceTypeRule => "price_type_rule",
    PriceTypeSoldOut => "price_type_sold_out",
    PriceTypeInUse => "price_type_in_use",
    InvalidPromoCode => "invalid_promo_code",
    PromoCodeUnknown => "promo_code_unknown",
    PromoCodeExpired => "promo_code_expired",
    PromoCodeUsedUp => "promo_code_used_up",
    PromoCodeNotApplicable => "promo_code_not_applicable",
    PromoCodeExists => "promo_code_exists",
    InvalidCharges => "invalid_charges",
    ApiKeyExists => "api_key_exists",
    LastAdmin => "last_admin",
    WaitlistFirst => "waitlist_first",
    CannotRejoin => "cannot_rejoin",
    AlreadyWaiting => "already_waiting",
    OfferNotTaken => "offer_not_taken",
    NotSoldOut => "not_sold_out",
    VenueExists => "venue_exists",
    StaleLayout => "stale_layout",
    PreconditionRequired => "precondition_required",
    InvalidLayout => "invalid_layout",
    EventHasSales => "event_has_sales",
    TierHasHolds => "tier_has_holds",
    SectionExists => "section_exists",
    NotAVenueEvent => "not_a_venue_event",
    PlacesInUse => "places_in_use",
    AwaitingPayment => "awaiting_payment",
    NotAwaitingPayment => "not_awaiting_payment",
    PaymentDeadlinePassed => "payment_deadline_passed",
    OrdersAwaitingPayment => "orders_awaiting_payment",
    PaymentUnavailable => "payment_unavailable",
    InvalidPayment => "invalid_payment",
    NoWheelchairSpace => "no_wheelchair_space",
    WheelchairNotTogether => "wheelchair_not_together",
    InvalidAccessibleSeating => "invalid_accessible_seating",
    SeasonEventsDiffer => "season_events_differ",
    InvalidSeason => "invalid_season",
    InvalidCopies => "invalid_copies",
    NotASeasonTicket => "not_a_season_ticket",
    RenewalNotPossible => "renewal_not_possible",
    SeasonNight => "season_night",
    RenewalPending => "renewal_pending",
    EventInSeason => "event_in_season",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
