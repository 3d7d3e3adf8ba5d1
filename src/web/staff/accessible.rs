//! Accessible seating for staff: when held-back wheelchair spaces and
//! companion seats join general best available (the console's form and
//! the JSON API), and their counts.

use axum::extract::State;
use axum::response::Redirect;
use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::db::accessible::{AccessibleCounts, AccessibleSettings};
use crate::domain::accessible::{AccessibleRelease, MAX_RELEASE_SECS};
use crate::domain::ids::EventId;
use crate::domain::locale::EventLocale;
use crate::error::{AppError, AppResult, Invalid};
use crate::web::auth::{Staff, StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/staff/events/{event_id}/accessible-seating",
        post(set_from_console),
    )
}

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(show, replace))
}

/// Checks the staff's choice (the form's too).
fn choice(release: &str, secs: Option<i64>) -> AppResult<(AccessibleRelease, Option<i32>)> {
    let release = AccessibleRelease::parse(release.trim())
        .ok_or(AppError::Invalid(Invalid::AccessibleSeating))?;
    let secs = match secs {
        None => None,
        Some(secs) if (0..=MAX_RELEASE_SECS).contains(&secs) => Some(secs as i32),
        Some(_) => return Err(AppError::Invalid(Invalid::AccessibleSeating)),
    };
    Ok((release, secs))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccessibleSeatingBody {
    /// "auto" (held back until `release_before_start_secs` before the
    /// start; never, without it), "released" or "held" (by hand, whatever
    /// the time; the time is kept unless one is given).
    #[schema(value_type = AccessibleRelease)]
    release: String,
    /// How long before the start held-back seats join general sale, for
    /// "auto" (0 to 31536000); absent or null: never by time.
    #[serde(default, deserialize_with = "crate::web::json_int::optional")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 31536000)]
    release_before_start_secs: Option<i64>,
}

/// When an event's wheelchair spaces and companion seats join general best
/// available, and how many there are.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct AccessibleSeatingJson {
    event_id: EventId,
    release: AccessibleRelease,
    release_before_start_secs: Option<i32>,
    /// When they join by time (null if never by time).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    release_at: Option<OffsetDateTime>,
    /// Whether general best available skips them now.
    held_back_now: bool,
    /// Per section, wheelchair spaces and companion seats by state.
    counts: Vec<AccessibleCounts>,
}

async fn answer(
    state: &AppState,
    event_id: EventId,
    settings: AccessibleSettings,
) -> AppResult<Json<AccessibleSeatingJson>> {
    let counts = db::accessible::counts(&state.pool.get().await?, event_id).await?;
    Ok(Json(AccessibleSeatingJson {
        event_id,
        release: settings.release,
        release_before_start_secs: settings.release_secs,
        release_at: settings.release_at,
        held_back_now: settings.held_back_now,
        counts,
    }))
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/accessible-seating", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "The event's accessible-seating settings and counts", body = AccessibleSeatingJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn show(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<AccessibleSeatingJson>> {
    let settings = db::accessible::settings(&state.pool.get().await?, event_id).await?;
    answer(&state, event_id, settings).await
}

#[utoipa::path(put, path = "/api/staff/events/{event_id}/accessible-seating", tag = "staff",
    params(("event_id" = i64, Path)), request_body = AccessibleSeatingBody,
    responses(
        (status = 200, description = "The settings now (audited)", body = AccessibleSeatingJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn replace(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Manager>,
    ApiJson(body): ApiJson<AccessibleSeatingBody>,
) -> AppResult<Json<AccessibleSeatingJson>> {
    let (release, secs) = choice(&body.release, body.release_before_start_secs)?;
    // Without a time, "auto" means never by time; a by-hand choice keeps
    // the time for when it is set back to "auto".
    let clear_time = release == AccessibleRelease::Auto && secs.is_none();
    let settings = db::accessible::set(
        &state.pool,
        staff.actor,
        event_id,
        release,
        secs,
        clear_time,
    )
    .await?;
    answer(&state, event_id, settings).await
}

/// One choice of the console's form.
pub(crate) struct ReleaseOption {
    pub value: &'static str,
    pub label: &'static str,
    pub selected: bool,
}

/// What the console's accessible-seating section shows.
pub(crate) struct AccessibleSection {
    pub options: Vec<ReleaseOption>,
    /// Hours before the start, or empty for never.
    pub release_hours: String,
    /// In words: "Held back from general best available until …".
    pub now: String,
}

impl AccessibleSection {
    pub(crate) async fn load(
        client: &impl db::GenericClient,
        event_id: EventId,
        locale: &EventLocale,
    ) -> AppResult<AccessibleSection> {
        let settings = db::accessible::settings(client, event_id).await?;
        let now = match (
            settings.held_back_now,
            settings.release,
            settings.release_at,
        ) {
            (false, _, _) => {
                "Now on general sale: best available may give them to anyone.".to_string()
            }
            (true, AccessibleRelease::Auto, Some(at)) => format!(
                "Held back from general best available until {}.",
                locale.time(at)
            ),
            (true, _, _) => "Held back from general best available.".to_string(),
        };
        Ok(AccessibleSection {
            options: AccessibleRelease::ALL
                .into_iter()
                .map(|option| ReleaseOption {
                    value: option.as_str(),
                    label: option.label(),
                    selected: option == settings.release,
                })
                .collect(),
            release_hours: settings.release_secs.map(format_hours).unwrap_or_default(),
            now,
        })
    }
}

fn format_hours(secs: i32) -> String {
    // Four decimals: a time saved again from the form moves by under a
    // second (100 s shows as 0.0278 h, read back as 100 s).
    let hours = format!("{:.4}", f64::from(secs) / 3600.0);
    hours
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

#[derive(Deserialize)]
struct AccessibleForm {
    release: String,
    /// Hours before the start; empty for never by time.
    #[serde(default)]
    release_hours: String,
}

async fn set_from_console(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(form): CsrfForm<AccessibleForm>,
) -> AppResult<Redirect> {
    let hours = form.release_hours.trim();
    let secs = match hours {
        "" => None,
        // Anything that isn't a number of hours is out of range like -1 is.
        text => Some(
            text.replace(',', ".")
                .parse::<f64>()
                .ok()
                .filter(|h| h.is_finite() && *h >= 0.0 && *h * 3600.0 <= MAX_RELEASE_SECS as f64)
                .map(|h| (h * 3600.0).round() as i64)
                .unwrap_or(-1),
        ),
    };
    let outcome = async {
        let (release, secs) = choice(&form.release, secs)?;
        let clear_time = release == AccessibleRelease::Auto && secs.is_none();
        let settings = db::accessible::set(
            &state.pool,
            staff.actor(),
            event_id,
            release,
            secs,
            clear_time,
        )
        .await?;
        Ok(if settings.held_back_now {
            "Wheelchair spaces and companion seats are held back from general best available."
        } else {
            "Wheelchair spaces and companion seats are on general sale now."
        }
        .to_string())
    }
    .await;
    let location = format!("/staff/events/{event_id}#accessible-seating");
    crate::web::notices::back_with_notice(&staff.session, &location, outcome).await
}
