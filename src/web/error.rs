//! How an [`AppError`] is answered over HTTP: its status code, its JSON
//! body, and its `Retry-After`. Server-side failures are logged with their
//! full chain and answered with a generic message.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::domain::refusal::{Counted, Filters, TimeField};
use crate::domain::text::quoted;
use crate::domain::webhook::TargetProblem;
use crate::error::{AppError, Conflict, ErrorCode, Invalid, Limit, Missing};

/// Left in the response's extensions so the HTML layer can render an error
/// page with the same status and (safe) message.
#[derive(Debug, Clone)]
pub struct ErrorSummary {
    pub status: StatusCode,
    pub message: String,
    /// Where the page should send the person back to (besides all events).
    pub back: Option<String>,
}

const GENERIC_500: &str = "Something went wrong on our side. Nothing you held or bought was lost.";
const GENERIC_503: &str = "The box office is very busy right now. Please try again in a moment.";

/// What a buyer or staff member is told about a refusal: every message
/// the app gives lives here. Failures of our own get the generic texts.
pub fn message(error: &AppError) -> String {
    match error {
        AppError::BadRequest(text) | AppError::Forbidden(text) => text.clone(),
        AppError::NotFound(missing) => missing_text(missing),
        AppError::SeatsUnavailable { .. } => {
            "Some of these seats were just taken by someone else.".into()
        }
        AppError::HoldLimit { max } => format!("A hold may contain at most {max} seats."),
        AppError::Invalid(invalid) => invalid_text(invalid),
        AppError::Conflict(conflict) => conflict_text(conflict),
        AppError::HoldExpired => "This hold has expired; its seats have gone back on sale.".into(),
        AppError::Unauthorized => "Sign in as box-office staff to do this.".into(),
        AppError::InvalidApiKey => {
            "This API key is not valid: unknown, revoked, or not sent as \"Authorization: Bearer <key>\"."
                .into()
        }
        AppError::TooManyRequests { limit, .. } => limit_text(*limit),
        AppError::RequestTimeout => {
            "The request took too long to arrive. Please try again.".into()
        }
        AppError::Database(_)
        | AppError::Pool(_)
        | AppError::Unavailable(_)
        | AppError::Internal(_) => {
            if error.is_transient() {
                GENERIC_503.into()
            } else {
                GENERIC_500.into()
            }
        }
    }
}

/// The one decision of how a page shows an error: a refusal the person
/// can act on (not found, taken, over a limit, invalid, not now) becomes a
/// notice beside what they were doing, worded by [`message`]; anything
/// else is returned, to become an error page.
pub fn refusal_notice(error: AppError) -> Result<String, AppError> {
    match error {
        AppError::NotFound(_)
        | AppError::SeatsUnavailable { .. }
        | AppError::HoldLimit { .. }
        | AppError::Invalid(_)
        | AppError::Conflict(_)
        | AppError::HoldExpired
        | AppError::TooManyRequests { .. } => Ok(message(&error)),
        other => Err(other),
    }
}

fn missing_text(missing: &Missing) -> String {
    fn joined(ids: &[impl ToString]) -> String {
        ids.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
    match missing {
        Missing::Event => "Event not found.".into(),
        Missing::Hold => "Hold not found.".into(),
        Missing::Venue => "Venue not found.".into(),
        Missing::Section => "There is no such section in this event.".into(),
        Missing::Order => "Order not found.".into(),
        Missing::Page => "Page not found.".into(),
        Missing::File => "File not found.".into(),
        Missing::SeatInHold => "Seat in this hold not found.".into(),
        Missing::TicketInHold => "Ticket in this hold not found.".into(),
        Missing::SeatInEvent => "Seat in this event not found.".into(),
        Missing::Ticket => "No such ticket.".into(),
        Missing::Seats(ids) => format!("No seat {} in this event.", joined(ids)),
        Missing::Areas(ids) => format!("No general-admission area {} in this event.", joined(ids)),
    }
}

fn invalid_text(invalid: &Invalid) -> String {
    match invalid {
        Invalid::NoSeats => "Choose at least one seat.".into(),
        Invalid::DuplicateSeats => "The same seat appears more than once in the request.".into(),
        Invalid::NoArea => "Choose an area.".into(),
        Invalid::CountOutOfRange { max, of } => {
            let things = match of {
                Counted::Seats => "seats",
                Counted::Tickets => "tickets",
            };
            format!("Ask for between 1 and {max} {things}.")
        }
        Invalid::MoreTicketsThanAnyArea => "That is more tickets than any area holds.".into(),
        Invalid::BuyerName { max_chars } => {
            format!("Enter your name: 1 to {max_chars} characters, none of them invisible.")
        }
        Invalid::EventName => {
            "Give the event a name of up to 200 characters, with no control or invisible characters.".into()
        }
        Invalid::Email => "Enter a valid email address, like name@example.com.".into(),
        Invalid::StartsInPast => "The event must start in the future.".into(),
        Invalid::OnSaleAfterStart => "Sales must open before the event starts.".into(),
        Invalid::Time { field, text } => {
            let field = match field {
                TimeField::Start => "start time",
                TimeField::OnSale => "on-sale time",
            };
            format!("The {field} {text:?} is not a date and time like 2026-12-01T19:30.")
        }
        Invalid::UnknownSection(name) => format!("This event has no section {}.", quoted(name)),
        Invalid::UnknownTier(code) => format!("This event has no price tier {}.", quoted(code)),
        Invalid::VenueHasNoTier(code) => format!("The venue has no tier {code:?}."),
        Invalid::MissingPrice { tier } => format!("Give a price for the {tier} tier."),
        Invalid::Price { tier, text } => {
            format!("{text:?} is not a price for {tier}: use an amount like 45 or 45.50.")
        }
        Invalid::EmptyHold => "There are no seats or tickets in this hold to buy.".into(),
        Invalid::Search { max_chars } => format!(
            "Search by a name, an email or an order number: up to {max_chars} characters, \
             with no control characters."
        ),
        Invalid::TicketCode => {
            "A ticket code is 32 letters and digits, as printed under the QR code.".into()
        }
        Invalid::Tender => {
            "Choose how it was paid: cash, card, or comp (a comp needs its reason).".into()
        }
        Invalid::Gate => "Name the gate in 1 to 40 plain characters.".into(),
        Invalid::NothingToSell => "Choose at least one seat or general-admission place.".into(),
        Invalid::DuplicateAreas => "Name each general-admission area once.".into(),
        Invalid::SeatName(text) => format!(
            "{} names no seat of this event. Write row and seat (\"C12\"), \
             with the section first if rows repeat (\"Stalls C12\").",
            quoted(text)
        ),
        Invalid::NoFile => "Choose a layout file (.json or .csv) to import.".into(),
        Invalid::Currency(code) => format!(
            "{:?} is not a currency: use its three-letter ISO 4217 code, like EUR, USD or GBP.",
            crate::domain::text::shortened(code)
        ),
        Invalid::WebhookUrl(problem) => match problem {
            TargetProblem::NotAUrl => "Give the endpoint's full URL, starting https:// (or http://), \
                 of up to 2,000 characters."
                .into(),
            TargetProblem::Credentials => "Put no user name or password in the URL: every delivery \
                 is signed with the endpoint's secret instead."
                .into(),
            TargetProblem::NotPublic => "That address is on a private or local network, which \
                 webhooks may not reach. An operator can allow it with SEATMAP_WEBHOOK_ALLOW_NETWORKS."
                .into(),
            TargetProblem::Unresolved => "That host name can't be found. Check the URL.".into(),
        },
        Invalid::WebhookEvents => "Tick at least one event.".into(),
        Invalid::BestMode => {
            "Best available's mode is \"replace\" (the default) or \"add\".".into()
        }
    }
}

fn conflict_text(conflict: &Conflict) -> String {
    let filter_words = |filters: &Filters| {
        let mut words = String::new();
        if let Some(section) = &filters.section {
            words.push_str(&format!(" in {section}"));
        }
        if let Some(tier) = &filters.tier {
            words.push_str(&format!(" at tier {tier}"));
        }
        words
    };
    match conflict {
        Conflict::AlreadyPurchased => "This hold has already been bought.".into(),
        Conflict::HoldReleased => "This hold was released; its seats are back on sale.".into(),
        Conflict::AlreadyExtended => "This hold has already had its extra time.".into(),
        Conflict::TooEarlyToExtend { window_secs } => format!(
            "You can ask for more time in the last {} minutes of your hold.",
            window_secs / 60
        ),
        Conflict::HoldStillLive => "This hold hasn't expired; there is nothing to revive.".into(),
        Conflict::NothingToRevive => {
            "All of this hold's seats have been taken or released since.".into()
        }
        Conflict::AlreadyClosed => "Sales for this event are already closed.".into(),
        Conflict::AlreadyCancelled => "This event is already cancelled.".into(),
        Conflict::VenueExists(name) => {
            format!("A venue named {name:?} already exists. Rename the layout to import it again.")
        }
        Conflict::StaffExists(name) => format!("A staff account named {name:?} already exists."),
        Conflict::ApiKeyExists(name) => format!("An API key named {name:?} already exists."),
        Conflict::NotEnoughTogether {
            count,
            free,
            filters,
        } => format!(
            "There are no {count} seats together{}, but {free} seats are free apart. \
             Ask again with \"together\": false to take the best {count} even if apart.",
            filter_words(filters)
        ),
        Conflict::NotEnoughSeats {
            count,
            free,
            filters,
        } => format!(
            "Only {free} seat(s) are free{}; {count} were asked for.",
            filter_words(filters)
        ),
        Conflict::NotEnoughCapacity { area, left, asked } => match left {
            0 => format!("{area} is sold out."),
            1 => format!("Only 1 place is left in {area}; you asked for {asked}."),
            _ => format!("Only {left} places are left in {area}; you asked for {asked}."),
        },
        Conflict::TicketAdmitted => {
            "This ticket was already admitted at the door, so it can't be refunded or moved.".into()
        }
        Conflict::TicketVoided => "This ticket was refunded; it is no longer valid.".into(),
        Conflict::NotASeatTicket => "A general-admission ticket has no seat to move.".into(),
        Conflict::NotSelling {
            status,
            on_sale_at,
            time_zone,
        } => {
            let locale = crate::domain::locale::EventLocale::new(Default::default(), time_zone);
            crate::web::views::sale_notice(*status, *on_sale_at, &locale).unwrap_or_default()
        }
    }
}

fn limit_text(limit: Limit) -> String {
    match limit {
        Limit::HoldRequests => "Too many hold requests. Please wait a moment and try again.".into(),
        Limit::HoldsFromNetwork { live } => format!(
            "Too many seats are on hold from your network ({live} holds). \
             Buy or release some, or wait for a hold to expire."
        ),
        Limit::HoldsForKey { live } => format!(
            "This API key's customers have {live} live holds, the most it may have. \
             Buy or release some, or wait for a hold to expire."
        ),
        Limit::SignIns => "Too many failed sign-ins. Please wait before trying again.".into(),
        Limit::LiveStreams => {
            "Too many live maps are open from your network. Close some and reload.".into()
        }
    }
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
}

fn error_code_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(ErrorCode::ALL.iter().copied()))
        .build()
}

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
        AppError::Invalid(invalid) => (StatusCode::UNPROCESSABLE_ENTITY, invalid.code(), json!({})),
        AppError::Conflict(conflict) => (StatusCode::CONFLICT, conflict.code(), json!({})),
        AppError::HoldExpired => (StatusCode::GONE, ErrorCode::HoldExpired, json!({})),
        AppError::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, json!({})),
        AppError::InvalidApiKey => (
            StatusCode::UNAUTHORIZED,
            ErrorCode::InvalidApiKey,
            json!({}),
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
            _ => None,
        };
        let message = match status {
            StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %self.for_log(), "request failed");
                GENERIC_500.to_string()
            }
            StatusCode::UNPROCESSABLE_ENTITY if self.is_refused_value() => {
                tracing::warn!(error = %self.for_log(), "the database refused a value the rules let through");
                "A value in this request is not acceptable: too long, out of range, \
                 or containing a control character."
                    .to_string()
            }
            StatusCode::SERVICE_UNAVAILABLE => {
                tracing::warn!(error = %self.for_log(), "request failed (transient)");
                GENERIC_503.to_string()
            }
            _ => message(&self),
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
            (AppError::BadRequest("x".into()), StatusCode::BAD_REQUEST),
            (AppError::NotFound(Missing::Event), StatusCode::NOT_FOUND),
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

    #[test]
    fn refusals_become_notices_and_failures_error_pages() {
        let at = time::macros::datetime!(2026-12-01 10:00 UTC);
        let not_yet = AppError::Conflict(Conflict::NotSelling {
            status: crate::domain::sale::SaleStatus::NotYet,
            on_sale_at: Some(at),
            time_zone: "UTC".into(),
        });
        assert_eq!(
            refusal_notice(not_yet).unwrap(),
            "On sale at Tue 1 Dec 2026, 10:00 UTC."
        );
        let limited = AppError::TooManyRequests {
            limit: Limit::HoldRequests,
            retry_after_secs: 30,
        };
        assert!(
            refusal_notice(limited).is_ok(),
            "a 429 is a notice everywhere"
        );
        assert!(refusal_notice(AppError::Unauthorized).is_err());
        assert!(refusal_notice(AppError::Internal(anyhow::anyhow!("bug"))).is_err());
    }
}
