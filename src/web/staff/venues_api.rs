//! The staff JSON API for venues: read a venue's latest layout with its
//! ETag, save a new version over the one you read (`If-Match`), create a
//! venue, check a layout as saving would (the designer's problems list),
//! read a layout file into the canonical form (the designer's import),
//! move an event to another version, and reprice a tier.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::domain::ids::{EventId, VenueId};
use crate::domain::venue::{self, LayoutError, VenueLayout};
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{StaffCaller, floor::Manager};
use crate::web::error::{LayoutProblem, responses};
use crate::web::extract::{ApiJson, IdPath, JsonText, QueryInput};
use crate::web::state::AppState;

/// The largest layout accepted (the 20,000-seat arena's JSON is ~2 MB).
pub const MAX_LAYOUT_BYTES: usize = 16 * 1024 * 1024;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_layout, put_layout))
        .routes(routes!(create_venue))
        .routes(routes!(check_layout))
        .routes(routes!(read_layout_file))
        .routes(routes!(move_event, preview_move))
        .routes(routes!(add_section))
        .routes(routes!(set_tier_price))
        .layer(DefaultBodyLimit::max(MAX_LAYOUT_BYTES))
}

/// A version's entity tag: strong, as the bytes of a version never change.
pub fn etag(version: i32) -> String {
    format!("\"v{version}\"")
}

/// The version an `If-Match` names: None for `*` (whatever is there, as
/// RFC 9110 says). A tag is compared as the exact string this server
/// issued (`"v7"`, never `"v07"` or `"v+7"`); anything else (a weak tag,
/// a list, noise) matches nothing, so it reads as version 0 and the save
/// is a 412.
fn if_match(headers: &HeaderMap) -> AppResult<Option<i32>> {
    let value = headers
        .get(header::IF_MATCH)
        .ok_or(AppError::PreconditionRequired)?;
    let text = value.to_str().unwrap_or("").trim();
    if text == "*" {
        return Ok(None);
    }
    let version = text
        .strip_prefix("\"v")
        .and_then(|t| t.strip_suffix('"'))
        .and_then(|n| n.parse::<i32>().ok())
        .filter(|n| *n >= 1 && etag(*n) == text)
        .unwrap_or(0);
    Ok(Some(version))
}

/// Reading and checking layouts at once, at most: each may hold up to
/// 100,000 seats' worth of memory, so many at once would add up (this
/// caps what managers' requests cost together, not who may make them).
static LAYOUT_WORK: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// Runs layout work off the async runtime (the arena is 20,000 seats),
/// two at a time.
pub(crate) async fn layout_work<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> AppResult<T> {
    let _turn = LAYOUT_WORK
        .acquire()
        .await
        .map_err(|err| AppError::Internal(anyhow::Error::new(err).context(what)))?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| AppError::Internal(anyhow::Error::new(err).context(what)))
}

/// Judges a layout as saving does: the layout, or every problem saving
/// would refuse it for.
async fn judged(JsonText(body): JsonText) -> AppResult<Result<VenueLayout, Vec<LayoutError>>> {
    layout_work("validating a layout", move || {
        venue::for_saving(venue::from_json(&body))
    })
    .await
}

/// Validates a layout for saving.
async fn validated(body: JsonText) -> AppResult<VenueLayout> {
    judged(body).await?.map_err(AppError::InvalidLayout)
}

fn with_etag(status: StatusCode, version: i32, body: impl Serialize) -> Response {
    let mut response = (status, Json(body)).into_response();
    if let Ok(value) = HeaderValue::from_str(&etag(version)) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct VenueVersion {
    id: VenueId,
    version: i32,
}

#[utoipa::path(get, path = "/api/staff/venues/{venue_id}/layout", tag = "staff",
    params(("venue_id" = i64, Path)),
    responses(
        (status = 200, description = "The latest version's layout (static/venue-layout.schema.json), its version in the ETag",
            body = Object, headers(("ETag" = String, description = "\"v<version>\""))),
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn get_layout(
    State(state): State<AppState>,
    IdPath(venue_id): IdPath<VenueId>,
    _staff: StaffCaller<Manager>,
) -> AppResult<Response> {
    let (text, version) = db::venues::latest_json(&state.pool.get().await?, venue_id).await?;
    let mut response = (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        text,
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&etag(version)) {
        response.headers_mut().insert(header::ETAG, value);
    }
    Ok(response)
}

#[utoipa::path(put, path = "/api/staff/venues/{venue_id}/layout", tag = "staff",
    params(("venue_id" = i64, Path),
           ("If-Match" = Option<String>, Header, description = "The ETag of the version this replaces, or *; without it the answer is 428")),
    request_body(content = Object, description = "A layout (static/venue-layout.schema.json)"),
    responses(
        (status = 200, description = "Saved as a new version", body = VenueVersion,
            headers(("ETag" = String, description = "\"v<version>\""))),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::PreconditionFailed,
        responses::PreconditionRequired,
        responses::Unprocessable,))]
pub(crate) async fn put_layout(
    State(state): State<AppState>,
    IdPath(venue_id): IdPath<VenueId>,
    staff: StaffCaller<Manager>,
    headers: HeaderMap,
    body: JsonText,
) -> AppResult<Response> {
    let seen = if_match(&headers)?;
    let layout = validated(body).await?;
    let version = db::venues::save(&state.pool, venue_id, seen, &layout, staff.actor).await?;
    Ok(with_etag(
        StatusCode::OK,
        version,
        VenueVersion {
            id: venue_id,
            version,
        },
    ))
}

#[utoipa::path(post, path = "/api/staff/venues", tag = "staff",
    request_body(content = Object, description = "A layout (static/venue-layout.schema.json)"),
    responses(
        (status = 201, description = "Created, as version 1", body = VenueVersion,
            headers(("ETag" = String, description = "\"v1\""))),
        responses::BadRequest,
        responses::StaffAccess,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn create_venue(
    State(state): State<AppState>,
    staff: StaffCaller<Manager>,
    body: JsonText,
) -> AppResult<Response> {
    let layout = validated(body).await?;
    let id = db::venues::import(&state.pool.get().await?, &layout, staff.actor.staff_id()).await?;
    Ok(with_etag(
        StatusCode::CREATED,
        1,
        VenueVersion { id, version: 1 },
    ))
}

/// What saving would say of a layout.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct LayoutCheck {
    /// Every problem saving would refuse the layout for, in the shape of a
    /// refused save's (422) `problems`; empty when it would be saved.
    problems: Vec<LayoutProblem>,
}

#[utoipa::path(post, path = "/api/staff/layouts/check", tag = "staff",
    request_body(content = Object, description = "A layout (static/venue-layout.schema.json), as saved"),
    responses(
        (status = 200, description = "The problems saving it would refuse it for (none: it would be saved); nothing is stored", body = LayoutCheck),
        responses::BadRequest,
        responses::StaffAccess,))]
pub(crate) async fn check_layout(
    _staff: StaffCaller<Manager>,
    body: JsonText,
) -> AppResult<Json<LayoutCheck>> {
    let problems = match judged(body).await? {
        Ok(_) => Vec::new(),
        Err(problems) => problems.iter().map(LayoutProblem::from).collect(),
    };
    Ok(Json(LayoutCheck { problems }))
}

#[derive(Deserialize, utoipa::IntoParams)]
pub(crate) struct FileQuery {
    /// The file's name: one ending in `.csv` is read as CSV (and names the
    /// venue), anything else (or none) as JSON.
    #[param(max_length = 200)]
    #[serde(default = "default_file_name")]
    file_name: String,
}

fn default_file_name() -> String {
    "layout.json".into()
}

#[utoipa::path(post, path = "/api/staff/layouts/read", tag = "staff",
    params(FileQuery),
    request_body(content = String, content_type = "text/plain", description = "The file's text"),
    responses(
        (status = 200, description = "The layout in its canonical form, every seat placed", body = Object),
        responses::BadRequest,
        responses::StaffAccess,
        responses::Unprocessable,))]
pub(crate) async fn read_layout_file(
    _staff: StaffCaller<Manager>,
    QueryInput(query): QueryInput<FileQuery>,
    body: String,
) -> AppResult<Json<serde_json::Value>> {
    let parsed = layout_work("reading a layout", move || {
        venue::from_file(&query.file_name, &body).map(|layout| layout.to_json())
    })
    .await?;
    parsed.map(Json).map_err(AppError::InvalidLayout)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveBody {
    /// The venue version to build the event's seats from.
    #[schema(minimum = 1)]
    #[serde(deserialize_with = "crate::web::json_int::one")]
    version: i32,
    /// Prices (minor units) for tiers the event lacks, or to replace.
    #[serde(default)]
    #[schema(value_type = BTreeMap<String, i64>)]
    prices: BTreeMap<String, serde_json::Number>,
}

/// Prices as whole minor units from 0 up: a JSON number such as `1500.0`
/// is 1500; anything else is refused, naming the tier.
fn minor_units(prices: &BTreeMap<String, serde_json::Number>) -> AppResult<BTreeMap<String, i32>> {
    prices
        .iter()
        .map(|(code, number)| {
            let whole = number
                .as_i64()
                .or_else(|| {
                    number
                        .as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                        .map(|f| f as i64)
                })
                .and_then(crate::domain::money::price_cents);
            whole.map(|n| (code.clone(), n)).ok_or_else(|| {
                AppError::Invalid(Invalid::Price {
                    tier: code.clone(),
                    text: number.to_string(),
                })
            })
        })
        .collect()
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct MovedJson {
    event_id: EventId,
    from_version: i32,
    version: i32,
    seats_kept: u64,
    seats_added: u64,
    seats_removed: u64,
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/venue-version", tag = "staff",
    params(("event_id" = i64, Path)), request_body = MoveBody,
    responses(
        (status = 200, description = "The event's seats are rebuilt from that version", body = MovedJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        (status = 409, description = "`places_in_use` (with `places`: each seat, area, section or tier the version would remove or change under a sale, hold or waitlist party; nothing moved), or not built from a venue", body = crate::web::error::ErrorBody),
        responses::Unprocessable,))]
pub(crate) async fn move_event(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<MoveBody>,
) -> AppResult<Json<MovedJson>> {
    let prices = minor_units(&body.prices)?;
    let moved =
        db::venue_move::move_event(&state.pool, staff.actor, event_id, body.version, &prices)
            .await?;
    state.seat_maps.forget(event_id);
    Ok(Json(MovedJson {
        event_id,
        from_version: moved.from_version,
        version: moved.version,
        seats_kept: moved.seats_kept,
        seats_added: moved.seats_added,
        seats_removed: moved.seats_removed,
    }))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PreviewQuery {
    /// The venue version the move would build the event's seats from
    /// (left out: the venue's latest).
    #[param(minimum = 1)]
    version: Option<i32>,
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/venue-version", tag = "staff",
    params(("event_id" = i64, Path), PreviewQuery),
    responses(
        (status = 200, description = "What moving to that version would do now (nothing is changed); `in_use` lists what would refuse it", body = crate::db::venue_move_check::MovePreview),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,))]
pub(crate) async fn preview_move(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<Manager>,
    crate::web::extract::QueryInput(query): crate::web::extract::QueryInput<PreviewQuery>,
) -> AppResult<Json<crate::db::venue_move_check::MovePreview>> {
    let client = state.pool.get().await?;
    let version = match query.version {
        Some(version) => version,
        None => {
            let venue_id = db::venue_move::venue_of_event(&client, event_id).await?;
            db::venues::latest_json(&client, venue_id).await?.1
        }
    };
    Ok(Json(
        db::venue_move::preview(&client, event_id, version).await?,
    ))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AddSectionBody {
    /// The venue version the section is drawn in.
    #[schema(minimum = 1)]
    #[serde(deserialize_with = "crate::web::json_int::one")]
    version: i32,
    /// Its name in that version; the event must not have one of that name.
    #[schema(max_length = 200)]
    section: String,
    /// Prices (minor units) for its tiers the event lacks.
    #[serde(default)]
    #[schema(value_type = BTreeMap<String, i64>)]
    prices: BTreeMap<String, serde_json::Number>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SectionAddedJson {
    event_id: EventId,
    section: String,
    seats: u64,
}

#[utoipa::path(post, path = "/api/staff/events/{event_id}/sections", tag = "staff",
    params(("event_id" = i64, Path)), request_body = AddSectionBody,
    responses(
        (status = 201, description = "The section's seats are on sale with the rest", body = SectionAddedJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,))]
pub(crate) async fn add_section(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<AddSectionBody>,
) -> AppResult<(StatusCode, Json<SectionAddedJson>)> {
    let prices = minor_units(&body.prices)?;
    let added = db::venue_move::add_section(
        &state.pool,
        staff.actor,
        event_id,
        body.version,
        &body.section,
        &prices,
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(SectionAddedJson {
            event_id,
            section: added.section,
            seats: added.seats,
        }),
    ))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PriceBody {
    /// In the event currency's minor units.
    #[schema(minimum = 0, maximum = 100000000)]
    #[serde(deserialize_with = "crate::web::json_int::one")]
    price_cents: i64,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PriceJson {
    code: String,
    price_cents: i32,
    /// What it was; seats sold before keep that.
    was_cents: i32,
}

#[utoipa::path(put, path = "/api/staff/events/{event_id}/tiers/{code}/price", tag = "staff",
    params(("event_id" = i64, Path), ("code" = String, Path)), request_body = PriceBody,
    responses(
        (status = 200, description = "The tier's price for seats not yet sold", body = PriceJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn set_tier_price(
    State(state): State<AppState>,
    IdPath((event_id, code)): IdPath<(EventId, String)>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<PriceBody>,
) -> AppResult<Json<PriceJson>> {
    let Some(price_cents) = crate::domain::money::price_cents(body.price_cents) else {
        return Err(AppError::Invalid(Invalid::Price {
            tier: code,
            text: body.price_cents.to_string(),
        }));
    };
    let was_cents =
        db::venue_move::set_tier_price(&state.pool, staff.actor, event_id, &code, price_cents)
            .await?;
    Ok(Json(PriceJson {
        code,
        price_cents,
        was_cents,
    }))
}
