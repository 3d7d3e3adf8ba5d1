//! The JSON API. Its shapes are a contract (see docs/api.md): change them only
//! by adding fields.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::db::best_available::{BestAvailableRequest, BestMode};
use crate::db::ga::GaAreaView;
use crate::db::{self, events::EventSummary};
use crate::domain::hold::{Cart, GaHeld, GaRequest, HoldSummary};
use crate::domain::ids::AreaId;
use crate::domain::ids::{EventId, HoldId, SeatId};
use crate::domain::rules as input_rules;
use crate::domain::seat::Seat;
use crate::domain::seat::{SeatIds, SeatState};
use crate::error::Malformed;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::admission;
use crate::web::admission::hold_request;
use crate::web::auth::{ApiBuyer, ApiViewer};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, ClientIp, IdPath};
use crate::web::reads::MadeMap;
use crate::web::reads::ReadPermit;
use crate::web::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The buyers' API: each operation routed and documented from its
/// `#[utoipa::path]`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_events))
        .routes(routes!(event_seats))
        .routes(routes!(create_hold))
        .routes(routes!(release_hold))
        .routes(routes!(release_seat))
        .routes(routes!(purchase))
        .routes(routes!(extend_hold))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct HoldJson {
    hold_id: HoldId,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    seat_ids: SeatIds,
    /// General-admission tickets held, by area: `[{"area": 7, "count": 2}]`.
    ga: Vec<GaHeld>,
}

impl From<HoldSummary> for HoldJson {
    fn from(hold: HoldSummary) -> HoldJson {
        HoldJson {
            hold_id: hold.hold_id,
            expires_at: hold.expires_at,
            seat_ids: hold.seat_ids,
            ga: hold.ga,
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SeatJson {
    id: SeatId,
    section: String,
    row: String,
    number: String,
    tier: String,
    price_cents: i32,
    status: SeatState,
    /// Seat attributes, from a closed set: "wheelchair", "companion",
    /// "restricted_view", "aisle", "step_free", "hearing_loop",
    /// "lift_up_armrest", "extra_legroom".
    accessibility: Vec<String>,
    /// Why the view is restricted ("Pillar"), when the venue says.
    #[serde(skip_serializing_if = "Option::is_none")]
    view_note: Option<String>,
}

impl From<Seat> for SeatJson {
    fn from(seat: Seat) -> SeatJson {
        SeatJson {
            id: seat.id,
            section: seat.section,
            row: seat.row_label,
            number: seat.seat_label,
            tier: seat.tier_code,
            price_cents: seat.price_cents,
            status: seat.state,
            accessibility: seat.accessibility,
            view_note: seat.view_note,
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct EventSeatsJson {
    event: EventSummary,
    hold: Option<HoldJson>,
    seats: Vec<SeatJson>,
    /// General-admission areas; `available` counts lapsed holds as free.
    ga_areas: Vec<GaAreaView>,
}

#[utoipa::path(get, path = "/api/events", tag = "buyers",
    responses(
        (status = 200, description = "Every event", body = Vec<crate::db::events::EventSummary>,
            links(("seats" = (operation_id = "event_seats", parameters(("event_id" = "$response.body#/0/id")))),
                  ("hold" = (operation_id = "create_hold", parameters(("event_id" = "$response.body#/0/id")))))),
        responses::InvalidKey,
        responses::Unavailable,))]
pub(crate) async fn list_events(
    State(state): State<AppState>,
    // First: whatever the other extractors read (the session) is a read too.
    _read: ReadPermit,
) -> AppResult<Json<Vec<EventSummary>>> {
    let (client, _) = state.read_client().await?;
    Ok(Json(db::events::list(&client).await?))
}

#[utoipa::path(get, path = "/api/events/{event_id}/seats", tag = "buyers",
    params(("event_id" = i64, Path, description = "The event")),
    responses(
        (status = 200, description = "The event, its seats and GA areas, and the caller's hold", body = EventSeatsJson),
        responses::BadRequestOrNoCustomer,
        responses::InvalidKey,
        responses::NotFoundOrNotYours,
        responses::Unavailable,))]
pub(crate) async fn event_seats(
    State(state): State<AppState>,
    // First: whatever the other extractors read (the session) is a read too.
    _read: ReadPermit,
    IdPath(event_id): IdPath<EventId>,
    viewer: ApiViewer,
    headers: axum::http::HeaderMap,
) -> AppResult<Response> {
    // A buyer's own hold is never shown stale: their map is made fresh,
    // on the connection that found the hold.
    if let Some(buyer_id) = viewer.buyer_id {
        let client = state.pool.get().await?;
        if let Some(hold) = db::holds::live_for_buyer(&client, event_id, buyer_id).await? {
            let event = db::events::find(&client, event_id)
                .await?
                .filter(|event| event.published)
                .ok_or_else(|| AppError::NotFound(Missing::Event))?;
            return Ok(Json(seat_map(&client, event, Some(hold)).await?).into_response());
        }
    }
    // Nobody's own seats to show: the same map for every such viewer, kept
    // while unchanged and compressed once (a hot event's map is read by
    // thousands).
    let map = state
        .seat_maps
        .get_or_make(event_id, || async {
            let (client, event, from) = state.event_read_client(event_id).await?;
            // A draft doesn't exist for the API (a failure is not kept).
            if !event.published {
                return Err(AppError::NotFound(Missing::Event));
            }
            let (map, unchanged_until) = seat_map_lapsing(&client, event).await?;
            let json = serde_json::to_vec(&map).map_err(|err| AppError::Internal(err.into()))?;
            Ok(MadeMap {
                json: Bytes::from(json),
                from,
                unchanged_until,
            })
        })
        .await?;
    Ok(map.respond(&headers, "no-cache"))
}

/// The event's map as nobody's, and until when it stays true while no
/// seat is written (see [`MadeMap`]): until the first held seat lapses; at
/// once when GA places are taken (their holds lapse unseen too).
async fn seat_map_lapsing(
    client: &impl db::GenericClient,
    event: EventSummary,
) -> AppResult<(EventSeatsJson, Option<std::time::Instant>)> {
    let event_id = event.id;
    let seats = db::seats::for_event(client, event_id, None).await?;
    let ga_areas = db::ga::areas(client, event_id, None).await?;
    let first_lapse = crate::web::reads::first_lapse(&seats);
    let unchanged_until = match ga_areas.iter().any(|a| a.available < i64::from(a.capacity)) {
        true => Some(std::time::Instant::now()),
        false => first_lapse,
    };
    Ok((assemble_map(event, None, seats, ga_areas), unchanged_until))
}

/// The event's map as the holder of `hold` (or nobody's) sees it: the
/// hold's seats as theirs.
async fn seat_map(
    client: &impl db::GenericClient,
    event: EventSummary,
    hold: Option<crate::domain::hold::Hold>,
) -> AppResult<EventSeatsJson> {
    let event_id = event.id;
    let seats = db::seats::for_event(client, event_id, hold.as_ref().map(|h| h.id)).await?;
    let ga_areas = db::ga::areas(client, event_id, hold.as_ref().map(|h| h.id)).await?;
    Ok(assemble_map(event, hold, seats, ga_areas))
}

fn assemble_map(
    event: EventSummary,
    hold: Option<crate::domain::hold::Hold>,
    seats: Vec<Seat>,
    ga_areas: Vec<GaAreaView>,
) -> EventSeatsJson {
    let hold = hold.map(|hold| HoldJson {
        hold_id: hold.id,
        expires_at: hold.expires_at,
        seat_ids: seats
            .iter()
            .filter(|s| s.state == SeatState::Mine)
            .map(|s| s.id)
            .collect(),
        ga: ga_areas
            .iter()
            .filter(|a| a.mine > 0)
            .map(|a| GaHeld {
                area_id: a.id,
                quantity: a.mine,
            })
            .collect(),
    });
    EventSeatsJson {
        event,
        hold,
        seats: seats.into_iter().map(SeatJson::from).collect(),
        ga_areas,
    }
}

/// The request's schema, by hand: one of two shapes (seats and/or GA
/// tickets, or the best available alone), which the derive can't say.
impl utoipa::PartialSchema for CreateHoldBody {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        // Mirrors the handler: seats and/or tickets (at least one of them
        // present and not null), or the best available alone (the others
        // absent or null). Unknown fields are ignored, as serde does.
        // (utoipa's schema type keeps no `anyOf` beside `properties`, so
        // "seats or tickets" is two shapes.)
        let seat_ids = serde_json::json!({
            "type": "array",
            "items": { "type": "integer", "format": "int64" },
            "minItems": 1,
            "uniqueItems": true
        });
        let ga = serde_json::json!({
            "type": "object",
            "required": ["area", "count"],
            "properties": {
                "area": { "type": "integer", "format": "int64" },
                "count": { "type": "integer", "minimum": 1, "maximum": 100 }
            }
        });
        let best = serde_json::json!({
            "type": "object",
            "required": ["count"],
            "properties": {
                "count": { "type": "integer", "minimum": 1, "maximum": 100 },
                "section": { "type": "string" },
                "tier": { "type": "string" },
                "together": { "type": "boolean" },
                "mode": { "type": "string", "enum": ["replace", "add"] },
                "wheelchair": { "type": "integer", "minimum": 0, "maximum": 100,
                    "description": "How many of the party use a wheelchair: each gets a wheelchair space, the rest sit beside them (at most count)" },
                "avoid_restricted_view": { "type": "boolean" }
            }
        });
        let nothing = serde_json::json!({ "type": "null" });
        let or_null = |schema: &serde_json::Value| serde_json::json!({ "anyOf": [schema, { "type": "null" }] });
        serde_json::from_value(serde_json::json!({
            "oneOf": [
                {
                    "type": "object",
                    "description": "Seats, and perhaps general-admission tickets too (a mixed cart)",
                    "required": ["seat_ids"],
                    "properties": {
                        "seat_ids": seat_ids,
                        "ga": or_null(&ga),
                        "best_available": nothing
                    }
                },
                {
                    "type": "object",
                    "description": "General-admission tickets",
                    "required": ["ga"],
                    "properties": {
                        "ga": ga,
                        "seat_ids": nothing,
                        "best_available": nothing
                    }
                },
                {
                    "type": "object",
                    "description": "The best available seats",
                    "required": ["best_available"],
                    "properties": {
                        "best_available": best,
                        "seat_ids": nothing,
                        "ga": nothing
                    }
                }
            ]
        }))
        .expect("a valid schema")
    }
}

impl utoipa::ToSchema for CreateHoldBody {}

/// A hold request names seats, general-admission tickets, or both (a mixed
/// cart); or asks for the best available.
#[derive(Deserialize)]
pub(crate) struct CreateHoldBody {
    #[serde(default, deserialize_with = "crate::web::json_int::optional_list")]
    seat_ids: Option<Vec<SeatId>>,
    ga: Option<GaBody>,
    best_available: Option<BestAvailableBody>,
}

#[derive(Deserialize)]
pub(crate) struct GaBody {
    #[serde(deserialize_with = "crate::web::json_int::one")]
    area: AreaId,
    /// Signed and wide, so that 0, -3 or 10^12 get a 422 rather than a 400.
    #[serde(deserialize_with = "crate::web::json_int::one")]
    count: i64,
}

#[derive(Deserialize)]
pub(crate) struct BestAvailableBody {
    /// Signed and wide, so that 0, -3 or 10^12 get a 422 rather than a 400.
    #[serde(deserialize_with = "crate::web::json_int::one")]
    count: i64,
    section: Option<String>,
    tier: Option<String>,
    together: Option<bool>,
    /// "replace" (the default: the count is the party size) or "add".
    mode: Option<String>,
    /// How many of the party use a wheelchair (0 to count): each gets a
    /// wheelchair space, the rest sit beside them.
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    wheelchair: Option<i64>,
    /// Never give a seat with a restricted view.
    avoid_restricted_view: Option<bool>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct BestAvailableJson {
    #[serde(flatten)]
    hold: HoldJson,
    added: SeatIds,
    together: bool,
    /// In words, e.g. "4 seats together in Orchestra, row C, seats 7–10".
    summary: String,
}

#[utoipa::path(post, path = "/api/events/{event_id}/holds", tag = "buyers",
    params(("event_id" = i64, Path)), request_body = CreateHoldBody,
    responses(
        (status = 201, description = "The caller's hold now (best available adds `added`, `together` and `summary`)", body = HoldJson,
            links(("purchase" = (operation_id = "purchase", parameters(("hold_id" = "$response.body#/hold_id")))),
                  ("extend" = (operation_id = "extend_hold", parameters(("hold_id" = "$response.body#/hold_id")))),
                  ("release_seat" = (operation_id = "release_seat", parameters(("hold_id" = "$response.body#/hold_id"), ("seat_id" = "$response.body#/seat_ids/0")))),
                  ("release" = (operation_id = "release_hold", parameters(("hold_id" = "$response.body#/hold_id")))))),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,
        responses::Conflict,
        responses::Unprocessable,
        responses::TooManyRequests,))]
pub(crate) async fn create_hold(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    ip: ClientIp,
    buyer: ApiBuyer,
    pass: crate::web::queue::gate::QueuePass,
    ApiJson(body): ApiJson<CreateHoldBody>,
) -> AppResult<Response> {
    let gate = crate::web::queue::gate::admit(&state, event_id, &pass, Some(buyer.id)).await?;
    let rules = gate.rules(state.hold_rules());
    let max_seats = rules.max_seats;
    match body {
        CreateHoldBody {
            seat_ids,
            ga,
            best_available: None,
        } if seat_ids.is_some() || ga.is_some() => {
            let cart = Cart {
                seat_ids: match seat_ids {
                    Some(ids) => input_rules::seat_ids_to_claim(&ids, max_seats)?,
                    None => SeatIds::default(),
                },
                ga: match ga {
                    Some(ga) => vec![GaRequest {
                        area_id: ga.area,
                        quantity: input_rules::ticket_count(ga.count, max_seats)?,
                    }],
                    None => Vec::new(),
                },
            };
            let holder = gate.holder(hold_request(&state, buyer.id, buyer.key, ip));
            let hold = db::holds::claim(&state.pool, event_id, holder, &cart, rules).await?;
            Ok((StatusCode::CREATED, Json(HoldJson::from(hold))).into_response())
        }
        CreateHoldBody {
            seat_ids: None,
            ga: None,
            best_available: Some(best),
        } => {
            let count = input_rules::party_size(best.count, max_seats)?;
            let request = BestAvailableRequest {
                count,
                wheelchair: input_rules::wheelchair_users(best.wheelchair.unwrap_or(0), count)?,
                avoid_restricted_view: best.avoid_restricted_view.unwrap_or(false),
                section: best.section,
                tier: best.tier,
                together: best.together.unwrap_or(true),
                mode: match best.mode.as_deref() {
                    None | Some("replace") => BestMode::Replace,
                    Some("add") => BestMode::Add,
                    Some(_) => return Err(AppError::Invalid(Invalid::BestMode)),
                },
            };
            let holder = gate.holder(hold_request(&state, buyer.id, buyer.key, ip));
            let outcome = db::best_available::hold_best_available(
                &state.pool,
                event_id,
                holder,
                &request,
                rules,
            )
            .await?;
            // The claim's own transaction returned the hold's seats.
            let added: Vec<Seat> = outcome
                .hold
                .seats
                .iter()
                .filter(|seat| outcome.added.contains(&seat.id))
                .cloned()
                .collect();
            let body = BestAvailableJson {
                summary: crate::words::describe_seats(&added, outcome.together),
                hold: HoldJson::from(outcome.hold),
                added: outcome.added,
                together: outcome.together,
            };
            Ok((StatusCode::CREATED, Json(body)).into_response())
        }
        _ => Err(AppError::BadRequest(Malformed::HoldRequestShape)),
    }
}

#[utoipa::path(delete, path = "/api/holds/{hold_id}", tag = "buyers",
    params(("hold_id" = String, Path, format = Uuid)),
    responses(
        (status = 204, description = "Released"),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,
        responses::Conflict,))]
pub(crate) async fn release_hold(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    buyer: ApiBuyer,
) -> AppResult<StatusCode> {
    db::holds::release_hold(&state.pool, hold_id, buyer.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(delete, path = "/api/holds/{hold_id}/seats/{seat_id}", tag = "buyers",
    params(("hold_id" = String, Path, format = Uuid), ("seat_id" = i64, Path)),
    responses(
        (status = 204, description = "Released"),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,
        responses::Conflict,))]
pub(crate) async fn release_seat(
    State(state): State<AppState>,
    IdPath((hold_id, seat_id)): IdPath<(HoldId, SeatId)>,
    buyer: ApiBuyer,
) -> AppResult<StatusCode> {
    db::holds::release_seat(&state.pool, hold_id, seat_id, buyer.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A purchase's body: who buys, and (for an event that sells price types)
/// the type of each seat that isn't the default.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct PurchaseBody {
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200, pattern = "\\S")]
    name: String,
    #[serde(default)]
    #[schema(
        max_length = 254,
        pattern = "^[^@\\s]{1,64}@([^@\\s.]{1,63}\\.)+[^@\\s.]{2,63}$"
    )]
    email: String,
    /// By seat id, the price type's code: `{"123": "child"}`. Seats not
    /// named are sold as the event's default type (its first open one).
    #[serde(default)]
    price_types: std::collections::BTreeMap<String, String>,
    /// By general-admission area id, how many of the hold's places there
    /// are of each type: `{"7": {"child": 2}}`. Places not named are sold
    /// as the default type.
    #[serde(default, deserialize_with = "crate::web::json_int::map_of_maps")]
    ga_price_types: std::collections::BTreeMap<String, std::collections::BTreeMap<String, i32>>,
    /// A promo code, matched without regard to case.
    #[serde(default)]
    #[schema(max_length = 100)]
    promo_code: Option<String>,
}

/// A purchase: the order, its seats, and a ticket per seat and GA place.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PurchaseJson {
    order_id: crate::domain::ids::OrderId,
    /// Always "paid" here.
    status: crate::domain::payment::OrderStatus,
    seat_ids: SeatIds,
    tickets: Vec<db::tickets::Issued>,
}

/// A checkout of an event that takes payment: the order waits for it.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PendingPurchaseJson {
    order_id: crate::domain::ids::OrderId,
    /// "pending_payment".
    status: crate::domain::payment::OrderStatus,
    /// "online" (send the buyer to `payment_url`) or "box_office" (they
    /// pay at the counter; `payment_url` is their order's page).
    payment: crate::domain::payment::PaymentMode,
    payment_url: String,
    /// The seats are held for the order until then.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pay_by: OffsetDateTime,
    amount_cents: i64,
}

#[utoipa::path(post, path = "/api/holds/{hold_id}/purchase", tag = "buyers",
    params(("hold_id" = String, Path, format = Uuid)), request_body = PurchaseBody,
    responses(
        (status = 201, description = "Bought (the event takes no payment)", body = PurchaseJson,
            links(("order" = (operation_id = "order_json", parameters(("order_id" = "$response.body#/order_id")))))),
        (status = 202, description = "Checked out: the order waits for its payment, its seats held until pay_by", body = PendingPurchaseJson,
            links(("order" = (operation_id = "order_json", parameters(("order_id" = "$response.body#/order_id")))))),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,
        responses::Conflict,
        responses::Gone,
        responses::Unprocessable,))]
pub(crate) async fn purchase(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    buyer: ApiBuyer,
    ip: ClientIp,
    ApiJson(body): ApiJson<PurchaseBody>,
) -> AppResult<impl IntoResponse> {
    let details = input_rules::buyer_details(&body.name, &body.email, crate::i18n::current())?;
    let choices = crate::domain::price_type::Choices {
        types: crate::domain::price_type::choices(body.price_types, body.ga_price_types)?,
        promo_code: None,
    }
    .with_code(body.promo_code.as_deref());
    // Codes are no guessing oracle: each try counts as a hold request,
    // counted (and refused 429 over the limit) before the code is looked up.
    if choices.promo_code.is_some() {
        let tried = db::holds::CodeTry::Hold(hold_id);
        admission::admit_code_try(&state, buyer.id, buyer.key, ip, tried).await?;
    }
    let bought = match db::orders::purchase(
        &state.pool,
        hold_id,
        buyer.id,
        &details,
        state.config.payments.window,
        &choices,
    )
    .await
    {
        // Not an event's hold: perhaps a season's (one order, every night).
        Err(AppError::NotFound(Missing::Hold)) => {
            let offer_asked = db::seasons::OfferAsked {
                price_types: !choices.types.is_empty(),
                promo_code: choices.promo_code.is_some(),
            };
            db::orders::Purchased::Paid(
                db::seasons::purchase(&state.pool, hold_id, buyer.id, &details, offer_asked)
                    .await?,
            )
        }
        bought => bought?,
    };
    let order = match bought {
        db::orders::Purchased::Paid(order) => {
            return Ok((
                StatusCode::CREATED,
                Json(PurchaseJson {
                    order_id: order.order_id,
                    status: crate::domain::payment::OrderStatus::Paid,
                    seat_ids: order.seat_ids,
                    tickets: order.tickets,
                }),
            )
                .into_response());
        }
        db::orders::Purchased::Pending(order) => order,
    };
    let order_page = format!("{}/orders/{}", state.links.public_url, order.order_id);
    let payment_url = match order.payment {
        crate::domain::payment::PaymentMode::Online => {
            match crate::web::payments::pay_url(&state, order.order_id).await {
                Ok(Some(crate::payments::PayAt::Stripe(url))) => url,
                Ok(_) => order_page,
                Err(err) => {
                    // The order stands; its page's "Pay" makes the session later.
                    tracing::warn!(order_id = %order.order_id,
                        error = %crate::error::for_log(err.as_ref()), "no checkout session yet");
                    order_page
                }
            }
        }
        _ => order_page,
    };
    Ok((
        StatusCode::ACCEPTED,
        Json(PendingPurchaseJson {
            order_id: order.order_id,
            status: crate::domain::payment::OrderStatus::PendingPayment,
            payment: order.payment,
            payment_url,
            pay_by: order.pay_by,
            amount_cents: order.amount_cents,
        }),
    )
        .into_response())
}

#[utoipa::path(post, path = "/api/holds/{hold_id}/extend", tag = "buyers",
    params(("hold_id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The hold with its new expiry", body = HoldJson),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,
        responses::Conflict,
        responses::Gone,))]
pub(crate) async fn extend_hold(
    State(state): State<AppState>,
    IdPath(hold_id): IdPath<HoldId>,
    buyer: ApiBuyer,
) -> AppResult<Json<HoldJson>> {
    let hold =
        db::holds::extend(&state.pool, hold_id, buyer.id, state.config.hold_extension).await?;
    Ok(Json(HoldJson::from(hold)))
}
