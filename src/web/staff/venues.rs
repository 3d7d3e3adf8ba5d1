//! Box office: importing venue layouts and creating events from them.
//! An upload is validated whole; a file with any problem writes nothing
//! and the page lists every problem with where it is.

use std::collections::BTreeMap;

use askama::Template;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use time::OffsetDateTime;

use crate::db;
use crate::db::venues::{EventPlan, VenueSummary};
use crate::domain::ids::VenueId;
use crate::domain::money::Currency;
use crate::domain::rules;
use crate::domain::venue::{self, LayoutError};
use crate::error::Malformed;
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{Staff, floor::Manager};
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, NoticeKind, push_notice, take_notice};
use crate::web::render::render;
use crate::web::security::{CsrfForm, check_csrf};
use crate::web::state::AppState;
use crate::words;
use crate::words::message;

/// The largest layout file accepted (the 20,000-seat arena's JSON is ~2 MB).
const MAX_LAYOUT_BYTES: usize = 16 * 1024 * 1024;
/// Problems listed on the page; the rest are counted.
const MAX_PROBLEMS_SHOWN: usize = 200;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/staff/venues",
            get(venues_page)
                .post(import)
                .layer(DefaultBodyLimit::max(MAX_LAYOUT_BYTES)),
        )
        .route("/staff/venues/new", get(new_venue_designer))
        .route("/staff/venues/{venue_id}", get(venue_page))
        .route("/staff/venues/{venue_id}/edit", get(venue_designer))
        .route("/staff/venues/{venue_id}/export", get(export_layout))
        .route(
            "/staff/venues/{venue_id}/preview",
            get(super::venue_preview::preview),
        )
        .route("/staff/venues/{venue_id}/events", post(create_event))
}

struct VenueRow {
    id: VenueId,
    name: String,
    size: String,
    imported: String,
}

impl From<VenueSummary> for VenueRow {
    fn from(venue: VenueSummary) -> VenueRow {
        VenueRow {
            id: venue.id,
            name: venue.name,
            size: words::venue_size(i64::from(venue.seat_count), i64::from(venue.ga_capacity)),
            imported: words::display_time(venue.imported_at),
        }
    }
}

#[derive(Template)]
#[template(path = "staff/venues.html")]
struct VenuesPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    venues: Vec<VenueRow>,
    /// The refused file's name and problems, after a failed upload.
    file_name: String,
    problems: Vec<String>,
    more_problems: usize,
    oob: bool,
}

async fn venues_page(State(state): State<AppState>, staff: Staff<Manager>) -> AppResult<Response> {
    let notice = take_notice(&staff.session).await?;
    venues_response(&state, &staff, notice, String::new(), &[]).await
}

async fn venues_response(
    state: &AppState,
    staff: &crate::web::auth::StaffUser,
    notice: Option<Notice>,
    file_name: String,
    problems: &[LayoutError],
) -> AppResult<Response> {
    let client = state.pool.get().await?;
    let venues = db::venues::list(&client).await?;
    let page = VenuesPage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice,
        venues: venues.into_iter().map(VenueRow::from).collect(),
        file_name,
        problems: problems
            .iter()
            .take(MAX_PROBLEMS_SHOWN)
            .map(ToString::to_string)
            .collect(),
        more_problems: problems.len().saturating_sub(MAX_PROBLEMS_SHOWN),
        oob: false,
    };
    let status = if problems.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    Ok((status, render(&page)?).into_response())
}

/// The upload: a `csrf` field and a `layout` file, read whole, validated
/// whole, then stored in one statement.
async fn import(
    State(state): State<AppState>,
    staff: Staff<Manager>,
    mut multipart: Multipart,
) -> AppResult<Response> {
    let mut sent_csrf = None;
    let mut file = None;
    while let Some(field) = multipart.next_field().await.map_err(bad_upload)? {
        match field.name() {
            Some("csrf") => sent_csrf = Some(field.text().await.map_err(bad_upload)?),
            Some("layout") => {
                let name = field.file_name().unwrap_or("layout.json").to_string();
                let bytes = field.bytes().await.map_err(bad_upload)?;
                file = Some((name, bytes));
            }
            _ => {}
        }
    }
    check_csrf(&staff.csrf, sent_csrf.as_deref())?;
    let Some((file_name, bytes)) = file.filter(|(_, bytes)| !bytes.is_empty()) else {
        return Err(AppError::Invalid(Invalid::NoFile));
    };
    // Parsing is CPU work that grows with the file: it runs off the async
    // runtime, so an upload never stalls other requests.
    let name = file_name.clone();
    let parsed = super::venues_api::layout_work("parsing a layout", move || {
        match std::str::from_utf8(&bytes) {
            Ok(text) => venue::for_saving(venue::from_file(&name, text)),
            Err(_) => Err(vec![
                LayoutError::new(name.clone(), "the file is not UTF-8 text")
                    .of_kind(venue::ProblemKind::Syntax),
            ]),
        }
    })
    .await?;
    let layout = match parsed {
        Ok(layout) => layout,
        Err(problems) => {
            return venues_response(&state, &staff, None, file_name, &problems).await;
        }
    };
    let client = state.pool.get().await?;
    let venue_id = match db::venues::import(&client, &layout, Some(staff.id)).await {
        Ok(venue_id) => venue_id,
        Err(err @ AppError::Conflict(_)) => {
            push_notice(
                &staff.session,
                &Notice::new(NoticeKind::Error, message(&err)),
            )
            .await?;
            return Ok(Redirect::to("/staff/venues").into_response());
        }
        Err(other) => return Err(other),
    };
    push_notice(
        &staff.session,
        &Notice::new(NoticeKind::Success, words::imported_message(&layout)),
    )
    .await?;
    Ok(Redirect::to(&format!("/staff/venues/{venue_id}")).into_response())
}

fn bad_upload(err: axum::extract::multipart::MultipartError) -> AppError {
    AppError::BadRequest(Malformed::Upload(err.to_string()))
}

struct TierPriceField {
    code: String,
    name: String,
    field: String,
}

struct SectionLine {
    name: String,
    size: String,
}

/// One of the venue's events, with the version it is built from.
struct VenueEventLine {
    id: crate::domain::ids::EventId,
    name: String,
    starts: String,
    version: i32,
}

#[derive(Template)]
#[template(path = "staff/venue.html")]
struct VenuePage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    notice: Option<Notice>,
    id: VenueId,
    name: String,
    time_zone: String,
    /// What the currency field starts as: the venue's country's.
    currency: String,
    sections: Vec<SectionLine>,
    tiers: Vec<TierPriceField>,
    version: i32,
    events: Vec<VenueEventLine>,
    oob: bool,
}

async fn venue_page(
    State(state): State<AppState>,
    IdPath(venue_id): IdPath<VenueId>,
    staff: Staff<Manager>,
) -> AppResult<Response> {
    let client = state.pool.get().await?;
    let (layout, version) = db::venues::latest(&client, venue_id).await?;
    let locale = crate::domain::locale::EventLocale::new(Default::default(), &layout.time_zone);
    let events = db::venues::events_on(&client, venue_id)
        .await?
        .into_iter()
        .map(|event| VenueEventLine {
            id: event.id,
            name: event.name,
            starts: locale.time(event.starts_at),
            version: event.version,
        })
        .collect();
    let mut sections: Vec<SectionLine> = layout
        .sections
        .iter()
        .map(|section| SectionLine {
            name: section.name.clone(),
            size: format!("{} seats", section.seats.len()),
        })
        .collect();
    sections.extend(layout.ga_areas.iter().map(|area| SectionLine {
        name: area.name.clone(),
        size: format!("general admission, {} places", area.capacity),
    }));
    let page = VenuePage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        notice: take_notice(&staff.session).await?,
        id: venue_id,
        name: layout.name.clone(),
        time_zone: layout.time_zone.clone(),
        currency: Currency::of_zone(&layout.time_zone)
            .unwrap_or_default()
            .code(),
        sections,
        tiers: layout
            .tiers
            .iter()
            .map(|tier| TierPriceField {
                code: tier.code.clone(),
                name: tier.name.clone(),
                field: price_field(&tier.code),
            })
            .collect(),
        version,
        events,
        oob: false,
    };
    Ok(render(&page)?.into_response())
}

fn price_field(tier_code: &str) -> String {
    format!("price.{tier_code}")
}

/// The create-event form: `name`, `starts_at`, `on_sale_at` and one
/// `price.<tier code>` per tier, as name/value pairs (tiers vary by venue).
async fn create_event(
    State(state): State<AppState>,
    IdPath(venue_id): IdPath<VenueId>,
    staff: Staff<Manager>,
    CsrfForm(fields): CsrfForm<Vec<(String, String)>>,
) -> AppResult<Response> {
    let (layout, _) = db::venues::latest(&state.pool.get().await?, venue_id).await?;
    let zone = layout.time_zone;
    let outcome = plan_from_form(venue_id, &fields, &zone);
    let outcome = match outcome {
        Ok(plan) => db::venues::create_event(&state.pool, &plan)
            .await
            .map(|event_id| (event_id, plan)),
        Err(err) => Err(err),
    };
    match outcome {
        Ok((event_id, plan)) => {
            let locale = crate::domain::locale::EventLocale::new(Default::default(), zone);
            let sells_from = match plan.on_sale_at {
                Some(at) if at > OffsetDateTime::now_utc() => {
                    format!("from {}", locale.time(at))
                }
                _ => "at once".to_string(),
            };
            let text = format!(
                "Created {} as a draft: only staff see it. Once published, it sells {sells_from}.",
                plan.name
            );
            push_notice(&staff.session, &Notice::new(NoticeKind::Success, text)).await?;
            Ok(Redirect::to(&format!("/staff/events/{event_id}")).into_response())
        }
        Err(err @ AppError::Invalid(_)) => {
            push_notice(
                &staff.session,
                &Notice::new(NoticeKind::Error, message(&err)),
            )
            .await?;
            Ok(Redirect::to(&format!("/staff/venues/{venue_id}")).into_response())
        }
        Err(other) => Err(other),
    }
}

/// Times are the venue's wall-clock times, in `zone`.
fn plan_from_form(
    venue_id: VenueId,
    fields: &[(String, String)],
    zone: &str,
) -> AppResult<EventPlan> {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key == name)
            .map_or("", |(_, value)| value.as_str())
    };
    let details = rules::event_details(
        field("name"),
        field("starts_at"),
        field("on_sale_at"),
        zone,
        OffsetDateTime::now_utc(),
    )?;
    // Left empty: the venue's country's currency.
    let default_currency = Currency::of_zone(zone).unwrap_or_default().code();
    let code = Some(field("currency"))
        .filter(|c| !c.trim().is_empty())
        .unwrap_or(&default_currency);
    let currency = Currency::from_code(code)
        .ok_or_else(|| AppError::Invalid(Invalid::Currency(code.to_string())))?;
    let prices = tier_prices(fields, currency)?;
    Ok(EventPlan {
        venue_id,
        name: details.name,
        starts_at: details.starts_at,
        on_sale_at: details.on_sale_at,
        prices,
        currency: currency.code(),
        published: false,
    })
}

/// The `price.<tier code>` fields of a form, each read in `currency`'s
/// minor units; a price that isn't one is refused, naming its tier.
pub(super) fn tier_prices(
    fields: &[(String, String)],
    currency: Currency,
) -> AppResult<BTreeMap<String, i32>> {
    let mut prices = BTreeMap::new();
    for (key, value) in fields {
        let Some(code) = key.strip_prefix("price.") else {
            continue;
        };
        let cents = currency.parse(value).ok_or_else(|| {
            AppError::Invalid(Invalid::Price {
                tier: code.to_string(),
                text: value.to_string(),
            })
        })?;
        prices.insert(code.to_string(), cents);
    }
    Ok(prices)
}

/// The seat-map designer: a venue drawn in the browser (static/designer.js),
/// saved through the staff API. Without JavaScript the page says to import
/// and export files instead.
#[derive(Template)]
#[template(path = "staff/designer.html")]
struct DesignerPage {
    staff_bar: crate::web::auth::StaffBar,
    /// The time zones the venue may be in, for the zone field's choices.
    zones: Vec<&'static str>,
    /// None: a new venue (saved with POST, then edited by id).
    venue_id: Option<VenueId>,
    title: String,
}

async fn new_venue_designer(staff: Staff<Manager>) -> AppResult<Response> {
    designer_page(&staff, None, "New venue".into())
}

async fn venue_designer(
    State(state): State<AppState>,
    IdPath(venue_id): IdPath<VenueId>,
    staff: Staff<Manager>,
) -> AppResult<Response> {
    let name = db::venues::name(&state.pool.get().await?, venue_id).await?;
    designer_page(&staff, Some(venue_id), name)
}

fn designer_page(
    staff: &crate::web::auth::StaffUser,
    venue_id: Option<VenueId>,
    title: String,
) -> AppResult<Response> {
    let page = DesignerPage {
        staff_bar: staff.bar(),
        zones: crate::domain::local_time::venue_zones(),
        venue_id,
        title,
    };
    Ok(render(&page)?.into_response())
}

/// The latest layout as a file to download (works without JavaScript).
async fn export_layout(
    State(state): State<AppState>,
    IdPath(venue_id): IdPath<VenueId>,
    _staff: Staff<Manager>,
) -> AppResult<Response> {
    let (text, version) = db::venues::latest_json(&state.pool.get().await?, venue_id).await?;
    let disposition = format!("attachment; filename=\"venue-{venue_id}-v{version}.json\"");
    Ok((
        [
            (
                axum::http::header::CONTENT_TYPE,
                "application/json".to_string(),
            ),
            (axum::http::header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}
