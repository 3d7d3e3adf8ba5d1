//! The tower-sessions session behind a request, with its failures as
//! `AppError`s (an unreachable store is a 503, not a bare 500).

use crate::error::AppError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use tower_sessions::Session;

pub(crate) fn session_error(err: tower_sessions::session::Error) -> AppError {
    AppError::Unavailable(anyhow::Error::new(err).context("session store"))
}

pub(crate) async fn session_from(parts: &mut Parts) -> Result<Session, AppError> {
    Session::from_request_parts(parts, &())
        .await
        .map_err(|(_, message)| AppError::Internal(anyhow::anyhow!(message)))
}
