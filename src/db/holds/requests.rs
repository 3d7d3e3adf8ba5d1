//! Who asks for seats, and the per-minute counting of their requests: a
//! request counts in its claim's own transaction, or alone when the claim
//! fails, since a refused request counts too.

use std::net::IpAddr;

use crate::db::rate_limits::{self, Counter, RequestLimits};
use crate::db::{GenericClient, Pool, retrying};
use crate::domain::ids::{ApiKeyId, BuyerId};
use crate::error::{AppError, AppResult, Limit};

/// Who is asking for seats: the buyer, and what their hold counts
/// against: a buyer's own client address (its /64 for IPv6), or the API
/// key an integrator's customer came through. Staff count against neither.
#[derive(Debug, Clone, Copy)]
pub struct Holder {
    pub buyer_id: BuyerId,
    pub client_ip: Option<IpAddr>,
    pub api_key: Option<ApiKeyId>,
    /// The request's per-minute limits, when it is still to be counted:
    /// the claim counts it as its transaction's last statement (one commit,
    /// not two), or alone if the claim fails, since a refused request
    /// counts too ([`counting_request`]). None: counted already, or staff.
    pub request: Option<RequestLimits>,
}

/// The per-minute counters a hold request bumps.
fn request_counters(holder: &Holder, limits: RequestLimits) -> [Counter; 2] {
    let buyer = Counter {
        key: format!("hold:buyer:{}", holder.buyer_id),
        max: limits.per_buyer,
    };
    // A key's calls all come from its integrator's servers: its limits are
    // the key's and each customer's, not the address's.
    let peer = match (holder.api_key, holder.client_ip) {
        (Some(key), _) => Counter {
            key: format!("hold:key:{key}"),
            max: limits.per_peer,
        },
        (None, Some(ip)) => Counter {
            key: format!("hold:ip:{ip}"),
            max: limits.per_peer,
        },
        (None, None) => Counter {
            key: String::new(),
            max: 0,
        },
    };
    [buyer, peer]
}

/// The counters a request bumps that are on (max > 0), as the keys and
/// maxima the one-statement pick takes.
pub(super) fn active_counters(holder: &Holder, limits: RequestLimits) -> (Vec<String>, Vec<i32>) {
    request_counters(holder, limits)
        .into_iter()
        .filter(|counter| counter.max > 0)
        .map(|counter| (counter.key, i32::try_from(counter.max).unwrap_or(i32::MAX)))
        .unzip()
}

/// Counts the holder's request, if it is still to be counted (429 when
/// that would take a counter over its limit). In a claim's transaction,
/// the counters' row locks are held to its commit: send it last.
pub async fn count_request(client: &impl GenericClient, holder: &Holder) -> AppResult<()> {
    match holder.request {
        Some(limits) => {
            let counters = request_counters(holder, limits);
            rate_limits::hit(client, limits.clock, 60, &counters, Limit::HoldRequests).await
        }
        None => Ok(()),
    }
}

/// Where a promo code is tried: on an event, or on a hold (its event's).
#[derive(Debug, Clone, Copy)]
pub enum CodeTry {
    Event(crate::domain::ids::EventId),
    Hold(crate::domain::ids::HoldId),
}

/// Counts a promo code try as the holder's hold request and as one of the
/// event's tries this minute (`per_event`, 0: no such limit), in one
/// statement: past either, 429 and nothing counted. A hold no event's
/// (a season's, which takes no codes) has no event's count.
pub async fn count_code_try(
    client: &impl GenericClient,
    holder: &Holder,
    tried: CodeTry,
    per_event: u32,
) -> AppResult<()> {
    let Some(limits) = holder.request else {
        return Ok(());
    };
    let event_id = match tried {
        CodeTry::Event(event_id) => Some(event_id),
        CodeTry::Hold(hold_id) => client
            .query_opt("SELECT event_id FROM holds WHERE id = $1", &[&hold_id])
            .await?
            .map(|row| row.get(0)),
    };
    let mut counters = Vec::from(request_counters(holder, limits));
    if let Some(event_id) = event_id {
        counters.push(Counter {
            key: format!("codes:event:{event_id}"),
            max: per_event,
        });
    }
    rate_limits::hit(client, limits.clock, 60, &counters, Limit::HoldRequests).await
}

/// Refuses, writing nothing, a request whose limits are already spent:
/// sent in a claim's first round trip, so a client over its limit is
/// turned away before the claim takes any lock.
pub async fn refuse_if_spent(client: &impl GenericClient, holder: &Holder) -> AppResult<()> {
    match holder.request {
        Some(limits) => {
            let counters = request_counters(holder, limits);
            rate_limits::refuse_if_spent(client, limits.clock, 60, &counters, Limit::HoldRequests)
                .await
        }
        None => Ok(()),
    }
}

/// Runs a claim whose transaction counts the holder's request (with
/// [`count_request`]), with retries. A claim that fails rolls its count
/// back, so the request is then counted alone: refused requests count
/// too. Over the limit, the answer is 429 whatever the claim's was.
pub(in crate::db) async fn counting_request<T, F, Fut>(
    pool: &Pool,
    holder: Holder,
    attempt: F,
) -> AppResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = AppResult<T>>,
{
    let outcome = retrying(attempt).await;
    if holder.request.is_none() || outcome.is_ok() {
        return outcome;
    }
    // Refused by the request limits themselves: nothing to count. (A cap
    // on live holds is another refusal, and the request counts.)
    if let Err(AppError::TooManyRequests {
        limit: Limit::HoldRequests,
        ..
    }) = outcome
    {
        return outcome;
    }
    let counted = match pool.get().await {
        Ok(client) => count_request(&client, &holder).await,
        Err(err) => Err(err.into()),
    };
    match counted {
        Err(over @ AppError::TooManyRequests { .. }) => Err(over),
        Err(err) => {
            tracing::warn!(error = %crate::error::for_log(&err), "could not count a failed hold request");
            outcome
        }
        Ok(()) => outcome,
    }
}
