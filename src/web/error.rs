//! How an [`AppError`] is answered over HTTP: its status code, its JSON
//! body, and its `Retry-After`. Server-side failures are logged with their
//! full chain and answered with a generic message.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::error::{AppError, ErrorCode};

/// Left in the response's extensions so the HTML layer can render an error
/// page with the same status and (safe) message.
#[derive(Debug, Clone)]
pub struct ErrorSummary {
    pub status: StatusCode,
    pub message: String,
}

const GENERIC_500: &str = "Something went wrong on our side. Nothing you held or bought was lost.";
const GENERIC_503: &str = "The box office is very busy right now. Please try again in a moment.";

fn status_code_and_body(error: &AppError) -> (StatusCode, ErrorCode, Value) {
    match error {
        AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest, json!({})),
        AppError::NotFound(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound, json!({})),
        AppError::SeatsUnavailable { seat_ids } => (
            StatusCode::CONFLICT,
            ErrorCode::SeatsUnavailable,
            json!({ "seat_ids": seat_ids }),
        ),
        AppError::HoldLimit { max } => (
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::HoldLimit,
            json!({ "max_seats": max }),
        ),
        AppError::Validation { code, .. } => (StatusCode::UNPROCESSABLE_ENTITY, *code, json!({})),
        AppError::Conflict { code, .. } => (StatusCode::CONFLICT, *code, json!({})),
        AppError::HoldExpired => (StatusCode::GONE, ErrorCode::HoldExpired, json!({})),
        AppError::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, json!({})),
        AppError::Forbidden(_) => (StatusCode::FORBIDDEN, ErrorCode::Forbidden, json!({})),
        AppError::TooManyRequests {
            code,
            retry_after_secs,
            ..
        } => (
            StatusCode::TOO_MANY_REQUESTS,
            *code,
            json!({ "retry_after_secs": retry_after_secs }),
        ),
        AppError::Database(_)
        | AppError::Pool(_)
        | AppError::Unavailable(_)
        | AppError::Internal(_) => {
            if error.is_refused_value() {
                (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    ErrorCode::InvalidInput,
                    json!({}),
                )
            } else if error.is_transient() {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::Unavailable,
                    json!({}),
                )
            } else {
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::Internal,
                    json!({}),
                )
            }
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, code, mut body) = status_code_and_body(&self);
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
        body["error"] = Value::from(code.as_str());
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
