//! The console's payment section: how the event is paid for (the staff
//! event form's payment field), and the box-office reservations waiting
//! for their money, each with "Paid in cash" and "Paid by card".

use axum::Router;
use axum::extract::State;
use axum::response::Redirect;
use axum::routing::post;
use serde::Deserialize;

use crate::db;
use crate::db::payments::Settled;
use crate::domain::ids::{EventId, OrderId};
use crate::domain::locale::EventLocale;
use crate::domain::payment::PaymentMode;
use crate::error::AppResult;
use crate::web::auth::{Staff, floor::BoxOffice, floor::Manager};
use crate::web::extract::IdPath;
use crate::web::security::CsrfForm;
use crate::web::staff::payments_api::{counter_tender, payment_choice};
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/events/{event_id}/payment", post(set_payment))
        .route(
            "/staff/events/{event_id}/orders/{order_id}/paid",
            post(mark_paid),
        )
}

/// One choice of the payment field.
pub(crate) struct PaymentOption {
    pub value: &'static str,
    pub label: &'static str,
    pub selected: bool,
}

/// A reservation row, with its counter buttons.
pub(crate) struct ReservationRow {
    pub id: String,
    pub short_id: String,
    pub name: String,
    pub pay_by: String,
    pub amount: String,
    pub seats: i64,
}

/// What the console's payment section shows.
pub(crate) struct PaymentSection {
    pub options: Vec<PaymentOption>,
    pub box_office_hours: i32,
    /// Stripe is configured (else online can't be chosen, and the form says why).
    pub online_available: bool,
    pub reservations: Vec<ReservationRow>,
}

impl PaymentSection {
    pub(crate) async fn load(
        state: &AppState,
        client: &impl db::GenericClient,
        event_id: EventId,
        locale: &EventLocale,
    ) -> AppResult<PaymentSection> {
        let (mode, window_secs) = db::payments::event_payment(client, event_id).await?;
        let reservations = db::payments::reservations(client, event_id).await?;
        Ok(PaymentSection {
            options: PaymentMode::ALL
                .into_iter()
                .map(|option| PaymentOption {
                    value: option.as_str(),
                    label: option.label(),
                    selected: option == mode,
                })
                .collect(),
            box_office_hours: (window_secs + 3599) / 3600,
            online_available: state.payments.stripe.is_some(),
            reservations: reservations
                .into_iter()
                .map(|r| ReservationRow {
                    id: r.order_id.to_string(),
                    short_id: r.order_id.to_string().chars().take(8).collect(),
                    name: r.buyer_name,
                    pay_by: locale.time(r.pay_by),
                    amount: locale.price(r.amount_cents),
                    seats: r.seats,
                })
                .collect(),
        })
    }
}

#[derive(Deserialize)]
struct PaymentForm {
    payment: String,
    /// Hours after reserving that a box-office reservation may be paid in.
    box_office_hours: Option<String>,
}

async fn set_payment(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<PaymentForm>,
) -> AppResult<Redirect> {
    let hours = form
        .box_office_hours
        .as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(|text| {
            text.parse::<i64>()
                .map(|hours| hours.saturating_mul(3600))
                .unwrap_or(-1)
        });
    let outcome = async {
        let (mode, window) = payment_choice(&state, &form.payment, hours)?;
        db::payments::set_event_payment(&state.pool, staff.actor(), event_id, mode, window).await?;
        Ok(format!("Buyers now pay: {}.", mode.label().to_lowercase()))
    }
    .await;
    let location = format!("/staff/events/{event_id}#payment");
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}

#[derive(Deserialize)]
struct PaidForm {
    tender: String,
}

async fn mark_paid(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(form): CsrfForm<PaidForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let tender = counter_tender(&form.tender)?;
        let settled = db::payments::mark_paid_at_counter(
            &state.pool,
            staff.actor(),
            event_id,
            order_id,
            tender,
        )
        .await?;
        Ok(match settled {
            Settled::Paid { tickets, .. } => format!(
                "Paid ({tender}): {} issued.",
                words::count(tickets, "ticket", "tickets")
            ),
            _ => "Nothing changed.".to_string(),
        })
    }
    .await;
    let location = format!("/staff/events/{event_id}/orders/{order_id}");
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}
