//! The door when the venue's network drops: the list a device keeps (each
//! ticket by a keyed hash of its code, never the code), and the batch of
//! admissions it sends when it is back. The device's side is
//! static/door.js, with the service worker static/door-sw.js.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::db::door::{ConflictKind, DoorConflict, Synced};
use crate::db::tickets::Scan;
use crate::domain::door::{well_formed_device, well_formed_hash};
use crate::domain::ids::EventId;
use crate::domain::locale::EventLocale;
use crate::domain::ticket;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::auth::{StaffCaller, floor::Door};
use crate::web::error::responses;
use crate::web::extract::{ApiJson, IdPath};
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(door_list))
        .routes(routes!(admit_batch))
        .routes(routes!(issue_device))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct DeviceJson {
    /// The device's id: send it as `device` in its batches.
    device: String,
}

/// A new door device id, issued to the caller. The door page asks for one
/// when it first loads on a device and keeps it; a batch must name an id
/// issued to its own caller, so no account speaks as another's device.
#[utoipa::path(post, path = "/api/staff/door-devices", tag = "staff",
    responses(
        (status = 201, description = "Issued", body = DeviceJson),
        responses::StaffAccess,))]
pub(crate) async fn issue_device(
    State(state): State<AppState>,
    staff: StaffCaller<Door>,
) -> AppResult<(axum::http::StatusCode, Json<DeviceJson>)> {
    let device = db::door::issue_device(&state.pool.get().await?, staff.actor).await?;
    Ok((axum::http::StatusCode::CREATED, Json(DeviceJson { device })))
}

/// The most scans one batch may carry; a device with more sends several.
pub const MAX_BATCH: usize = 500;

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ListedJson {
    /// The keyed hash of the ticket's code (32 hex digits).
    hash: String,
    place: String,
    /// "valid", "admitted", "refunded" or "transferred" (a code passed
    /// on: its ticket's new code is listed as well).
    state: &'static str,
    admitted_at: Option<String>,
    gate: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ConflictJson {
    /// "admitted_twice", "refunded", "out_of_window" or "transferred".
    kind: &'static str,
    place: String,
    /// "Admitted twice: Stalls, row A, seat 3 — Gate A 19:02, Gate B 19:05".
    message: String,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct DoorListJson {
    event_id: i64,
    generated_at: String,
    /// The event's door-list key (64 hex digits): a device hashes what it
    /// scans with HMAC-SHA256 under it, and keeps the first 16 bytes.
    key: String,
    tickets: Vec<ListedJson>,
    conflicts: Vec<ConflictJson>,
}

/// What the door says of a ticket a device let in that the server had
/// admitted already, or that was refunded; the two admissions in time order.
pub(crate) fn conflict_text(conflict: &DoorConflict, locale: &EventLocale) -> String {
    let device = (conflict.gate.as_str(), conflict.scanned_at);
    match conflict.kind {
        ConflictKind::Refunded => {
            return format!(
                "Refunded ticket let in: {} — {} {}",
                conflict.place,
                device.0,
                locale.hour_minute(device.1)
            );
        }
        ConflictKind::OutOfWindow => {
            return format!(
                "Scan with an impossible time, not admitted: {} — {} {}",
                conflict.place,
                device.0,
                crate::words::rfc3339(device.1)
            );
        }
        ConflictKind::Transferred => {
            return format!(
                "Passed-on code let in: {} — {} {} (the ticket's new code is the valid one)",
                conflict.place,
                device.0,
                locale.hour_minute(device.1)
            );
        }
        ConflictKind::AdmittedTwice => {}
    }
    let mut both = vec![device];
    if let (Some(gate), Some(at)) = (conflict.first_gate.as_deref(), conflict.first_at) {
        both.push((gate, at));
    }
    both.sort_by_key(|(_, at)| *at);
    let gates: Vec<String> = both
        .iter()
        .map(|(gate, at)| format!("{gate} {}", locale.hour_minute(*at)))
        .collect();
    format!("Admitted twice: {} — {}", conflict.place, gates.join(", "))
}

fn conflict_json(conflict: &DoorConflict, locale: &EventLocale) -> ConflictJson {
    ConflictJson {
        kind: conflict.kind.as_str(),
        place: conflict.place.clone(),
        message: conflict_text(conflict, locale),
    }
}

/// The event's door list for a device to keep: every ticket by the keyed
/// hash of its code, with its place and state, and the conflicts so far.
#[utoipa::path(get, path = "/api/staff/events/{event_id}/door-list", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "The list, with the key to hash scanned codes under", body = DoorListJson),
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn door_list(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Door>,
) -> AppResult<Json<DoorListJson>> {
    let client = state.pool.get().await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    // The list admits anyone its holder lets in: a secret of the door's,
    // each fetch of it on the record with who fetched it.
    db::audit::record(
        &client,
        db::audit::Entry {
            actor: Some(staff.actor),
            action: "door_list_fetched",
            event_id: Some(event_id),
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: String::new(),
        },
    )
    .await?;
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    let key = db::secrets::door_key(&client, event_id).await?;
    let key_hex = key.hex();
    let generated_at = OffsetDateTime::now_utc();
    let tickets = db::door::list(&client, event_id).await?;
    let conflicts = db::door::conflicts(&client, event_id)
        .await?
        .iter()
        .map(|c| conflict_json(c, &locale))
        .collect();
    drop(client);
    // Hashing 20,000 codes is CPU work: off the async runtime.
    let tickets = tokio::task::spawn_blocking(move || {
        tickets
            .into_iter()
            .map(|t| ListedJson {
                hash: key.hash(&t.code),
                place: t.place,
                state: if t.transferred {
                    "transferred"
                } else if t.refunded {
                    "refunded"
                } else if t.admitted_at.is_some() {
                    "admitted"
                } else {
                    "valid"
                },
                admitted_at: t.admitted_at.map(crate::words::rfc3339),
                gate: t.admitted_gate,
            })
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?;
    Ok(Json(DoorListJson {
        event_id: event_id.0,
        generated_at: crate::words::rfc3339(generated_at),
        key: key_hex,
        tickets,
        conflicts,
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct OfflineScanBody {
    /// The keyed hash of the scanned code, as in the door list.
    #[schema(pattern = "^[0-9a-f]{32}$")]
    hash: String,
    #[schema(min_length = 1, max_length = 40)]
    gate: String,
    /// When the device admitted it (RFC 3339).
    #[schema(format = DateTime)]
    scanned_at: String,
}

#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct BatchBody {
    /// The device's id, as `POST /api/staff/door-devices` issued it to
    /// this caller.
    #[schema(pattern = "^[A-Za-z0-9_-]{1,64}$")]
    device: String,
    #[schema(max_items = 500)]
    scans: Vec<OfflineScanBody>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct SyncedJson {
    hash: String,
    scanned_at: String,
    /// "admitted" (the server's one admission is this scan's),
    /// "admitted_twice", "refunded", "out_of_window" (timed before the
    /// ticket could have been sold, or in the future: nothing admitted,
    /// recorded), "transferred" (a code passed on: recorded) or "unknown".
    result: &'static str,
    place: Option<String>,
    /// For admitted_twice and refunded: what both gates are shown.
    message: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct BatchJson {
    results: Vec<SyncedJson>,
    /// Every conflict of the event so far, this batch's included.
    conflicts: Vec<ConflictJson>,
    admitted: i64,
    expected: i64,
}

/// A device's offline admissions, sent when it is back online. Each is
/// applied with the same conditional statement as an online scan, so the
/// server holds one admission per ticket; a scan that admitted nothing
/// because another gate had, or the ticket was refunded, is recorded and
/// shown at both gates. Sending a batch again changes nothing.
#[utoipa::path(post, path = "/api/staff/events/{event_id}/admissions/batch", tag = "staff",
    params(("event_id" = i64, Path)), request_body = BatchBody,
    responses(
        (status = 200, description = "What each scan came to", body = BatchJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn admit_batch(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: StaffCaller<Door>,
    ApiJson(body): ApiJson<BatchBody>,
) -> AppResult<Json<BatchJson>> {
    let bad = |problem| AppError::Invalid(Invalid::DoorBatch(problem));
    if !well_formed_device(&body.device) {
        return Err(bad("device is 1 to 64 letters, digits, - or _"));
    }
    if body.scans.len() > MAX_BATCH {
        return Err(bad("at most 500 scans a batch"));
    }
    let mut scans = Vec::with_capacity(body.scans.len());
    for scan in &body.scans {
        if !well_formed_hash(&scan.hash) {
            return Err(bad("each hash is 32 lowercase hex digits"));
        }
        let at = OffsetDateTime::parse(
            &scan.scanned_at,
            &time::format_description::well_known::Rfc3339,
        )
        .map_err(|_| bad("scanned_at is an RFC 3339 time"))?;
        scans.push((scan.hash.as_str(), ticket::gate(&scan.gate)?, at));
    }
    let client = state.pool.get().await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    if !db::door::is_callers_device(&client, &body.device, staff.actor).await? {
        return Err(bad(
            "device is not one issued to you: open the door page online once on this device",
        ));
    }
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    // The device sends hashes, never codes: the server finds each code by
    // hashing the event's own.
    let key = db::secrets::door_key(&client, event_id).await?;
    let listed = db::door::list(&client, event_id).await?;
    let by_hash: HashMap<String, (crate::domain::ticket::TicketCode, String)> =
        tokio::task::spawn_blocking(move || {
            listed
                .into_iter()
                .map(|t| (key.hash(&t.code), (t.code, t.place)))
                .collect()
        })
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    let mut results = Vec::with_capacity(scans.len());
    for (hash, gate, at) in scans {
        let scan = Scan {
            gate: &gate,
            at: Some(at),
            device: Some(&body.device),
        };
        let (result, place) = match by_hash.get(hash) {
            None => ("unknown", None),
            Some((code, place)) => {
                let synced =
                    db::door::apply_offline_scan(&client, event_id, code, &scan, staff.actor)
                        .await?;
                let result = match synced {
                    Synced::Admitted => "admitted",
                    Synced::AdmittedTwice => "admitted_twice",
                    Synced::Refunded => "refunded",
                    Synced::OutOfWindow => "out_of_window",
                    Synced::Transferred => "transferred",
                    Synced::Unknown => "unknown",
                };
                (result, Some(place.clone()))
            }
        };
        results.push(SyncedJson {
            hash: hash.to_string(),
            scanned_at: crate::words::rfc3339(at),
            result,
            place,
            message: None,
        });
    }
    let conflicts = db::door::conflicts(&client, event_id).await?;
    for result in results.iter_mut().filter(|r| {
        matches!(
            r.result,
            "admitted_twice" | "refunded" | "out_of_window" | "transferred"
        )
    }) {
        result.message = conflicts
            .iter()
            .rev()
            .find(|c| Some(&c.place) == result.place.as_ref())
            .map(|c| conflict_text(c, &locale));
    }
    let counts = db::tickets::door_counts(&client, event_id).await?;
    Ok(Json(BatchJson {
        results,
        conflicts: conflicts
            .iter()
            .map(|c| conflict_json(c, &locale))
            .collect(),
        admitted: counts.admitted,
        expected: counts.expected,
    }))
}
