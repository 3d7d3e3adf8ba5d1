//! Best available on the map: the party's best seats in one claim, the
//! message saying what it found and what it gave back, and Undo.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;

use super::actions::{Back, Changed, Shown, respond, respond_with};
use crate::db;
use crate::db::best_available::{BestAvailableRequest, BestMode};
use crate::domain::ids::{EventId, HoldId, SeatId};
use crate::domain::rules;
use crate::domain::seat::Seat;
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Conflict, Malformed};
use crate::web::admission::hold_request;
use crate::web::auth::Buyer;
use crate::web::extract::{ClientIp, IdPath};
use crate::web::notices::{Notice, NoticeKind, UndoSwap};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;
use crate::words;
use crate::words::refusal_notice;

#[derive(Deserialize)]
pub(crate) struct BestAvailableForm {
    #[serde(default)]
    count: String,
    #[serde(default)]
    section: String,
    #[serde(default)]
    tier: String,
    apart: Option<String>,
    #[serde(default)]
    wheelchair: String,
    clear_view: Option<String>,
}

pub(crate) async fn best_available(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    headers: HeaderMap,
    ip: ClientIp,
    buyer: Buyer,
    pass: crate::web::queue::gate::QueuePass,
    CsrfForm(form): CsrfForm<BestAvailableForm>,
) -> AppResult<Response> {
    let gate = crate::web::queue::gate::admit(&state, event_id, &pass, Some(buyer.id)).await?;
    let rules = gate.rules(state.hold_rules());
    let max_seats = rules.max_seats;
    // Anything that isn't a number is out of range like 0 is.
    let count = form.count.trim().parse::<i64>().unwrap_or(0);
    let nonempty = |value: String| Some(value.trim().to_string()).filter(|v| !v.is_empty());
    // Empty is none; anything else that isn't a number is out of range.
    let wheelchair = match form.wheelchair.trim() {
        "" => 0,
        text => text.parse::<i64>().unwrap_or(-1),
    };
    let party = rules::party_size(count, max_seats)
        .and_then(|count| Ok((count, rules::wheelchair_users(wheelchair, count)?)));
    let outcome = match party {
        Err(err) => Err(err.into()),
        Ok((count, wheelchair)) => {
            let request = BestAvailableRequest {
                count,
                section: nonempty(form.section),
                tier: nonempty(form.tier),
                together: form.apart.is_none(),
                // The form's count is the party size.
                mode: BestMode::Replace,
                wheelchair,
                avoid_restricted_view: form.clear_view.is_some(),
            };
            let holder = gate.holder(hold_request(&state, buyer.id, None, ip));
            db::best_available::hold_best_available(&state.pool, event_id, holder, &request, rules)
                .await
        }
    };
    let (notice, added) = match outcome {
        Ok(found) => {
            // The claim's own transaction returned the hold and its seats.
            let added: Vec<Seat> = found
                .hold
                .seats
                .iter()
                .filter(|seat| found.added.contains(&seat.id))
                .cloned()
                .collect();
            let currency = found.hold.hold.locale.currency;
            let mut notice = Notice::new(
                NoticeKind::Success,
                words::best_found(&added, found.together, &found.released, currency),
            );
            if !found.released.is_empty() {
                let hold = found.hold.hold_id.to_string();
                let restore = id_list(found.released.iter().map(|s| s.id));
                // Only the seats that are new: one found again stays.
                let drop = id_list(found.newly_taken.iter().copied());
                let proof = state
                    .links
                    .key
                    .sign_text(UNDO_TAG, &undo_fields(event_id, &hold, &restore, &drop));
                notice.undo = Some(UndoSwap {
                    action: format!("/events/{event_id}/best/undo"),
                    hold,
                    restore,
                    drop,
                    csrf: buyer.csrf.value().to_string(),
                    proof,
                });
            }
            let mut changed = added;
            changed.extend(found.released);
            let shown = Shown {
                hold: Some(found.hold.hold),
                held: found.hold.seats,
                changed,
                highlight: found.added.into(),
            };
            let notice = Some(notice);
            // Without JavaScript, show the section the seats were found in.
            let back = Back::Map(shown.changed.first().map(|seat| seat.section_id), None);
            return respond_with(&state, event_id, &buyer, &headers, notice, shown, back).await;
        }
        // No such event (or a draft, which buyers can't see): the 404
        // page, as every other buyer route answers.
        Err(err @ AppError::NotFound(crate::error::Missing::Event)) => return Err(err),
        Err(AppError::Conflict(Conflict::NotEnoughTogether { .. })) => (
            Notice::new(NoticeKind::Error, crate::i18n::t("best-none-together")),
            Vec::new(),
        ),
        Err(err) => (
            Notice::new(NoticeKind::Error, refusal_notice(err)?),
            Vec::new(),
        ),
    };
    respond(
        &state,
        event_id,
        &buyer,
        &headers,
        Some(notice),
        Changed {
            seat_ids: &added,
            highlight: &added,
        },
        Back::Map(None, None),
    )
    .await
}

/// What an undo's proof signs: the swap's event, hold and seats, so an undo
/// can give back only the seats that swap released (a forged `restore`
/// would be a claim of any seats past every gate).
const UNDO_TAG: &[u8] = b"seatmap best-available undo v1\0";

fn undo_fields(event_id: EventId, hold: &str, restore: &str, drop: &str) -> String {
    format!("{event_id}|{hold}|{restore}|{drop}")
}

fn id_list(ids: impl Iterator<Item = SeatId>) -> String {
    ids.map(|id| id.0.to_string()).collect::<Vec<_>>().join(",")
}

/// Seat ids as the undo form carries them: "12,13,14".
fn parse_id_list(field: &'static str, value: &str, max: u32) -> AppResult<SeatIds> {
    let ids = value
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| part.parse::<i64>().map(SeatId))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| {
            AppError::BadRequest(Malformed::Form(format!(
                "{field} must list seat ids separated by commas"
            )))
        })?;
    if ids.len() > max as usize {
        return Err(AppError::HoldLimit { max });
    }
    Ok(SeatIds::new(ids))
}

#[derive(Deserialize)]
pub(crate) struct UndoSwapForm {
    /// The hold the swap was made in: an undo acts on it only while it is
    /// open and live.
    hold: HoldId,
    #[serde(default)]
    restore: String,
    #[serde(default)]
    drop: String,
    /// The swap's signature (see [`UNDO_TAG`]).
    #[serde(default)]
    proof: String,
}

/// Undo after best available swapped the buyer's seats: the seats it
/// released come back and the ones it found go, all or nothing. If one of
/// the old seats has been taken since, the buyer keeps the new ones and is
/// told so.
pub(crate) async fn undo_best_available(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    headers: HeaderMap,
    ip: ClientIp,
    buyer: Buyer,
    pass: crate::web::queue::gate::QueuePass,
    CsrfForm(form): CsrfForm<UndoSwapForm>,
) -> AppResult<Response> {
    // Taking seats back is a claim: the waiting room's gate first.
    let gate = crate::web::queue::gate::admit(&state, event_id, &pass, Some(buyer.id)).await?;
    let rules = gate.rules(state.hold_rules());
    let fields = undo_fields(
        event_id,
        form.hold.to_string().as_str(),
        &form.restore,
        &form.drop,
    );
    if !state
        .links
        .key
        .verify_text(UNDO_TAG, &fields, form.proof.trim())
    {
        return Err(AppError::BadRequest(Malformed::Form(
            "This undo is not one this page offered: only the seats a swap released can come back."
                .into(),
        )));
    }
    let restore = parse_id_list("restore", &form.restore, rules.max_seats)?;
    let found = parse_id_list("drop", &form.drop, rules.max_seats)?;
    if restore.is_empty() {
        return Err(AppError::BadRequest(Malformed::NoSeatInForm));
    }
    let holder = gate.holder(hold_request(&state, buyer.id, None, ip));
    let outcome = db::best_available::swap_back(
        &state.pool,
        event_id,
        form.hold,
        holder,
        &restore,
        &found,
        rules,
    )
    .await;
    let back = Back::Map(None, None);
    match outcome {
        Ok(summary) => {
            let restored: Vec<Seat> = summary
                .seats
                .into_iter()
                .filter(|seat| restore.contains(&seat.id))
                .collect();
            let text = format!(
                "Back to your earlier seats: {}.",
                words::describe_seats(&restored, false)
            );
            let changed: Vec<SeatId> = restore.iter().chain(found.iter()).copied().collect();
            let notice = Some(Notice::new(NoticeKind::Success, text));
            respond(
                &state,
                event_id,
                &buyer,
                &headers,
                notice,
                Changed {
                    seat_ids: &changed,
                    highlight: &restore,
                },
                back,
            )
            .await
        }
        Err(refused) => {
            let text = match refused {
                AppError::SeatsUnavailable { .. } => "Your earlier seats are no longer all free, \
                     so you keep the seats best available found."
                    .to_string(),
                other => refusal_notice(other)?,
            };
            let notice = Some(Notice::new(NoticeKind::Error, text));
            respond(
                &state,
                event_id,
                &buyer,
                &headers,
                notice,
                Changed::default(),
                back,
            )
            .await
        }
    }
}
