//! The door: a staff page that scans a ticket's QR code with the device's
//! camera (jsQR, vendored) or takes a typed code, and says at once whether
//! to admit. Admission is `db::tickets::admit`, one conditional UPDATE.

use askama::Template;
use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};

use crate::db;
use crate::db::tickets::{Admission, DoorCounts, Scan};
use crate::domain::door::well_formed_device;
use crate::domain::ids::{EventId, StaffId};
use crate::domain::ticket::{self, TicketCode};
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{Staff, StaffCaller, floor::Door};
use crate::web::error::responses;
use crate::web::event_header::EventHeader;
use crate::web::extract::{ApiJson, IdPath, QueryInput, is_htmx};
use crate::web::render::render;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/events/{event_id}/door", get(door_page))
        .route("/staff/events/{event_id}/door/scan", post(scan))
        .route("/staff/events/{event_id}/door/counts", get(counts))
}

/// The door's API: one admission per scan.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(admit_json))
}

/// What the door shows after a scan: big, coloured, one line.
pub(crate) struct ScanResult {
    /// "admit" (green) or "refuse" (red): a CSS class.
    verdict: &'static str,
    headline: String,
    detail: String,
}

fn scan_result(admission: &Admission) -> ScanResult {
    match admission {
        Admission::Admitted(ticket) => ScanResult {
            verdict: "admit",
            // "Admit — Child — Stalls C7": the type is what a steward checks.
            headline: match &ticket.price_type {
                Some(sold_as) => format!("Admit — {} — {}", sold_as.label, ticket.short_place()),
                None => format!("Admit — {}", ticket.short_place()),
            },
            detail: format!("{} · {}", ticket.kind(), ticket.holder_name()),
        },
        Admission::AlreadyAdmitted(ticket) => ScanResult {
            verdict: "refuse",
            headline: format!(
                "Already admitted at {} at {}",
                ticket
                    .admitted_at
                    .map(|at| ticket.locale.hour_minute(at))
                    .unwrap_or_default(),
                ticket.admitted_gate.as_deref().unwrap_or("the door")
            ),
            detail: ticket.place(),
        },
        Admission::Refunded(ticket) => ScanResult {
            verdict: "refuse",
            headline: "Refunded".into(),
            detail: format!("{} was refunded: this ticket is void.", ticket.place()),
        },
        Admission::WrongEvent(ticket) => ScanResult {
            verdict: "refuse",
            headline: "Wrong event".into(),
            detail: format!(
                "This ticket is for {}, {}.",
                ticket.event_name,
                ticket.locale.time(ticket.starts_at)
            ),
        },
        Admission::Transferred(given) => ScanResult {
            verdict: "refuse",
            headline: "Transferred".into(),
            detail: format!(
                "This code was passed on to {}: only their new code gets in.",
                given.to_name
            ),
        },
        Admission::Unknown => ScanResult {
            verdict: "refuse",
            headline: "Unknown ticket".into(),
            detail: "No ticket has this code. Check it was typed right.".into(),
        },
    }
}

#[derive(Template)]
#[template(path = "staff/door.html")]
struct DoorPage {
    event_id: EventId,
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    event: EventHeader,
    gate: String,
    counts: DoorCounts,
    result: Option<ScanResult>,
    oob: bool,
    /// Tickets let in offline that another gate had admitted, or that were
    /// refunded (`door_offline`).
    conflicts: Vec<String>,
    /// Whose device ids this page keeps (one per account on a device).
    account: StaffId,
}

#[derive(Template)]
#[template(path = "staff/_door_scan.html")]
struct ScanFragment {
    event_id: EventId,
    result: Option<ScanResult>,
    counts: DoorCounts,
    oob: bool,
}

#[derive(Template)]
#[template(path = "staff/_door_counts.html")]
struct CountsFragment {
    event_id: EventId,
    counts: DoorCounts,
    oob: bool,
}

#[derive(Deserialize)]
struct GateQuery {
    gate: Option<String>,
}

fn gate_or_default(gate: Option<&str>) -> AppResult<String> {
    match gate.map(str::trim).filter(|g| !g.is_empty()) {
        Some(gate) => Ok(ticket::gate(gate)?),
        None => Ok("Main door".to_string()),
    }
}

async fn door_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    QueryInput(query): QueryInput<GateQuery>,
    staff: Staff<Door>,
) -> AppResult<Html<String>> {
    let event = crate::web::event_header::event_header(&state, event_id).await?;
    let counts = db::tickets::door_counts(&state.pool.get().await?, event_id).await?;
    render(&DoorPage {
        event_id,
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        event,
        gate: gate_or_default(query.gate.as_deref())?,
        counts,
        result: None,
        oob: false,
        conflicts: door_conflicts(&state, event_id).await?,
        account: staff.id,
    })
}

async fn door_conflicts(state: &AppState, event_id: EventId) -> AppResult<Vec<String>> {
    let client = state.pool.get().await?;
    let Some(event) = db::events::find(&client, event_id).await? else {
        return Err(AppError::NotFound(Missing::Event));
    };
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    Ok(db::door::conflicts(&client, event_id)
        .await?
        .iter()
        .map(|c| super::door_offline::conflict_text(c, &locale))
        .collect())
}

#[derive(Deserialize)]
struct ScanForm {
    #[serde(default)]
    code: String,
    #[serde(default)]
    gate: String,
    /// The device's id, as the server issued it to this account (door.js
    /// keeps one): an offline admission it sends later that the server
    /// has as this device's is no conflict.
    #[serde(default)]
    device: Option<String>,
}

/// A scan or a typed code. htmx gets the result and the counts; a plain
/// form post gets the whole page, so the door works without JavaScript.
async fn scan(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    headers: HeaderMap,
    staff: Staff<Door>,
    CsrfForm(form): CsrfForm<ScanForm>,
) -> AppResult<Response> {
    let event = crate::web::event_header::event_header(&state, event_id).await?;
    let gate = gate_or_default(Some(&form.gate))?;
    let result = match TicketCode::parse(&form.code) {
        Ok(code) => {
            let client = state.pool.get().await?;
            // Only a device id issued to this account names the device.
            let device = match form.device.as_deref().filter(|d| well_formed_device(d)) {
                Some(device)
                    if db::door::is_callers_device(&client, device, staff.actor()).await? =>
                {
                    Some(device)
                }
                _ => None,
            };
            let scan = Scan {
                gate: &gate,
                at: None,
                device,
            };
            let admission =
                db::tickets::admit(&client, event_id, &code, &scan, staff.actor()).await?;
            scan_result(&admission)
        }
        Err(_) => ScanResult {
            verdict: "refuse",
            headline: "Not a ticket code".into(),
            detail: "A code is 32 letters and digits, as printed under the QR code.".into(),
        },
    };
    let counts = db::tickets::door_counts(&state.pool.get().await?, event_id).await?;
    if is_htmx(&headers) {
        return Ok(render(&ScanFragment {
            event_id,
            result: Some(result),
            counts,
            oob: true,
        })?
        .into_response());
    }
    Ok(render(&DoorPage {
        event_id,
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        event,
        gate,
        counts,
        result: Some(result),
        oob: false,
        conflicts: door_conflicts(&state, event_id).await?,
        account: staff.id,
    })?
    .into_response())
}

async fn counts(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: Staff<Door>,
) -> AppResult<Html<String>> {
    let client = state.pool.get().await?;
    if !db::events::exists(&client, event_id).await? {
        return Err(AppError::NotFound(Missing::Event));
    }
    render(&CountsFragment {
        event_id,
        counts: db::tickets::door_counts(&client, event_id).await?,
        oob: false,
    })
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct AdmitBody {
    code: String,
    #[serde(default)]
    gate: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct AdmitJson {
    /// "admitted", "already_admitted", "refunded", "wrong_event",
    /// "transferred" (the code was passed on) or "unknown".
    result: &'static str,
    message: String,
    place: Option<String>,
    admitted_at: Option<String>,
    gate: Option<String>,
    admitted: i64,
    expected: i64,
}

/// The door as JSON (scanning apps, and the race tests): every outcome of
/// a well-formed scan is a 200 naming its result; a malformed code is 422.
#[utoipa::path(post, path = "/api/staff/events/{event_id}/admissions", tag = "staff",
    params(("event_id" = i64, Path)), request_body = AdmitBody,
    responses(
        (status = 200, description = "What the door says: `result` names it", body = AdmitJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn admit_json(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Door>,
    ApiJson(body): ApiJson<AdmitBody>,
) -> AppResult<Json<AdmitJson>> {
    let code = TicketCode::parse(&body.code)?;
    let gate = gate_or_default(body.gate.as_deref())?;
    let client = state.pool.get().await?;
    if !db::events::exists(&client, event_id).await? {
        return Err(AppError::NotFound(Missing::Event));
    }
    let scan = Scan {
        gate: &gate,
        at: None,
        device: None,
    };
    let admission = db::tickets::admit(&client, event_id, &code, &scan, staff.actor).await?;
    let counts = db::tickets::door_counts(&client, event_id).await?;
    let shown = scan_result(&admission);
    let (result, ticket) = match &admission {
        Admission::Admitted(t) => ("admitted", Some(t)),
        Admission::AlreadyAdmitted(t) => ("already_admitted", Some(t)),
        Admission::Refunded(t) => ("refunded", Some(t)),
        Admission::WrongEvent(t) => ("wrong_event", Some(t)),
        Admission::Transferred(_) => ("transferred", None),
        Admission::Unknown => ("unknown", None),
    };
    Ok(Json(AdmitJson {
        result,
        message: shown.headline,
        place: ticket.map(|t| t.place()),
        admitted_at: ticket
            .and_then(|t| t.admitted_at)
            .map(crate::words::rfc3339),
        gate: ticket.and_then(|t| t.admitted_gate.clone()),
        admitted: counts.admitted,
        expected: counts.expected,
    }))
}
