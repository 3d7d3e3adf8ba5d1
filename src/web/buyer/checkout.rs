//! Buying a hold (the order page after it is in `tickets`).

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};

use super::event::{MapQuery, event_page_response};
use crate::db;
use crate::domain::ids::EventId;
use crate::domain::rules;
use crate::error::{AppError, AppResult};
use crate::web::auth::Buyer;
use crate::web::extract::{BuyerFields, IdPath};
use crate::web::notices::{Notice, NoticeKind, push_notice};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use crate::words::{message, refusal_notice};

pub(crate) async fn purchase(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    buyer: Buyer,
    CsrfForm(form): CsrfForm<BuyerFields>,
) -> AppResult<Response> {
    let back = Redirect::to(&format!("/events/{event_id}"));
    let client = state.pool.get().await?;
    let latest = db::holds::latest_for_buyer(&client, event_id, buyer.id).await?;
    drop(client);
    let Some(hold) = latest else {
        if buyer.is_new {
            return Ok(crate::web::render::refused_page(
                "You have no seats on hold.".into(),
                format!("/events/{event_id}"),
            ));
        }
        push_notice(
            &buyer.session,
            &Notice::new(NoticeKind::Info, "You have no seats on hold."),
        )
        .await?;
        return Ok(back.into_response());
    };
    let details = match rules::buyer_details(&form.name, &form.email).map_err(AppError::from) {
        Ok(details) => details,
        Err(err @ AppError::Invalid(_)) => {
            let notice = Notice::new(NoticeKind::Error, message(&err));
            return event_page_response(
                &state,
                event_id,
                &MapQuery::default(),
                (Some(buyer.id), buyer.csrf.value()),
                Some(notice),
                Some(form),
            )
            .await;
        }
        Err(other) => return Err(other),
    };
    let refusal = match db::orders::purchase(&state.pool, hold.id, buyer.id, &details).await {
        Ok(order) => {
            return Ok(Redirect::to(&format!("/orders/{}", order.order_id)).into_response());
        }
        Err(AppError::HoldExpired) => format!(
            "Your hold expired at {}, so its seats went back on sale and could not be bought. \
             The map shows them as they are now.",
            hold.locale.clock(hold.expires_at)
        ),
        Err(err) => refusal_notice(err)?,
    };
    push_notice(&buyer.session, &Notice::new(NoticeKind::Error, refusal)).await?;
    Ok(back.into_response())
}
