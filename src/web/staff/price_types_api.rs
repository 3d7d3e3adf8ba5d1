//! An event's price types for staff (the JSON API): Adult, Child, Student,
//! each with a price per tier, perhaps a quota and a per-order cap.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::db::price_types::PriceTypeView;
use crate::domain::ids::EventId;
use crate::domain::price_type::PriceTypeSpec;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::auth::{StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(show, replace))
}

/// One price type as staff send it.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PriceTypeBody {
    /// 1 to 40 of a-z, 0-9, `_` and `-`: "adult".
    code: String,
    /// By language (en, de, fr, es); English is required and the fallback.
    #[schema(value_type = Object)]
    label: BTreeMap<String, String>,
    /// By tier code, in minor units: a tier with no price can't be sold as
    /// this type.
    #[schema(value_type = Object)]
    prices: BTreeMap<String, i32>,
    /// At most this many tickets of the type for the event (null: no limit).
    #[serde(default)]
    quota: Option<i32>,
    /// At most this many of the type in one order (null: no limit).
    #[serde(default)]
    max_per_order: Option<i32>,
    /// No longer sold (a type with sales can't be removed, only closed).
    #[serde(default)]
    closed: bool,
    /// "public" (the default), or "code": offered only to buyers whose
    /// promo code unlocks it (`unlocks` on the code).
    #[serde(default)]
    visibility: Option<String>,
    /// The code of another type the order must also have a ticket of (a
    /// child ticket only with an adult one).
    #[serde(default)]
    requires: Option<String>,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PriceTypesBody {
    /// In the order buyers see them; the first open one is the default.
    price_types: Vec<PriceTypeBody>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PriceTypesJson {
    event_id: EventId,
    price_types: Vec<PriceTypeView>,
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/price-types", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "The event's price types, in order, with what each has sold", body = PriceTypesJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn show(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<PriceTypesJson>> {
    let client = state.pool.get().await?;
    if !db::events::exists(&client, event_id).await? {
        return Err(AppError::NotFound(Missing::Event));
    }
    let price_types = db::price_types::for_event(&client, event_id).await?;
    Ok(Json(PriceTypesJson {
        event_id,
        price_types,
    }))
}

#[utoipa::path(put, path = "/api/staff/events/{event_id}/price-types", tag = "staff",
    params(("event_id" = i64, Path)), request_body = PriceTypesBody,
    responses(
        (status = 200, description = "The price types now (audited)", body = PriceTypesJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn replace(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<PriceTypesBody>,
) -> AppResult<Json<PriceTypesJson>> {
    let specs: Vec<PriceTypeSpec> = body
        .price_types
        .into_iter()
        .map(|t| {
            let hidden = match t.visibility.as_deref() {
                None | Some("public") => false,
                Some("code") => true,
                Some(other) => {
                    return Err(AppError::Invalid(Invalid::PriceType(format!(
                        "{}: visibility is \"public\" or \"code\", not {other:?}",
                        t.code
                    ))));
                }
            };
            Ok(PriceTypeSpec {
                code: t.code,
                labels: t.label,
                prices: t.prices,
                quota: t.quota,
                max_per_order: t.max_per_order,
                closed: t.closed,
                hidden,
                requires: t.requires,
            })
        })
        .collect::<AppResult<_>>()?;
    let price_types = db::price_types::replace(&state.pool, staff.actor, event_id, &specs).await?;
    Ok(Json(PriceTypesJson {
        event_id,
        price_types,
    }))
}
