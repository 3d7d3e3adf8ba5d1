//! Drafts on buyers' pages: see `db::publishing`.

use tower_sessions::Session;

use crate::error::{AppError, AppResult, Missing};
use crate::web::state::AppState;

/// Whether a buyer's page of the event is a staff preview of a draft. A
/// published event is shown to anyone; a draft to signed-in staff only,
/// and to anyone else it doesn't exist (404, in pages and the API alike).
pub(crate) async fn draft_preview(
    state: &AppState,
    session: &Session,
    published: bool,
) -> AppResult<bool> {
    if published {
        return Ok(false);
    }
    match crate::web::auth::signed_in_staff(state, session).await? {
        Some(_) => Ok(true),
        None => Err(AppError::NotFound(Missing::Event)),
    }
}
