//! Losing the database and finding it again (issue 53). When a request
//! sees the connection lost (the primary died, or a failover demoted it),
//! the process is *suspect* for a while: every pooled connection handed
//! out is checked first with an empty query, and a dead one is dropped for
//! a new connection, which `target_session_attrs=read-write` makes to
//! whichever host is the primary now. Outside that window connections are
//! recycled the fast way (no round trip per checkout). The outage's gap,
//! from the first lost connection to the first new one, goes to
//! `/metrics`.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use deadpool_postgres::{Hook, HookError};

/// How long after a lost connection pooled ones are checked before use.
const SUSPECT_FOR: Duration = Duration::from_secs(30);
/// How long the check may take before the connection is given up.
const CHECK_WITHIN: Duration = Duration::from_secs(1);

pub const RECONNECTS: &str = "seatmap_db_reconnects_total";
pub const CONNECTIONS_CHECKED: &str = "seatmap_db_connections_checked_total";
pub const CONNECTIONS_DROPPED: &str = "seatmap_db_connections_dropped_total";
pub const LAST_OUTAGE: &str = "seatmap_db_last_outage_seconds";

/// Unix milliseconds: until when pooled connections are checked.
static SUSPECT_UNTIL: AtomicI64 = AtomicI64::new(0);
/// Unix milliseconds the outage under way began; 0: none.
static OUTAGE_SINCE: AtomicI64 = AtomicI64::new(0);

fn now_ms() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp_nanos() as i64 / 1_000_000
}

/// A connection was found lost: check pooled ones for a while, and start
/// timing the outage if none is under way.
pub fn connection_lost() {
    let now = now_ms();
    SUSPECT_UNTIL.fetch_max(now + SUSPECT_FOR.as_millis() as i64, Ordering::Relaxed);
    outage_began(now);
}

/// Starts timing an outage at `now`, unless one is under way.
fn outage_began(now: i64) {
    let _ = OUTAGE_SINCE.compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
}

fn suspect() -> bool {
    SUSPECT_UNTIL.load(Ordering::Relaxed) > now_ms()
}

/// Checks a pooled connection before it is handed out, while suspect.
/// One found closed starts an outage's timing too: a primary that died
/// between requests shows only here (its connections' tasks saw the
/// socket close), so its reconnect is counted. It makes the pool no more
/// suspect: a closed connection is found without a round trip.
pub fn check_before_use() -> Hook {
    Hook::async_fn(|client, _| {
        Box::pin(async move {
            if client.is_closed() {
                outage_began(now_ms());
                metrics::counter!(CONNECTIONS_DROPPED).increment(1);
                return Err(HookError::Message("a pooled connection was closed".into()));
            }
            if !suspect() {
                return Ok(());
            }
            metrics::counter!(CONNECTIONS_CHECKED).increment(1);
            match tokio::time::timeout(CHECK_WITHIN, client.simple_query("")).await {
                Ok(Ok(_)) => Ok(()),
                _ => {
                    metrics::counter!(CONNECTIONS_DROPPED).increment(1);
                    Err(HookError::Message(
                        "a pooled connection failed its check".into(),
                    ))
                }
            }
        })
    })
}

/// Counts a new connection made during an outage, and ends the outage.
pub fn count_new_connection() -> Hook {
    Hook::sync_fn(|_, _| {
        let since = OUTAGE_SINCE.swap(0, Ordering::Relaxed);
        if since != 0 {
            metrics::counter!(RECONNECTS).increment(1);
            let gap = (now_ms() - since).max(0) as f64 / 1000.0;
            metrics::gauge!(LAST_OUTAGE).set(gap);
            tracing::info!(gap_secs = gap, "connected to the database again");
        }
        Ok(())
    })
}
