//! Series and seasons for staff (forms): "Add performances" on an event's
//! console; the seasons page with making a season, its live holds
//! (renewals marked) and moving a held place at the counter, and renewing
//! last season's subscribers. The JSON API is `seasons_api`.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::db;
use crate::domain::ids::{EventId, HoldId, SeasonId, SeatId};
use crate::domain::local_time::instant;
use crate::domain::refusal::TimeField;
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{Staff, floor::BoxOffice, floor::Manager};
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, back_with_notice, take_notice};
use crate::web::render::render;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

const PAGE: &str = "/staff/seasons";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/seasons", get(page).post(create))
        .route("/staff/events/{event_id}/copies", post(add_performances))
        .route("/staff/seasons/{season_id}/renewals", post(renew))
        .route("/staff/season-holds/{hold_id}/move", post(move_place))
        .route("/staff/season-holds/{hold_id}/release", post(release))
}

struct EventChoice {
    id: EventId,
    label: String,
}

struct HoldRow {
    id: HoldId,
    places: String,
    nights: usize,
    until: String,
    renewal: Option<String>,
}

struct SeasonRow {
    id: SeasonId,
    name: String,
    nights: Vec<String>,
    prices: String,
    on_sale: String,
    partial: Option<i32>,
    sold: i64,
    holds: Vec<HoldRow>,
}

#[derive(Template)]
#[template(path = "staff/seasons.html")]
struct SeasonsPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    seasons: Vec<SeasonRow>,
    events: Vec<EventChoice>,
}

async fn page(State(state): State<AppState>, staff: Staff<BoxOffice>) -> AppResult<Response> {
    let client = state.pool.get().await?;
    let mut seasons = Vec::new();
    for (id, _, _) in db::seasons::list_for_staff(&client).await? {
        let season = db::seasons::find(&client, id).await?;
        let locale = crate::i18n::locale(season.currency, &season.time_zone);
        let holds = db::seasons::live_holds(&client, id).await?;
        seasons.push(SeasonRow {
            id,
            nights: season
                .events
                .iter()
                .map(|e| format!("{} · {}", e.name, locale.time(e.starts_at)))
                .collect(),
            prices: season
                .prices
                .iter()
                .map(|p| format!("{} {}", p.tier_name, locale.price(p.price_cents)))
                .collect::<Vec<_>>()
                .join(" · "),
            on_sale: locale.time(season.on_sale_at),
            partial: season.choose_events,
            sold: db::seasons::orders_sold(&client, id).await?,
            holds: holds
                .into_iter()
                .map(|hold| HoldRow {
                    id: hold.hold_id,
                    places: hold
                        .seat_ids
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    nights: hold.event_ids.len(),
                    until: locale.time(hold.expires_at),
                    renewal: hold.renewal_of.map(|_| hold.buyer_name.unwrap_or_default()),
                })
                .collect(),
            name: season.name,
        });
    }
    let events = db::events::list_for_staff(&client).await?;
    Ok(render(&SeasonsPage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        seasons,
        events: events
            .iter()
            .map(|e| EventChoice {
                id: e.id,
                label: format!(
                    "{} · {}",
                    e.name,
                    crate::i18n::locale(e.currency, &e.time_zone).time(e.starts_at)
                ),
            })
            .collect(),
    })?
    .into_response())
}

#[derive(Deserialize)]
struct CreateForm {
    #[serde(default)]
    name: String,
    /// Each ticked event, as `event=1&event=2`: read by hand (serde_urlencoded
    /// keeps one value per name).
    #[serde(default)]
    events: String,
    #[serde(default)]
    choose: String,
    #[serde(default)]
    credit: Option<String>,
}

async fn create(
    State(state): State<AppState>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<CreateForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let event_ids: Vec<EventId> = form
            .events
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|id| !id.is_empty())
            .map(|id| id.parse::<EventId>())
            .collect::<Result<_, _>>()
            .map_err(|_| AppError::Invalid(Invalid::Season))?;
        let choose = match form.choose.trim() {
            "" => None,
            text => Some(text.parse::<i32>().map_err(|_| AppError::Invalid(Invalid::Season))?),
        };
        let name = form.name.trim().to_string();
        if !(1..=200).contains(&name.chars().count()) {
            return Err(AppError::Invalid(Invalid::Season));
        }
        let season_id = db::seasons::create(
            &state.pool,
            &db::seasons::NewSeason {
                name,
                event_ids,
                prices: None,
                on_sale_at: None,
                choose_events: choose,
                release_credit: form.credit.is_some(),
            },
        )
        .await?;
        Ok(format!(
            "Made season {season_id}: on sale now at its events' prices added up. Buyers find it at /seasons/{season_id}."
        ))
    }
    .await;
    back_with_notice(&staff.session, PAGE, outcome).await
}

#[derive(Deserialize)]
struct PerformancesForm {
    /// One date per line (or comma-separated), as the venue's calendar
    /// says them: 2026-12-01.
    #[serde(default)]
    dates: String,
    /// The time each starts, on the venue's clock: 19:30.
    #[serde(default)]
    time: String,
}

/// "Add performances": copies of the event at each date and the time.
async fn add_performances(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<PerformancesForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let event = db::events::find(&state.pool.get().await?, event_id)
            .await?
            .ok_or(AppError::NotFound(crate::error::Missing::Event))?;
        let time = form.time.trim();
        let starts = form
            .dates
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|date| !date.is_empty())
            .map(|date| {
                instant(
                    TimeField::Start,
                    &format!("{date}T{time}"),
                    &event.time_zone,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let made = db::series::copy_event(&state.pool, event_id, &starts).await?;
        Ok(format!(
            "Added {} performance{} as drafts (events {}): publish each from its console.",
            made.len(),
            if made.len() == 1 { "" } else { "s" },
            made.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
    .await;
    back_with_notice(
        &staff.session,
        &format!("/staff/events/{event_id}"),
        outcome,
    )
    .await
}

#[derive(Deserialize)]
struct RenewForm {
    from_season_id: SeasonId,
    /// On the new season's venue clock: 2026-12-01T18:00.
    #[serde(default)]
    until: String,
}

async fn renew(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<RenewForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let season = db::seasons::find(&state.pool.get().await?, season_id).await?;
        let until = instant(TimeField::RenewUntil, form.until.trim(), &season.time_zone)?;
        if until <= time::OffsetDateTime::now_utc() {
            return Err(AppError::Invalid(Invalid::Time {
                field: TimeField::RenewUntil,
                text: form.until.clone(),
            }));
        }
        let made = db::seasons::renew(&state.pool, &season, form.from_season_id, until).await?;
        Ok(format!(
            "Renewal: {} subscriber{} hold their places until then and were mailed a link; {} left out (places taken, or already holding).",
            made.held,
            if made.held == 1 { "" } else { "s" },
            made.skipped
        ))
    }
    .await;
    back_with_notice(&staff.session, PAGE, outcome).await
}

#[derive(Deserialize)]
struct MoveForm {
    from_seat_id: SeatId,
    to_seat_id: SeatId,
}

async fn move_place(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    staff: Staff<BoxOffice>,
    CsrfForm(form): CsrfForm<MoveForm>,
) -> AppResult<Redirect> {
    let outcome = db::seasons::move_place(&state.pool, hold_id, form.from_seat_id, form.to_seat_id)
        .await
        .map(|_| "Moved, in every night of the hold.".to_string());
    back_with_notice(&staff.session, PAGE, outcome).await
}

async fn release(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    staff: Staff<BoxOffice>,
    CsrfForm(_): CsrfForm<crate::web::security::NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::seasons::release_by_staff(&state.pool, hold_id, staff.actor())
        .await
        .map(|()| "Released: its places are back on sale in every night.".to_string());
    back_with_notice(&staff.session, PAGE, outcome).await
}
