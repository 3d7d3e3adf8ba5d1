//! The one error type: the domain's refusals (`domain::refusal`) and the
//! failures of the database and the pool, as data. It knows nothing of
//! HTTP: `web::error` decides the status code and the body, `words` the
//! message and whether a refusal becomes a notice or an error page.

use tokio_postgres::error::SqlState;

use crate::domain::ids::SeatId;

pub use crate::domain::refusal::{
    Conflict, Denied, ErrorCode, Invalid, Limit, Malformed, Missing, Refusal,
};

pub type AppResult<T> = Result<T, AppError>;

/// Refusals carry data, not words: `words` words them and `web::error`
/// picks the status code. The `Display` texts here are for logs.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A request malformed before any rule applies (web's extractors).
    #[error("bad request: {0:?}")]
    BadRequest(Malformed),
    #[error("not found: {0:?}")]
    NotFound(Missing),
    #[error("seats unavailable: {seat_ids:?}")]
    SeatsUnavailable { seat_ids: Vec<SeatId> },
    /// A season claim refused: the places (their first-event seat ids)
    /// and the events they are taken in.
    #[error("season places taken: {taken:?}")]
    SeasonPlacesTaken {
        taken: Vec<crate::domain::season::TakenNight>,
    },
    #[error("over the hold limit of {max}")]
    HoldLimit { max: u32 },
    #[error("invalid: {0:?}")]
    Invalid(Invalid),
    #[error("conflict: {0:?}")]
    Conflict(Conflict),
    #[error("hold expired")]
    HoldExpired,
    /// A layout saved over a version that is no longer the latest.
    #[error("stale layout: version {latest} is the latest")]
    StaleLayout { latest: i32 },
    /// A write that must name the version it replaces and did not.
    #[error("If-Match required")]
    PreconditionRequired,
    /// A layout that breaks its rules, every problem with its place.
    #[error("invalid layout: {} problems", .0.len())]
    InvalidLayout(Vec<crate::domain::venue::LayoutError>),
    #[error("not signed in as staff")]
    Unauthorized,
    /// A bearer key that is malformed, unknown or revoked.
    #[error("invalid API key")]
    InvalidApiKey,
    #[error("forbidden: {0:?}")]
    Forbidden(Denied),
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

impl From<Refusal> for AppError {
    fn from(refusal: Refusal) -> AppError {
        match refusal {
            Refusal::Invalid(invalid) => AppError::Invalid(invalid),
            Refusal::HoldLimit { max } => AppError::HoldLimit { max },
        }
    }
}

impl From<Malformed> for AppError {
    fn from(malformed: Malformed) -> AppError {
        AppError::BadRequest(malformed)
    }
}

impl From<Invalid> for AppError {
    fn from(invalid: Invalid) -> AppError {
        AppError::Invalid(invalid)
    }
}

impl From<Conflict> for AppError {
    fn from(conflict: Conflict) -> AppError {
        AppError::Conflict(conflict)
    }
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

    /// A type's quota or a promo code's uses are used up: counts an order
    /// past its payment deadline may still hold (`payments::lapse_overdue`).
    pub fn is_offer_used_up(&self) -> bool {
        matches!(
            self,
            AppError::Conflict(Conflict::PriceTypeSoldOut { .. } | Conflict::PromoCodeUsedUp)
        )
    }

    /// "Current transaction is aborted" (25P02): what a statement answers
    /// when one sent before it in the transaction failed. It is never the
    /// cause, only its echo.
    pub fn is_transaction_aborted(&self) -> bool {
        self.postgres_error()
            .and_then(|err| err.code())
            .is_some_and(|code| *code == SqlState::IN_FAILED_SQL_TRANSACTION)
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
                Some(state) => {
                    [
                        SqlState::T_R_DEADLOCK_DETECTED,
                        SqlState::T_R_SERIALIZATION_FAILURE,
                        SqlState::LOCK_NOT_AVAILABLE,
                        SqlState::QUERY_CANCELED,
                        SqlState::TOO_MANY_CONNECTIONS,
                    ]
                    .contains(state)
                        || self.is_connection_lost()
                }
            },
            None => false,
        }
    }

    /// The database went away or can't take writes here: the connection
    /// broke or could not be made, the server is shutting down or
    /// starting, or it is a standby now (a failover demoted it). Worth
    /// retrying once a primary answers again; pooled connections are then
    /// checked before use (`db::outage`).
    pub fn is_connection_lost(&self) -> bool {
        if let AppError::Pool(deadpool_postgres::PoolError::Timeout(
            deadpool_postgres::TimeoutType::Create,
        )) = self
        {
            return true;
        }
        let Some(err) = self.postgres_error() else {
            return false;
        };
        match err.code() {
            None => err.is_closed() || caused_by_io(err),
            Some(state) => {
                state.code().starts_with("08")
                    || [
                        SqlState::ADMIN_SHUTDOWN,
                        SqlState::CRASH_SHUTDOWN,
                        SqlState::CANNOT_CONNECT_NOW,
                        SqlState::READ_ONLY_SQL_TRANSACTION,
                    ]
                    .contains(state)
            }
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
