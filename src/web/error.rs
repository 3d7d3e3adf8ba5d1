//! How an [`AppError`] is answered over HTTP: its status code, its JSON
//! body, and its `Retry-After`. Server-side failures are logged with their
//! full chain and answered with a generic message.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::error::{AppError, ErrorCode};
use crate::words::{DATABASE_503, GENERIC_500, GENERIC_503, REFUSED_VALUE, message};

/// The longest an error's words may be.
const MAX_MESSAGE_CHARS: usize = 1_000;

/// Left in the response's extensions so the HTML layer can render an error
/// page with the same status and (safe) message.
#[derive(Debug, Clone)]
pub struct ErrorSummary {
    pub status: StatusCode,
    pub message: String,
    /// Where the page should send the person back to (besides all events).
    pub back: Option<String>,
}

/// Every error's JSON, for the OpenAPI document: the code, the words, and
/// the fields some errors add.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ErrorBody {
    #[schema(schema_with = error_code_schema)]
    error: String,
    /// In words, for a person.
    message: String,
    /// `seats_unavailable`: the seats that were not free.
    seat_ids: Option<Vec<crate::domain::ids::SeatId>>,
    /// `hold_limit`: the most seats a hold may have.
    max_seats: Option<u32>,
    /// 429s: when to try again.
    retry_after_secs: Option<u64>,
    /// `invalid_layout`: every problem, with where it is.
    problems: Option<Vec<LayoutProblem>>,
    /// `stale_layout`: the venue's latest version, saved since.
    version: Option<i32>,
    /// `event_has_sales`: seats sold now, seats held now, and orders ever.
    sold_seats: Option<i64>,
    held_seats: Option<i64>,
    orders: Option<i64>,
    /// `no_wheelchair_space` and `wheelchair_not_together`: free wheelchair
    /// spaces where asked, and other sections that have some.
    wheelchair_spaces_free: Option<i64>,
    elsewhere: Option<Vec<SectionSpacesJson>>,
}

/// Another section's free wheelchair spaces.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct SectionSpacesJson {
    section: String,
    free: i64,
}

/// One problem of a layout, for a program to point at.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct LayoutProblem {
    kind: crate::domain::venue::ProblemKind,
    /// Where, as the file spells it: a JSON path or a CSV line.
    at: String,
    #[serde(flatten)]
    place: crate::domain::venue::Place,
    /// In words.
    message: String,
}

impl From<&crate::domain::venue::LayoutError> for LayoutProblem {
    fn from(error: &crate::domain::venue::LayoutError) -> LayoutProblem {
        LayoutProblem {
            kind: error.kind,
            at: error.at.clone(),
            place: error.place.clone(),
            message: error.problem.clone(),
        }
    }
}

/// The API's error responses, each defined once: an operation's
/// `responses(...)` names the ones it can give (`responses::NotFound`).
pub mod responses {
    #![allow(dead_code)] // Types for the document; no value is ever built.

    use super::ErrorBody;

    macro_rules! error_responses {
        ($($name:ident = $status:literal, $description:literal;)*) => {$(
            #[derive(utoipa::IntoResponses)]
            #[response(status = $status, description = $description)]
            pub struct $name(ErrorBody);
        )*};
    }

    error_responses! {
        BadRequest = 400, "Malformed request";
        BadRequestOrNoCustomer = 400, "Malformed request, or a sell key without X-Customer-Ref";
        NoCustomerRef = 400, "A sell key without X-Customer-Ref";
        InvalidKey = 401, "Invalid API key";
        NotFound = 404, "Not found";
        NotFoundOrNotYours = 404, "Not found (or not yours)";
        Conflict = 409, "Refused by the state of things";
        PreconditionFailed = 412, "Saved over by someone else since";
        PreconditionRequired = 428, "Needs If-Match";
        Gone = 410, "The hold has expired";
        Unprocessable = 422, "Breaks a rule";
        TooManyRequests = 429, "Too many requests";
        Unavailable = 503, "Busy or down; retry";
    }

    /// What every staff operation may answer before its own work: not
    /// staff (401), a role below the route's (403), busy (503).
    #[derive(utoipa::IntoResponses)]
    pub enum StaffAccess {
        #[response(
            status = 401,
            description = "Not signed in as staff, or an invalid API key"
        )]
        NotStaff(ErrorBody),
        #[response(status = 403, description = "An API key of another scope")]
        Forbidden(ErrorBody),
        #[response(status = 503, description = "Busy or down; retry")]
        Unavailable(ErrorBody),
    }

    /// What every buyer operation an API key may make can answer before
    /// its own work: an invalid key (401), a key of another scope (403),
    /// busy (503).
    #[derive(utoipa::IntoResponses)]
    pub enum KeyAccess {
        #[response(status = 401, description = "Invalid API key")]
        InvalidKey(ErrorBody),
        #[response(status = 403, description = "An API key of another scope")]
        Forbidden(ErrorBody),
        #[response(status = 503, description = "Busy or down; retry")]
        Unavailable(ErrorBody),
    }
}

fn error_code_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(ErrorCode::ALL.iter().copied()))
        .build()
}

/// The HTTP status an error answers with (pages that show a refusal
/// in place use it, so a refused form is a 4xx like the API's).
pub fn status_of(error: &AppError) -> StatusCode {
    status_code_and_body(error).0
}

fn status_code_and_body(error: &AppError) -> (StatusCode, ErrorCode, Value) {
    match error {
        AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest, json!({})),
        AppError::NotFound(crate::error::Missing::Wallet) => (
            StatusCode::NOT_FOUND,
            ErrorCode::WalletNotConfigured,
            json!({}),
        ),
        AppError::NotFound(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound, json!({})),
        AppError::SeatsUnavailable { seat_ids } => (
            StatusCode::CONFLICT,
            ErrorCode::SeatsUnavailable,
            json!({ "seat_ids": seat_ids }),
        ),
        AppError::SeasonPlacesTaken { taken } => {
            let mut places: Vec<_> = taken.iter().map(|night| night.seat_id).collect();
            places.sort_unstable();
            places.dedup();
            (
                StatusCode::CONFLICT,
                ErrorCode::SeatsUnavailable,
                json!({ "seat_ids": places, "taken": taken }),
            )
        }
        AppError::HoldLimit { max } => (
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::HoldLimit,
            json!({ "max_seats": max }),
        ),
        AppError::Invalid(invalid) => (StatusCode::UNPROCESSABLE_ENTITY, invalid.code(), json!({})),
        AppError::Conflict(crate::error::Conflict::EventHasSales {
            sold_seats,
            held_seats,
            orders,
        }) => (
            StatusCode::CONFLICT,
            ErrorCode::EventHasSales,
            json!({ "sold_seats": sold_seats, "held_seats": held_seats, "orders": orders }),
        ),
        AppError::Conflict(
            conflict @ (crate::error::Conflict::NoWheelchairSpace {
                free_spaces,
                elsewhere,
                ..
            }
            | crate::error::Conflict::WheelchairNotTogether {
                free_spaces,
                elsewhere,
                ..
            }),
        ) => (
            StatusCode::CONFLICT,
            conflict.code(),
            json!({ "wheelchair_spaces_free": free_spaces, "elsewhere": elsewhere }),
        ),
        AppError::Conflict(crate::error::Conflict::PlacesInUse(places)) => (
            StatusCode::CONFLICT,
            ErrorCode::PlacesInUse,
            json!({ "places": places }),
        ),
        AppError::Conflict(
            conflict @ (crate::error::Conflict::PriceTypeSoldOut { price_type }
            | crate::error::Conflict::PriceTypeInUse { price_type }),
        ) => (
            StatusCode::CONFLICT,
            conflict.code(),
            json!({ "price_type": price_type }),
        ),
        AppError::Conflict(conflict) => (StatusCode::CONFLICT, conflict.code(), json!({})),
        AppError::HoldExpired => (StatusCode::GONE, ErrorCode::HoldExpired, json!({})),
        AppError::StaleLayout { latest } => (
            StatusCode::PRECONDITION_FAILED,
            ErrorCode::StaleLayout,
            json!({ "version": latest }),
        ),
        AppError::PreconditionRequired => (
            StatusCode::PRECONDITION_REQUIRED,
            ErrorCode::PreconditionRequired,
            json!({}),
        ),
        AppError::InvalidLayout(problems) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::InvalidLayout,
            json!({ "problems": problems.iter().map(LayoutProblem::from).collect::<Vec<_>>() }),
        ),
        AppError::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, json!({})),
        AppError::InvalidApiKey => (
            StatusCode::UNAUTHORIZED,
            ErrorCode::InvalidApiKey,
            json!({}),
        ),
        AppError::Forbidden(crate::error::Denied::Role { has, needs }) => (
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            json!({ "role": has.as_str(), "needs": needs.as_str() }),
        ),
        AppError::Forbidden(crate::error::Denied::QueueRequired { event_id }) => (
            StatusCode::FORBIDDEN,
            ErrorCode::QueueRequired,
            json!({
                "queue": format!("/api/events/{event_id}/queue"),
                "queue_page": format!("/events/{event_id}/queue"),
            }),
        ),
        AppError::Forbidden(_) => (StatusCode::FORBIDDEN, ErrorCode::Forbidden, json!({})),
        AppError::RequestTimeout => (
            StatusCode::REQUEST_TIMEOUT,
            ErrorCode::RequestTimeout,
            json!({}),
        ),
        AppError::TooManyRequests {
            limit,
            retry_after_secs,
        } => (
            StatusCode::TOO_MANY_REQUESTS,
            limit.code(),
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
            AppError::Conflict(crate::error::Conflict::IdempotencyKeyInUse) => {
                Some("1".to_string())
            }
            _ => None,
        };
        let message = match status {
            StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %self.for_log(), "request failed");
                GENERIC_500.to_string()
            }
            StatusCode::UNPROCESSABLE_ENTITY if self.is_refused_value() => {
                tracing::warn!(error = %self.for_log(), "the database refused a value the rules let through");
                REFUSED_VALUE.to_string()
            }
            StatusCode::SERVICE_UNAVAILABLE => {
                tracing::warn!(error = %self.for_log(), "request failed (transient)");
                if self.is_connection_lost() {
                    crate::db::outage::connection_lost();
                    DATABASE_503.to_string()
                } else {
                    GENERIC_503.to_string()
                }
            }
            // Words may quote what was sent (a parser's message does):
            // however long that was, the answer stays small.
            _ => crate::domain::text::cut(message(&self), MAX_MESSAGE_CHARS),
        };
        body["error"] = Value::from(code.as_str());
        body["message"] = Value::from(message.clone());
        let mut response = (status, Json(body)).into_response();
        if status == StatusCode::REQUEST_TIMEOUT {
            // What is left of the request's body will never be read.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if let Some(value) = retry_after.and_then(|v| HeaderValue::from_str(&v).ok()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response.extensions_mut().insert(ErrorSummary {
            status,
            message,
            back: None,
        });
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
            (
                AppError::BadRequest(crate::error::Malformed::FormTooLarge),
                StatusCode::BAD_REQUEST,
            ),
            (
                AppError::NotFound(crate::error::Missing::Event),
                StatusCode::NOT_FOUND,
            ),
            (
                AppError::SeatsUnavailable {
                    seat_ids: vec![crate::domain::ids::SeatId(1)],
                },
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
