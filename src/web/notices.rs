//! Notices: one line of feedback carried across a redirect in the session
//! ("Sold to Ada: order 4F2A."), shown once by the next page.

use crate::error::{AppError, AppResult};
use serde::{Deserialize, Serialize};
use tower_sessions::Session;

use crate::web::session::session_error;
use crate::words::refusal_notice;
use axum::response::Redirect;

const NOTICE_KEY: &str = "notice";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoticeKind {
    Success,
    Info,
    Error,
}

/// A one-line message shown once on the next page (post/redirect/get).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Notice {
    pub kind: NoticeKind,
    pub text: String,
    /// Best available swapped the buyer's seats: the way back.
    #[serde(default)]
    pub undo: Option<UndoSwap>,
}

/// The form that swaps a best-available result back for the seats it
/// released (seat ids, comma-separated), while they are still free.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UndoSwap {
    pub action: String,
    pub hold: String,
    pub restore: String,
    pub drop: String,
    pub csrf: String,
    /// The server's signature over the event, hold, restore and drop: an
    /// undo gives back only the seats its own swap released.
    #[serde(default)]
    pub proof: String,
}

impl Notice {
    /// The css modifier (and ARIA role choice) for this kind.
    pub fn css(&self) -> &'static str {
        match self.kind {
            NoticeKind::Success => "success",
            NoticeKind::Info => "info",
            NoticeKind::Error => "error",
        }
    }

    pub fn new(kind: NoticeKind, text: impl Into<String>) -> Notice {
        Notice {
            kind,
            text: text.into(),
            undo: None,
        }
    }
}

pub async fn push_notice(session: &Session, notice: &Notice) -> Result<(), AppError> {
    session
        .insert(NOTICE_KEY, notice)
        .await
        .map_err(session_error)
}

/// The notice waiting for this page, if any. Looks before removing: a
/// removal marks the session changed, and an unchanged one isn't written.
pub async fn take_notice(session: &Session) -> Result<Option<Notice>, AppError> {
    let waiting: Option<Notice> = session.get(NOTICE_KEY).await.map_err(session_error)?;
    if waiting.is_some() {
        session
            .remove::<Notice>(NOTICE_KEY)
            .await
            .map_err(session_error)?;
    }
    Ok(waiting)
}

/// Back to `location` with an action's outcome as a notice. Refusals a
/// member of staff can act on become notices; others are errors.
pub async fn back_with_notice(
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
