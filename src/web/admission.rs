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

/// Codes are no guessing oracle, part one: a request naming a promo code
/// is refused (429) while the buyer's or address's hold requests are
/// spent, before the code is looked up. Writes nothing.
pub async fn before_code(
    state: &AppState,
    buyer_id: BuyerId,
    key: Option<ApiKeyId>,
    ip: ClientIp,
) -> Result<(), AppError> {
    let holder = hold_request(state, buyer_id, key, ip);
    let client = state.pool.get().await?;
    crate::db::holds::refuse_if_spent(&client, &holder).await
}

/// Part two: a code refused as unknown, or not valid now, counts as a hold
/// request. A right code costs nothing (it would make every purchase with
/// a code write a counter). Over the limit, the count's own refusal is
/// left for the next try to meet: this one's answer is the code's.
pub async fn after_code<T>(
    state: &AppState,
    buyer_id: BuyerId,
    key: Option<ApiKeyId>,
    ip: ClientIp,
    outcome: &Result<T, AppError>,
) -> Result<(), AppError> {
    use crate::error::Invalid;
    let wrong = matches!(
        outcome,
        Err(AppError::Invalid(
            Invalid::PromoCodeUnknown | Invalid::PromoCodeExpired
        ))
    );
    if !wrong {
        return Ok(());
    }
    match admit_hold_request(state, buyer_id, key, ip).await {
        Ok(_) | Err(AppError::TooManyRequests { .. }) => Ok(()),
        Err(other) => Err(other),
    }
}
