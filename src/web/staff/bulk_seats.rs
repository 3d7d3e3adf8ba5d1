//! Blocking and releasing many seats at once from the console, for a named
//! purpose (house seats, press, a sponsor): seats chosen on the map (a box
//! dragged, a row shift-clicked, seats clicked; static/app/selection.js),
//! or a whole section from a list, which works without JavaScript. One
//! action, all or nothing, audited with its purpose.

use axum::Router;
use axum::extract::State;
use axum::response::Redirect;
use axum::routing::post;
use serde::Deserialize;

use crate::db;
use crate::domain::ids::{EventId, SeatId, SectionId};
use crate::domain::seat::{SeatIds, block_purpose};
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{Staff, floor::BoxOffice};
use crate::web::extract::IdPath;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new().route("/staff/events/{event_id}/seats/bulk", post(bulk))
}

/// A section to choose whole, for the console's form.
pub struct SectionChoice {
    pub id: SectionId,
    pub name: String,
    pub seats: String,
}

/// The console's "several seats at once" form.
pub struct BulkSection {
    pub sections: Vec<SectionChoice>,
}

impl BulkSection {
    pub async fn load(client: &impl db::GenericClient, event_id: EventId) -> AppResult<Self> {
        Ok(BulkSection {
            sections: db::bulk_seats::sections(client, event_id)
                .await?
                .into_iter()
                .map(|(id, name, seats)| SectionChoice {
                    id,
                    name,
                    seats: words::count(seats, "seat", "seats"),
                })
                .collect(),
        })
    }
}

#[derive(Deserialize)]
struct BulkForm {
    /// "block" or "release".
    action: String,
    /// Seat ids, comma separated (the map's selection).
    #[serde(default)]
    seat_ids: String,
    /// A whole section, when no seat is chosen on the map.
    #[serde(default)]
    section: String,
    #[serde(default)]
    purpose: String,
}

async fn bulk(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<BoxOffice>,
    CsrfForm(form): CsrfForm<BulkForm>,
) -> AppResult<Redirect> {
    let outcome = act(&state, event_id, &staff, &form).await;
    let location = format!("/staff/events/{event_id}");
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}

async fn act(
    state: &AppState,
    event_id: EventId,
    staff: &crate::web::auth::StaffUser,
    form: &BulkForm,
) -> AppResult<String> {
    let block = match form.action.as_str() {
        "block" => true,
        "release" => false,
        _ => return Err(AppError::Invalid(Invalid::NoSeats)),
    };
    let purpose = block_purpose(Some(&form.purpose))?;
    let chosen: Vec<SeatId> = form
        .seat_ids
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(|id| id.parse().map_err(|_| AppError::Invalid(Invalid::NoSeats)))
        .collect::<AppResult<_>>()?;
    let seat_ids = match (chosen.is_empty(), form.section.trim()) {
        (false, _) => SeatIds::new(chosen),
        (true, "") => return Err(AppError::Invalid(Invalid::NoSeats)),
        (true, section) => {
            let section: SectionId = section
                .parse()
                .map_err(|_| AppError::Invalid(Invalid::NoSeats))?;
            let client = state.pool.get().await?;
            SeatIds::new(
                db::bulk_seats::changeable_in_section(&client, event_id, section, block).await?,
            )
        }
    };
    if seat_ids.is_empty() {
        return Ok(if block {
            "Nothing to block: no seat there is free.".to_string()
        } else {
            "Nothing to release: no seat there is blocked.".to_string()
        });
    }
    let change = block.then_some(purpose.as_deref());
    let changed =
        db::box_office::set_blocked(&state.pool, staff.actor(), event_id, &seat_ids, change)
            .await?;
    state.seat_maps.forget(event_id);
    let seats = words::count(changed.len(), "seat", "seats");
    Ok(match (block, purpose) {
        (true, Some(purpose)) => format!("Blocked {seats} for {purpose}."),
        (true, None) => format!("Blocked {seats}: no longer offered to buyers."),
        (false, _) => format!("Released {seats}: on sale again."),
    })
}
