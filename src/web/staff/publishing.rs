//! Publishing a draft from its console, and taking it back to a draft
//! (forms; the API is `PATCH /api/staff/events/{event_id}`).

use axum::Router;
use axum::extract::State;
use axum::response::Redirect;
use axum::routing::post;

use crate::db;
use crate::domain::ids::EventId;
use crate::error::AppResult;
use crate::web::auth::{Staff, floor::Manager};
use crate::web::extract::IdPath;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/events/{event_id}/publish", post(publish))
        .route("/staff/events/{event_id}/unpublish", post(unpublish))
}

async fn publish(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    set(&state, event_id, &staff, true).await
}

async fn unpublish(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    set(&state, event_id, &staff, false).await
}

async fn set(
    state: &AppState,
    event_id: EventId,
    staff: &crate::web::auth::StaffUser,
    published: bool,
) -> AppResult<Redirect> {
    let outcome = db::publishing::set_published(&state.pool, staff.actor(), event_id, published)
        .await
        .map(|()| {
            state.seat_maps.forget(event_id);
            if published {
                "Published: buyers see it now, and buy from its on-sale time.".to_string()
            } else {
                "Taken back to a draft: buyers no longer see it.".to_string()
            }
        });
    let location = format!("/staff/events/{event_id}");
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}
