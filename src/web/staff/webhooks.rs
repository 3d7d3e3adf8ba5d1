//! Webhook endpoints, registered by staff: URL, event types, and the
//! secret receivers check signatures with; and the delivery log.
//!
//! A secret is shown once, on the page that answers its creation (or its
//! rotation). After that it is shown only to a member of staff who asks
//! for it, and each such look is in the audit log. Rotating keeps the old
//! secret signing beside the new one for a day, so a receiver can switch
//! without missing a delivery.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use crate::db;
use crate::domain::ids::WebhookId;
use crate::domain::webhook::{self, EVENT_TYPES, ROTATION_OVERLAP, TargetPolicy};
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::auth::{Staff, floor::Manager};
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, take_notice};
use crate::web::render::render;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/webhooks", get(page).post(create))
        .route("/staff/webhooks/{endpoint_id}/disable", post(disable))
        .route("/staff/webhooks/{endpoint_id}/secret", post(reveal))
        .route("/staff/webhooks/{endpoint_id}/rotate", post(rotate))
        .route(
            "/staff/webhooks/deliveries/{delivery_id}/retry",
            post(retry_delivery),
        )
}

struct EndpointRow {
    id: WebhookId,
    url: String,
    events: String,
    created: String,
    live: bool,
    /// "until Tue 1 Dec, 10:00": the previous secret still signs.
    rotating_until: Option<String>,
}

struct DeliveryRow {
    endpoint_id: WebhookId,
    delivery_id: String,
    event_type: String,
    created: String,
    attempts: i32,
    state: String,
    failed: bool,
    last_status: String,
    last_response: String,
}

#[derive(Template)]
#[template(path = "staff/webhooks.html")]
struct WebhooksPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    event_types: Vec<&'static str>,
    endpoints: Vec<EndpointRow>,
    deliveries: Vec<DeliveryRow>,
}

/// One endpoint's secret, shown to the member of staff who created,
/// rotated or asked to see it.
#[derive(Template)]
#[template(path = "staff/webhook_secret.html")]
struct SecretPage {
    staff_bar: crate::web::auth::StaffBar,
    url: String,
    secret: String,
    /// Why it is shown: "added", "rotated" or "asked for".
    why: &'static str,
    overlap_hours: i64,
}

async fn page(State(state): State<AppState>, staff: Staff<Manager>) -> AppResult<Response> {
    let client = state.pool.get().await?;
    let endpoints = db::webhooks::list(&client).await?;
    let deliveries = db::webhooks::recent_deliveries(&client, 100).await?;
    let page = WebhooksPage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        event_types: EVENT_TYPES.to_vec(),
        endpoints: endpoints
            .into_iter()
            .map(|e| EndpointRow {
                id: e.id,
                url: e.url,
                events: e.event_types.join(", "),
                created: words::display_time(e.created_at),
                live: e.disabled_at.is_none(),
                rotating_until: e.previous_secret_until.map(words::display_time),
            })
            .collect(),
        deliveries: deliveries
            .into_iter()
            .map(|d| DeliveryRow {
                endpoint_id: d.endpoint_id,
                delivery_id: d.delivery_id,
                event_type: d.event_type,
                created: words::display_time(d.created_at),
                attempts: d.attempts,
                state: match (d.delivered_at, d.failed_at) {
                    (Some(at), _) => format!("delivered {}", words::display_time(at)),
                    (None, Some(at)) => format!("failed {}: gave up", words::display_time(at)),
                    (None, None) if d.attempts == 0 => "waiting".into(),
                    (None, None) => {
                        format!("retrying at {}", words::display_time(d.next_attempt_at))
                    }
                },
                failed: d.delivered_at.is_none() && d.failed_at.is_some(),
                last_status: d.last_status.map(|s| s.to_string()).unwrap_or_default(),
                last_response: d.last_response.unwrap_or_default(),
            })
            .collect(),
    };
    Ok(private(render(&page)?))
}

/// A page that shows a secret (or may): kept by no cache.
fn private(page: impl IntoResponse) -> Response {
    ([(header::CACHE_CONTROL, "no-store")], page).into_response()
}

fn secret_page(
    staff: &crate::web::auth::StaffUser,
    url: String,
    secret: String,
    why: &'static str,
) -> AppResult<Response> {
    Ok(private(render(&SecretPage {
        staff_bar: staff.bar(),
        url,
        secret,
        why,
        overlap_hours: ROTATION_OVERLAP.whole_hours(),
    })?))
}

/// The form: `url`, and one `event` field per event type ticked. Answers
/// with the new secret's page, the one time it is shown unasked.
async fn create(
    State(state): State<AppState>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<Vec<(String, String)>>,
) -> AppResult<Response> {
    let url = form
        .iter()
        .find(|(name, _)| name == "url")
        .map(|(_, value)| value.as_str())
        .unwrap_or_default();
    let events: Vec<String> = form
        .iter()
        .filter(|(name, value)| name == "event" && webhook::is_event_type(value))
        .map(|(_, value)| value.clone())
        .collect();
    let policy = TargetPolicy {
        allowed: state.config.webhooks.allowed_networks.clone(),
    };
    let checked = async {
        let url = crate::webhooks::check_target(url, &policy)
            .await
            .map_err(|problem| AppError::Invalid(Invalid::WebhookUrl(problem)))?;
        if events.is_empty() {
            return Err(AppError::Invalid(Invalid::WebhookEvents));
        }
        Ok(url)
    }
    .await;
    let url = match checked {
        Ok(url) => url.to_string(),
        Err(err) => {
            let back =
                crate::web::notices::back_with_notice(&staff.session, "/staff/webhooks", Err(err))
                    .await?;
            return Ok(back.into_response());
        }
    };
    let secret = webhook::new_secret();
    let client = state.pool.get().await?;
    let id = db::webhooks::create(&client, &url, &secret, &events, Some(staff.id)).await?;
    audit(&client, &staff, "webhook_added", id, &url).await?;
    secret_page(&staff, url, secret, "added")
}

async fn audit(
    client: &impl db::GenericClient,
    staff: &crate::web::auth::StaffUser,
    action: &str,
    endpoint_id: WebhookId,
    url: &str,
) -> AppResult<()> {
    db::audit::record(
        client,
        db::audit::Entry {
            actor: Some(staff.actor()),
            action,
            event_id: None,
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: format!("endpoint {endpoint_id}: {}", webhook::loggable(url)),
        },
    )
    .await
}

/// Shows a live endpoint's secret to the one who asked, and records that
/// they saw it.
async fn reveal(
    State(state): State<AppState>,
    IdPath(endpoint_id): IdPath<WebhookId>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let (url, secret) = db::in_transaction(&state.pool, async |tx| {
        let found = db::webhooks::secret_of(tx, endpoint_id)
            .await?
            .ok_or(AppError::NotFound(Missing::Page))?;
        audit(tx, &staff, "webhook_secret_shown", endpoint_id, &found.0).await?;
        Ok(found)
    })
    .await?;
    secret_page(&staff, url, secret, "asked for")
}

/// A new secret for a live endpoint; the old one signs too for a day.
async fn rotate(
    State(state): State<AppState>,
    IdPath(endpoint_id): IdPath<WebhookId>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let secret = webhook::new_secret();
    let overlap = std::time::Duration::from_secs(ROTATION_OVERLAP.whole_seconds() as u64);
    let url = db::in_transaction(&state.pool, async |tx| {
        let url = db::webhooks::rotate_secret(tx, endpoint_id, &secret, overlap)
            .await?
            .ok_or(AppError::NotFound(Missing::Page))?;
        audit(tx, &staff, "webhook_secret_rotated", endpoint_id, &url).await?;
        Ok(url)
    })
    .await?;
    secret_page(&staff, url, secret, "rotated")
}

async fn disable(
    State(state): State<AppState>,
    IdPath(endpoint_id): IdPath<WebhookId>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let client = state.pool.get().await?;
    let outcome = if db::webhooks::disable(&client, endpoint_id).await? {
        Ok("Endpoint disabled: nothing new is sent to it.".to_string())
    } else {
        Err(AppError::NotFound(Missing::Page))
    };
    drop(client);
    crate::web::notices::back_with_notice(&staff.session, "/staff/webhooks", outcome).await
}

/// Sends a delivery that was given up on again, from its first attempt.
async fn retry_delivery(
    State(state): State<AppState>,
    IdPath(delivery_id): IdPath<uuid::Uuid>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let client = state.pool.get().await?;
    let outcome = if db::webhooks::retry_failed(&client, &delivery_id.to_string()).await? {
        Ok("Delivery queued again.".to_string())
    } else {
        Err(AppError::NotFound(Missing::Page))
    };
    drop(client);
    crate::web::notices::back_with_notice(&staff.session, "/staff/webhooks", outcome).await
}
