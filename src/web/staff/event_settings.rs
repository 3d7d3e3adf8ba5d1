//! An event's settings page: its name and times (in the venue's wall-clock
//! time), its tier prices, and where the rest is set (publishing, payment,
//! price types and codes, closing sales). Forms post back here with a
//! notice; the API is `PATCH /api/staff/events/{event_id}` and
//! `PUT .../tiers/{code}/price`.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::db;
use crate::db::event_details::DetailsChange;
use crate::domain::ids::EventId;
use crate::domain::local_time::{instant, wall_clock};
use crate::domain::refusal::TimeField;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::auth::{Staff, floor::Manager};
use crate::web::event_header::EventHeader;
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, take_notice};
use crate::web::render::render;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/staff/events/{event_id}/settings",
            get(settings_page).post(save_details),
        )
        .route(
            "/staff/events/{event_id}/settings/tiers/{code}",
            post(save_price),
        )
        .route(
            "/staff/events/{event_id}/settings/transfers",
            post(save_transfer_rules),
        )
}

struct TierRow {
    code: String,
    name: String,
    /// The price as typed: "45.00".
    price: String,
}

#[derive(Template)]
#[template(path = "staff/event_settings.html")]
struct SettingsPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    event: EventHeader,
    time_zone: String,
    starts_at: String,
    on_sale_at: String,
    currency: String,
    tiers: Vec<TierRow>,
    transfers_allowed: bool,
    /// On the venue's clock; empty: until the doors open.
    transfers_until: String,
    transfers_per_ticket: i32,
}

async fn settings_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
) -> AppResult<Html<String>> {
    let client = state.pool.get().await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let tiers = db::events::tiers(&client, event_id).await?;
    let transfers = db::transfers::rules(&client, event_id).await?;
    let zone = event.time_zone.clone();
    render(&SettingsPage {
        transfers_allowed: transfers.allowed,
        transfers_until: transfers
            .close_at
            .map(|at| wall_clock(at, &zone))
            .unwrap_or_default(),
        transfers_per_ticket: transfers.per_ticket,
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        starts_at: wall_clock(event.starts_at, &zone),
        on_sale_at: event
            .on_sale_at
            .map(|at| wall_clock(at, &zone))
            .unwrap_or_default(),
        currency: event.currency.code(),
        tiers: tiers
            .iter()
            .map(|tier| TierRow {
                code: tier.code.clone(),
                name: tier.name.clone(),
                price: tier.currency.decimal(i64::from(tier.price_cents)),
            })
            .collect(),
        time_zone: zone,
        event: EventHeader::from(&event),
    })
}

#[derive(Deserialize)]
struct DetailsForm {
    name: String,
    starts_at: String,
    #[serde(default)]
    on_sale_at: String,
}

async fn save_details(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<DetailsForm>,
) -> AppResult<Redirect> {
    let event = db::events::find(&state.pool.get().await?, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let zone = event.time_zone.clone();
    let outcome = async {
        let name = form.name.trim();
        if name.is_empty()
            || !crate::domain::text::is_plain(name, crate::domain::text::MAX_NAME_CHARS)
        {
            return Err(AppError::Invalid(Invalid::EventName));
        }
        // Only what was changed on the page: a started event can still be
        // renamed, and a time the form shows as it was is not read again.
        let shown_start = wall_clock(event.starts_at, &zone);
        let shown_on_sale = event
            .on_sale_at
            .map(|at| wall_clock(at, &zone))
            .unwrap_or_default();
        let change = DetailsChange {
            name: (name != event.name).then(|| name.to_string()),
            starts_at: match form.starts_at.trim() {
                text if text == shown_start => None,
                text => Some(instant(TimeField::Start, text, &zone)?),
            },
            on_sale_at: match form.on_sale_at.trim() {
                text if text == shown_on_sale => None,
                "" => Some(None),
                text => Some(Some(instant(TimeField::OnSale, text, &zone)?)),
            },
        };
        db::event_details::change(&state.pool, staff.actor(), event_id, &change).await?;
        state.seat_maps.forget(event_id);
        Ok("Saved the name and times.".to_string())
    }
    .await;
    back(&staff, event_id, outcome).await
}

#[derive(Deserialize)]
struct TransferRulesForm {
    /// A checkbox: present when ticked.
    #[serde(default)]
    allowed: Option<String>,
    #[serde(default)]
    until: String,
    #[serde(default)]
    per_ticket: String,
}

async fn save_transfer_rules(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<TransferRulesForm>,
) -> AppResult<Redirect> {
    let zone = db::events::find(&state.pool.get().await?, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?
        .time_zone;
    let outcome = async {
        let per_ticket = match form.per_ticket.trim().parse::<i32>() {
            Ok(times @ 0..=20) => times,
            _ => return Err(AppError::Invalid(Invalid::TransfersPerTicket)),
        };
        let change = db::transfers::RulesChange {
            allowed: Some(form.allowed.is_some()),
            close_at: Some(match form.until.trim() {
                "" => None,
                text => Some(instant(TimeField::TransfersClose, text, &zone)?),
            }),
            per_ticket: Some(per_ticket),
        };
        db::transfers::set_rules(&state.pool, staff.actor(), event_id, change).await?;
        Ok("Saved the rules for passing tickets on.".to_string())
    }
    .await;
    back(&staff, event_id, outcome).await
}

#[derive(Deserialize)]
struct PriceForm {
    price: String,
}

async fn save_price(
    State(state): State<AppState>,
    IdPath((event_id, code)): IdPath<(EventId, String)>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<PriceForm>,
) -> AppResult<Redirect> {
    let currency = db::events::find(&state.pool.get().await?, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?
        .currency;
    let outcome = async {
        let cents = currency.parse(&form.price).ok_or_else(|| {
            AppError::Invalid(Invalid::Price {
                tier: code.clone(),
                text: form.price.clone(),
            })
        })?;
        db::venue_move::set_tier_price(&state.pool, staff.actor(), event_id, &code, cents).await?;
        state.seat_maps.forget(event_id);
        Ok(format!(
            "New price for {code}: {}. Seats already sold keep theirs.",
            currency.format(i64::from(cents))
        ))
    }
    .await;
    back(&staff, event_id, outcome).await
}

async fn back(
    staff: &crate::web::auth::StaffUser,
    event_id: EventId,
    outcome: AppResult<String>,
) -> AppResult<Redirect> {
    let location = format!("/staff/events/{event_id}/settings");
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}
