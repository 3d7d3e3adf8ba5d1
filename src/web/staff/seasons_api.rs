//! Series and seasons for staff (the JSON API): copies of an event to new
//! start times, seasons over events that share a layout, renewals of last
//! season's subscribers, and moving a held season place at the counter.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::domain::ids::{EventId, HoldId, SeasonId, SeatId};
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(copy_event))
        .routes(routes!(create_season))
        .routes(routes!(season_holds))
        .routes(routes!(renew))
        .routes(routes!(move_place))
        .routes(routes!(release_season_hold))
}

#[utoipa::path(post, path = "/api/staff/season-holds/{hold_id}/release", tag = "staff",
    params(("hold_id" = String, Path, format = Uuid)),
    responses(
        (status = 204, description = "Released in every night"),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,))]
pub(crate) async fn release_season_hold(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    staff: StaffCaller<BoxOffice>,
) -> AppResult<StatusCode> {
    db::seasons::release_by_staff(&state.pool, hold_id, staff.actor).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CopiesBody {
    /// 1 to 100 start times (RFC 3339), each in the future, each once.
    #[schema(value_type = Vec<String>, min_items = 1, max_items = 100)]
    starts_at: Vec<Rfc3339>,
}

/// A time as RFC 3339 text.
#[derive(Deserialize)]
#[serde(transparent)]
pub(crate) struct Rfc3339(#[serde(with = "time::serde::rfc3339")] OffsetDateTime);

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct CopiesJson {
    /// The new events (drafts), in the order of `starts_at`.
    event_ids: Vec<EventId>,
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/copies", tag = "staff",
    params(("event_id" = i64, Path)), request_body = CopiesBody,
    responses(
        (status = 201, description = "Copied: drafts sharing the event's layout, tiers, price types, fees and payment mode", body = CopiesJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn copy_event(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<CopiesBody>,
) -> AppResult<(StatusCode, Json<CopiesJson>)> {
    let starts: Vec<OffsetDateTime> = body.starts_at.into_iter().map(|at| at.0).collect();
    let event_ids = db::series::copy_event(&state.pool, event_id, &starts).await?;
    Ok((StatusCode::CREATED, Json(CopiesJson { event_ids })))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SeasonBody {
    /// 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200, pattern = "\\S")]
    name: String,
    /// 2 to 100 events sharing a layout (a venue version, or copies of one
    /// event), each once. The first by start time names the places.
    #[serde(deserialize_with = "crate::web::json_int::list")]
    #[schema(value_type = Vec<i64>, min_items = 2, max_items = 100)]
    event_ids: Vec<EventId>,
    /// By tier code, a place's price for the whole season in minor units
    /// (absent: each tier's event prices added up).
    #[serde(default)]
    prices: Option<BTreeMap<String, i32>>,
    /// When the season goes on sale (absent: now).
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    on_sale_at: Option<OffsetDateTime>,
    /// A partial season: buyers choose this many of its events.
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 1)]
    choose_events: Option<i32>,
    /// Whether a subscriber who gives a night back to sale is credited
    /// its share once it sells (default false).
    #[serde(default)]
    release_credit: bool,
    /// How a season order is paid: only "none" (sold at once) so far.
    #[serde(default)]
    payment: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SeasonCreatedJson {
    season_id: SeasonId,
}

#[utoipa::path(post, path = "/api/staff/seasons", tag = "staff",
    request_body = SeasonBody,
    responses(
        (status = 201, description = "Made, with each place's seat in every event", body = SeasonCreatedJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn create_season(
    State(state): State<AppState>,
    _staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<SeasonBody>,
) -> AppResult<(StatusCode, Json<SeasonCreatedJson>)> {
    let name = body.name.trim().to_string();
    if !(1..=200).contains(&name.chars().count()) || name.chars().any(char::is_control) {
        return Err(AppError::Invalid(Invalid::Season));
    }
    if body
        .prices
        .as_ref()
        .is_some_and(|prices| prices.values().any(|cents| *cents < 0))
    {
        return Err(AppError::Invalid(Invalid::Season));
    }
    match body.payment.as_deref() {
        None | Some("none") => {}
        Some(_) => return Err(AppError::Invalid(Invalid::Payment)),
    }
    let season_id = db::seasons::create(
        &state.pool,
        &db::seasons::NewSeason {
            name,
            event_ids: body.event_ids,
            prices: body.prices,
            on_sale_at: body.on_sale_at,
            choose_events: body.choose_events,
            release_credit: body.release_credit,
        },
    )
    .await?;
    Ok((StatusCode::CREATED, Json(SeasonCreatedJson { season_id })))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SeasonHoldsJson {
    season_id: SeasonId,
    holds: Vec<db::seasons::StaffSeasonHold>,
}

#[utoipa::path(get, path = "/api/staff/seasons/{season_id}/holds", tag = "staff",
    params(("season_id" = i64, Path)),
    responses(
        (status = 200, description = "The season's live holds, renewals marked", body = SeasonHoldsJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn season_holds(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<SeasonHoldsJson>> {
    let client = state.pool.get().await?;
    db::seasons::find(&client, season_id).await?;
    Ok(Json(SeasonHoldsJson {
        season_id,
        holds: db::seasons::live_holds(&client, season_id).await?,
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenewalBody {
    /// The season whose subscribers are offered their places.
    #[serde(deserialize_with = "crate::web::json_int::one")]
    #[schema(value_type = i64)]
    from_season_id: SeasonId,
    /// Until when their places are held for them (RFC 3339, in the future).
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    until: OffsetDateTime,
}

#[utoipa::path(post, path = "/api/staff/seasons/{season_id}/renewals", tag = "staff",
    params(("season_id" = i64, Path, description = "The new season")), request_body = RenewalBody,
    responses(
        (status = 201, description = "Each subscriber's places held until `until`, and a mail queued", body = db::seasons::Renewals),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn renew(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    _staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<RenewalBody>,
) -> AppResult<(StatusCode, Json<db::seasons::Renewals>)> {
    let now = OffsetDateTime::now_utc();
    if body.until <= now || body.until > now + time::Duration::days(366) {
        return Err(AppError::Invalid(Invalid::Time {
            field: crate::domain::refusal::TimeField::RenewUntil,
            text: body.until.to_string(),
        }));
    }
    let season = db::seasons::find(&state.pool.get().await?, season_id).await?;
    let made = db::seasons::renew(&state.pool, &season, body.from_season_id, body.until).await?;
    Ok((StatusCode::CREATED, Json(made)))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SeasonMoveBody {
    /// The place to give up (its first-event seat id).
    #[serde(deserialize_with = "crate::web::json_int::one")]
    #[schema(value_type = i64)]
    from_seat_id: SeatId,
    /// The place to hold instead, in every night of the hold.
    #[serde(deserialize_with = "crate::web::json_int::one")]
    #[schema(value_type = i64)]
    to_seat_id: SeatId,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct MovedSeasonHoldJson {
    hold_id: HoldId,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    seat_ids: Vec<SeatId>,
    event_ids: Vec<EventId>,
}

impl From<db::seasons::SeasonHold> for MovedSeasonHoldJson {
    fn from(hold: db::seasons::SeasonHold) -> MovedSeasonHoldJson {
        MovedSeasonHoldJson {
            hold_id: hold.id,
            expires_at: hold.expires_at,
            seat_ids: hold.seat_ids,
            event_ids: hold.nights,
        }
    }
}

#[utoipa::path(post, path = "/api/staff/season-holds/{hold_id}/move", tag = "staff",
    params(("hold_id" = String, Path, format = Uuid)), request_body = SeasonMoveBody,
    responses(
        (status = 200, description = "Moved in every night", body = MovedSeasonHoldJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Gone,))]
pub(crate) async fn move_place(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    _staff: StaffCaller<BoxOffice>,
    ApiJson(body): ApiJson<SeasonMoveBody>,
) -> AppResult<Json<MovedSeasonHoldJson>> {
    let hold =
        db::seasons::move_place(&state.pool, hold_id, body.from_seat_id, body.to_seat_id).await?;
    Ok(Json(hold.into()))
}
