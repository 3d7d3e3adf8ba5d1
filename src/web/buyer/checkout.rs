//! Buying a hold (the order page after it is in `tickets`).

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};

use super::event::{MapQuery, event_page_response};
use crate::db;
use crate::db::orders::Purchased;
use crate::domain::ids::EventId;
use crate::domain::payment::PaymentMode;
use crate::domain::rules;
use crate::error::{AppError, AppResult};
use crate::payments::PayAt;
use crate::web::admission;
use crate::web::auth::Buyer;
use crate::web::extract::{BuyerFields, ClientIp, IdPath};
use crate::web::notices::{Notice, NoticeKind, push_notice};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use crate::words::{message, refusal_notice};

/// The hold panel's buy form: who buys, and each seat's price type
/// (`type_<seat id>` fields, when the event sells types).
#[derive(serde::Deserialize)]
pub(crate) struct PurchaseForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(flatten)]
    other: std::collections::HashMap<String, String>,
}

pub(crate) async fn purchase(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    buyer: Buyer,
    ip: ClientIp,
    CsrfForm(sent): CsrfForm<PurchaseForm>,
) -> AppResult<Response> {
    let form = BuyerFields {
        name: sent.name,
        email: sent.email,
    };
    let back = Redirect::to(&format!("/events/{event_id}"));
    let client = state.pool.get().await?;
    let latest = db::holds::latest_for_buyer(&client, event_id, buyer.id).await?;
    drop(client);
    let Some(hold) = latest else {
        if buyer.is_new {
            return Ok(crate::web::render::refused_page(
                crate::i18n::t("notice-no-hold"),
                format!("/events/{event_id}"),
            ));
        }
        push_notice(
            &buyer.session,
            &Notice::new(NoticeKind::Info, crate::i18n::t("notice-no-hold")),
        )
        .await?;
        return Ok(back.into_response());
    };
    let details = match rules::buyer_details(&form.name, &form.email, crate::i18n::current())
        .map_err(AppError::from)
    {
        Ok(details) => details,
        Err(err @ AppError::Invalid(_)) => {
            let notice = Notice::new(NoticeKind::Error, message(&err));
            return event_page_response(
                &state,
                event_id,
                &MapQuery::default(),
                (Some(buyer.id), buyer.csrf.value(), &buyer.session),
                Some(notice),
                Some(form),
            )
            .await;
        }
        Err(other) => return Err(other),
    };
    let choices = match crate::domain::price_type::form_choices(&sent.other) {
        Ok(types) => crate::domain::price_type::Choices {
            types,
            promo_code: None,
        }
        .with_code(sent.other.get("promo_code").map(String::as_str)),
        Err(invalid) => {
            let text = refusal_notice(AppError::Invalid(invalid))?;
            push_notice(&buyer.session, &Notice::new(NoticeKind::Error, text)).await?;
            return Ok(back.into_response());
        }
    };
    // Codes are no guessing oracle: each try counts as a hold request,
    // counted (and refused 429 over the limit) before the code is looked up.
    if choices.promo_code.is_some()
        && let Err(limited) = admission::admit_code_try(
            &state,
            buyer.id,
            None,
            ip,
            db::holds::CodeTry::Event(event_id),
        )
        .await
    {
        let text = refusal_notice(limited)?;
        push_notice(&buyer.session, &Notice::new(NoticeKind::Error, text)).await?;
        return Ok(back.into_response());
    }
    let bought = db::orders::purchase(
        &state.pool,
        hold.id,
        buyer.id,
        &details,
        state.config.payments.window,
        &choices,
    )
    .await;
    let refusal = match bought {
        Ok(Purchased::Paid(order)) => {
            return Ok(Redirect::to(&format!("/orders/{}", order.order_id)).into_response());
        }
        Ok(Purchased::Pending(order)) => {
            let page = format!("/orders/{}", order.order_id);
            if order.payment != PaymentMode::Online {
                return Ok(Redirect::to(&page).into_response());
            }
            // After the commit: to Stripe's page. If Stripe can't be
            // reached, the order page has "Pay" to try again.
            return Ok(
                match crate::web::payments::pay_url(&state, order.order_id).await {
                    Ok(Some(PayAt::Stripe(url))) => Redirect::to(&url).into_response(),
                    Ok(_) => Redirect::to(&page).into_response(),
                    Err(err) => {
                        tracing::warn!(order_id = %order.order_id,
                        error = %crate::error::for_log(err.as_ref()), "no checkout session yet");
                        Redirect::to(&page).into_response()
                    }
                },
            );
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
