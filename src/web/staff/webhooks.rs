//! Webhook endpoints, registered by staff: URL, event types, and the
//! secret receivers check signatures with; and the delivery log.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::{get, post};

use crate::db;
use crate::domain::webhook::{self, EVENT_TYPES};
use crate::error::{AppError, AppResult, Missing};
use crate::web::extract::{IdPath, Notice, StaffUser, take_notice};
use crate::web::render::render;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::web::views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/webhooks", get(page).post(create))
        .route("/staff/webhooks/{endpoint_id}/disable", post(disable))
}

struct EndpointRow {
    id: i64,
    url: String,
    secret: String,
    events: String,
    created: String,
    live: bool,
}

struct DeliveryRow {
    endpoint_id: i64,
    delivery_id: String,
    event_type: String,
    created: String,
    attempts: i32,
    state: String,
    last_status: String,
    last_response: String,
}

#[derive(Template)]
#[template(path = "staff/webhooks.html")]
struct WebhooksPage {
    staff_name: String,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    event_types: Vec<&'static str>,
    endpoints: Vec<EndpointRow>,
    deliveries: Vec<DeliveryRow>,
}

async fn page(State(state): State<AppState>, staff: StaffUser) -> AppResult<Html<String>> {
    let client = state.pool.get().await?;
    let endpoints = db::webhooks::list(&client).await?;
    let deliveries = db::webhooks::recent_deliveries(&client, 100).await?;
    render(&WebhooksPage {
        staff_name: staff.name,
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        event_types: EVENT_TYPES.to_vec(),
        endpoints: endpoints
            .into_iter()
            .map(|e| EndpointRow {
                id: e.id,
                url: e.url,
                secret: e.secret,
                events: e.event_types.join(", "),
                created: views::display_time(e.created_at),
                live: e.disabled_at.is_none(),
            })
            .collect(),
        deliveries: deliveries
            .into_iter()
            .map(|d| DeliveryRow {
                endpoint_id: d.endpoint_id,
                delivery_id: d.delivery_id,
                event_type: d.event_type,
                created: views::display_time(d.created_at),
                attempts: d.attempts,
                state: match d.delivered_at {
                    Some(at) => format!("delivered {}", views::display_time(at)),
                    None if d.attempts == 0 => "waiting".into(),
                    None => format!("retrying at {}", views::display_time(d.next_attempt_at)),
                },
                last_status: d.last_status.map(|s| s.to_string()).unwrap_or_default(),
                last_response: d.last_response.unwrap_or_default(),
            })
            .collect(),
    })
}

/// The form: `url`, and one `event` field per event type ticked.
async fn create(
    State(state): State<AppState>,
    staff: StaffUser,
    CsrfForm(form): CsrfForm<Vec<(String, String)>>,
) -> AppResult<Redirect> {
    let url = form
        .iter()
        .find(|(name, _)| name == "url")
        .map(|(_, value)| value.trim().to_string())
        .unwrap_or_default();
    let events: Vec<String> = form
        .iter()
        .filter(|(name, value)| name == "event" && webhook::is_event_type(value))
        .map(|(_, value)| value.clone())
        .collect();
    let outcome = async {
        let plain = !url.chars().any(|c| c.is_whitespace() || c.is_control());
        if !(url.starts_with("https://") || url.starts_with("http://"))
            || url.len() > 2000
            || !plain
        {
            return Err(AppError::BadRequest(
                "Give the endpoint's full URL, starting https:// (or http:// on a private network)."
                    .into(),
            ));
        }
        if events.is_empty() {
            return Err(AppError::BadRequest("Tick at least one event.".into()));
        }
        let client = state.pool.get().await?;
        db::webhooks::create(
            &client,
            &url,
            &webhook::new_secret(),
            &events,
            Some(staff.id),
        )
        .await?;
        Ok(
            "Endpoint added. Its secret is in the list: the receiver checks each \
            delivery's signature with it."
                .to_string(),
        )
    }
    .await;
    super::back_with_notice(&staff.session, "/staff/webhooks", outcome).await
}

async fn disable(
    State(state): State<AppState>,
    IdPath(endpoint_id): IdPath<i64>,
    staff: StaffUser,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let client = state.pool.get().await?;
    let outcome = if db::webhooks::disable(&client, endpoint_id).await? {
        Ok("Endpoint disabled: nothing new is sent to it.".to_string())
    } else {
        Err(AppError::NotFound(Missing::Page))
    };
    drop(client);
    super::back_with_notice(&staff.session, "/staff/webhooks", outcome).await
}
