//! The waiting page a browser sees while an event's queue is on: the
//! opening's countdown, the buyer's place, and the way on to the map once
//! admitted. It works without JavaScript (a form to join, a Refresh
//! header while waiting); with it, `static/app/queue.js` polls the JSON
//! (answered from memory) and solves the proof of work.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use time::OffsetDateTime;

use super::api::{Joining, QueueJoinBody, bits_needed, join_as, joiner_of, queue_of, standing_of};
use super::gate::QueuePass;
use crate::db;
use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult, Missing};
use crate::i18n::{t, t1};
use crate::web::auth::{BearerKeyId, Viewer};
use crate::web::extract::ClientIp;
use crate::web::extract::IdPath;
use crate::web::render::render;
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

#[derive(Template)]
#[template(path = "events/queue.html")]
struct QueuePage {
    event_id: EventId,
    title: String,
    csrf: String,
    /// RFC 3339, for the countdown; the server's now beside it.
    opens_at: String,
    server_now: String,
    /// "The sale opens at 10:00" (in the venue's time), or that it is open.
    opening: String,
    opened: bool,
    /// "not_joined", "waiting" or "expired".
    state: &'static str,
    position: String,
    ahead: String,
    wait: String,
    proof_of_work: bool,
    poll_after_secs: u64,
}

/// What a page of the event does about its waiting room.
pub enum Entry {
    /// Show the page; set this cookie on it (a ticket admitted just now).
    Show(Option<HeaderValue>),
    /// Send the browser to the waiting page instead.
    Wait(Response),
}

/// Whether a page of the event may be shown while its queue is on: to
/// a browser with an admission, or one holding seats there (an admission
/// that ran out while its holder was paying, or a waitlist offer taken),
/// yes: the page is the way to checkout. After the opening, a browser
/// without a place is given one (a queue with a proof of work needs its
/// page's puzzle first); an "auto" queue with no line admits it at once,
/// and the page shows with the new ticket's cookie. Otherwise: the
/// waiting page.
pub async fn waiting_room(
    state: &AppState,
    event_id: EventId,
    pass: &QueuePass,
    viewer: Option<crate::domain::ids::BuyerId>,
    ip: ClientIp,
) -> AppResult<Entry> {
    match super::gate::admit(state, event_id, pass, None).await {
        Ok(_) => return Ok(Entry::Show(None)),
        Err(AppError::Forbidden(crate::error::Denied::QueueRequired { .. })) => {}
        Err(err) => return Err(err),
    }
    if let Some(buyer_id) = viewer
        && db::holds::live_for_buyer(&state.pool.get().await?, event_id, buyer_id)
            .await?
            .is_some()
    {
        return Ok(Entry::Show(None));
    }
    let to_wait = |cookie: Option<HeaderValue>| {
        let back = Redirect::to(&format!("/events/{event_id}/queue"));
        match cookie {
            Some(cookie) => ([(header::SET_COOKIE, cookie)], back).into_response(),
            None => back.into_response(),
        }
    };
    let Some(queue) = state.queues.queue_of(event_id) else {
        return Ok(Entry::Show(None));
    };
    if queue.spec.opens_at > OffsetDateTime::now_utc() || queue.spec.proof_of_work {
        return Ok(Entry::Wait(to_wait(None)));
    }
    // A page view joins only a line it would not wait in, and only within
    // its address's free joins: a crawler must not fill the line with
    // places nobody asked for, nor mint admissions by the page.
    let joiner = joiner_of(ip, BearerKeyId(None));
    let joined = join_as(
        state,
        event_id,
        pass,
        QueueJoinBody::default(),
        true,
        joiner,
    )
    .await?;
    Ok(match joined {
        Joining::New(json, cookie) if json.state == "admitted" => Entry::Show(Some(cookie)),
        Joining::New(_, cookie) => Entry::Wait(to_wait(Some(cookie))),
        Joining::Already(_) | Joining::WouldWait => Entry::Wait(to_wait(None)),
    })
}

/// Shows `page` as [`waiting_room`] decided, with its cookie if any.
pub fn with_entry_cookie(mut page: Response, cookie: Option<HeaderValue>) -> Response {
    if let Some(cookie) = cookie {
        page.headers_mut().append(header::SET_COOKIE, cookie);
    }
    page
}

/// Minutes and seconds, or hours and minutes, for a wait.
fn wait_text(secs: u64) -> String {
    match secs {
        0..60 => t1("queue-wait-seconds", "count", secs),
        60..3600 => t1("queue-wait-minutes", "count", secs.div_ceil(60)),
        _ => t1("queue-wait-hours", "count", secs.div_ceil(3600)),
    }
}

pub(crate) async fn queue_page(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    pass: QueuePass,
    viewer: Viewer,
    ip: ClientIp,
) -> AppResult<Response> {
    let queue = queue_of(&state, event_id)?;
    let event = db::events::find(&state.pool.get().await?, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    let standing = match pass.ticket(&state, event_id) {
        Some(ticket) => Some(standing_of(&state, &queue, &ticket).await?),
        None => None,
    };
    if standing.as_ref().is_some_and(|s| s.state == "admitted") {
        return Ok(Redirect::to(&format!("/events/{event_id}")).into_response());
    }
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    let now = OffsetDateTime::now_utc();
    let opened = queue.spec.opens_at <= now;
    let number = |n: Option<u64>| n.map(|n| n.to_string()).unwrap_or_default();
    let page = QueuePage {
        event_id,
        title: t1("queue-title", "event", &event.name),
        csrf: viewer.csrf.value(),
        opens_at: locale.iso(queue.spec.opens_at),
        server_now: locale.iso(now),
        opening: match opened {
            true => t("queue-open-now"),
            false => t1(
                "queue-opens-at",
                "time",
                locale.time(queue.spec.opens_at).as_str(),
            ),
        },
        opened,
        state: standing.as_ref().map_or("not_joined", |s| s.state),
        position: number(standing.as_ref().and_then(|s| s.position)),
        ahead: number(standing.as_ref().and_then(|s| s.ahead)),
        wait: standing
            .as_ref()
            .and_then(|s| s.estimated_wait_secs)
            .map(wait_text)
            .unwrap_or_default(),
        // The join form solves a puzzle when this address's next join needs
        // one: the queue always asks, or the address joined often.
        proof_of_work: standing.is_none()
            && bits_needed(&state, &queue, joiner_of(ip, BearerKeyId(None))).await? > 0,
        poll_after_secs: standing
            .as_ref()
            .map_or(super::api::POLL_AFTER_SECS, |s| s.poll_after_secs),
    };
    let waiting = page.state == "waiting";
    let refresh = page.poll_after_secs;
    let mut response = render(&page)?.into_response();
    // Without JavaScript the page asks again by itself while waiting.
    if waiting && let Ok(value) = HeaderValue::from_str(&refresh.to_string()) {
        response.headers_mut().insert("refresh", value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// The form's join (the page's button; with a proof of work its script
/// fills in the answer): then back to the waiting page.
#[derive(serde::Deserialize)]
pub(crate) struct JoinForm {
    #[serde(default)]
    challenge: Option<String>,
    #[serde(default)]
    nonce: Option<String>,
}

pub(crate) async fn join_form(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    pass: QueuePass,
    ip: ClientIp,
    CsrfForm(form): CsrfForm<JoinForm>,
) -> AppResult<Response> {
    let nonempty = |v: Option<String>| v.filter(|v| !v.trim().is_empty());
    let body = QueueJoinBody {
        challenge: nonempty(form.challenge),
        nonce: nonempty(form.nonce),
    };
    let back = Redirect::to(&format!("/events/{event_id}/queue"));
    let joiner = joiner_of(ip, BearerKeyId(None));
    Ok(
        match join_as(&state, event_id, &pass, body, false, joiner).await? {
            Joining::Already(_) | Joining::WouldWait => back.into_response(),
            Joining::New(_, cookie) => ([(header::SET_COOKIE, cookie)], back).into_response(),
        },
    )
}

/// The waiting room on the box office's console: its settings and live
/// figures (staff change them through the API).
pub struct QueueSection {
    pub opens_at: String,
    pub opened: bool,
    /// "600 a minute" or "auto".
    pub rate: String,
    pub window_minutes: i32,
    pub proof_of_work: bool,
    pub joined: i64,
    pub admitted: i64,
    pub waiting: i64,
    pub shopping: i64,
}

impl QueueSection {
    pub async fn load(
        client: &impl crate::db::GenericClient,
        event_id: EventId,
        locale: &crate::domain::locale::EventLocale,
    ) -> AppResult<Option<QueueSection>> {
        let Some(queue) = db::queue::get(client, event_id).await? else {
            return Ok(None);
        };
        let shopping = db::queue::shopping(client, event_id).await?;
        Ok(Some(QueueSection {
            opens_at: locale.time(queue.spec.opens_at),
            opened: queue.spec.opens_at <= OffsetDateTime::now_utc(),
            rate: match (queue.spec.admit_per_minute, queue.auto_target) {
                (Some(n), _) => format!("{n} a minute"),
                (None, Some(target)) => {
                    format!("auto (keeping up to {target} buyers shopping at once)")
                }
                (None, None) => "auto".into(),
            },
            window_minutes: queue.spec.window_minutes,
            proof_of_work: queue.spec.proof_of_work,
            joined: queue.joined,
            admitted: queue.admitted,
            waiting: (queue.joined - queue.admitted).max(0),
            shopping,
        }))
    }
}
