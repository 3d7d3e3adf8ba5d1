//! Paying for an order: Stripe's webhook, the buyer's "Pay" (which sends
//! them to Stripe's page), and the order page's payment panel, which
//! follows the order until the webhook confirms it.

use crate::i18n::{Arg, t, t1, t2, tw};
use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use time::OffsetDateTime;

use crate::db;
use crate::db::payments::{OrderPayment, Payment};
use crate::domain::ids::OrderId;
use crate::domain::payment::{OrderStatus, PaymentMode, SignatureProblem, verify_stripe_signature};
use crate::error::{AppError, AppResult, Missing};
use crate::payments::PayAt;
use crate::web::auth::Viewer;
use crate::web::extract::{IdPath, QueryInput};
use crate::web::order_access::{OrderAccess, order_owner};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

/// Stripe's webhook, routed and documented with the API.
/// An order's receipt lines, in the current language: shown once it has
/// tickets, and while it waits for its payment (what is asked is fixed at
/// checkout); none otherwise (a lapsed order, say).
pub(crate) fn receipt_lines(
    order: &db::orders::Order,
    has_tickets: bool,
    payment: &OrderPayment,
) -> Vec<crate::i18n::receipt::ReceiptLine> {
    if !has_tickets && payment.status != OrderStatus::PendingPayment {
        return Vec::new();
    }
    let receipt = &order.receipt;
    crate::i18n::receipt::lines(
        &receipt.totals,
        receipt.tax,
        receipt.promo_code.as_deref(),
        receipt.refunded_cents,
        &order.locale,
    )
}

pub fn routes() -> utoipa_axum::router::OpenApiRouter<AppState> {
    utoipa_axum::router::OpenApiRouter::new().routes(utoipa_axum::routes!(stripe_webhook))
}

/// The order page's payment panel.
#[derive(Template)]
#[template(path = "orders/_payment.html")]
pub(crate) struct PaymentPanel {
    /// "pending", "waiting", "reserved", "lapsed", "unfulfilled", "paid"
    /// (a CSS class, and what tests look for).
    pub state: &'static str,
    pub heading: String,
    pub text: String,
    /// Where "Pay" posts, when paying is open to the buyer now.
    pub pay_action: Option<String>,
    pub pay_label: String,
    /// Polled until the payment is confirmed.
    pub poll_url: Option<String>,
    pub csrf: String,
}

impl PaymentPanel {
    /// None for an order that never waited for money (a free event's).
    pub(crate) fn new(
        order_id: OrderId,
        payment: &OrderPayment,
        access: &OrderAccess,
        csrf: &str,
    ) -> Option<PaymentPanel> {
        let locale = &payment.locale;
        let amount = locale.price(payment.amount_cents.unwrap_or(0));
        let by = payment.pay_by.map(|at| locale.time(at)).unwrap_or_default();
        let query = access.query();
        let with_query = |path: String| {
            if query.is_empty() {
                path
            } else {
                format!("{path}?{query}")
            }
        };
        let polled = access.query_with_return();
        let poll = |path: String| {
            if polled.is_empty() {
                path
            } else {
                format!("{path}?{polled}")
            }
        };
        let returned = access.payment.as_deref() == Some("returned");
        let cancelled = access.payment.as_deref() == Some("cancelled");
        let panel = |state, heading: &str, text: String| PaymentPanel {
            state,
            heading: heading.to_string(),
            text,
            pay_action: None,
            pay_label: t1("buy-label-online", "total", &amount),
            poll_url: None,
            csrf: csrf.to_string(),
        };
        let refunded_text = |paid: i64| {
            let sent = payment
                .refunds
                .iter()
                .any(|refund| refund.done_at.is_some());
            t1(
                if sent {
                    "payment-late-refund-sent"
                } else {
                    "payment-late-refunding"
                },
                "amount",
                &locale.price(paid),
            )
        };
        Some(match (payment.payment, payment.status) {
            (PaymentMode::None, _) => return None,
            (_, OrderStatus::Paid | OrderStatus::Refunded) => panel(
                "paid",
                &t("payment-received"),
                t1(
                    match payment.payment {
                        PaymentMode::BoxOffice => "payment-paid-box-office",
                        _ => "payment-paid-card",
                    },
                    "amount",
                    &locale.price(payment.amount_paid_cents.unwrap_or(0)),
                ),
            ),
            (PaymentMode::Online, OrderStatus::PendingPayment) if returned => PaymentPanel {
                poll_url: Some(poll(format!("/orders/{order_id}/payment"))),
                ..panel(
                    "waiting",
                    &t("payment-waiting"),
                    t1("payment-waiting-text", "amount", &amount),
                )
            },
            (PaymentMode::Online, OrderStatus::PendingPayment) => PaymentPanel {
                pay_action: Some(with_query(format!("/orders/{order_id}/pay"))),
                poll_url: Some(poll(format!("/orders/{order_id}/payment"))),
                ..panel(
                    "pending",
                    &t(if cancelled {
                        "payment-not-made"
                    } else {
                        "payment-held"
                    }),
                    t2(
                        if cancelled {
                            "payment-left-unpaid"
                        } else {
                            "payment-pay-by"
                        },
                        "amount",
                        &amount,
                        "by",
                        &by,
                    ),
                )
            },
            (_, OrderStatus::PendingPayment) => panel(
                "reserved",
                &t("payment-reserved"),
                tw(
                    "payment-reserved-text",
                    &[
                        ("amount", Arg::from(&amount)),
                        ("by", Arg::from(&by)),
                        ("order", Arg::from(&order_id.to_string())),
                    ],
                ),
            ),
            (_, OrderStatus::Lapsed) => panel(
                "lapsed",
                &t("payment-lapsed"),
                t1("payment-lapsed-text", "by", &by),
            ),
            (_, OrderStatus::RefundedUnfulfilled) => panel(
                "unfulfilled",
                &t("payment-refunding"),
                refunded_text(payment.amount_paid_cents.unwrap_or(0)),
            ),
        })
    }
}

/// `GET /orders/{id}/payment`: the panel again, for the page's polling.
/// Once the order is paid the whole page reloads to show the tickets.
pub(crate) async fn payment_fragment(
    State(state): State<AppState>,
    IdPath(order_id): IdPath<OrderId>,
    QueryInput(access): QueryInput<OrderAccess>,
    viewer: Viewer,
) -> AppResult<Response> {
    let owner = order_owner(&state, order_id, &access, &viewer)?;
    let client = state.pool.get().await?;
    db::orders::find(&client, order_id, owner)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    let payment = db::payments::of_order(&client, order_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    let Some(panel) = PaymentPanel::new(order_id, &payment, &access, &viewer.csrf.value()) else {
        return Ok(StatusCode::NO_CONTENT.into_response());
    };
    let mut response = Html(panel.render().map_err(anyhow::Error::from)?).into_response();
    if payment.status != OrderStatus::PendingPayment {
        response
            .headers_mut()
            .insert("HX-Refresh", HeaderValue::from_static("true"));
    }
    Ok(response)
}

#[derive(Deserialize)]
pub(crate) struct PayForm {}

/// `POST /orders/{id}/pay`: to the order's Checkout Session (made now if
/// it has none yet), or back to the order page saying why not.
pub(crate) async fn pay(
    State(state): State<AppState>,
    IdPath(order_id): IdPath<OrderId>,
    QueryInput(access): QueryInput<OrderAccess>,
    viewer: Viewer,
    CsrfForm(_): CsrfForm<PayForm>,
) -> AppResult<Response> {
    let owner = order_owner(&state, order_id, &access, &viewer)?;
    let back = {
        let client = state.pool.get().await?;
        db::orders::find(&client, order_id, owner)
            .await?
            .ok_or(AppError::NotFound(Missing::Order))?;
        let query = access.query();
        if query.is_empty() {
            format!("/orders/{order_id}")
        } else {
            format!("/orders/{order_id}?{query}")
        }
    };
    match pay_url(&state, order_id).await {
        Ok(Some(PayAt::Stripe(url))) => Ok(Redirect::to(&url).into_response()),
        Ok(_) => Ok(Redirect::to(&back).into_response()),
        Err(err) => {
            tracing::warn!(%order_id, error = %crate::error::for_log(err.as_ref()), "no checkout session");
            Ok(crate::web::render::refused_page(
                "The payment page could not be opened just now. Your seats are still held: \
                 try Pay again in a moment."
                    .into(),
                back,
            ))
        }
    }
}

/// Where the buyer pays for the online order (Stripe's page), making its
/// session if it has none; None when Stripe isn't configured or the
/// order isn't an online one.
pub(crate) async fn pay_url(state: &AppState, order_id: OrderId) -> anyhow::Result<Option<PayAt>> {
    let Some(stripe) = &state.payments.stripe else {
        return Ok(None);
    };
    // Back to the order page as a signed link: it opens without the
    // session, should the browser have lost it on the way.
    let links = state.links.clone();
    crate::payments::checkout_url(&state.pool, stripe, order_id, move |order| {
        let until = links.expiry(order.starts_at, OffsetDateTime::now_utc());
        links.order_url(order_id, until)
    })
    .await
}

#[derive(Deserialize)]
struct StripeEvent {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    data: StripeEventData,
}

#[derive(Deserialize)]
struct StripeEventData {
    object: serde_json::Value,
}

/// The order a Checkout Session belongs to: its `client_reference_id`,
/// else `metadata.order_id`.
fn order_of(session: &serde_json::Value) -> Option<OrderId> {
    session
        .get("client_reference_id")
        .and_then(|v| v.as_str())
        .or_else(|| {
            session
                .pointer("/metadata/order_id")
                .and_then(|v| v.as_str())
        })
        .and_then(|text| uuid::Uuid::parse_str(text).ok())
        .map(OrderId)
}

/// What Stripe is told: a plain word; Stripe only reads the status.
fn answer(status: StatusCode, text: &'static str) -> Response {
    (status, text).into_response()
}

/// Stripe's events, signed with the endpoint's secret. A bad signature
/// or a stale one is a 400 and writes nothing; an event seen before is a
/// 200 that does nothing; an event for an order we don't know is kept
/// and answered 200 (Stripe would otherwise retry it for days).
#[utoipa::path(post, path = "/payments/stripe/webhook", tag = "payments",
    request_body(content = String, content_type = "application/json",
        description = "A Stripe event, as Stripe sends it"),
    params(("Stripe-Signature" = String, Header, description = "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"{t}.{body}\">")),
    responses(
        (status = 200, description = "Taken (or seen before)"),
        (status = 400, description = "Unsigned, badly signed, stale, or not an event; or no Stripe webhook secret is configured"),
        (status = 503, description = "The database is unavailable; Stripe retries")))]
pub(crate) async fn stripe_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> AppResult<Response> {
    let Some(settings) = &state.config.payments.stripe else {
        return Ok(answer(
            StatusCode::BAD_REQUEST,
            "no Stripe webhook secret is configured here",
        ));
    };
    let signature = headers
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok());
    let now = OffsetDateTime::now_utc().unix_timestamp();
    if let Err(problem) =
        verify_stripe_signature(signature, &body, settings.webhook_secret.expose(), now)
    {
        tracing::warn!(?problem, "Stripe webhook refused");
        return Ok(answer(
            StatusCode::BAD_REQUEST,
            match problem {
                SignatureProblem::Malformed => "no usable Stripe-Signature",
                SignatureProblem::Stale => "signature too old",
                SignatureProblem::Mismatch => "signature does not match",
            },
        ));
    }
    let Ok(event) = serde_json::from_slice::<StripeEvent>(&body) else {
        return Ok(answer(StatusCode::BAD_REQUEST, "not a Stripe event"));
    };
    if event.id.is_empty() || event.id.len() > 255 {
        return Ok(answer(StatusCode::BAD_REQUEST, "not a Stripe event id"));
    }
    let session = &event.data.object;
    let order_id = order_of(session);
    let paid = session.get("payment_status").and_then(|v| v.as_str()) == Some("paid");
    match (event.kind.as_str(), order_id) {
        (
            "checkout.session.completed" | "checkout.session.async_payment_succeeded",
            Some(order_id),
        ) if paid => {
            let payment = Payment {
                amount_cents: session
                    .get("amount_total")
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0),
                payment_intent: session.get("payment_intent").and_then(|v| v.as_str()),
                // Matched against the session the order made: another
                // session's money, or another currency, is never settled.
                session: Some(db::payments::PaidSession {
                    id: session.get("id").and_then(|v| v.as_str()),
                    currency: session.get("currency").and_then(|v| v.as_str()),
                }),
                tender: "online",
            };
            match db::payments::settle_from_stripe(
                &state.pool,
                &event.id,
                &event.kind,
                order_id,
                &payment,
            )
            .await
            {
                Ok(settled) => {
                    tracing::info!(%order_id, stripe_event = %event.id, ?settled, "Stripe payment settled");
                }
                // Not one of ours (another app on the same Stripe account):
                // kept, so it is seen once, and answered 200.
                Err(AppError::NotFound(Missing::Order)) => {
                    tracing::warn!(%order_id, stripe_event = %event.id, "a paid session for no order of ours");
                    db::payments::note_stripe_event(&state.pool, &event.id, &event.kind, None)
                        .await?;
                }
                Err(other) => return Err(other),
            }
        }
        ("checkout.session.expired", Some(order_id)) => {
            let session_id = session.get("id").and_then(|v| v.as_str());
            db::payments::lapse_from_stripe(
                &state.pool,
                &event.id,
                &event.kind,
                order_id,
                session_id,
            )
            .await?;
        }
        _ => {
            db::payments::note_stripe_event(&state.pool, &event.id, &event.kind, order_id).await?;
        }
    }
    Ok(answer(StatusCode::OK, "ok"))
}
