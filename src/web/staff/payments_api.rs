//! The staff API for payment: how an event is paid for, and taking the
//! money for a box-office reservation at the counter.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};

use crate::db;
use crate::db::charges::ChargesChange;
use crate::db::payments::Settled;
use crate::domain::charges::{self, Charges, Tax};
use crate::domain::ids::{EventId, OrderId};
use crate::domain::payment::{OrderStatus, PaymentMode};
use crate::domain::ticket::Tender;
use crate::error::{AppError, AppResult, Conflict, Invalid};
use crate::web::auth::{StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(set_payment))
        .routes(routes!(mark_paid))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EventSettingsBody {
    /// true publishes a draft (buyers see it, and buy from its on-sale
    /// time); false takes it back to a draft, refused (409
    /// `event_has_sales`) once anything of it is ordered, sold or held.
    #[serde(default)]
    published: Option<bool>,
    /// A new name (plain text, up to 200 characters).
    #[serde(default)]
    name: Option<String>,
    /// A new start: the venue's wall-clock time ("2027-03-01T19:30", in
    /// the venue's time zone) or an instant with its offset. A time the
    /// zone skips or passes twice is refused (422
    /// `nonexistent_local_time`, `ambiguous_local_time`).
    #[serde(default)]
    starts_at: Option<String>,
    /// When sales open, written as `starts_at` is; `null`: as soon as it is
    /// published.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    on_sale_at: Option<Option<String>>,
    /// none, online or box_office.
    #[serde(default)]
    payment: Option<String>,
    /// For box_office: how long after reserving the buyer has to pay
    /// (60 to 2592000 seconds; never past the event's start).
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 60, maximum = 2592000)]
    box_office_window_secs: Option<i64>,
    /// Added to each ticket (none on a comp), in minor units; 0 for none.
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 100000000)]
    booking_fee_cents: Option<i64>,
    /// The tax line; `null` removes it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<TaxJson>)]
    tax: Option<Option<TaxJson>>,
    /// Whether a refund pays the booking fee back too (true unless set).
    #[serde(default)]
    fees_refundable: Option<bool>,
    /// Whether holders may pass their tickets on (true unless set).
    #[serde(default)]
    transfers_allowed: Option<bool>,
    /// Until when, written as `starts_at` is; `null`: until the doors
    /// open (the start, or the first admission if sooner).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    transfers_until: Option<Option<String>>,
    /// How often one ticket may be passed on (0 to 20; 3 unless set).
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 20)]
    transfers_per_ticket: Option<i64>,
}

/// A field that was sent, even as `null` (`Some(None)`), apart from one
/// left out (`None`, by `default`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// An event's tax: its rate, and whether prices include it.
#[derive(Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaxJson {
    /// Percent, above 0 and below 100, at most two decimals: "19", "7.5"
    /// (a JSON number is read too).
    #[schema(value_type = String, example = "19")]
    rate_percent: RateText,
    /// true: prices contain it (EU style); false: it is added on top.
    included: bool,
}

#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum RateText {
    Text(String),
    Number(serde_json::Number),
}

impl RateText {
    fn text(&self) -> String {
        match self {
            RateText::Text(text) => text.clone(),
            RateText::Number(number) => number.to_string(),
        }
    }
}

/// An event's payment settings, booking fee and tax.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct StaffEventJson {
    event_id: EventId,
    name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    starts_at: time::OffsetDateTime,
    /// null: on sale as soon as it is published.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    on_sale_at: Option<time::OffsetDateTime>,
    /// false: a draft, which buyers don't see.
    published: bool,
    payment: PaymentMode,
    box_office_window_secs: i32,
    booking_fee_cents: i32,
    /// null: no tax line.
    tax: Option<TaxJson>,
    fees_refundable: bool,
    transfers_allowed: bool,
    /// null: until the doors open (the start, or the first admission).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    transfers_until: Option<time::OffsetDateTime>,
    transfers_per_ticket: i32,
}

impl StaffEventJson {
    fn new(
        event: &db::events::EventSummary,
        (payment, box_office_window_secs): (PaymentMode, i32),
        charges: Charges,
        transfers: db::transfers::TransferRules,
    ) -> Self {
        StaffEventJson {
            event_id: event.id,
            name: event.name.clone(),
            starts_at: event.starts_at,
            on_sale_at: event.on_sale_at,
            published: event.published,
            payment,
            box_office_window_secs,
            booking_fee_cents: charges.booking_fee_cents,
            tax: charges.tax.map(|tax| TaxJson {
                rate_percent: RateText::Text(tax.rate_text()),
                included: tax.included,
            }),
            fees_refundable: charges.fees_refundable,
            transfers_allowed: transfers.allowed,
            transfers_until: transfers.close_at,
            transfers_per_ticket: transfers.per_ticket,
        }
    }
}

/// The transfer rules staff asked to change, checked; a time is read in
/// the venue's zone.
fn transfer_rules_change(
    body: &EventSettingsBody,
    zone: &str,
) -> AppResult<db::transfers::RulesChange> {
    use crate::domain::local_time::instant;
    use crate::domain::refusal::TimeField;
    Ok(db::transfers::RulesChange {
        allowed: body.transfers_allowed,
        close_at: match &body.transfers_until {
            Some(Some(text)) => Some(Some(instant(TimeField::TransfersClose, text, zone)?)),
            Some(None) => Some(None),
            None => None,
        },
        per_ticket: match body.transfers_per_ticket {
            Some(times @ 0..=20) => Some(times as i32),
            Some(_) => return Err(AppError::Invalid(Invalid::TransfersPerTicket)),
            None => None,
        },
    })
}

/// The name and times staff asked to change, checked; times are read in
/// the venue's zone.
async fn details_change(
    state: &AppState,
    event_id: EventId,
    body: &EventSettingsBody,
) -> AppResult<db::event_details::DetailsChange> {
    use crate::domain::local_time::instant;
    use crate::domain::refusal::TimeField;
    if body.name.is_none() && body.starts_at.is_none() && body.on_sale_at.is_none() {
        return Ok(Default::default());
    }
    let event = db::events::find(&state.pool.get().await?, event_id)
        .await?
        .ok_or(AppError::NotFound(crate::error::Missing::Event))?;
    let zone = event.time_zone.as_str();
    let name = match &body.name {
        Some(name) => {
            let name = name.trim();
            if name.is_empty()
                || !crate::domain::text::is_plain(name, crate::domain::text::MAX_NAME_CHARS)
            {
                return Err(AppError::Invalid(Invalid::EventName));
            }
            Some(name.to_string())
        }
        None => None,
    };
    let change = db::event_details::DetailsChange {
        name,
        starts_at: match &body.starts_at {
            Some(text) => Some(instant(TimeField::Start, text, zone)?),
            None => None,
        },
        on_sale_at: match &body.on_sale_at {
            Some(Some(text)) => Some(Some(instant(TimeField::OnSale, text, zone)?)),
            Some(None) => Some(None),
            None => None,
        },
    };
    // Checked against the event as it will be, before anything is written.
    if change
        .starts_at
        .is_some_and(|at| at <= time::OffsetDateTime::now_utc())
    {
        return Err(AppError::Invalid(Invalid::StartsInPast));
    }
    let starts_at = change.starts_at.unwrap_or(event.starts_at);
    if change
        .on_sale_at
        .unwrap_or(event.on_sale_at)
        .is_some_and(|at| at >= starts_at)
    {
        return Err(AppError::Invalid(Invalid::OnSaleAfterStart));
    }
    Ok(change)
}

/// The charges staff asked to change, checked.
fn charges_change(body: &EventSettingsBody) -> AppResult<ChargesChange> {
    let tax = match &body.tax {
        None => None,
        Some(None) => Some(None),
        Some(Some(tax)) => Some(Some(Tax::parse(&tax.rate_percent.text(), tax.included)?)),
    };
    Ok(ChargesChange {
        booking_fee_cents: body.booking_fee_cents.map(charges::check_fee).transpose()?,
        tax,
        fees_refundable: body.fees_refundable,
    })
}

/// Checks a mode and window the staff asked for (the form's too).
pub(crate) fn payment_choice(
    state: &AppState,
    payment: &str,
    window: Option<i64>,
) -> AppResult<(PaymentMode, Option<i32>)> {
    let mode = PaymentMode::parse(payment.trim()).ok_or(AppError::Invalid(Invalid::Payment))?;
    let window = match window {
        Some(secs) if (60..=2_592_000).contains(&secs) => Some(secs as i32),
        Some(_) => return Err(AppError::Invalid(Invalid::Payment)),
        None => None,
    };
    if mode == PaymentMode::Online && state.payments.stripe.is_none() {
        return Err(AppError::Conflict(Conflict::PaymentUnavailable));
    }
    Ok((mode, window))
}

#[utoipa::path(patch, path = "/api/staff/events/{event_id}", tag = "staff",
    params(("event_id" = i64, Path)), request_body = EventSettingsBody,
    responses(
        (status = 200, description = "The event's settings now: published, payment, fee and tax", body = StaffEventJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn set_payment(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<EventSettingsBody>,
) -> AppResult<Json<StaffEventJson>> {
    let change = charges_change(&body)?;
    let details = details_change(&state, event_id, &body).await?;
    let transfers = {
        let client = state.pool.get().await?;
        let event = db::events::find(&client, event_id)
            .await?
            .ok_or(AppError::NotFound(crate::error::Missing::Event))?;
        transfer_rules_change(&body, &event.time_zone)?
    };
    let payment = match &body.payment {
        Some(payment) => Some(payment_choice(
            &state,
            payment,
            body.box_office_window_secs,
        )?),
        None if body.box_office_window_secs.is_some() => {
            return Err(AppError::Invalid(Invalid::Payment));
        }
        None => None,
    };
    // Every part was checked above; publishing first, as what is likeliest
    // refused then (409 event_has_sales): a refusal changes nothing else.
    if let Some(published) = body.published {
        db::publishing::set_published(&state.pool, staff.actor, event_id, published).await?;
        state.seat_maps.forget(event_id);
    }
    db::event_details::change(&state.pool, staff.actor, event_id, &details).await?;
    db::transfers::set_rules(&state.pool, staff.actor, event_id, transfers).await?;
    // Both in one transaction: either both change or neither.
    match (payment, change == ChargesChange::default()) {
        (Some((mode, window)), true) => {
            db::payments::set_event_payment(&state.pool, staff.actor, event_id, mode, window)
                .await?;
        }
        (payment, false) => {
            db::charges::set(&state.pool, staff.actor, event_id, change, payment).await?;
        }
        (None, true) => {}
    }
    // Names, times and sale state are in the seat map the API keeps.
    state.seat_maps.forget(event_id);
    let client = state.pool.get().await?;
    let payment = db::payments::event_payment(&client, event_id).await?;
    let charges = db::charges::for_event(&client, event_id).await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(crate::error::Missing::Event))?;
    let transfers = db::transfers::rules(&client, event_id).await?;
    Ok(Json(StaffEventJson::new(
        &event, payment, charges, transfers,
    )))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CounterPaymentBody {
    /// "cash" or "card".
    tender: String,
}

/// A reservation paid at the counter.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct CounterPaymentJson {
    order_id: OrderId,
    status: OrderStatus,
    tickets: usize,
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/orders/{order_id}/payment", tag = "staff",
    params(("event_id" = i64, Path), ("order_id" = String, Path, format = Uuid)),
    request_body = CounterPaymentBody,
    responses(
        (status = 200, description = "Paid: its seats are sold and its tickets issued", body = CounterPaymentJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn mark_paid(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: StaffCaller<BoxOffice>,
    ApiJson(body): ApiJson<CounterPaymentBody>,
) -> AppResult<Json<CounterPaymentJson>> {
    let tender = counter_tender(&body.tender)?;
    match db::payments::mark_paid_at_counter(&state.pool, staff.actor, event_id, order_id, tender)
        .await?
    {
        Settled::Paid { tickets, .. } => Ok(Json(CounterPaymentJson {
            order_id,
            status: OrderStatus::Paid,
            tickets,
        })),
        other => Err(AppError::Internal(anyhow::anyhow!(
            "counter payment of {order_id} settled as {other:?}"
        ))),
    }
}

/// Cash or card: a comp is not a payment of a reservation.
pub(crate) fn counter_tender(choice: &str) -> AppResult<&'static str> {
    match Tender::parse(choice, "")? {
        Tender::Cash => Ok("cash"),
        Tender::Card => Ok("card"),
        Tender::Comp { .. } => Err(AppError::Invalid(Invalid::Tender)),
    }
}
