//! What a buyer does on the map: pick and release seats, best available,
//! general-admission tickets, release all, more time. Each action is
//! parse, one `db` call, then one shared answer (`respond`).

use askama::Template;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::event::{PanelReads, buyers_live_hold, live_hold};
use crate::db::{self, GenericClient};
use crate::domain::hold::{Cart, GaRequest, Hold};
use crate::domain::ids::AreaId;
use crate::domain::ids::SectionId;
use crate::domain::ids::{BuyerId, EventId, SeatId};
use crate::domain::money::Currency;
use crate::domain::rules;
use crate::domain::seat::Seat;
use crate::domain::seat::{SeatIds, SeatState};
use crate::error::Malformed;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::admission::hold_request;
use crate::web::auth::Buyer;
use crate::web::buyer::panel::HoldPanel;
use crate::web::extract::{ClientIp, IdPath, is_htmx};
use crate::web::notices::{Notice, NoticeKind, push_notice};
use crate::web::render::*;
use crate::web::seat_view::SeatView;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::words::refusal_notice;

#[derive(Template)]
#[template(path = "events/_seat_action.html")]
pub(crate) struct SeatActionFragment {
    panel: HoldPanel,
    seats: Vec<SeatView>,
    notice: Option<Notice>,
    oob: bool,
}

/// What an answer to an action shows: the buyer's live hold with its
/// seats, and the seats the action changed.
pub(crate) struct Shown {
    pub(crate) hold: Option<Hold>,
    pub(crate) held: Vec<Seat>,
    pub(crate) changed: Vec<Seat>,
    /// Of the changed seats, those to point out (best available's finds).
    pub(crate) highlight: Vec<SeatId>,
}

/// The seats an action changed, and of them those to point out (best
/// available's finds).
#[derive(Clone, Copy, Default)]
pub(crate) struct Changed<'a> {
    pub(crate) seat_ids: &'a [SeatId],
    pub(crate) highlight: &'a [SeatId],
}

impl<'a> Changed<'a> {
    /// Seats changed, none pointed out.
    pub(crate) fn seats(seat_ids: &'a [SeatId]) -> Changed<'a> {
        Changed {
            seat_ids,
            highlight: &[],
        }
    }
}

/// Answers a seat action: a fragment for htmx, otherwise the notice goes in
/// the session and the browser is sent back to the map. Reads the hold and
/// the changed seats as they are now; see [`respond_with`] for an action
/// that already has them.
pub(crate) async fn respond(
    state: &AppState,
    event_id: EventId,
    buyer: &Buyer,
    headers: &HeaderMap,
    notice: Option<Notice>,
    changed: Changed<'_>,
    back: Back,
) -> AppResult<Response> {
    if !is_htmx(headers) {
        return back_with(event_id, buyer, notice, back).await;
    }
    let client = state.pool.get().await?;
    let (shown, reads) = shown_now(
        &client,
        event_id,
        buyer.id,
        changed.seat_ids,
        changed.highlight,
    )
    .await?;
    fragment(state, event_id, buyer, notice, shown, &reads)
}

/// The buyer's live hold, and then, in one more round trip, its seats, the
/// changed seats and what the hold panel needs.
pub(crate) async fn shown_now(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
    changed_seat_ids: &[SeatId],
    highlight: &[SeatId],
) -> AppResult<(Shown, PanelReads)> {
    let hold = live_hold(client, event_id, Some(buyer_id)).await?;
    let hold_id = hold.as_ref().map(|h| h.id);
    let (held, changed, reads) = tokio::join!(
        async {
            match hold_id {
                Some(hold_id) => db::seats::held_by_hold(client, event_id, hold_id).await,
                None => Ok(Vec::new()),
            }
        },
        db::seats::by_ids(client, event_id, changed_seat_ids, hold_id),
        PanelReads::read(client, event_id, buyer_id, hold.as_ref())
    );
    let shown = Shown {
        hold,
        held: held?,
        changed: changed?,
        highlight: highlight.to_vec(),
    };
    Ok((shown, reads?))
}

/// [`respond`] for an action whose own transaction returned what it shows.
pub(crate) async fn respond_with(
    state: &AppState,
    event_id: EventId,
    buyer: &Buyer,
    headers: &HeaderMap,
    notice: Option<Notice>,
    shown: Shown,
    back: Back,
) -> AppResult<Response> {
    if !is_htmx(headers) {
        return back_with(event_id, buyer, notice, back).await;
    }
    let client = state.pool.get().await?;
    let reads = PanelReads::read(&client, event_id, buyer.id, shown.hold.as_ref()).await?;
    drop(client);
    fragment(state, event_id, buyer, notice, shown, &reads)
}

/// Without JavaScript: the notice waits in the session for the page.
pub(crate) async fn back_with(
    event_id: EventId,
    buyer: &Buyer,
    notice: Option<Notice>,
    back: Back,
) -> AppResult<Response> {
    let back = match back {
        Back::Map(None, _) => format!("/events/{event_id}"),
        Back::Map(Some(section), None) => format!("/events/{event_id}?section={section}#map-area"),
        Back::Map(Some(section), Some(part)) => {
            format!("/events/{event_id}?section={section}&part={part}#map-area")
        }
        Back::List(None) => format!("/events/{event_id}/list"),
        Back::List(Some(section)) => format!("/events/{event_id}/list?section={section}"),
    };
    if let Some(notice) = &notice {
        if buyer.is_new && notice.kind == NoticeKind::Error {
            return Ok(refused_page(notice.text.clone(), back));
        }
        push_notice(&buyer.session, notice).await?;
    }
    Ok(Redirect::to(&back).into_response())
}

/// The htmx answer: the panel, the changed seats and the notice.
pub(crate) fn fragment(
    state: &AppState,
    event_id: EventId,
    buyer: &Buyer,
    notice: Option<Notice>,
    shown: Shown,
    reads: &PanelReads,
) -> AppResult<Response> {
    let panel = reads.panel(
        state,
        event_id,
        shown.hold.as_ref(),
        &shown.held,
        buyer.csrf.value(),
    );
    let fragment = SeatActionFragment {
        panel,
        seats: shown
            .changed
            .iter()
            .map(|s| SeatView::new(s, &reads.tiers).highlighted(&shown.highlight))
            .collect(),
        notice,
        oob: true,
    };
    let refused = fragment
        .notice
        .as_ref()
        .is_some_and(|notice| notice.kind == NoticeKind::Error);
    let mut response = render(&fragment)?.into_response();
    if refused {
        response.extensions_mut().insert(Refused);
    }
    if buyer.is_new {
        // The page's live feed was opened before this buyer existed: the
        // page reopens it (static/app.js), so the feed knows their seats.
        response.headers_mut().insert(
            "hx-trigger",
            axum::http::HeaderValue::from_static("seatmap:buyer-started"),
        );
    }
    Ok(response)
}

#[derive(Deserialize)]
pub(crate) struct SeatActionForm {
    hold: Option<SeatId>,
    release: Option<SeatId>,
    inspect: Option<SeatId>,
    /// "list" when posted from the list view, to go back there.
    back: Option<String>,
    /// The section shown when a big venue's seats are shown by section.
    section: Option<SectionId>,
    /// The part of that section shown, when it is too big for one page.
    part: Option<u32>,
}

/// Where a form post without JavaScript returns to: the map or the list,
/// and the section (and part of it) it showed, if it showed one.
#[derive(Clone, Copy)]
pub(crate) enum Back {
    Map(Option<SectionId>, Option<u32>),
    List(Option<SectionId>),
}

pub(crate) enum SeatOutcome {
    Held,
    Taken,
    OverLimit(u32),
    /// A limit against hoarding said no; the message says which.
    Refused(String),
    Released,
    NotInHold,
    Inspected,
}

pub(crate) async fn seat_action(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    headers: HeaderMap,
    ip: ClientIp,
    buyer: Buyer,
    pass: crate::web::queue::gate::QueuePass,
    CsrfForm(form): CsrfForm<SeatActionForm>,
) -> AppResult<Response> {
    let back = match form.back.as_deref() {
        Some("list") => Back::List(form.section),
        _ => Back::Map(form.section, form.part),
    };
    // A successful pick's own transaction returns the hold and its seats.
    let mut claimed = None;
    let (seat_id, outcome) = match form {
        SeatActionForm {
            hold: Some(seat_id),
            ..
        } => {
            let gate =
                crate::web::queue::gate::admit(&state, event_id, &pass, Some(buyer.id)).await?;
            let holder = gate.holder(hold_request(&state, buyer.id, None, ip));
            let rules = gate.rules(state.hold_rules());
            let claim =
                db::holds::claim_seats(&state.pool, event_id, holder, &[seat_id], rules).await;
            let outcome = match claim {
                Ok(summary) => {
                    claimed = Some(summary);
                    SeatOutcome::Held
                }
                Err(AppError::SeatsUnavailable { .. }) => SeatOutcome::Taken,
                Err(AppError::HoldLimit { max }) => SeatOutcome::OverLimit(max),
                // Rate limits, and an event not on sale (yet, or any more).
                Err(other) => SeatOutcome::Refused(refusal_notice(other)?),
            };
            (seat_id, outcome)
        }
        SeatActionForm {
            release: Some(seat_id),
            ..
        } => {
            let outcome = match buyers_live_hold(&state, event_id, buyer.id).await? {
                None => SeatOutcome::NotInHold,
                Some(hold) => {
                    match db::holds::release_seat(&state.pool, hold.id, seat_id, buyer.id).await {
                        Ok(()) => SeatOutcome::Released,
                        Err(AppError::NotFound(_)) => SeatOutcome::NotInHold,
                        Err(other) => return Err(other),
                    }
                }
            };
            (seat_id, outcome)
        }
        SeatActionForm {
            inspect: Some(seat_id),
            ..
        } => (seat_id, SeatOutcome::Inspected),
        _ => {
            return Err(AppError::BadRequest(Malformed::NoSeatInForm));
        }
    };

    if let Some(summary) = claimed {
        let seat = summary
            .seats
            .iter()
            .find(|seat| seat.id == seat_id)
            .cloned()
            .ok_or_else(|| AppError::Internal(anyhow::anyhow!("a claimed seat not in its hold")))?;
        let notice = seat_notice(&seat, &outcome, summary.hold.locale.currency);
        let shown = Shown {
            hold: Some(summary.hold),
            held: summary.seats,
            changed: vec![seat],
            highlight: Vec::new(),
        };
        return respond_with(
            &state,
            event_id,
            &buyer,
            &headers,
            Some(notice),
            shown,
            back,
        )
        .await;
    }
    // Refused, released or inspected: the seat as it is now, and (for
    // htmx) everything the answer shows, in two round trips.
    let client = state.pool.get().await?;
    let (shown, reads) = shown_now(&client, event_id, buyer.id, &[seat_id], &[]).await?;
    drop(client);
    let currency = shown
        .hold
        .as_ref()
        .map(|h| h.locale.currency)
        .unwrap_or_default();
    let seat = shown
        .changed
        .first()
        .ok_or_else(|| AppError::NotFound(Missing::Seats(vec![seat_id])))?;
    let notice = seat_notice(seat, &outcome, currency);
    if !is_htmx(&headers) {
        return back_with(event_id, &buyer, Some(notice), back).await;
    }
    fragment(&state, event_id, &buyer, Some(notice), shown, &reads)
}

/// `currency`: the event's (the price is only said for a seat now held).
pub(crate) fn seat_notice(seat: &Seat, outcome: &SeatOutcome, currency: Currency) -> Notice {
    let name = crate::words::seat_name(seat);
    let price = currency.format_in(i64::from(seat.price_cents), crate::i18n::current());
    match outcome {
        SeatOutcome::Held => Notice::new(
            NoticeKind::Success,
            crate::i18n::t2("notice-holding", "seat", &name, "price", &price),
        ),
        SeatOutcome::Taken => Notice::new(
            NoticeKind::Error,
            crate::i18n::t1("notice-taken", "seat", &name),
        ),
        SeatOutcome::OverLimit(max) => Notice::new(
            NoticeKind::Error,
            crate::i18n::t2("notice-over-limit", "max", *max, "seat", &name),
        ),
        SeatOutcome::Refused(message) => Notice::new(NoticeKind::Error, message.clone()),
        SeatOutcome::Released => Notice::new(
            NoticeKind::Info,
            crate::i18n::t1("notice-released-seat", "seat", &name),
        ),
        SeatOutcome::NotInHold => Notice::new(
            NoticeKind::Info,
            crate::i18n::t1("notice-not-in-hold", "seat", &name),
        ),
        SeatOutcome::Inspected => {
            let key = match seat.state {
                SeatState::Available => "inspect-available",
                SeatState::Mine => "inspect-mine",
                SeatState::Held => "inspect-held",
                SeatState::Sold => "inspect-sold",
                SeatState::Blocked => "inspect-blocked",
            };
            let text = crate::i18n::t1(key, "seat", &name);
            Notice::new(NoticeKind::Info, text)
        }
    }
}

pub(crate) async fn release_all(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    headers: HeaderMap,
    buyer: Buyer,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let hold = buyers_live_hold(&state, event_id, buyer.id).await?;
    let (released, notice) = match hold {
        Some(hold) => {
            let released = db::holds::release_hold(&state.pool, hold.id, buyer.id).await?;
            let notice = Notice::new(
                NoticeKind::Info,
                crate::i18n::t1("notice-released-seats", "count", released.len()),
            );
            (released, notice)
        }
        None => (
            SeatIds::default(),
            Notice::new(NoticeKind::Info, crate::i18n::t("notice-no-hold")),
        ),
    };
    respond(
        &state,
        event_id,
        &buyer,
        &headers,
        Some(notice),
        Changed::seats(&released),
        Back::Map(None, None),
    )
    .await
}

/// A GA picker's post (`area` and `count`), or a panel's release of one
/// area's tickets (`release`). Fields are text, so that junk gets a notice.
#[derive(Deserialize)]
pub(crate) struct GaForm {
    area: Option<String>,
    count: Option<String>,
    release: Option<String>,
}

/// Holds or releases general-admission tickets, then back to the map (the
/// picker is a plain form: the whole page shows the new counts).
pub(crate) async fn ga_action(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    ip: ClientIp,
    buyer: Buyer,
    pass: crate::web::queue::gate::QueuePass,
    CsrfForm(form): CsrfForm<GaForm>,
) -> AppResult<Response> {
    let number =
        |value: &Option<String>| value.as_deref().and_then(|v| v.trim().parse::<i64>().ok());
    let area = |value: &Option<String>| number(value).map(AreaId);
    let outcome = match (area(&form.release), area(&form.area)) {
        (Some(area_id), _) => release_ga(&state, event_id, &buyer, area_id).await,
        (None, Some(area_id)) => {
            hold_ga(
                &state,
                event_id,
                &buyer,
                &pass,
                ip,
                area_id,
                number(&form.count).unwrap_or(0),
            )
            .await
        }
        (None, None) => Err(AppError::Invalid(Invalid::NoArea)),
    };
    let notice = match outcome {
        Ok(text) => Notice::new(NoticeKind::Success, text),
        Err(err) => Notice::new(NoticeKind::Error, refusal_notice(err)?),
    };
    push_notice(&buyer.session, &notice).await?;
    Ok(Redirect::to(&format!("/events/{event_id}")).into_response())
}

pub(crate) async fn hold_ga(
    state: &AppState,
    event_id: EventId,
    buyer: &Buyer,
    pass: &crate::web::queue::gate::QueuePass,
    ip: ClientIp,
    area_id: AreaId,
    count: i64,
) -> AppResult<String> {
    let gate = crate::web::queue::gate::admit(state, event_id, pass, Some(buyer.id)).await?;
    let hold_rules = gate.rules(state.hold_rules());
    let cart = Cart {
        seat_ids: SeatIds::default(),
        ga: vec![GaRequest {
            area_id,
            quantity: rules::ticket_count(count, hold_rules.max_seats)?,
        }],
    };
    let holder = gate.holder(hold_request(state, buyer.id, None, ip));
    db::holds::claim(&state.pool, event_id, holder, &cart, hold_rules).await?;
    Ok(crate::i18n::t1("notice-holding-ga", "count", count))
}

pub(crate) async fn release_ga(
    state: &AppState,
    event_id: EventId,
    buyer: &Buyer,
    area_id: AreaId,
) -> AppResult<String> {
    let hold = buyers_live_hold(state, event_id, buyer.id)
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Hold))?;
    let released = db::holds::release_ga(&state.pool, hold.id, area_id, buyer.id).await?;
    Ok(crate::i18n::t1("notice-released-ga", "count", released))
}

pub(crate) async fn extend_hold(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    headers: HeaderMap,
    buyer: Buyer,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Response> {
    let hold = buyers_live_hold(&state, event_id, buyer.id).await?;
    let outcome = match hold {
        Some(hold) => {
            db::holds::extend(&state.pool, hold.id, buyer.id, state.config.hold_extension)
                .await
                .map(|extended| extended.hold.locale.time(extended.hold.expires_at))
        }
        None => Err(AppError::HoldExpired),
    };
    let notice = match outcome {
        Ok(until) => Notice::new(
            NoticeKind::Success,
            crate::i18n::t1("notice-held-until", "until", &until),
        ),
        Err(err) => Notice::new(NoticeKind::Error, refusal_notice(err)?),
    };
    respond(
        &state,
        event_id,
        &buyer,
        &headers,
        Some(notice),
        Changed::default(),
        Back::Map(None, None),
    )
    .await
}
