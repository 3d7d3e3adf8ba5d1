//! The one error type. Every handler returns `AppResult<T>`; this file
//! decides the status code and the body. Server-side failures are logged
//! with their full chain and answered with a generic message.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_postgres::error::SqlState;

pub type AppResult<T> = Result<T, AppError>;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("Some of these seats were just taken by someone else.")]
    SeatsUnavailable { seat_ids: Vec<i64> },
    #[error("A hold may contain at most {max} seats.")]
    HoldLimit { max: u32 },
    #[error("{message}")]
    Validation { code: &'static str, message: String },
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    #[error("This hold has expired; its seats have gone back on sale.")]
    HoldExpired,
    #[error("Sign in as box-office staff to do this.")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(String),
    #[error("{message}")]
    TooManyRequests {
        code: &'static str,
        message: String,
        retry_after_secs: u64,
    },
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

/// Left in the response's extensions so the HTML layer can render an error
/// page with the same status and (safe) message.
#[derive(Debug, Clone)]
pub struct ErrorSummary {
    pub status: StatusCode,
    pub message: String,
}

const GENERIC_500: &str = "Something went wrong on our side. Nothing you held or bought was lost.";
const GENERIC_503: &str = "The box office is very busy right now. Please try again in a moment.";

impl AppError {
    pub fn not_found(what: &str) -> AppError {
        AppError::NotFound(format!("{what} not found."))
    }

    pub fn validation(code: &'static str, message: impl Into<String>) -> AppError {
        AppError::Validation {
            code,
            message: message.into(),
        }
    }

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
    fn is_transient(&self) -> bool {
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
    /// range, an index entry too long). The rules should have refused it
    /// first; if one slips past them it is still the caller's input, so a
    /// 422 rather than a 500 (and a warning in the log, to add the rule).
    fn is_refused_value(&self) -> bool {
        self.postgres_error()
            .and_then(tokio_postgres::Error::code)
            .is_some_and(|state| {
                [
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

    fn status_code_and_body(&self) -> (StatusCode, &'static str, Value) {
        match self {
            AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request", json!({})),
            AppError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found", json!({})),
            AppError::SeatsUnavailable { seat_ids } => (
                StatusCode::CONFLICT,
                "seats_unavailable",
                json!({ "seat_ids": seat_ids }),
            ),
            AppError::HoldLimit { max } => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "hold_limit",
                json!({ "max_seats": max }),
            ),
            AppError::Validation { code, .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, code, json!({}))
            }
            AppError::Conflict { code, .. } => (StatusCode::CONFLICT, code, json!({})),
            AppError::HoldExpired => (StatusCode::GONE, "hold_expired", json!({})),
            AppError::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized", json!({})),
            AppError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden", json!({})),
            AppError::TooManyRequests {
                code,
                retry_after_secs,
                ..
            } => (
                StatusCode::TOO_MANY_REQUESTS,
                code,
                json!({ "retry_after_secs": retry_after_secs }),
            ),
            AppError::Database(_)
            | AppError::Pool(_)
            | AppError::Unavailable(_)
            | AppError::Internal(_) => {
                if self.is_refused_value() {
                    (StatusCode::UNPROCESSABLE_ENTITY, "invalid_input", json!({}))
                } else if self.is_transient() {
                    (StatusCode::SERVICE_UNAVAILABLE, "unavailable", json!({}))
                } else {
                    (StatusCode::INTERNAL_SERVER_ERROR, "internal", json!({}))
                }
            }
        }
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

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, code, mut body) = self.status_code_and_body();
        let retry_after = match &self {
            AppError::TooManyRequests {
                retry_after_secs, ..
            } => Some(retry_after_secs.max(&1).to_string()),
            _ if status == StatusCode::SERVICE_UNAVAILABLE => Some("1".to_string()),
            _ => None,
        };
        let message = match status {
            StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = ?anyhow::Error::from(self), "request failed");
                GENERIC_500.to_string()
            }
            StatusCode::UNPROCESSABLE_ENTITY if self.is_refused_value() => {
                tracing::warn!(error = ?anyhow::Error::from(self), "the database refused a value the rules let through");
                "A value in this request is not acceptable: too long, out of range, \
                 or containing a control character."
                    .to_string()
            }
            StatusCode::SERVICE_UNAVAILABLE => {
                tracing::warn!(error = ?anyhow::Error::from(self), "request failed (transient)");
                GENERIC_503.to_string()
            }
            _ => self.to_string(),
        };
        body["error"] = Value::from(code);
        body["message"] = Value::from(message.clone());
        let mut response = (status, Json(body)).into_response();
        if let Some(value) = retry_after.and_then(|v| HeaderValue::from_str(&v).ok()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
            .extensions_mut()
            .insert(ErrorSummary { status, message });
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_hide_their_detail() {
        let response =
            AppError::Internal(anyhow::anyhow!("password=hunter2 leaked")).into_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let summary = response.extensions().get::<ErrorSummary>().unwrap();
        assert!(!summary.message.contains("hunter2"));
    }

    #[test]
    fn domain_errors_map_to_documented_statuses() {
        let cases = [
            (AppError::BadRequest("x".into()), StatusCode::BAD_REQUEST),
            (AppError::not_found("Event"), StatusCode::NOT_FOUND),
            (
                AppError::SeatsUnavailable { seat_ids: vec![1] },
                StatusCode::CONFLICT,
            ),
            (
                AppError::HoldLimit { max: 10 },
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            (AppError::HoldExpired, StatusCode::GONE),
        ];
        for (error, status) in cases {
            assert_eq!(error.into_response().status(), status);
        }
    }
}
