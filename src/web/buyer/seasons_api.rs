//! Seasons for buyers (the JSON API): the season's map, a hold on places
//! in every night (picked, or the best available), releasing it, and
//! giving one night of a season ticket back to sale. A season hold is
//! bought by the same `POST /api/holds/{hold_id}/purchase` as any hold.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::domain::ids::{EventId, HoldId, SeasonId, SeatId};
use crate::domain::rules as input_rules;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Malformed, Missing};
use crate::web::admission::{admit_hold_request, hold_request};
use crate::web::auth::{ApiBuyer, ApiViewer};
use crate::web::buyer::api::SeatJson;
use crate::web::error::responses;
use crate::web::extract::{ApiJson, ClientIp, IdPath};
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(season_seats))
        .routes(routes!(create_season_hold))
        .routes(routes!(release_season_hold))
        .routes(routes!(release_to_sale))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SeasonHoldJson {
    hold_id: HoldId,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    /// The places held, as the season's first event's seat ids.
    seat_ids: Vec<SeatId>,
    /// The events they are held in.
    event_ids: Vec<EventId>,
    /// Best available only: the places it chose.
    #[serde(skip_serializing_if = "Option::is_none")]
    added: Option<Vec<SeatId>>,
}

impl SeasonHoldJson {
    pub(crate) fn new(hold: db::seasons::SeasonHold, added: Option<Vec<SeatId>>) -> Self {
        SeasonHoldJson {
            hold_id: hold.id,
            expires_at: hold.expires_at,
            seat_ids: hold.seat_ids,
            event_ids: hold.nights,
            added,
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SeasonSeatsJson {
    season: db::seasons::Season,
    hold: Option<SeasonHoldJson>,
    /// Each place as the first event's seat, at the season's price:
    /// "available" only when it is free in every event asked about.
    seats: Vec<SeatJson>,
}

#[derive(Deserialize, utoipa::IntoParams)]
pub(crate) struct NightsQuery {
    /// A partial season's chosen events, comma-separated (absent: all).
    event_ids: Option<String>,
}

/// Event ids from "1,2,3".
pub(crate) fn event_ids(text: Option<&str>) -> AppResult<Option<Vec<EventId>>> {
    text.filter(|text| !text.trim().is_empty())
        .map(|text| {
            text.split(',')
                .map(|id| id.trim().parse::<EventId>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| {
                    AppError::BadRequest(Malformed::Query(
                        "event_ids is a comma-separated list of event ids".into(),
                    ))
                })
        })
        .transpose()
}

#[utoipa::path(get, path = "/api/seasons/{season_id}/seats", tag = "buyers",
    params(("season_id" = i64, Path), NightsQuery),
    responses(
        (status = 200, description = "The season, the caller's season hold, and each place", body = SeasonSeatsJson),
        responses::BadRequestOrNoCustomer,
        responses::NotFoundOrNotYours,))]
pub(crate) async fn season_seats(
    State(state): State<AppState>,
    // First: whatever the other extractors read (the session) is a read too.
    _read: crate::web::reads::ReadPermit,
    IdPath(season_id): IdPath<SeasonId>,
    viewer: ApiViewer,
    Query(query): Query<NightsQuery>,
    headers: axum::http::HeaderMap,
) -> AppResult<axum::response::Response> {
    use axum::response::IntoResponse;
    let chosen = event_ids(query.event_ids.as_deref())?;
    // A buyer's own season hold is never shown stale: made fresh.
    if let Some(buyer_id) = viewer.buyer_id {
        let client = state.pool.get().await?;
        if let Some(hold) = db::seasons::live_hold(&client, season_id, buyer_id).await? {
            let season = visible_season(&client, season_id).await?;
            let nights = match &chosen {
                None => hold.nights.clone(),
                Some(_) => season.nights(chosen.as_deref())?,
            };
            let seats = db::seasons::map(&client, season_id, &nights, Some(hold.id)).await?;
            return Ok(Json(SeasonSeatsJson {
                season,
                hold: Some(SeasonHoldJson::new(hold, None)),
                seats: seats.into_iter().map(SeatJson::from).collect(),
            })
            .into_response());
        }
    }
    // Nobody's own places: one map per choice of nights for every such
    // viewer, kept while the feed names no change to its nights.
    let nights = {
        let client = state.pool.get().await?;
        let season = visible_season(&client, season_id).await?;
        match season.choose_events {
            // A partial season's map before any choice: free in every event.
            Some(_) if chosen.is_none() => season.event_ids(),
            _ => season.nights(chosen.as_deref())?,
        }
    };
    let key = crate::web::reads::SeasonMapKey {
        season_id,
        nights: nights.clone(),
    };
    let map = state
        .season_maps
        .get_or_make(key, || async {
            let client = state.pool.get().await?;
            let season = visible_season(&client, season_id).await?;
            let seats = db::seasons::map(&client, season_id, &nights, None).await?;
            let unchanged_until = crate::web::reads::first_lapse(&seats);
            let json = serde_json::to_vec(&SeasonSeatsJson {
                season,
                hold: None,
                seats: seats.into_iter().map(SeatJson::from).collect(),
            })
            .map_err(|err| AppError::Internal(err.into()))?;
            Ok(crate::web::reads::MadeMap {
                json: axum::body::Bytes::from(json),
                from: db::replica::ReadFrom::Primary,
                unchanged_until,
            })
        })
        .await?;
    Ok(map.respond(&headers, "no-cache"))
}

/// A season buyers may see: one whose events are all published.
pub(crate) async fn visible_season(
    client: &impl db::GenericClient,
    season_id: SeasonId,
) -> AppResult<db::seasons::Season> {
    let season = db::seasons::find(client, season_id).await?;
    if season
        .events
        .iter()
        .any(|event| event.sale == crate::domain::sale::SaleStatus::Draft)
    {
        return Err(AppError::NotFound(Missing::Season));
    }
    Ok(season)
}

/// Places to hold (the season's first event's seat ids), or the best
/// places side by side; with a partial season's chosen events.
#[derive(Deserialize)]
pub(crate) struct SeasonHoldBody {
    #[serde(default, deserialize_with = "crate::web::json_int::optional_list")]
    seat_ids: Option<Vec<SeatId>>,
    best_available: Option<SeasonBestBody>,
    #[serde(default, deserialize_with = "crate::web::json_int::optional_list")]
    event_ids: Option<Vec<EventId>>,
}

#[derive(Deserialize)]
pub(crate) struct SeasonBestBody {
    #[serde(deserialize_with = "crate::web::json_int::one")]
    count: i64,
}

/// The request's schema, by hand: one of two shapes (places, or the best
/// available), which the derive can't say.
impl utoipa::PartialSchema for SeasonHoldBody {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let ids = serde_json::json!({
            "type": "array",
            "items": { "type": "integer", "format": "int64" },
            "minItems": 1,
            "uniqueItems": true
        });
        let events = serde_json::json!({
            "anyOf": [
                { "type": "array", "items": { "type": "integer", "format": "int64" },
                  "uniqueItems": true,
                  "description": "A partial season's chosen events: exactly its number of them" },
                { "type": "null" }
            ]
        });
        let best = serde_json::json!({
            "type": "object",
            "required": ["count"],
            "properties": { "count": { "type": "integer", "minimum": 1, "maximum": 100 } }
        });
        let nothing = serde_json::json!({ "type": "null" });
        serde_json::from_value(serde_json::json!({
            "oneOf": [
                {
                    "type": "object",
                    "description": "Places, as the season's first event's seat ids",
                    "required": ["seat_ids"],
                    "properties": { "seat_ids": ids, "best_available": nothing, "event_ids": events }
                },
                {
                    "type": "object",
                    "description": "The best places side by side",
                    "required": ["best_available"],
                    "properties": { "best_available": best, "seat_ids": nothing, "event_ids": events }
                }
            ]
        }))
        .expect("a valid schema")
    }
}

impl utoipa::ToSchema for SeasonHoldBody {}

#[utoipa::path(post, path = "/api/seasons/{season_id}/holds", tag = "buyers",
    params(("season_id" = i64, Path)), request_body = SeasonHoldBody,
    responses(
        (status = 201, description = "The caller's season hold now: the places held in every event", body = SeasonHoldJson,
            links(("purchase" = (operation_id = "purchase", parameters(("hold_id" = "$response.body#/hold_id")))))),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,
        responses::Conflict,
        responses::Unprocessable,
        responses::TooManyRequests,))]
pub(crate) async fn create_season_hold(
    State(state): State<AppState>,
    IdPath(season_id): IdPath<SeasonId>,
    ip: ClientIp,
    buyer: ApiBuyer,
    pass: crate::web::queue::gate::QueuePass,
    ApiJson(body): ApiJson<SeasonHoldBody>,
) -> AppResult<(StatusCode, Json<SeasonHoldJson>)> {
    let rules = state.hold_rules();
    let season = visible_season(&state.pool.get().await?, season_id).await?;
    let holder = hold_request(&state, buyer.id, buyer.key, ip);
    let chosen = body.event_ids.as_deref();
    crate::web::queue::gate::admit_all(&state, &season.nights(chosen)?, &pass, buyer.id).await?;
    let json = match (body.seat_ids, body.best_available) {
        (Some(ids), None) => {
            let places = input_rules::seat_ids_to_claim(&ids, rules.max_seats)?;
            let hold =
                db::seasons::claim_places(&state.pool, &season, holder, &places, chosen, rules)
                    .await?;
            SeasonHoldJson::new(hold, None)
        }
        (None, Some(best)) => {
            let count = input_rules::party_size(best.count, rules.max_seats)?;
            let (hold, added) =
                db::seasons::claim_best(&state.pool, &season, holder, count, chosen, rules).await?;
            SeasonHoldJson::new(hold, Some(added))
        }
        _ => return Err(AppError::BadRequest(Malformed::HoldRequestShape)),
    };
    Ok((StatusCode::CREATED, Json(json)))
}

#[utoipa::path(delete, path = "/api/seasons/{season_id}/holds/{hold_id}", tag = "buyers",
    params(("season_id" = i64, Path), ("hold_id" = String, Path, format = Uuid)),
    responses(
        (status = 204, description = "Released in every event"),
        responses::BadRequestOrNoCustomer,
        responses::KeyAccess,
        responses::NotFoundOrNotYours,
        responses::Conflict,))]
pub(crate) async fn release_season_hold(
    State(state): State<AppState>,
    IdPath((season_id, hold_id)): IdPath<(SeasonId, HoldId)>,
    buyer: ApiBuyer,
) -> AppResult<StatusCode> {
    db::seasons::release_hold(&state.pool, season_id, hold_id, buyer.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(post, path = "/api/tickets/{code}/release-to-sale", tag = "buyers",
    params(("code" = String, Path, description = "The night's ticket code")),
    responses(
        (status = 200, description = "The night is back on sale for its event alone; its ticket no longer admits", body = db::seasons::Released),
        responses::BadRequest,
        responses::NotFound,
        responses::Conflict,
        responses::TooManyRequests,))]
pub(crate) async fn release_to_sale(
    State(state): State<AppState>,
    IdPath(code): IdPath<String>,
    buyer: ApiBuyer,
    ip: ClientIp,
) -> AppResult<Json<db::seasons::Released>> {
    // As a transfer: the code is the bearer secret, and each try counts.
    let code = TicketCode::parse(&code).map_err(|_| AppError::NotFound(Missing::Ticket))?;
    admit_hold_request(&state, buyer.id, buyer.key, ip).await?;
    match db::seasons::release_to_sale(&state.pool, &code).await {
        Ok(released) => Ok(Json(released)),
        // A code passed on is no longer a ticket, but it was one: say so,
        // as the ticket's own page and files do.
        Err(AppError::NotFound(Missing::Ticket))
            if db::transfers::given_away(&state.pool.get().await?, &code)
                .await?
                .is_some() =>
        {
            Err(AppError::Conflict(
                crate::error::Conflict::TicketTransferred,
            ))
        }
        Err(err) => Err(err),
    }
}
