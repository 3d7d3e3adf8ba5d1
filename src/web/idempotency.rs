//! `Idempotency-Key` on every `POST` of the JSON API (issue 53), as
//! Stripe's API has it: the first answer to a key is kept in PostgreSQL
//! for 24 hours; the same request sent again with the key gets that answer
//! (whichever instance it reaches) and runs nothing; another request with
//! the key is `422 idempotency_key_reused`. While the first still runs, a
//! second waits for its answer a few seconds, then gets `409
//! idempotency_key_in_use` with `Retry-After`.
//!
//! A key belongs to its caller: the API key and customer, or the session
//! the store has (a made-up cookie is no session). A caller with neither
//! (a browser's first request, before it has a session) has no scope to
//! keep keys in, and its request runs unkeyed. A caller keeps its newest
//! keys only ([`KEYS_PER_SESSION`], [`KEYS_PER_API_CALLER`]).
//! Kept are successes and refusals the same request would get again
//! (400, 404, 410, 422); anything else (a 5xx, a 409 from a race, a 429)
//! lets the key go, so the retry runs. A 503 did nothing a retry would
//! repeat: a purchase whose commit answer was lost finds out what
//! happened itself (see `db::purchase_landed`).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::db;
use crate::db::idempotency::{Claim, KeptAnswer};
use crate::error::{AppError, AppResult, Conflict, Invalid, Malformed};
use crate::web::state::AppState;

pub const HEADER: &str = "idempotency-key";
/// The largest body a keyed request may have (its digest is what is
/// compared; the cap keeps the buffering small).
const MAX_BODY: usize = 1024 * 1024;
/// How long a run holds its key past the request's own deadline before a
/// retry may take it over (an instance that died mid-run never answers).
const RUN_PAST_DEADLINE: Duration = Duration::from_secs(30);
/// How long a second request waits for the first one's answer.
const WAIT_FOR_FIRST: Duration = Duration::from_secs(5);

/// The most keys one caller keeps: a session's newest 1,000, an API key
/// caller's (the key with its `X-Customer-Ref`) newest 10,000. Past it
/// the oldest answered keys go first; a retry comes within minutes, long
/// before a caller has sent that many more.
pub const KEYS_PER_SESSION: i64 = 1_000;
pub const KEYS_PER_API_CALLER: i64 = 10_000;

/// The caller a key belongs to, and how many keys it may keep: a digest
/// of its API key (checked by `authenticate_bearer`, outside this layer)
/// and customer, or of its session if the store has it. None for a caller
/// with neither: a made-up session cookie is no caller, and its keys
/// would be rows anyone could add without end.
async fn principal(caller: Option<Caller>) -> Option<(Vec<u8>, i64)> {
    let mut digest = Sha256::new();
    match caller? {
        Caller::Key { id, customers } => {
            digest.update(b"api key\0");
            digest.update(id.0.to_be_bytes());
            for customer in customers {
                digest.update(b"\0customer\0");
                digest.update(customer.as_bytes());
            }
            Some((digest.finalize().to_vec(), KEYS_PER_API_CALLER))
        }
        Caller::Session(session) => {
            // A read loads the record (the handler's own reads then use
            // it): a cookie the store doesn't know leaves no id. A store
            // that fails fails the handler's reads too (a 503).
            session.get_value("").await.ok()?;
            let id = session.id()?;
            digest.update(b"session\0");
            digest.update(id.to_string().as_bytes());
            Some((digest.finalize().to_vec(), KEYS_PER_SESSION))
        }
    }
}

/// Who a request says it is, taken out of it (its body isn't `Sync`, so
/// the request can't be held across the session's load).
enum Caller {
    Key {
        id: crate::domain::ids::ApiKeyId,
        customers: Vec<HeaderValue>,
    },
    Session(tower_sessions::Session),
}

fn caller_of(request: &Request) -> Option<Caller> {
    if let Some(key) = request.extensions().get::<db::api_keys::ApiKey>() {
        let customers = request
            .headers()
            .get_all("x-customer-ref")
            .iter()
            .cloned()
            .collect();
        return Some(Caller::Key {
            id: key.id,
            customers,
        });
    }
    let session = request.extensions().get::<tower_sessions::Session>()?;
    Some(Caller::Session(session.clone()))
}

/// Whether an answer is kept for its key: successes, and refusals that
/// sending the same request again would get again. A refusal that time
/// may lift (401, 403 before an admission, 408, 409 in a race, 429) lets
/// the key go, so the retry runs.
fn kept(status: StatusCode) -> bool {
    status.is_success()
        || [
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::GONE,
            StatusCode::UNPROCESSABLE_ENTITY,
        ]
        .contains(&status)
}

fn request_hash(method: &Method, uri: &axum::http::Uri, body: &[u8]) -> Vec<u8> {
    let mut digest = Sha256::new();
    digest.update(method.as_str().as_bytes());
    digest.update(b"\0");
    digest.update(uri.path().as_bytes());
    digest.update(b"\0");
    digest.update(uri.query().unwrap_or("").as_bytes());
    digest.update(b"\0");
    digest.update(body);
    digest.finalize().to_vec()
}

/// A key is 1 to 255 visible ASCII characters.
fn key_of(value: &HeaderValue) -> AppResult<String> {
    value
        .to_str()
        .ok()
        .filter(|key| (1..=255).contains(&key.len()))
        .filter(|key| key.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
        .ok_or(AppError::Invalid(Invalid::IdempotencyKey))
}

fn replay(answer: KeptAnswer) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut response = (status, answer.body).into_response();
    let headers = response.headers_mut();
    if let Some(value) = answer
        .content_type
        .and_then(|v| HeaderValue::from_str(&v).ok())
    {
        headers.insert(header::CONTENT_TYPE, value);
    }
    if let Some(value) = answer.location.and_then(|v| HeaderValue::from_str(&v).ok()) {
        headers.insert(header::LOCATION, value);
    }
    headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
}

/// The middleware: keyed `POST`s under `/api/` are run once per key.
pub async fn run_once(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let keyed = request.method() == Method::POST
        && request.uri().path().starts_with("/api/")
        && request.headers().contains_key(HEADER);
    if !keyed {
        return next.run(request).await;
    }
    match run_keyed(&state, request, next).await {
        Ok(response) => response,
        Err(err) => err.into_response(),
    }
}

async fn run_keyed(state: &AppState, request: Request, next: Next) -> AppResult<Response> {
    let key = key_of(&request.headers()[HEADER])?;
    // A caller with no session and no API key has no scope to keep its
    // keys in (any other such caller could replay its answers): its first
    // request runs as if unkeyed; from its session on, keys hold.
    let Some((principal, allowance)) = principal(caller_of(&request)).await else {
        return Ok(next.run(request).await);
    };
    let (parts, body) = request.into_parts();
    let body: Bytes = axum::body::to_bytes(body, MAX_BODY)
        .await
        .map_err(|_| AppError::BadRequest(Malformed::BodyTooLarge))?;
    let hash = request_hash(&parts.method, &parts.uri, &body);
    let run_for = state.config.server.request_timeout + RUN_PAST_DEADLINE;
    let run_id = uuid::Uuid::new_v4();
    let started = tokio::time::Instant::now();
    let mut pause = Duration::from_millis(50);
    loop {
        let claim = {
            let client = state.pool.get().await?;
            db::idempotency::claim(&client, &principal, &key, &hash, run_for, run_id).await?
        };
        match claim {
            Claim::Run => break,
            Claim::Replay(answer) => return Ok(replay(answer)),
            Claim::Reused => return Err(AppError::Invalid(Invalid::IdempotencyKeyReused)),
            Claim::Running if started.elapsed() < WAIT_FOR_FIRST => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(500));
            }
            Claim::Running => return Err(AppError::Conflict(Conflict::IdempotencyKeyInUse)),
        }
    }
    let response = next.run(Request::from_parts(parts, Body::from(body))).await;
    let status = response.status();
    if !kept(status) {
        if let Ok(client) = state.pool.get().await {
            db::idempotency::release(&client, &principal, &key, run_id).await?;
        }
        return Ok(response);
    }
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|err| AppError::Internal(anyhow::anyhow!("reading an answer to keep: {err}")))?;
    let text = |name| {
        parts
            .headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    let answer = KeptAnswer {
        status: status.as_u16(),
        content_type: text(header::CONTENT_TYPE),
        location: text(header::LOCATION),
        body: body.to_vec(),
    };
    // Not kept (the database went away after the run): the answer is still
    // given; a retry after the run's time runs again.
    let kept = async {
        let client = state.pool.get().await?;
        db::idempotency::keep(&client, &principal, &key, run_id, &answer, allowance).await
    };
    if let Err(err) = kept.await {
        tracing::warn!(error = %err, "keeping an idempotent answer");
    }
    Ok(Response::from_parts(parts, Body::from(body)))
}
