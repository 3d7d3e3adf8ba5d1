//! Walk-up sales: seats and general-admission places sold at the counter,
//! with their tender (cash, card or a comp and its reason).

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::get;

use crate::db;
use crate::db::ga::GaRequest;
use crate::db::order_changes::WalkUp;
use crate::domain::ids::AreaId;
use crate::domain::ids::EventId;
use crate::domain::rules;
use crate::domain::seat::SeatIds;
use crate::domain::ticket::Tender;
use crate::error::Malformed;
use crate::error::{AppError, AppResult};
use crate::web::auth::StaffUser;
use crate::web::event_header::EventHeader;
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, take_notice};
use crate::web::render::render;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/staff/events/{event_id}/walk-up",
        get(walk_up_page).post(walk_up_sale),
    )
}

struct AreaField {
    id: AreaId,
    name: String,
    left: i64,
}

#[derive(Template)]
#[template(path = "staff/walk_up.html")]
struct WalkUpPage {
    staff_name: String,
    csrf: String,
    event: EventHeader,
    notice: Option<Notice>,
    oob: bool,
    areas: Vec<AreaField>,
}

async fn walk_up_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffUser,
) -> AppResult<Html<String>> {
    let event = crate::web::event_header::event_header(&state, event_id).await?;
    let client = state.pool.get().await?;
    let areas = db::ga::areas(&client, event_id, None).await?;
    render(&WalkUpPage {
        staff_name: staff.name,
        csrf: staff.csrf.value(),
        event,
        notice: take_notice(&staff.session).await?,
        oob: false,
        areas: areas
            .into_iter()
            .map(|area| AreaField {
                id: area.id,
                name: area.name,
                left: area.available.max(0),
            })
            .collect(),
    })
}

/// The walk-up form: fixed fields, and `area_<id>` = places per GA area.
async fn walk_up_sale(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffUser,
    CsrfForm(form): CsrfForm<std::collections::HashMap<String, String>>,
) -> AppResult<Redirect> {
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or("");
    let outcome = async {
        let mut ga = Vec::new();
        for (name, value) in &form {
            let Some(area) = name.strip_prefix("area_") else {
                continue;
            };
            let value = value.trim();
            if value.is_empty() || value == "0" {
                continue;
            }
            let area_id: AreaId = area
                .parse()
                .map_err(|_| AppError::BadRequest(Malformed::FormField(name.to_string())))?;
            let too_many = || {
                AppError::Invalid(crate::error::Invalid::CountOutOfRange {
                    max: 100,
                    of: crate::domain::refusal::Counted::Tickets,
                })
            };
            let quantity: u32 = value.parse().map_err(|_| too_many())?;
            if quantity > 100 {
                return Err(too_many());
            }
            ga.push(GaRequest { area_id, quantity });
        }
        let names = rules::seat_names(field("seats"))?;
        let seat_ids = {
            let client = state.pool.get().await?;
            db::order_changes::seats_named(&client, event_id, &names).await?
        };
        let sale = WalkUp {
            seat_ids: SeatIds::new(seat_ids),
            ga,
            buyer: rules::walk_up_buyer(field("name"), field("email"))?,
            tender: Tender::parse(field("tender"), field("comp_reason"))?,
        };
        db::order_changes::walk_up_sale(&state.pool, staff.actor(), event_id, &sale).await
    }
    .await;
    let location = match &outcome {
        Ok(sold) => format!("/staff/events/{event_id}/orders/{}", sold.order_id),
        Err(_) => format!("/staff/events/{event_id}/walk-up"),
    };
    let outcome = outcome.map(|sold| {
        format!(
            "Sold {}. Print them now with “Print tickets”.",
            crate::words::count(sold.tickets.len(), "ticket", "tickets")
        )
    });
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}
