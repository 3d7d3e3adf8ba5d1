//! How many places one client may have on an event's waitlist: a browser
//! counts by its address (an IPv6 /64 as one), a sell key by the key, all
//! its customers together. Counted in the join's own transaction, under a
//! lock of the client's, so joins at once can't pass the cap.

use super::GenericClient;
use crate::domain::ids::EventId;
use crate::error::{AppError, AppResult};

/// Who asks for a place, as the per-client cap counts them: a browser's
/// address (an IPv6 /64 as one), or an API key (all its customers).
#[derive(Debug, Clone, Copy)]
pub enum WaitlistClient {
    Network(std::net::IpAddr),
    Key(crate::domain::ids::ApiKeyId),
}

/// Refuses a client past its places on the event's waitlist, counted
/// under a lock of the client's own (taken in its own statement, so the
/// count's snapshot sees every place a concurrent join made first).
pub(super) async fn refuse_past_client_cap(
    tx: &impl GenericClient,
    event_id: EventId,
    client: WaitlistClient,
    max: u32,
) -> AppResult<()> {
    let (network, key) = match client {
        WaitlistClient::Network(ip) => (Some(ip), None),
        WaitlistClient::Key(key) => (None, Some(key)),
    };
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(
                    'waitlist ' || $1::bigint || ' ' || coalesce(host($2::inet), 'key ' || $3::bigint), 11))",
        &[&event_id, &network, &key],
    )
    .await?;
    // A place never confirmed stops counting after a day, so a flood of
    // made-up addresses from one network (behind a carrier's NAT, say)
    // shuts its neighbours out for a day at most.
    let live: i64 = tx
        .query_one(
            "SELECT count(*) FROM waitlist_entries
              WHERE event_id = $1 AND status IN ('waiting', 'offered')
                AND (client_network = $2 OR api_key_id = $3)
                AND (confirmed_at IS NOT NULL OR joined_at > now() - interval '1 day')",
            &[&event_id, &network, &key],
        )
        .await?
        .get(0);
    if live >= i64::from(max) {
        return Err(AppError::TooManyRequests {
            limit: crate::domain::refusal::Limit::WaitlistEntries { max },
            // A place comes free when a party leaves, buys or lapses:
            // nothing a client can wait out in seconds.
            retry_after_secs: 3600,
        });
    }
    Ok(())
}
