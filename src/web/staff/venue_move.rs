//! Moving an event to a newer version of its venue from the browser: the
//! venue page lists its events and their versions, each move is previewed
//! (what is kept, added and removed, and what in use would refuse it), and
//! confirmed with a form. The API is `/api/staff/events/{id}/venue-version`.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::get;
use serde::Deserialize;

use crate::db;
use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{Staff, floor::Manager};
use crate::web::extract::{IdPath, QueryInput};
use crate::web::notices::{Notice, take_notice};
use crate::web::render::render;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/staff/events/{event_id}/move",
        get(move_page).post(move_event),
    )
}

#[derive(Deserialize)]
struct VersionQuery {
    /// None: the venue's latest.
    version: Option<i32>,
}

struct NewTierField {
    code: String,
    name: String,
}

#[derive(Template)]
#[template(path = "staff/venue_move.html")]
struct MovePage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    event_id: EventId,
    event_name: String,
    venue_id: crate::domain::ids::VenueId,
    from_version: i32,
    version: i32,
    kept: String,
    added: String,
    removed: String,
    retiered: Option<String>,
    new_tiers: Vec<NewTierField>,
    in_use: Vec<String>,
    /// The notice is part of the page, not swapped in.
    oob: bool,
}

async fn move_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    QueryInput(query): QueryInput<VersionQuery>,
) -> AppResult<Html<String>> {
    let client = state.pool.get().await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let venue_id = db::venue_move::venue_of_event(&client, event_id).await?;
    let version = match query.version {
        Some(version) => version,
        None => db::venues::latest_json(&client, venue_id).await?.1,
    };
    let preview = db::venue_move::preview(&client, event_id, version).await?;
    let place = |count: i64| words::count(count, "seat", "seats");
    render(&MovePage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        event_id,
        event_name: event.name,
        venue_id,
        from_version: preview.from_version,
        version: preview.version,
        kept: place(preview.seats_kept),
        added: place(preview.seats_added),
        removed: place(preview.seats_removed),
        retiered: (preview.seats_retiered > 0).then(|| place(preview.seats_retiered)),
        new_tiers: preview
            .new_tiers
            .into_iter()
            .map(|(code, name)| NewTierField { code, name })
            .collect(),
        in_use: preview.in_use.iter().map(words::place_in_use).collect(),
        oob: false,
    })
}

/// The confirm form: `version`, and `price.<code>` for each new tier.
async fn move_event(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(fields): CsrfForm<Vec<(String, String)>>,
) -> AppResult<Redirect> {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key == name)
            .map_or("", |(_, value)| value.as_str())
    };
    let version: i32 = field("version")
        .trim()
        .parse()
        .map_err(|_| AppError::NotFound(Missing::VenueVersion))?;
    let currency = {
        let client = state.pool.get().await?;
        db::events::find(&client, event_id)
            .await?
            .ok_or(AppError::NotFound(Missing::Event))?
            .currency
    };
    let prices = super::venues::tier_prices(&fields, currency);
    let outcome = match prices {
        Ok(prices) => {
            db::venue_move::move_event(&state.pool, staff.actor(), event_id, version, &prices)
                .await
                .map(|moved| {
                    state.seat_maps.forget(event_id);
                    format!(
                        "Moved to version {}: {} kept, {} added, {} removed.",
                        moved.version,
                        words::count(moved.seats_kept, "seat", "seats"),
                        words::count(moved.seats_added, "seat", "seats"),
                        words::count(moved.seats_removed, "seat", "seats"),
                    )
                })
        }
        Err(err) => Err(err),
    };
    let location = match &outcome {
        Ok(_) => format!("/staff/events/{event_id}"),
        Err(_) => format!("/staff/events/{event_id}/move?version={version}"),
    };
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}
