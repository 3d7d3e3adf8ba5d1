//! Admission of hold requests: the per-buyer, per-address and per-key
//! rate limits, counted in PostgreSQL so every instance shares them.

use crate::domain::ids::{ApiKeyId, BuyerId};
use crate::error::AppError;
use crate::web::extract::ClientIp;
use crate::web::state::AppState;

/// Admits a request that would claim seats: counts it against the
/// session's and the client address's per-minute limits (429 when over) and
/// names the holder. Keyed by buyer id and address, so a new session starts
/// with its address's count, not from zero.
pub async fn admit_hold_request(
    state: &AppState,
    buyer_id: BuyerId,
    key: Option<ApiKeyId>,
    ip: ClientIp,
) -> Result<crate::db::holds::Holder, AppError> {
    use crate::db::rate_limits::{Counter, hit};
    use crate::error::Limit;
    let limits = &state.config.limits;
    let client = state.pool.get().await?;
    let buyer = Counter {
        key: format!("hold:buyer:{buyer_id}"),
        max: limits.hold_requests_per_session,
    };
    // A key's calls all come from its integrator's servers: its limits are
    // the key's and each customer's, not the address's.
    let counters = match key {
        Some(key) => [
            buyer,
            Counter {
                key: format!("hold:key:{key}"),
                max: limits.hold_requests_per_key,
            },
        ],
        None => [
            buyer,
            Counter {
                key: format!("hold:ip:{}", ip.network()),
                max: limits.hold_requests_per_ip,
            },
        ],
    };
    hit(&client, limits.clock, 60, &counters, Limit::HoldRequests).await?;
    Ok(crate::db::holds::Holder {
        buyer_id,
        client_ip: key.is_none().then_some(ip.network()),
        api_key: key,
    })
}
