//! The staff JSON API for orders: read an order, refund it (or some of its
//! tickets), reseat a ticket, and sell at the counter; the twins of the
//! order page's and walk-up page's forms.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};

use crate::db;
use crate::db::order_changes::WalkUp;
use crate::domain::hold::GaRequest;
use crate::domain::ids::AreaId;
use crate::domain::ids::{EventId, OrderId, SeatId, TicketId};
use crate::domain::rules;
use crate::domain::seat::SeatIds;
use crate::domain::ticket::Tender;
use crate::error::Malformed;
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The staff API for orders and counter sales.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(order_json))
        .routes(routes!(refund_json))
        .routes(routes!(reseat_json))
        .routes(routes!(transfer_json))
        .routes(routes!(sale_json))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct StaffTicketJson {
    id: TicketId,
    code: String,
    place: String,
    seat_id: Option<SeatId>,
    price_cents: i64,
    admitted_at: Option<String>,
    refunded: bool,
}

/// An order as the staff API shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct StaffOrderJson {
    order_id: OrderId,
    buyer_name: String,
    /// "online", "cash", "card" or "comp".
    tender: String,
    /// pending_payment, paid, lapsed, refunded_unfulfilled or refunded.
    status: crate::domain::payment::OrderStatus,
    /// none, online or box_office.
    payment: crate::domain::payment::PaymentMode,
    tickets: Vec<StaffTicketJson>,
    /// Money given back through the payment provider, each with its state.
    provider_refunds: Vec<ProviderRefundJson>,
}

/// A refund through the payment provider.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ProviderRefundJson {
    amount_cents: i64,
    /// queued, sent, or refused (the last attempt failed; it is retried).
    state: &'static str,
    attempts: i32,
    /// What the provider said when it refused.
    error: Option<String>,
    /// The refund's id at the provider, once sent.
    provider_ref: Option<String>,
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/orders/{order_id}", tag = "staff", operation_id = "staff_order_json",
    params(("event_id" = i64, Path), ("order_id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The order and its tickets", body = StaffOrderJson),
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn order_json(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<StaffOrderJson>> {
    let client = state.pool.get().await?;
    let order = db::orders::find(&client, order_id, None)
        .await?
        .filter(|order| order.event_id == event_id)
        .ok_or(AppError::NotFound(Missing::Order))?;
    let tickets: Vec<StaffTicketJson> = db::tickets::for_order(&client, order_id)
        .await?
        .into_iter()
        .map(|t| StaffTicketJson {
            id: t.id,
            code: t.code.to_string(),
            place: t.place(),
            seat_id: t.seat_id,
            price_cents: t.price_cents,
            admitted_at: t.admitted_at.map(crate::words::rfc3339),
            refunded: t.voided_at.is_some(),
        })
        .collect();
    let payment = db::payments::of_order(&client, order_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    Ok(Json(StaffOrderJson {
        order_id: order.id,
        buyer_name: order.buyer_name,
        tender: order.tender,
        status: payment.status,
        payment: payment.payment,
        tickets,
        provider_refunds: payment
            .refunds
            .iter()
            .map(|refund| ProviderRefundJson {
                amount_cents: refund.amount_cents,
                state: refund.state(),
                attempts: refund.attempts,
                error: refund
                    .last_error
                    .clone()
                    .filter(|_| refund.done_at.is_none()),
                provider_ref: refund.provider_ref.clone(),
            })
            .collect(),
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct RefundBody {
    /// Some tickets of the order; absent: all of them.
    #[serde(default, deserialize_with = "crate::web::json_int::optional_list")]
    #[schema(min_items = 1)]
    ticket_ids: Option<Vec<TicketId>>,
}

/// What a refund gave back.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct RefundJson {
    tickets: usize,
    seat_ids: SeatIds,
    ga_places: usize,
    amount_cents: i64,
    /// The order was paid online: the money goes back through the
    /// provider (see the order's `provider_refunds`).
    provider_refund: bool,
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/orders/{order_id}/refund", tag = "staff",
    params(("event_id" = i64, Path), ("order_id" = String, Path, format = Uuid)), request_body = RefundBody,
    responses(
        (status = 200, description = "Refunded, all of them", body = RefundJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,))]
pub(crate) async fn refund_json(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<RefundBody>,
) -> AppResult<Json<RefundJson>> {
    if body.ticket_ids.as_ref().is_some_and(Vec::is_empty) {
        return Err(AppError::BadRequest(Malformed::EmptyTicketIds));
    }
    let refunded = db::order_changes::refund(
        &state.pool,
        staff.actor,
        event_id,
        order_id,
        body.ticket_ids.as_deref(),
    )
    .await?;
    Ok(Json(RefundJson {
        tickets: refunded.tickets,
        seat_ids: refunded.seat_ids,
        ga_places: refunded.ga_places,
        amount_cents: refunded.amount_cents,
        provider_refund: refunded.provider_refund,
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct ReseatBody {
    #[serde(deserialize_with = "crate::web::json_int::one")]
    seat_id: SeatId,
}

/// A reseat: the ticket's order, and its old and new seat.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ReseatJson {
    order_id: OrderId,
    from_seat_id: SeatId,
    to_seat_id: SeatId,
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/tickets/{ticket_id}/reseat", tag = "staff",
    params(("event_id" = i64, Path), ("ticket_id" = i64, Path)), request_body = ReseatBody,
    responses(
        (status = 200, description = "Moved; the code stays the same", body = ReseatJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,))]
pub(crate) async fn reseat_json(
    State(state): State<AppState>,
    IdPath((event_id, ticket_id)): IdPath<(EventId, TicketId)>,
    staff: StaffCaller<BoxOffice>,
    ApiJson(body): ApiJson<ReseatBody>,
) -> AppResult<Json<ReseatJson>> {
    let moved =
        db::order_changes::reseat(&state.pool, staff.actor, event_id, ticket_id, body.seat_id)
            .await?;
    Ok(Json(ReseatJson {
        order_id: moved.order_id,
        from_seat_id: moved.from,
        to_seat_id: moved.to,
    }))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct StaffTransferJson {
    ticket_id: TicketId,
    order_id: OrderId,
    /// The ticket's new code; the old one no longer admits anyone.
    code: String,
}

/// Passes a ticket on at the counter: audited, mailed to its new holder,
/// and not held to the event's transfer rules (the holder's own transfer
/// is); an admitted or refunded ticket still can't go.
#[utoipa::path(post, path = "/api/staff/events/{event_id}/tickets/{ticket_id}/transfer", tag = "staff",
    params(("event_id" = i64, Path), ("ticket_id" = i64, Path)), request_body = crate::web::buyer::recipient::TransferBody,
    responses(
        (status = 201, description = "Passed on", body = StaffTransferJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn transfer_json(
    State(state): State<AppState>,
    IdPath((event_id, ticket_id)): IdPath<(EventId, TicketId)>,
    staff: StaffCaller<BoxOffice>,
    ApiJson(body): ApiJson<crate::web::buyer::recipient::TransferBody>,
) -> AppResult<(axum::http::StatusCode, Json<StaffTransferJson>)> {
    let code = {
        let client = state.pool.get().await?;
        db::transfers::current_code(&client, event_id, ticket_id, None).await?
    };
    let to = body.recipient()?;
    let made = db::transfers::transfer(&state.pool, &code, &to, Some(staff.actor)).await?;
    Ok((
        axum::http::StatusCode::CREATED,
        Json(StaffTransferJson {
            ticket_id: made.ticket_id,
            order_id: made.order_id,
            code: made.code.to_string(),
        }),
    ))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct SaleGaBody {
    #[serde(deserialize_with = "crate::web::json_int::one")]
    #[schema(value_type = i64)]
    area_id: AreaId,
    #[serde(deserialize_with = "crate::web::json_int::one")]
    #[schema(minimum = 1, maximum = 100)]
    quantity: u32,
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct SaleBody {
    #[serde(default, deserialize_with = "crate::web::json_int::list")]
    seat_ids: Vec<SeatId>,
    #[serde(default)]
    ga: Vec<SaleGaBody>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    tender: String,
    #[serde(default)]
    comp_reason: String,
    /// A price type per seat, by seat id (seats not named take the default,
    /// the first open public type priced for their tier with places left).
    #[serde(default)]
    price_types: Option<std::collections::BTreeMap<String, String>>,
    /// A promo code, as a buyer's purchase takes it (not with a comp).
    #[serde(default)]
    promo_code: Option<String>,
}

/// A walk-up sale: the order and its tickets.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SaleJson {
    order_id: OrderId,
    tickets: Vec<db::tickets::Issued>,
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/sales", tag = "staff",
    params(("event_id" = i64, Path)), request_body = SaleBody,
    responses(
        (status = 201, description = "Sold, all of it", body = SaleJson,
            links(("order" = (operation_id = "staff_order_json", parameters(("event_id" = "$request.path.event_id"), ("order_id" = "$response.body#/order_id")))),
                  ("refund" = (operation_id = "refund_json", parameters(("event_id" = "$request.path.event_id"), ("order_id" = "$response.body#/order_id")))))),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn sale_json(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<BoxOffice>,
    ApiJson(body): ApiJson<SaleBody>,
) -> AppResult<impl IntoResponse> {
    let seat_ids = SeatIds::new(body.seat_ids.iter().copied());
    if seat_ids.len() != body.seat_ids.len() {
        return Err(AppError::Invalid(crate::error::Invalid::DuplicateSeats));
    }
    let mut areas: Vec<AreaId> = body.ga.iter().map(|g| g.area_id).collect();
    areas.sort_unstable();
    areas.dedup();
    if body.ga.iter().any(|g| g.quantity == 0 || g.quantity > 100) {
        return Err(AppError::BadRequest(Malformed::GaQuantity));
    }
    if areas.len() != body.ga.len() {
        return Err(AppError::Invalid(crate::error::Invalid::DuplicateAreas));
    }
    let sale = WalkUp {
        seat_ids,
        ga: body
            .ga
            .iter()
            .map(|g| GaRequest {
                area_id: g.area_id,
                quantity: g.quantity,
            })
            .collect(),
        buyer: rules::walk_up_buyer(&body.name, &body.email)?,
        tender: Tender::parse(&body.tender, &body.comp_reason)?,
        choices: crate::domain::price_type::Choices {
            // GA places sell at the counter at their tiers' prices (no type).
            types: crate::domain::price_type::choices(
                body.price_types.unwrap_or_default(),
                Default::default(),
            )?,
            promo_code: None,
        }
        .with_code(body.promo_code.as_deref()),
    };
    let sold = db::order_changes::walk_up_sale(&state.pool, staff.actor, event_id, &sale).await?;
    Ok((
        StatusCode::CREATED,
        Json(SaleJson {
            order_id: sold.order_id,
            tickets: sold.tickets,
        }),
    ))
}
