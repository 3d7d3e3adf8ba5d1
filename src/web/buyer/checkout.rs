//! Buying a hold, and the order page after.

use askama::Template;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Redirect, Response};

use super::event::*;
use crate::db;
use crate::domain::ids::{EventId, OrderId};
use crate::domain::rules;
use crate::error::{AppError, AppResult, Missing};
use crate::web::error::{message, refusal_notice};
use crate::web::extract::{Buyer, BuyerFields, IdPath, Notice, NoticeKind, Viewer, push_notice};
use crate::web::render::*;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use crate::web::views::OrderLineView;

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
        push_notice(
            &buyer.session,
            &Notice::new(NoticeKind::Info, "You have no seats on hold."),
        )
        .await?;
        return Ok(back.into_response());
    };
    let details = match rules::buyer_details(&form.name, &form.email) {
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

#[derive(Template)]
#[template(path = "orders/show.html")]
pub(crate) struct OrderPage {
    order_id: String,
    event: String,
    event_id: EventId,
    venue: String,
    starts: String,
    buyer_name: String,
    buyer_email: String,
    event_cancelled: bool,
    lines: Vec<OrderLineView>,
    total: String,
}

pub(crate) async fn order_page(
    State(state): State<AppState>,
    IdPath(order_id): IdPath<OrderId>,
    viewer: Viewer,
) -> AppResult<Html<String>> {
    let buyer_id = viewer
        .buyer_id
        .ok_or_else(|| AppError::NotFound(Missing::Order))?;
    let client = state.pool.get().await?;
    let order = db::orders::find_for_buyer(&client, order_id, buyer_id)
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Order))?;
    let total: i64 = order.lines.iter().map(|l| l.price_cents).sum();
    render(&OrderPage {
        order_id: order.id.to_string(),
        event: order.event_name,
        event_id: order.event_id,
        venue: order.venue,
        starts: order.locale.time(order.starts_at),
        buyer_name: order.buyer_name,
        buyer_email: order.buyer_email,
        event_cancelled: order.event_cancelled,
        lines: order
            .lines
            .iter()
            .map(|line| OrderLineView {
                name: line.place.clone(),
                tier: line.tier_name.clone(),
                price: order.locale.price(line.price_cents),
            })
            .collect(),
        total: order.locale.price(total),
    })
}
