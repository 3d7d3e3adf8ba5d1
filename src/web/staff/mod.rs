//! The box office's room: sign-in, the console, venues and the staff API.

pub mod api;
pub mod console;
pub mod door;
pub mod orders;
pub mod reports;
pub mod sign_in;
pub mod venues;
pub mod webhooks;

use axum::Router;
use axum::response::Redirect;
use tower_sessions::Session;

use crate::db;
use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult, Missing};
use crate::web::error::refusal_notice;
use crate::web::extract::{Notice, NoticeKind, push_notice};
use crate::web::state::AppState;
use crate::web::views::EventHeader;

pub use sign_in::login_redirect;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(sign_in::router())
        .merge(console::router())
        .merge(api::router())
        .merge(venues::router())
        .merge(reports::router())
        .merge(door::router())
        .merge(orders::router())
        .merge(webhooks::router())
}

/// The event a staff page is about, or 404.
pub(crate) async fn event_header(state: &AppState, event_id: EventId) -> AppResult<EventHeader> {
    let client = state.pool.get().await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    Ok(EventHeader::from(&event))
}

/// Back to `location` with an action's outcome as a notice. Refusals a
/// member of staff can act on become notices; others are errors.
pub(crate) async fn back_with_notice(
    session: &Session,
    location: &str,
    outcome: AppResult<String>,
) -> AppResult<Redirect> {
    let notice = match outcome {
        Ok(text) => Notice::new(NoticeKind::Success, text),
        Err(err) => Notice::new(NoticeKind::Error, refusal_notice(err)?),
    };
    push_notice(session, &notice).await?;
    Ok(Redirect::to(location))
}
