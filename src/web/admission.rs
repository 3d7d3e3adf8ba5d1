//! Admission of hold requests: the per-buyer, per-address and per-key
//! rate limits, counted in PostgreSQL so every instance shares them.

use crate::db::holds::Holder;
use crate::db::rate_limits::RequestLimits;
use crate::domain::ids::{ApiKeyId, BuyerId};
use crate::error::AppError;
use crate::web::extract::ClientIp;
use crate::web::state::AppState;

/// Names the holder of a request that would claim seats, with its request
/// still to be counted against the buyer's and the client address's (or
/// the API key's) per-minute limits: the claim counts it in its own
/// transaction (see [`Holder::request`]). Keyed by buyer id and address,
/// so a new session starts with its address's count, not from zero.
pub fn hold_request(
    state: &AppState,
    buyer_id: BuyerId,
    key: Option<ApiKeyId>,
    ip: ClientIp,
) -> Holder {
    let limits = &state.config.limits;
    Holder {
        buyer_id,
        client_ip: key.is_none().then_some(ip.network()),
        api_key: key,
        request: Some(RequestLimits {
            per_buyer: limits.hold_requests_per_session,
            per_peer: match key {
                Some(_) => limits.hold_requests_per_key,
                None => limits.hold_requests_per_ip,
            },
            clock: limits.clock,
        }),
    }
}

/// Counts a promo code try now: as a hold request of the caller's, and
/// as one of the event's tries this minute (429 past either), so guessing
/// spread over many addresses and sessions meets a limit too.
pub async fn admit_code_try(
    state: &AppState,
    buyer_id: BuyerId,
    key: Option<ApiKeyId>,
    ip: ClientIp,
    tried: crate::db::holds::CodeTry,
) -> Result<(), AppError> {
    let holder = hold_request(state, buyer_id, key, ip);
    let client = state.pool.get().await?;
    crate::db::holds::count_code_try(
        &client,
        &holder,
        tried,
        state.config.limits.code_tries_per_event,
    )
    .await
}

/// Counts a hold request now, in a transaction of its own (429 when over a
/// limit), for a request that claims nothing itself (joining a waitlist).
pub async fn admit_hold_request(
    state: &AppState,
    buyer_id: BuyerId,
    key: Option<ApiKeyId>,
    ip: ClientIp,
) -> Result<Holder, AppError> {
    let holder = hold_request(state, buyer_id, key, ip);
    let client = state.pool.get().await?;
    crate::db::holds::count_request(&client, &holder).await?;
    Ok(Holder {
        request: None,
        ..holder
    })
}
