//! A promo code entered in the hold panel: applied to the buyer's hold, so
//! the panel shows its discount (and any type it unlocks) before the
//! purchase, which then uses it. Each try counts as a hold request, so
//! codes are no guessing oracle.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;

use super::actions::{Back, Changed, respond};
use super::event::buyers_live_hold;
use crate::db;
use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult, Invalid};
use crate::web::admission;
use crate::web::auth::Buyer;
use crate::web::extract::{ClientIp, IdPath};
use crate::web::notices::{Notice, NoticeKind};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use crate::words::refusal_notice;

#[derive(Deserialize)]
pub(crate) struct CodeForm {
    #[serde(default)]
    promo_code: String,
    /// Present: take the applied code off the hold instead.
    #[serde(default)]
    remove: Option<String>,
}

pub(crate) async fn apply_code(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    headers: HeaderMap,
    buyer: Buyer,
    ip: ClientIp,
    CsrfForm(form): CsrfForm<CodeForm>,
) -> AppResult<Response> {
    let hold = buyers_live_hold(&state, event_id, buyer.id).await?;
    let code = form.promo_code.trim();
    let outcome = match hold {
        None => Err(AppError::HoldExpired),
        Some(hold) if form.remove.is_some() => {
            db::promo_codes::apply_to_hold(&state.pool, event_id, hold.id, buyer.id, None)
                .await
                .map(|()| crate::i18n::t("notice-code-removed"))
        }
        // Blank or too long to be a code: unknown, without a lookup.
        Some(_) if code.is_empty() || code.len() > 100 => {
            Err(AppError::Invalid(Invalid::PromoCodeUnknown))
        }
        Some(hold) => match admission::admit_code_try(
            &state,
            buyer.id,
            None,
            ip,
            db::holds::CodeTry::Event(event_id),
        )
        .await
        {
            Ok(()) => {
                db::promo_codes::apply_to_hold(&state.pool, event_id, hold.id, buyer.id, Some(code))
                    .await
                    .map(|()| crate::i18n::t1("notice-code-applied", "code", code))
            }
            Err(limited) => Err(limited),
        },
    };
    let notice = match outcome {
        Ok(text) => Notice::new(NoticeKind::Success, text),
        Err(err) => Notice::new(NoticeKind::Error, refusal_notice(err)?),
    };
    respond(
        &state,
        event_id,
        &buyer,
        &headers,
        Some(notice),
        Changed::default(),
        Back::Map(None, None),
    )
    .await
}
