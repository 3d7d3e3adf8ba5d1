//! The event's money report for staff, as JSON: what each price type and
//! each promo code took, and the whole event, split as receipts split it.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::reports::{self, MoneyReport};
use crate::domain::ids::EventId;
use crate::error::AppResult;
use crate::web::auth::{StaffCaller, floor::BoxOffice};
use crate::web::error::responses;
use crate::web::extract::IdPath;
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(money))
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/report/money", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "Gross, discount, fees, tax, refunded and net, by price type, by promo code and in all (a moment behind when read from a replica)", body = MoneyReport),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn money(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<MoneyReport>> {
    let (client, _, _) = state.event_read_client(event_id).await?;
    Ok(Json(reports::money(&client, event_id).await?))
}
