//! The waiting room's JSON API: a buyer joins and asks where they stand;
//! staff put, change and remove an event's queue.
//!
//! A waiting buyer's `GET` is answered from the instance's board (no SQL);
//! only once the board says their turn has come is the admission read, to
//! give its end. Joining is one statement.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::gate::{QueuePass, cookie_name};
use crate::db;
use crate::db::queue::{JoinAsk, JoinCost, JoinRefused, Joiner, QueueSpec, QueueState};
use crate::db::queue_board::Standing;
use crate::domain::ids::EventId;
use crate::domain::queue::{CHALLENGE_LIFETIME, Challenge, QueueTicket, TICKET_LIFETIME};
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::auth::{BearerKeyId, StaffCaller, floor::BoxOffice, floor::Manager};
use crate::web::error::responses;
use crate::web::extract::ClientIp;
use crate::web::extract::IdPath;
use crate::web::state::AppState;
use crate::words::rfc3339;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(join, standing))
        .routes(routes!(challenge))
        .routes(routes!(staff_show, staff_put, staff_delete))
}

/// How often a waiting page asks again, in seconds.
pub const POLL_AFTER_SECS: u64 = 5;

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct QueueStandingJson {
    /// "waiting", "admitted", "expired" (the shopping window is over) or
    /// "not_joined" (no ticket for this event came with the request).
    pub(crate) state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) position: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ahead: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) estimated_wait_secs: Option<u64>,
    /// RFC 3339: when the admission's shopping window ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) until: Option<String>,
    /// RFC 3339: when the queue opens (before it, everyone waiting is
    /// placed in random order at the opening).
    pub(crate) opens_at: String,
    /// Ask again after this many seconds.
    pub(crate) poll_after_secs: u64,
    /// The signed queue ticket (also set as a cookie): send it back as the
    /// `Queue-Ticket` header on claims.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ticket: Option<String>,
}

#[derive(Deserialize, utoipa::ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueueJoinBody {
    /// The challenge from `GET …/queue/challenge`, when the queue asks for
    /// a proof of work.
    #[serde(default)]
    pub(crate) challenge: Option<String>,
    /// A nonce such that SHA-256 of `"{challenge}:{nonce}"` starts with the
    /// challenge's number of zero bits.
    #[serde(default)]
    pub(crate) nonce: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct QueueChallengeJson {
    /// Null when the queue asks for no proof of work.
    challenge: Option<String>,
    /// Leading zero bits the answer's hash needs.
    bits: u32,
}

impl QueueStandingJson {
    /// A state with nothing but the queue's opening and the usual interval.
    fn bare(state: &'static str, queue: &QueueState) -> QueueStandingJson {
        QueueStandingJson {
            state,
            position: None,
            ahead: None,
            estimated_wait_secs: None,
            until: None,
            opens_at: rfc3339(queue.spec.opens_at),
            poll_after_secs: POLL_AFTER_SECS,
            ticket: None,
        }
    }
}

pub(crate) fn queue_of(state: &AppState, event_id: EventId) -> AppResult<QueueState> {
    state
        .queues
        .queue_of(event_id)
        .ok_or(AppError::NotFound(Missing::Queue))
}

/// Where the ticket's buyer stands: from the board while waiting; the
/// admission itself (one read) once the board says it is their turn.
pub(crate) async fn standing_of(
    state: &AppState,
    queue: &QueueState,
    ticket: &QueueTicket,
) -> AppResult<QueueStandingJson> {
    let mut json = QueueStandingJson::bare("waiting", queue);
    let auto_rate = state.config.queue.auto_rate_estimate;
    match state
        .queues
        .standing(queue.event_id, ticket.order_key, auto_rate)
    {
        None => return Err(AppError::NotFound(Missing::Queue)),
        Some(Standing::Waiting(place)) => {
            json.position = Some(place.position);
            json.ahead = Some(place.ahead);
            json.estimated_wait_secs = Some(place.estimated_wait_secs);
            json.poll_after_secs = POLL_AFTER_SECS.min(place.estimated_wait_secs.max(1));
        }
        Some(Standing::Turn) => {
            let client = state.pool.get().await?;
            match db::queue::admission_of(&client, queue.event_id, ticket.join_id).await? {
                Some(Some(until)) if until > OffsetDateTime::now_utc() => {
                    json.state = "admitted";
                    json.until = Some(rfc3339(until));
                }
                Some(Some(_)) => json.state = "expired",
                // The queue was turned off and on again: this place is gone.
                None => json.state = "not_joined",
                // Next in line; the next batch is at most a second away.
                Some(None) => {
                    json.position = Some(queue.admitted.max(0) as u64 + 1);
                    json.ahead = Some(0);
                    json.estimated_wait_secs = Some(1);
                    json.poll_after_secs = 1;
                }
            }
        }
    }
    Ok(json)
}

/// Who joins, as joins are counted: the key a request bears (all its
/// customers together), else the client's network (an IPv6 /64 as one).
pub(crate) fn joiner_of(ip: ClientIp, key: BearerKeyId) -> Joiner {
    match key.0 {
        Some(key) => Joiner::Key(key),
        None => Joiner::Network(ip.network()),
    }
}

/// What joining the queue costs, from the settings and the queue's own.
fn join_cost(state: &AppState, queue: &QueueState) -> JoinCost {
    let settings = &state.config.queue;
    JoinCost {
        free_per_minute: settings.free_joins_per_minute,
        base_bits: queue.pow_bits.clamp(0, 32) as u32,
        always: queue.spec.proof_of_work,
        start_target: settings.auto_start_target,
        first_claim: settings.first_claim,
    }
}

/// The puzzle the joiner's next join needs now (0 bits: none).
pub(crate) async fn bits_needed(
    state: &AppState,
    queue: &QueueState,
    joiner: Joiner,
) -> AppResult<u32> {
    let client = state.pool.get().await?;
    db::queue::join_bits_now(&client, queue.event_id, joiner, join_cost(state, queue)).await
}

#[utoipa::path(get, path = "/api/events/{event_id}/queue/challenge", tag = "buyers",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "A proof-of-work puzzle to join with (null when this caller's next join needs none: the queue asks for none, and the caller's address or key has joined fewer than the free allowance in the last minute; past it, the puzzle is one bit harder each time the count doubles)", body = QueueChallengeJson),
        responses::NotFound,))]
pub(crate) async fn challenge(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    ip: ClientIp,
    key: BearerKeyId,
) -> AppResult<Json<QueueChallengeJson>> {
    let queue = queue_of(&state, event_id)?;
    let bits = bits_needed(&state, &queue, joiner_of(ip, key)).await?;
    let challenge = (bits > 0).then(|| {
        Challenge {
            event_id,
            id: uuid::Uuid::new_v4(),
            bits,
            until: (OffsetDateTime::now_utc() + CHALLENGE_LIFETIME).unix_timestamp(),
        }
        .encode(&state.links.key)
    });
    Ok(Json(QueueChallengeJson { challenge, bits }))
}

#[utoipa::path(post, path = "/api/events/{event_id}/queue", tag = "buyers",
    params(("event_id" = i64, Path)), request_body = QueueJoinBody,
    responses(
        (status = 201, description = "Joined: the place, and the signed queue ticket (also a cookie)", body = QueueStandingJson),
        (status = 200, description = "Already in this queue with the ticket sent: where it stands", body = QueueStandingJson),
        responses::BadRequest,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn join(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    pass: QueuePass,
    ip: ClientIp,
    key: BearerKeyId,
    body: axum::body::Bytes,
) -> AppResult<Response> {
    // No body (or an empty one) is a join without a proof of work.
    let body: QueueJoinBody = match body.iter().all(u8::is_ascii_whitespace) {
        true => QueueJoinBody::default(),
        false => serde_json::from_slice(&body).map_err(|err| {
            AppError::BadRequest(crate::error::Malformed::Json(format!(
                "Failed to parse the request body as JSON: {err}"
            )))
        })?,
    };
    let joiner = joiner_of(ip, key);
    Ok(
        match join_as(&state, event_id, &pass, body, false, joiner).await? {
            Joining::Already(json) => (StatusCode::OK, Json(json)).into_response(),
            // Only a join asked to be admitted at once is refused for waiting.
            Joining::WouldWait => {
                return Err(AppError::Internal(anyhow::anyhow!(
                    "a join that may wait was refused for waiting"
                )));
            }
            Joining::New(json, cookie) => (
                StatusCode::CREATED,
                [(header::SET_COOKIE, cookie)],
                Json(json),
            )
                .into_response(),
        },
    )
}

/// What a join came to.
pub(crate) enum Joining {
    /// The request's ticket is for this queue and still counts: its standing.
    Already(QueueStandingJson),
    /// A new place, and the cookie that keeps its ticket.
    New(QueueStandingJson, HeaderValue),
    /// Asked to join only if admitted at once, and there is a line.
    WouldWait,
}

/// Joins the event's queue for the request (the API's and the page's
/// form's), unless its ticket already has a place that counts: joining
/// again gives nothing, so hammering gains nothing. After an admission's
/// window is over the buyer may join again, at the back. Past its free
/// joins in a minute, the joiner brings a proof of work (`422
/// proof_of_work_required` says how hard); a page view that would need
/// one doesn't join.
pub(crate) async fn join_as(
    state: &AppState,
    event_id: EventId,
    pass: &QueuePass,
    body: QueueJoinBody,
    only_if_admitted: bool,
    joiner: Joiner,
) -> AppResult<Joining> {
    let queue = queue_of(state, event_id)?;
    if let Some(ticket) = pass.ticket(state, event_id) {
        let json = standing_of(state, &queue, &ticket).await?;
        if json.state != "expired" && json.state != "not_joined" {
            return Ok(Joining::Already(json));
        }
    }
    let solved = match (body.challenge.as_deref(), body.nonce.as_deref()) {
        (Some(text), Some(nonce)) => {
            let now = OffsetDateTime::now_utc();
            let solved = Challenge::check(text, nonce, event_id, &state.links.key, now)
                .map_err(|_| AppError::Invalid(Invalid::ProofOfWork))?;
            Some((solved.id, solved.bits))
        }
        // A queue that always asks refuses a join without one as it did.
        _ if queue.spec.proof_of_work && queue.pow_bits > 0 && !only_if_admitted => {
            return Err(AppError::Invalid(Invalid::ProofOfWork));
        }
        _ => None,
    };
    let join_id = uuid::Uuid::new_v4();
    let ask = JoinAsk {
        event_id,
        join_id,
        joiner,
        solved,
        only_if_admitted,
    };
    let joined = match db::queue::join_counted(&state.pool, ask, join_cost(state, &queue)).await? {
        Ok(joined) => joined,
        Err(JoinRefused::NoQueue) => return Err(AppError::NotFound(Missing::Queue)),
        Err(JoinRefused::ChallengeUsed) => {
            return Err(AppError::Invalid(Invalid::ProofOfWorkReused));
        }
        Err(JoinRefused::WouldWait) => return Ok(Joining::WouldWait),
        // A page view doesn't join a line it would have to pay for.
        Err(JoinRefused::NeedsWork { .. }) if only_if_admitted => return Ok(Joining::WouldWait),
        Err(JoinRefused::NeedsWork { bits }) => {
            return Err(AppError::Invalid(Invalid::ProofOfWorkNeeded { bits }));
        }
    };
    state.queues.joined(event_id, join_id, joined.order_key);
    let ticket = QueueTicket {
        event_id,
        join_id,
        order_key: joined.order_key,
        until: (OffsetDateTime::now_utc() + TICKET_LIFETIME).unix_timestamp(),
    };
    let text = ticket.encode(&state.links.key);
    let mut json = standing_of(state, &queue, &ticket).await?;
    if joined.admitted {
        // Admitted by the join itself; the board learns of it next second.
        // Until the first claim binds it, it lasts the first-claim time.
        let window = time::Duration::minutes(i64::from(queue.spec.window_minutes));
        let first_claim =
            time::Duration::try_from(state.config.queue.first_claim).unwrap_or(window);
        let until = OffsetDateTime::now_utc() + window.min(first_claim);
        json.state = "admitted";
        json.until = Some(rfc3339(until));
        (json.position, json.ahead, json.estimated_wait_secs) = (None, None, None);
    }
    json.ticket = Some(text.clone());
    let cookie = format!(
        "{}={text}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax",
        cookie_name(event_id),
        TICKET_LIFETIME.whole_seconds()
    );
    let cookie = HeaderValue::from_str(&cookie)
        .map_err(|err| AppError::Internal(anyhow::anyhow!("a queue cookie: {err}")))?;
    Ok(Joining::New(json, cookie))
}

#[utoipa::path(get, path = "/api/events/{event_id}/queue", tag = "buyers",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "Where the caller's ticket stands: waiting (position, ahead, estimated_wait_secs), admitted (until), expired, or not_joined", body = QueueStandingJson),
        responses::NotFound,))]
pub(crate) async fn standing(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    pass: QueuePass,
) -> AppResult<Response> {
    let queue = queue_of(&state, event_id)?;
    let json = match pass.ticket(&state, event_id) {
        Some(ticket) => standing_of(&state, &queue, &ticket).await?,
        None => QueueStandingJson::bare("not_joined", &queue),
    };
    let refresh = json.poll_after_secs;
    let mut response = Json(json).into_response();
    if let Ok(value) = HeaderValue::from_str(&refresh.to_string()) {
        response.headers_mut().insert("retry-after", value);
    }
    Ok(response)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueueBody {
    /// RFC 3339.
    opens_at: String,
    /// 1 to 1,000,000, or "auto".
    #[schema(value_type = serde_json::Value)]
    admit_per_minute: serde_json::Value,
    /// 1 to 1440.
    window_minutes: i64,
    #[serde(default)]
    proof_of_work: bool,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct QueueJson {
    event_id: EventId,
    /// Whether the event has a waiting room; when false, nothing else is given.
    on: bool,
    /// RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    opens_at: Option<String>,
    /// A number, or "auto".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<serde_json::Value>)]
    admit_per_minute: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    window_minutes: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof_of_work: Option<bool>,
    /// Leading zero bits a proof of work needs.
    #[serde(skip_serializing_if = "Option::is_none")]
    proof_of_work_bits: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    joined: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    admitted: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    waiting: Option<i64>,
    /// An "auto" queue's current target of buyers shopping at once (moved
    /// each second by the claims' measured latency and throughput); absent
    /// for a fixed rate, or before its worker's first batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    auto_target: Option<i32>,
}

impl QueueJson {
    fn off(event_id: EventId) -> QueueJson {
        QueueJson {
            event_id,
            on: false,
            opens_at: None,
            admit_per_minute: None,
            window_minutes: None,
            proof_of_work: None,
            proof_of_work_bits: None,
            joined: None,
            admitted: None,
            waiting: None,
            auto_target: None,
        }
    }
}

impl From<QueueState> for QueueJson {
    fn from(q: QueueState) -> QueueJson {
        QueueJson {
            event_id: q.event_id,
            on: true,
            opens_at: Some(rfc3339(q.spec.opens_at)),
            admit_per_minute: Some(match q.spec.admit_per_minute {
                Some(n) => serde_json::json!(n),
                None => serde_json::json!("auto"),
            }),
            window_minutes: Some(q.spec.window_minutes),
            proof_of_work: Some(q.spec.proof_of_work),
            proof_of_work_bits: Some(q.pow_bits),
            joined: Some(q.joined),
            admitted: Some(q.admitted),
            waiting: Some((q.joined - q.admitted).max(0)),
            auto_target: q.auto_target.filter(|_| q.spec.admit_per_minute.is_none()),
        }
    }
}

fn spec_of(body: QueueBody) -> AppResult<QueueSpec> {
    let invalid = |field| AppError::Invalid(Invalid::QueueSettings(field));
    let opens_at = OffsetDateTime::parse(&body.opens_at, &Rfc3339)
        .ok()
        // Within a year either way: a time PostgreSQL stores but can't give
        // back (past year 9999) would stop every instance reading the queues.
        .filter(|at| (*at - OffsetDateTime::now_utc()).abs() <= time::Duration::days(365))
        // To the microsecond PostgreSQL keeps, so the same time sent again
        // compares equal to what was stored, not later.
        .and_then(|at| at.replace_nanosecond(at.nanosecond() / 1_000 * 1_000).ok())
        .ok_or_else(|| invalid("opens_at"))?;
    let admit_per_minute = match &body.admit_per_minute {
        serde_json::Value::String(s) if s == "auto" => None,
        value => Some(
            value
                .as_i64()
                .filter(|n| (1..=1_000_000).contains(n))
                .ok_or_else(|| invalid("admit_per_minute"))? as i32,
        ),
    };
    if !(1..=1440).contains(&body.window_minutes) {
        return Err(invalid("window_minutes"));
    }
    Ok(QueueSpec {
        opens_at,
        admit_per_minute,
        window_minutes: body.window_minutes as i32,
        proof_of_work: body.proof_of_work,
    })
}

#[utoipa::path(get, path = "/api/staff/events/{event_id}/queue", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 200, description = "The event's waiting room, with its figures (`on: false` when it has none)", body = QueueJson),
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn staff_show(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<BoxOffice>,
) -> AppResult<Json<QueueJson>> {
    let client = state.pool.get().await?;
    match db::queue::get(&client, event_id).await? {
        Some(queue) => Ok(Json(queue.into())),
        None if db::events::exists(&client, event_id).await? => Ok(Json(QueueJson::off(event_id))),
        None => Err(AppError::NotFound(Missing::Event)),
    }
}

#[utoipa::path(put, path = "/api/staff/events/{event_id}/queue", tag = "staff",
    params(("event_id" = i64, Path)), request_body = QueueBody,
    responses(
        (status = 200, description = "The waiting room on, with these settings (a running queue keeps its joins and admissions)", body = QueueJson),
        responses::BadRequest,
        responses::StaffAccess,
        responses::NotFound,
        responses::Unprocessable,))]
pub(crate) async fn staff_put(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<Manager>,
    crate::web::extract::ApiJson(body): crate::web::extract::ApiJson<QueueBody>,
) -> AppResult<Json<QueueJson>> {
    let spec = spec_of(body)?;
    // Once open with people in line, the opening can't move later: those
    // who came after the first opening would fall behind later arrivals.
    if let Some(running) = db::queue::get(&state.pool.get().await?, event_id).await?
        && running.joined > 0
        && running.spec.opens_at <= OffsetDateTime::now_utc()
        && spec.opens_at > running.spec.opens_at
    {
        return Err(AppError::Invalid(Invalid::QueueOpensLater));
    }
    let queue = db::queue::put(&state.pool, event_id, &spec).await?;
    state.queues.set(queue.clone());
    Ok(Json(queue.into()))
}

#[utoipa::path(delete, path = "/api/staff/events/{event_id}/queue", tag = "staff",
    params(("event_id" = i64, Path)),
    responses(
        (status = 204, description = "The waiting room is off: claims need no admission"),
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn staff_delete(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: StaffCaller<Manager>,
) -> AppResult<StatusCode> {
    if !db::queue::delete(&state.pool, event_id).await? {
        return Err(AppError::NotFound(Missing::Queue));
    }
    state.queues.remove(event_id);
    Ok(StatusCode::NO_CONTENT)
}
