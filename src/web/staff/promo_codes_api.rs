//! An event's promo codes for staff (the JSON API): a percentage or an
//! amount off each ticket, with a window, a number of uses and the price
//! types it applies to.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::db::promo_codes::PromoCodeView;
use crate::domain::ids::EventId;
use crate::domain::promo::{self, PromoSpec};
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(pause))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PromoCodeBody {
    /// 3 to 40 letters, digits, `_` and `-`; buyers may type it in any case.
    code: String,
    /// 1 to 100 percent off each ticket (rounded half up per ticket).
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 100)]
    percent_off: Option<i64>,
    /// Or this much off each ticket, never below zero.
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 1)]
    amount_off_cents: Option<i64>,
    /// Orders that may use it (absent: any number).
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 1)]
    max_uses: Option<i64>,
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    valid_from: Option<OffsetDateTime>,
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    valid_until: Option<OffsetDateTime>,
    /// The price type codes it applies to (absent: every ticket).
    #[serde(default)]
    price_types: Option<Vec<String>>,
    /// A price type of visibility "code" that buyers with this code may
    /// choose ("members").
    #[serde(default)]
    unlocks: Option<String>,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PromoCodePauseBody {
    /// true pauses the code (buyers are told it is not valid now); false
    /// resumes it.
    paused: bool,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PromoCodesJson {
    event_id: EventId,
    promo_codes: Vec<PromoCodeView>,
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/promo-codes", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "The event's promo codes, newest first, with their uses", body = PromoCodesJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn list(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<PromoCodesJson>> {
    let client = state.pool.get().await?;
    if !db::events::exists(&client, event_id).await? {
        return Err(AppError::NotFound(Missing::Event));
    }
    Ok(Json(PromoCodesJson {
        event_id,
        promo_codes: db::promo_codes::for_event(&client, event_id).await?,
    }))
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/promo-codes", tag = "staff",
    params(("event_id" = i64, Path)), request_body = PromoCodeBody,
    responses(
        (status = 201, description = "Made (audited)", body = PromoCodeView),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn create(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<PromoCodeBody>,
) -> AppResult<(StatusCode, Json<PromoCodeView>)> {
    let max_uses = match body.max_uses {
        None => None,
        Some(uses) if (1..=i64::from(i32::MAX)).contains(&uses) => Some(uses as i32),
        Some(_) => {
            return Err(AppError::Invalid(crate::error::Invalid::PromoCode(
                "max_uses is 1 or more".into(),
            )));
        }
    };
    let spec = PromoSpec {
        code: body.code.trim().to_string(),
        discount: promo::discount(body.percent_off, body.amount_off_cents)?,
        max_uses,
        valid_from: body.valid_from,
        valid_until: body.valid_until,
        price_types: body.price_types,
        unlocks: body.unlocks,
    };
    let made = db::promo_codes::create(&state.pool, staff.actor, event_id, &spec).await?;
    Ok((StatusCode::CREATED, Json(made)))
}

#[utoipa::path(patch, path = "/api/staff/events/{event_id}/promo-codes/{code}", tag = "staff",
    params(("event_id" = i64, Path), ("code" = String, Path, description = "Matched without regard to case")),
    request_body = PromoCodePauseBody,
    responses(
        (status = 200, description = "Paused or resumed (audited)", body = PromoCodeView),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn pause(
    State(state): State<AppState>,
    IdPath((event_id, code)): IdPath<(EventId, String)>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<PromoCodePauseBody>,
) -> AppResult<Json<PromoCodeView>> {
    let changed =
        db::promo_codes::set_paused(&state.pool, staff.actor, event_id, &code, body.paused).await?;
    Ok(Json(changed))
}
