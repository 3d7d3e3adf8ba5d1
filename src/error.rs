//! The one error type, and the codes that name each refusal. It knows
//! nothing of HTTP: `web::error` decides the status code, the body and
//! whether a refusal becomes a notice or an error page.

use tokio_postgres::error::SqlState;

use crate::domain::ids::SeatId;

pub use crate::domain::refusal::{Conflict, Invalid, Limit, Missing};

pub type AppResult<T> = Result<T, AppError>;

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
    TooEarly => "too_early",
    TooManyHolds => "too_many_holds",
    TooManyLogins => "too_many_logins",
    TooManyStreams => "too_many_streams",
    Unauthorized => "unauthorized",
    Unavailable => "unavailable",
    UnknownSeat => "unknown_seat",
    UnknownSection => "unknown_section",
    UnknownTier => "unknown_tier",
    VenueExists => "venue_exists",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Refusals carry data, not words: `web::error` words them and picks the
/// status code. The `Display` texts here are for logs.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A request malformed before any rule applies (web's extractors).
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("not found: {0:?}")]
    NotFound(Missing),
    #[error("seats unavailable: {seat_ids:?}")]
    SeatsUnavailable { seat_ids: Vec<SeatId> },
    #[error("over the hold limit of {max}")]
    HoldLimit { max: u32 },
    #[error("invalid: {0:?}")]
    Invalid(Invalid),
    #[error("conflict: {0:?}")]
    Conflict(Conflict),
    #[error("hold expired")]
    HoldExpired,
    #[error("not signed in as staff")]
    Unauthorized,
    /// A bearer key that is malformed, unknown or revoked.
    #[error("invalid API key")]
    InvalidApiKey,
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The request (its body, say) did not arrive within its deadline.
    #[error("the request took too long to arrive")]
    RequestTimeout,
    #[error("too many requests: {limit:?}")]
    TooManyRequests { limit: Limit, retry_after_secs: u64 },
    #[error("database error")]
    Database(#[from] tokio_postgres::Error),
    #[error("database pool error")]
    Pool(#[from] deadpool_postgres::PoolError),
    /// A dependency (the session store, the database) is unreachable or overloaded.
    #[error("service unavailable")]
    Unavailable(anyhow::Error),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl AppError {
    /// Deadlocks and serialization failures: the transaction can simply run again.
    pub fn is_retryable(&self) -> bool {
        let state = match self {
            AppError::Database(err) => err.code(),
            AppError::Pool(deadpool_postgres::PoolError::Backend(err)) => err.code(),
            _ => None,
        };
        matches!(
            state,
            Some(s) if *s == SqlState::T_R_DEADLOCK_DETECTED || *s == SqlState::T_R_SERIALIZATION_FAILURE
        )
    }

    fn postgres_error(&self) -> Option<&tokio_postgres::Error> {
        match self {
            AppError::Database(err) => Some(err),
            AppError::Pool(deadpool_postgres::PoolError::Backend(err)) => Some(err),
            _ => None,
        }
    }

    /// Whether the failure is load or an outage (503, worth retrying later)
    /// rather than a bug (500).
    pub fn is_transient(&self) -> bool {
        if let AppError::Pool(deadpool_postgres::PoolError::Timeout(_)) | AppError::Unavailable(_) =
            self
        {
            return true;
        }
        match self.postgres_error() {
            // No SQLSTATE: either the connection broke or could not be made
            // (transient), or we sent something unencodable (a bug).
            Some(err) => match err.code() {
                None => err.is_closed() || caused_by_io(err),
                Some(state) => [
                    SqlState::T_R_DEADLOCK_DETECTED,
                    SqlState::T_R_SERIALIZATION_FAILURE,
                    SqlState::LOCK_NOT_AVAILABLE,
                    SqlState::QUERY_CANCELED,
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::TOO_MANY_CONNECTIONS,
                ]
                .contains(state),
            },
            None => false,
        }
    }

    /// PostgreSQL refused a value itself (a NUL in text, a number out of
    /// range, an index entry too long, a CHECK it breaks). The rules should have refused it
    /// first; if one slips past them it is still the caller's input, so a
    /// 422 rather than a 500 (and a warning in the log, to add the rule).
    pub fn is_refused_value(&self) -> bool {
        self.postgres_error()
            .and_then(tokio_postgres::Error::code)
            .is_some_and(|state| {
                [
                    SqlState::CHECK_VIOLATION,
                    SqlState::CHARACTER_NOT_IN_REPERTOIRE,
                    SqlState::UNTRANSLATABLE_CHARACTER,
                    SqlState::STRING_DATA_RIGHT_TRUNCATION,
                    SqlState::NUMERIC_VALUE_OUT_OF_RANGE,
                    SqlState::INVALID_TEXT_REPRESENTATION,
                    SqlState::PROGRAM_LIMIT_EXCEEDED,
                ]
                .contains(state)
            })
    }
}

/// The error and its causes, one line, as a log may show them. A
/// database error is given by its SQLSTATE, message and constraint, but
/// never its DETAIL, HINT or WHERE: those quote the row ("Failing row
/// contains (…, whsec_…)", "Key (email)=(…)"), which may hold a secret or
/// a buyer's address.
pub fn for_log(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = Vec::new();
    let mut link: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = link {
        match current.downcast_ref::<tokio_postgres::error::DbError>() {
            Some(db) => {
                let mut part = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
                for (name, value) in [
                    ("constraint", db.constraint()),
                    ("table", db.table()),
                    ("column", db.column()),
                ] {
                    if let Some(value) = value {
                        part.push_str(&format!(" ({name} {value})"));
                    }
                }
                parts.push(part);
            }
            None => parts.push(current.to_string()),
        }
        link = current.source();
    }
    parts.join(": ")
}

impl AppError {
    /// [`for_log`] of this error.
    pub fn for_log(&self) -> String {
        for_log(self)
    }
}

fn caused_by_io(err: &tokio_postgres::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(err);
    while let Some(cause) = source {
        if cause.is::<std::io::Error>() {
            return true;
        }
        source = cause.source();
    }
    false
}
