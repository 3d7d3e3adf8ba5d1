//! The staff JSON API for seats: release a buyer's hold, block and unblock
//! seats. Anonymous callers get 401; unknown holds, events or seats get 404.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::db;
use crate::domain::ids::{EventId, HoldId, SeatId};
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{StaffCaller, floor::BoxOffice};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The staff API for holds and blocked seats.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(release_hold))
        .routes(routes!(block))
        .routes(routes!(unblock))
}

#[utoipa::path(post, path = "/api/staff/holds/{hold_id}/release", tag = "staff", operation_id = "staff_release_hold",
    params(("hold_id" = String, Path, format = Uuid)),
    responses(
        (status = 204, description = "Released; the buyer is told"),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,))]
pub(crate) async fn release_hold(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    staff: StaffCaller<BoxOffice>,
) -> AppResult<StatusCode> {
    db::box_office::release(&state.pool, staff.actor, hold_id, None).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct SeatsBody {
    #[serde(deserialize_with = "crate::web::json_int::list")]
    seat_ids: Vec<SeatId>,
    /// For a block: what the seats are set aside for ("house", "press",
    /// "sponsor"; plain text, up to 40 characters), kept on each seat and
    /// in the audit log.
    #[serde(default)]
    purpose: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SeatsChanged {
    seat_ids: SeatIds,
    status: &'static str,
}

async fn set_blocked(
    state: &AppState,
    staff: &StaffCaller<BoxOffice>,
    event_id: EventId,
    body: SeatsBody,
    block: bool,
) -> AppResult<Json<SeatsChanged>> {
    let seat_ids = SeatIds::new(body.seat_ids);
    if seat_ids.is_empty() {
        return Err(AppError::Invalid(Invalid::NoSeats));
    }
    let purpose = crate::domain::seat::block_purpose(body.purpose.as_deref())?;
    let change = block.then_some(purpose.as_deref());
    let changed =
        db::box_office::set_blocked(&state.pool, staff.actor, event_id, &seat_ids, change).await?;
    Ok(Json(SeatsChanged {
        seat_ids: changed,
        status: if block { "blocked" } else { "available" },
    }))
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/seats/block", tag = "staff",
    params(("event_id" = i64, Path)), request_body = SeatsBody,
    responses(
        (status = 200, description = "Blocked, all of them", body = SeatsChanged),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn block(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<BoxOffice>,
    ApiJson(body): ApiJson<SeatsBody>,
) -> AppResult<Json<SeatsChanged>> {
    set_blocked(&state, &staff, event_id, body, true).await
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/seats/unblock", tag = "staff",
    params(("event_id" = i64, Path)), request_body = SeatsBody,
    responses(
        (status = 200, description = "On sale again, all of them", body = SeatsChanged),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn unblock(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<BoxOffice>,
    ApiJson(body): ApiJson<SeatsBody>,
) -> AppResult<Json<SeatsChanged>> {
    set_blocked(&state, &staff, event_id, body, false).await
}
