//! The waitlist for staff: every party with its state and offer (the
//! console's section and the JSON API), and pausing, resuming or clearing
//! it (managers).

use axum::extract::State;
use axum::response::Redirect;
use axum::routing::post;
use axum::{Json, Router};
use serde::Serialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::db::waitlist::Entry;
use crate::domain::ids::{EventId, HoldId, SeatId, WaitlistEntryId};
use crate::domain::locale::EventLocale;
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{Staff, StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::IdPath;
use crate::web::notices::back_with_notice;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/events/{event_id}/waitlist/pause", post(pause))
        .route("/staff/events/{event_id}/waitlist/resume", post(resume))
        .route("/staff/events/{event_id}/waitlist/clear", post(clear))
}

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_json))
}

/// Each party's place among those still in line (waiting or holding an
/// offer), in join order; None for the rest.
fn positions(entries: &[Entry]) -> Vec<Option<i64>> {
    let mut next = 0;
    entries
        .iter()
        .map(|e| match e.status.as_str() {
            "waiting" | "offered" => {
                next += 1;
                Some(next)
            }
            _ => None,
        })
        .collect()
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct OfferJson {
    hold_id: HoldId,
    seat_ids: Vec<SeatId>,
    expires_at: String,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct EntryJson {
    #[schema(value_type = uuid::Uuid)]
    entry_id: WaitlistEntryId,
    /// The place in line (1 is next), while waiting or holding an offer.
    position: Option<i64>,
    count: i32,
    together: bool,
    section: Option<String>,
    tier: Option<String>,
    max_price_cents: Option<i32>,
    /// "unconfirmed" (waiting, its address not yet confirmed: no offers),
    /// "waiting", "offered", "accepted", "lapsed" or "left".
    status: String,
    joined_at: String,
    /// The offer out, while the party holds one.
    offer: Option<OfferJson>,
}

/// The event's waitlist in join order.
#[utoipa::path(get, path = "/api/staff/events/{event_id}/waitlist", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "Every party, in the order they joined", body = Vec<EntryJson>),
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn list_json(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<Vec<EntryJson>>> {
    let client = state.pool.get().await?;
    if !db::events::exists(&client, event_id).await? {
        return Err(AppError::NotFound(Missing::Event));
    }
    let entries = db::waitlist::for_event(&client, event_id).await?;
    let positions = positions(&entries);
    Ok(Json(
        entries
            .into_iter()
            .zip(positions)
            .map(|(e, position)| EntryJson {
                offer: match (e.status.as_str(), e.hold_id, e.offer_expires_at) {
                    ("offered", Some(hold_id), Some(at)) => Some(OfferJson {
                        hold_id,
                        seat_ids: e.offer_seat_ids.clone(),
                        expires_at: crate::words::rfc3339(at),
                    }),
                    _ => None,
                },
                entry_id: e.id,
                position,
                count: e.party_size,
                together: e.together,
                section: e.section,
                tier: e.tier,
                max_price_cents: e.max_price_cents,
                status: match (e.status.as_str(), e.confirmed_at) {
                    ("waiting", None) => "unconfirmed".to_string(),
                    _ => e.status,
                },
                joined_at: crate::words::rfc3339(e.joined_at),
            })
            .collect(),
    ))
}

/// A party as the console lists it.
pub(crate) struct EntryRow {
    pub(crate) position: String,
    pub(crate) party: String,
    pub(crate) wants: String,
    pub(crate) email: String,
    pub(crate) status: String,
    pub(crate) joined: String,
}

/// The console's waitlist section.
pub(crate) struct WaitlistSection {
    pub(crate) paused: bool,
    /// "3 waiting · 1 offer out · 4 seats sold through the waitlist".
    pub(crate) counts: String,
    pub(crate) rows: Vec<EntryRow>,
}

impl WaitlistSection {
    pub(crate) async fn load(
        client: &impl db::GenericClient,
        event_id: EventId,
        locale: &EventLocale,
    ) -> AppResult<WaitlistSection> {
        let summary = db::waitlist::summary(client, event_id).await?;
        let entries = db::waitlist::for_event(client, event_id).await?;
        let positions = positions(&entries);
        Ok(WaitlistSection {
            paused: summary.paused,
            counts: format!(
                "{} waiting · {} · {} sold through the waitlist",
                summary.waiting,
                crate::words::count(summary.offered, "offer out", "offers out"),
                crate::words::count(summary.seats_sold, "seat", "seats"),
            ),
            rows: entries
                .iter()
                .zip(positions)
                .map(|(e, position)| EntryRow {
                    position: position.map(|p| p.to_string()).unwrap_or_default(),
                    party: format!(
                        "{}{}",
                        e.party_size,
                        if e.together && e.party_size > 1 {
                            " together"
                        } else {
                            ""
                        }
                    ),
                    wants: wants_or_any(
                        [
                            e.section.clone(),
                            e.tier.clone(),
                            e.max_price_cents
                                .map(|c| format!("≤ {}", locale.price(i64::from(c)))),
                        ]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>(),
                    ),
                    email: e.email.clone(),
                    status: match (e.status.as_str(), e.offer_expires_at) {
                        ("offered", Some(at)) => format!(
                            "offered {} seats until {}",
                            e.offer_seat_ids.len(),
                            locale.time(at)
                        ),
                        ("waiting", _) if e.confirmed_at.is_none() => {
                            "waiting, address not confirmed (no offers)".to_string()
                        }
                        (status, _) => status.to_string(),
                    },
                    joined: locale.time(e.joined_at),
                })
                .collect(),
        })
    }
}

/// What a party asked for, said plainly: "Balcony, ≤ €50", or "any seat".
fn wants_or_any(wants: Vec<String>) -> String {
    match wants.is_empty() {
        true => "any seat".into(),
        false => wants.join(", "),
    }
}

fn console(event_id: EventId) -> String {
    format!("/staff/events/{event_id}#waitlist")
}

async fn pause(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::waitlist::set_paused(&state.pool, event_id, true, staff.actor())
        .await
        .map(|()| "Waitlist paused: free seats are on general sale, and no offers go out.".into());
    back_with_notice(&staff.session, &console(event_id), outcome).await
}

async fn resume(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::waitlist::set_paused(&state.pool, event_id, false, staff.actor())
        .await
        .map(|()| "Waitlist resumed: freed seats go to waiting parties first.".into());
    back_with_notice(&staff.session, &console(event_id), outcome).await
}

async fn clear(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::waitlist::clear(&state.pool, event_id, staff.actor())
        .await
        .map(|cleared| {
            format!(
                "Waitlist cleared: {} left it. Offers already out stand.",
                crate::words::count(cleared, "waiting party", "waiting parties")
            )
        });
    back_with_notice(&staff.session, &console(event_id), outcome).await
}
