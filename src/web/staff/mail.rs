//! An event's mail outbox: every message (order confirmations, refunds,
//! waitlist places and offers), whether it was sent, and sending one again.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::{get, post};

use crate::db;
use crate::domain::ids::EventId;
use crate::domain::ids::MessageId;
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{Staff, floor::BoxOffice};
use crate::web::event_header::EventHeader;
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, take_notice};
use crate::web::render::render;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/events/{event_id}/mail", get(outbox_page))
        .route(
            "/staff/events/{event_id}/mail/{message_id}/retry",
            post(retry_message),
        )
}

struct MessageRow {
    id: MessageId,
    /// Failed or sent: staff may send it again.
    resendable: bool,
    /// "Tickets", "Refund", "Waitlist offer", …
    what: &'static str,
    order_id: String,
    short_order: String,
    recipient: String,
    subject: String,
    queued: String,
    state: String,
    last_error: String,
}

#[derive(Template)]
#[template(path = "staff/mail.html")]
struct OutboxPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    event: EventHeader,
    smtp_configured: bool,
    messages: Vec<MessageRow>,
}

async fn outbox_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<BoxOffice>,
) -> AppResult<Html<String>> {
    let event = crate::web::event_header::event_header(&state, event_id).await?;
    let client = state.pool.get().await?;
    let messages = db::outbox::for_event(&client, event_id, 200).await?;
    let locale = event.locale.clone();
    render(&OutboxPage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        event,
        smtp_configured: state.config.mail.smtp_url.is_some(),
        messages: messages
            .into_iter()
            .map(|m| MessageRow {
                id: m.id,
                resendable: m.sent_at.is_some() || m.failed_at.is_some(),
                what: match m.kind.as_str() {
                    "order_confirmation" => "Tickets",
                    "order_refunded" => "Refund",
                    "payment_refunded" => "Late payment refunded",
                    "waitlist_joined" => "Waitlist place",
                    "waitlist_offer" => "Waitlist offer",
                    "waitlist_lapsed" => "Waitlist offer ran out",
                    _ => "Mail",
                },
                order_id: m.order_id.map(|id| id.to_string()).unwrap_or_default(),
                short_order: m
                    .order_id
                    .map(|id| id.to_string().chars().take(8).collect())
                    .unwrap_or_default(),
                recipient: m.recipient,
                subject: m.subject,
                queued: locale.time(m.created_at),
                state: match (m.sent_at, m.failed_at, m.retired_at) {
                    (Some(at), _, _) => format!("sent {}", locale.time(at)),
                    (None, Some(at), _) => format!(
                        "failed after {}, {}: gave up",
                        words::count(m.attempts, "attempt", "attempts"),
                        locale.time(at)
                    ),
                    (None, None, Some(_)) => "not sent: nothing left to send".into(),
                    (None, None, None) if m.attempts == 0 => "waiting".into(),
                    (None, None, None) => format!(
                        "{}; next {}",
                        words::count(m.attempts, "attempt", "attempts"),
                        locale.time(m.next_attempt_at)
                    ),
                },
                last_error: m.last_error.unwrap_or_default(),
            })
            .collect(),
    })
}

/// Sends a message again: one given up on from its first attempt, one
/// already sent as a new copy (a buyer who says it never came).
async fn retry_message(
    State(state): State<AppState>,
    IdPath((event_id, message_id)): IdPath<(EventId, MessageId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let mut client = state.pool.get().await?;
    let outcome =
        if db::outbox::send_again(&mut client, staff.actor(), event_id, message_id).await? {
            Ok("Message queued again.".to_string())
        } else {
            Err(AppError::NotFound(Missing::Page))
        };
    drop(client);
    let location = format!("/staff/events/{event_id}/mail");
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}
