//! Changing orders at the box office: an order's page with its tickets
//! (refund one or all, reseat one, print), walk-up sales of seats and GA
//! places with their tender, and the mail outbox; with the same actions
//! in the staff JSON API.

use askama::Template;
use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use tower_sessions::Session;

use crate::db;
use crate::db::ga::GaRequest;
use crate::db::order_changes::{Refunded, WalkUp};
use crate::db::outbox::MailStatus;
use crate::db::tickets::TicketState;
use crate::domain::ids::{EventId, OrderId, SeatId, TicketId};
use crate::domain::rules;
use crate::domain::seat::SeatIds;
use crate::domain::ticket::Tender;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::extract::{ApiJson, IdPath, Notice, StaffCaller, StaffUser, take_notice};
use crate::web::qr;
use crate::web::render::render;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::web::views::{self, EventHeader};

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/staff/events/{event_id}/orders/{order_id}",
            get(order_page),
        )
        .route(
            "/staff/events/{event_id}/orders/{order_id}/refund",
            post(refund_order),
        )
        .route(
            "/staff/events/{event_id}/orders/{order_id}/tickets/{ticket_id}/refund",
            post(refund_ticket),
        )
        .route(
            "/staff/events/{event_id}/orders/{order_id}/tickets/{ticket_id}/reseat",
            post(reseat_ticket),
        )
        .route(
            "/staff/events/{event_id}/walk-up",
            get(walk_up_page).post(walk_up_sale),
        )
        .route("/staff/events/{event_id}/mail", get(outbox_page))
        .route(
            "/staff/events/{event_id}/mail/{message_id}/retry",
            post(retry_message),
        )
        .route(
            "/api/staff/events/{event_id}/orders/{order_id}",
            get(order_json),
        )
        .route(
            "/api/staff/events/{event_id}/orders/{order_id}/refund",
            post(refund_json),
        )
        .route(
            "/api/staff/events/{event_id}/tickets/{ticket_id}/reseat",
            post(reseat_json),
        )
        .route("/api/staff/events/{event_id}/sales", post(sale_json))
}

/// A ticket as the box office lists it, with what can be done to it.
struct StaffTicket {
    id: TicketId,
    place: String,
    tier: String,
    price: String,
    status: &'static str,
    status_text: String,
    code: String,
    code_grouped: String,
    qr_svg: Option<String>,
    is_seat: bool,
}

#[derive(Template)]
#[template(path = "staff/order.html")]
struct OrderPage {
    staff_name: String,
    csrf: String,
    event: EventHeader,
    notice: Option<Notice>,
    oob: bool,
    order_id: String,
    buyer_name: String,
    buyer_email: String,
    bought: String,
    tender: String,
    mail: String,
    total: String,
    refundable: usize,
    tickets: Vec<StaffTicket>,
}

fn mail_line(status: &MailStatus) -> String {
    match status {
        MailStatus::NotQueued => "No e-mail (none given).".into(),
        MailStatus::Waiting { attempts: 0 } => "E-mail queued, not sent yet.".into(),
        MailStatus::Waiting { attempts } => format!("E-mail not sent yet ({attempts} attempts)."),
        MailStatus::Sent { at } => format!("E-mailed {}.", views::display_time(*at)),
        MailStatus::Failed => {
            "E-mail failed; sending was given up (send it again from the mail page).".into()
        }
        MailStatus::Retired => "No e-mail sent: the order was refunded before it went.".into(),
    }
}

async fn order_page(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: StaffUser,
) -> AppResult<Html<String>> {
    let event = super::event_header(&state, event_id).await?;
    let client = state.pool.get().await?;
    let order = db::orders::find(&client, order_id, None)
        .await?
        .filter(|order| order.event_id == event_id)
        .ok_or(AppError::NotFound(Missing::Order))?;
    let tickets = db::tickets::for_order(&client, order_id).await?;
    let mail = db::outbox::status_for_order(&client, order_id).await?;
    let locale = &order.locale;
    let mut rows = Vec::with_capacity(tickets.len());
    for ticket in &tickets {
        let state = ticket.state();
        let status = state.as_str();
        let status_text = match state {
            TicketState::Refunded { at } => format!("Refunded {}", locale.time(at)),
            TicketState::Admitted { at, gate } => {
                format!("Admitted {} at {gate}", locale.hour_minute(at))
            }
            TicketState::Valid => "Valid".to_string(),
        };
        rows.push(StaffTicket {
            id: ticket.id,
            place: ticket.place(),
            tier: ticket.tier_name.clone(),
            price: locale.price(ticket.price_cents),
            status,
            status_text,
            code: ticket.code.to_string(),
            code_grouped: ticket.code.grouped(),
            qr_svg: (status == "valid")
                .then(|| qr::svg(ticket.code.as_str()))
                .transpose()?,
            is_seat: ticket.seat_id.is_some(),
        });
    }
    let valid_total: i64 = tickets
        .iter()
        .filter(|t| t.voided_at.is_none())
        .map(|t| t.price_cents)
        .sum();
    render(&OrderPage {
        staff_name: staff.name,
        csrf: staff.csrf.value(),
        event,
        notice: take_notice(&staff.session).await?,
        oob: false,
        order_id: order.id.to_string(),
        buyer_name: order.buyer_name,
        buyer_email: order.buyer_email,
        bought: order.locale.time(order.created_at),
        tender: match order.comp_reason {
            Some(reason) => format!("comp ({reason})"),
            None => order.tender,
        },
        mail: mail_line(&mail),
        total: locale.price(valid_total),
        refundable: rows.iter().filter(|t| t.status == "valid").count(),
        tickets: rows,
    })
}

/// Back to the order's page with the action's outcome as a notice.
async fn back_to_order(
    session: &Session,
    event_id: EventId,
    order_id: OrderId,
    outcome: AppResult<String>,
) -> AppResult<Redirect> {
    let location = format!("/staff/events/{event_id}/orders/{order_id}");
    super::back_with_notice(session, &location, outcome).await
}

fn refunded_text(refunded: &Refunded) -> String {
    format!(
        "Refunded {} ticket(s): {} seat(s) and {} general-admission place(s) are back on sale.",
        refunded.tickets,
        refunded.seat_ids.len(),
        refunded.ga_places
    )
}

async fn refund_order(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: StaffUser,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::order_changes::refund(&state.pool, staff.actor(), event_id, order_id, None)
        .await
        .map(|refunded| refunded_text(&refunded));
    back_to_order(&staff.session, event_id, order_id, outcome).await
}

async fn refund_ticket(
    State(state): State<AppState>,
    IdPath((event_id, order_id, ticket_id)): IdPath<(EventId, OrderId, TicketId)>,
    staff: StaffUser,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::order_changes::refund(
        &state.pool,
        staff.actor(),
        event_id,
        order_id,
        Some(&[ticket_id]),
    )
    .await
    .map(|refunded| refunded_text(&refunded));
    back_to_order(&staff.session, event_id, order_id, outcome).await
}

#[derive(Deserialize)]
struct ReseatForm {
    #[serde(default)]
    seat: String,
}

async fn reseat_ticket(
    State(state): State<AppState>,
    IdPath((event_id, order_id, ticket_id)): IdPath<(EventId, OrderId, TicketId)>,
    staff: StaffUser,
    CsrfForm(form): CsrfForm<ReseatForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let name = match rules::seat_names(&form.seat)?.as_slice() {
            [one] => one.clone(),
            _ => return Err(AppError::Invalid(Invalid::SeatName(form.seat.clone()))),
        };
        let to = {
            let client = state.pool.get().await?;
            db::order_changes::seats_named(&client, event_id, std::slice::from_ref(&name)).await?[0]
        };
        db::order_changes::reseat(&state.pool, staff.actor(), event_id, ticket_id, to).await?;
        Ok(format!(
            "Moved the ticket to {name}; its old seat is back on sale."
        ))
    }
    .await;
    back_to_order(&staff.session, event_id, order_id, outcome).await
}

struct AreaField {
    id: i64,
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
    let event = super::event_header(&state, event_id).await?;
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
            let area_id: i64 = area
                .parse()
                .map_err(|_| AppError::BadRequest(format!("Invalid form field {name:?}.")))?;
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
            "Sold {} ticket(s). Print them now with “Print tickets”.",
            sold.tickets.len()
        )
    });
    super::back_with_notice(&staff.session, &location, outcome).await
}

struct MessageRow {
    id: i64,
    failed: bool,
    order_id: String,
    short_order: String,
    recipient: String,
    subject: String,
    queued: String,
    state: String,
    last_error: String,
}

#[derive(Template)]
#[template(path = "staff/mail.html")]
struct OutboxPage {
    staff_name: String,
    csrf: String,
    notice: Option<Notice>,
    oob: bool,
    event: EventHeader,
    smtp_configured: bool,
    messages: Vec<MessageRow>,
}

async fn outbox_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffUser,
) -> AppResult<Html<String>> {
    let event = super::event_header(&state, event_id).await?;
    let client = state.pool.get().await?;
    let messages = db::outbox::for_event(&client, event_id, 200).await?;
    render(&OutboxPage {
        staff_name: staff.name,
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        oob: false,
        event,
        smtp_configured: state.config.mail.smtp_url.is_some(),
        messages: messages
            .into_iter()
            .map(|m| MessageRow {
                id: m.id,
                failed: m.sent_at.is_none() && m.failed_at.is_some(),
                order_id: m.order_id.map(|id| id.to_string()).unwrap_or_default(),
                short_order: m
                    .order_id
                    .map(|id| id.to_string().chars().take(8).collect())
                    .unwrap_or_default(),
                recipient: m.recipient,
                subject: m.subject,
                queued: views::display_time(m.created_at),
                state: match (m.sent_at, m.failed_at, m.retired_at) {
                    (Some(at), _, _) => format!("sent {}", views::display_time(at)),
                    (None, Some(at), _) => format!(
                        "failed after {} attempt(s), {}: gave up",
                        m.attempts,
                        views::display_time(at)
                    ),
                    (None, None, Some(_)) => "not sent: nothing left to send".into(),
                    (None, None, None) if m.attempts == 0 => "waiting".into(),
                    (None, None, None) => format!(
                        "{} attempt(s); next {}",
                        m.attempts,
                        views::display_time(m.next_attempt_at)
                    ),
                },
                last_error: m.last_error.unwrap_or_default(),
            })
            .collect(),
    })
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
    tickets: Vec<StaffTicketJson>,
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/orders/{order_id}", tag = "staff", operation_id = "staff_order_json",
    params(("event_id" = i64, Path), ("order_id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The order and its tickets", body = StaffOrderJson),
        (status = 401, description = "Not signed in as staff, or an invalid API key", body = crate::web::error::ErrorBody),
        (status = 403, description = "An API key of another scope", body = crate::web::error::ErrorBody),
        (status = 404, description = "Not found", body = crate::web::error::ErrorBody),
        (status = 503, description = "Busy or down; retry", body = crate::web::error::ErrorBody),))]
pub(crate) async fn order_json(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    _staff: StaffCaller,
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
            admitted_at: t.admitted_at.map(views::rfc3339),
            refunded: t.voided_at.is_some(),
        })
        .collect();
    Ok(Json(StaffOrderJson {
        order_id: order.id,
        buyer_name: order.buyer_name,
        tender: order.tender,
        tickets,
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
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/orders/{order_id}/refund", tag = "staff",
    params(("event_id" = i64, Path), ("order_id" = String, Path, format = Uuid)), request_body = RefundBody,
    responses(
        (status = 200, description = "Refunded, all of them", body = RefundJson),
        (status = 400, description = "Malformed request", body = crate::web::error::ErrorBody),
        (status = 401, description = "Not signed in as staff, or an invalid API key", body = crate::web::error::ErrorBody),
        (status = 403, description = "An API key of another scope", body = crate::web::error::ErrorBody),
        (status = 404, description = "Not found", body = crate::web::error::ErrorBody),
        (status = 409, description = "Refused by the state of things", body = crate::web::error::ErrorBody),
        (status = 503, description = "Busy or down; retry", body = crate::web::error::ErrorBody),))]
pub(crate) async fn refund_json(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: StaffCaller,
    ApiJson(body): ApiJson<RefundBody>,
) -> AppResult<Json<RefundJson>> {
    if body.ticket_ids.as_ref().is_some_and(Vec::is_empty) {
        return Err(AppError::BadRequest(
            "ticket_ids is empty: leave it out to refund the whole order.".into(),
        ));
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
        (status = 400, description = "Malformed request", body = crate::web::error::ErrorBody),
        (status = 401, description = "Not signed in as staff, or an invalid API key", body = crate::web::error::ErrorBody),
        (status = 403, description = "An API key of another scope", body = crate::web::error::ErrorBody),
        (status = 404, description = "Not found", body = crate::web::error::ErrorBody),
        (status = 409, description = "Refused by the state of things", body = crate::web::error::ErrorBody),
        (status = 503, description = "Busy or down; retry", body = crate::web::error::ErrorBody),))]
pub(crate) async fn reseat_json(
    State(state): State<AppState>,
    IdPath((event_id, ticket_id)): IdPath<(EventId, TicketId)>,
    staff: StaffCaller,
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

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct SaleGaBody {
    #[serde(deserialize_with = "crate::web::json_int::one")]
    area_id: i64,
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
        (status = 400, description = "Malformed request", body = crate::web::error::ErrorBody),
        (status = 401, description = "Not signed in as staff, or an invalid API key", body = crate::web::error::ErrorBody),
        (status = 403, description = "An API key of another scope", body = crate::web::error::ErrorBody),
        (status = 404, description = "Not found", body = crate::web::error::ErrorBody),
        (status = 409, description = "Refused by the state of things", body = crate::web::error::ErrorBody),
        (status = 422, description = "Breaks a rule", body = crate::web::error::ErrorBody),
        (status = 503, description = "Busy or down; retry", body = crate::web::error::ErrorBody),))]
pub(crate) async fn sale_json(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller,
    ApiJson(body): ApiJson<SaleBody>,
) -> AppResult<impl IntoResponse> {
    let seat_ids = SeatIds::new(body.seat_ids.iter().copied());
    if seat_ids.len() != body.seat_ids.len() {
        return Err(AppError::Invalid(crate::error::Invalid::DuplicateSeats));
    }
    let mut areas: Vec<i64> = body.ga.iter().map(|g| g.area_id).collect();
    areas.sort_unstable();
    areas.dedup();
    if body.ga.iter().any(|g| g.quantity == 0 || g.quantity > 100) {
        return Err(AppError::BadRequest(
            "ga: each area's quantity is from 1 to 100.".into(),
        ));
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

/// Sends a message that was given up on again, from its first attempt.
async fn retry_message(
    State(state): State<AppState>,
    IdPath((event_id, message_id)): IdPath<(EventId, i64)>,
    staff: StaffUser,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let client = state.pool.get().await?;
    let outcome = if db::outbox::retry_failed(&client, event_id, message_id).await? {
        Ok("Message queued again.".to_string())
    } else {
        Err(AppError::NotFound(Missing::Page))
    };
    drop(client);
    let location = format!("/staff/events/{event_id}/mail");
    super::back_with_notice(&staff.session, &location, outcome).await
}
