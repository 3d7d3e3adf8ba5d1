//! The waiting room's gate on every claim: while an event's queue is on,
//! a claim needs the buyer's queue ticket (a cookie, or the `Queue-Ticket`
//! header for API clients) and an admission PostgreSQL says has not
//! lapsed. An admitted buyer's live holds are not capped by the address's
//! count of holds: thousands of phones behind one carrier address each get
//! their turn. What the address's (or key's) admitted buyers hold together
//! is capped instead, at a share of the house (`domain::queue::house_share`),
//! counted by PostgreSQL in the claim (`refuse_past_address_share`, V34).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::db::holds::Holder;
use crate::domain::hold::HoldRules;
use crate::domain::ids::{BuyerId, EventId};
use crate::domain::queue::QueueTicket;
use crate::domain::refusal::Denied;
use crate::error::{AppError, AppResult};
use crate::web::state::AppState;

/// The header API clients send their ticket in.
pub const TICKET_HEADER: &str = "queue-ticket";

/// The cookie a browser keeps its ticket for the event in.
pub fn cookie_name(event_id: EventId) -> String {
    format!("seatmap_queue_{event_id}")
}

/// The queue tickets a request carries (the header's, then every cookie
/// that looks like one): which is for which event is the ticket's to say.
#[derive(Debug, Default, Clone)]
pub struct QueuePass {
    texts: Vec<(Option<EventId>, String)>,
    /// Marks the request a claim, to be timed for the "auto" queues' pace.
    claim: Option<crate::observability::ClaimMark>,
}

impl QueuePass {
    /// The first carried ticket that is signed, unexpired and for the event.
    pub fn ticket(&self, state: &AppState, event_id: EventId) -> Option<QueueTicket> {
        let now = time::OffsetDateTime::now_utc();
        self.texts
            .iter()
            .filter(|(for_event, _)| for_event.is_none_or(|e| e == event_id))
            .find_map(|(_, text)| QueueTicket::verify(text, event_id, &state.links.key, now))
    }
}

impl FromRequestParts<AppState> for QueuePass {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &AppState,
    ) -> Result<QueuePass, Self::Rejection> {
        let mut texts = Vec::new();
        for value in parts.headers.get_all(TICKET_HEADER) {
            if let Ok(text) = value.to_str() {
                texts.push((None, text.to_owned()));
            }
        }
        for value in parts.headers.get_all(axum::http::header::COOKIE) {
            let Ok(cookies) = value.to_str() else {
                continue;
            };
            for pair in cookies.split(';') {
                if let Some((name, text)) = pair.trim().split_once('=')
                    && let Some(event) = name.strip_prefix("seatmap_queue_")
                    && let Ok(event) = event.parse::<i64>()
                {
                    texts.push((Some(EventId(event)), text.to_owned()));
                }
            }
        }
        // A request carries a handful at most; more is not a buyer.
        texts.truncate(16);
        let claim = parts
            .extensions
            .get::<crate::observability::ClaimMark>()
            .cloned();
        Ok(QueuePass { texts, claim })
    }
}

/// What the gate decided for a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// The event has no queue: the usual caps.
    Open,
    /// Admitted by the queue: its own caps, and the client's share of the
    /// house (seats and places its admitted buyers may hold together).
    Admitted { share_seats: u32 },
}

impl Gate {
    /// The hold's rules: an admission lifts the per-address and per-key
    /// caps on live holds (one hold per buyer and event stays) and puts the
    /// client's share of the house in their place.
    pub fn rules(self, rules: HoldRules) -> HoldRules {
        match self {
            Gate::Open => rules,
            Gate::Admitted { share_seats } => HoldRules {
                max_holds_per_ip: 0,
                max_holds_per_key: 0,
                share_seats,
                ..rules
            },
        }
    }

    /// The holder's per-minute limits: an admitted buyer keeps its own, not
    /// its address's (the queue paces the crowd; the share bounds it).
    pub fn holder(self, holder: Holder) -> Holder {
        match (self, holder.request) {
            (Gate::Admitted { .. }, Some(mut limits)) => {
                limits.per_peer = 0;
                Holder {
                    request: Some(limits),
                    ..holder
                }
            }
            _ => holder,
        }
    }
}

/// Lets a claim by `buyer` on the event through, or refuses it with `403
/// queue_required`. Reads nothing when the event has no queue (once this
/// instance's board has been filled). The first buyer to claim with an
/// admission is bound to it: the ticket admits nobody else. `None` (a page
/// view) checks the admission without binding it.
pub async fn admit(
    state: &AppState,
    event_id: EventId,
    pass: &QueuePass,
    buyer: Option<BuyerId>,
) -> AppResult<Gate> {
    let gate = gate(state, event_id, pass, buyer).await?;
    // Every claim let through is timed, queue or not: they all share the
    // house that "auto" queues pace themselves by. (Refusals are not: fast
    // 403s would pull the claims' p95 down.)
    if let (Some(_), Some(claim)) = (buyer, &pass.claim) {
        claim.set();
    }
    Ok(gate)
}

async fn gate(
    state: &AppState,
    event_id: EventId,
    pass: &QueuePass,
    buyer: Option<BuyerId>,
) -> AppResult<Gate> {
    let queue = match state.queues.is_ready() {
        true => state.queues.queue_of(event_id),
        false => {
            let client = state.pool.get().await?;
            crate::db::queue::get(&client, event_id).await?
        }
    };
    let Some(queue) = queue else {
        return Ok(Gate::Open);
    };
    let settings = &state.config.queue;
    let share_seats = crate::domain::queue::house_share(
        queue.house,
        settings.share_percent,
        settings.share_min_seats,
    );
    let refused = || AppError::Forbidden(Denied::QueueRequired { event_id });
    let ticket = pass.ticket(state, event_id).ok_or_else(refused)?;
    let client = state.pool.get().await?;
    match crate::db::queue::admits(&client, event_id, ticket.join_id, buyer).await? {
        true => Ok(Gate::Admitted { share_seats }),
        false => Err(refused()),
    }
}

/// Lets a season claim through only if every one of its events that has a
/// queue on has admitted `buyer` (a season hold must not be a way round
/// a night's waiting room).
pub async fn admit_all(
    state: &AppState,
    event_ids: &[EventId],
    pass: &QueuePass,
    buyer: BuyerId,
) -> AppResult<Gate> {
    let mut gate = Gate::Open;
    for event_id in event_ids {
        let night = admit(state, *event_id, pass, Some(buyer)).await?;
        if matches!(night, Gate::Admitted { .. }) {
            gate = night;
        }
    }
    Ok(gate)
}
