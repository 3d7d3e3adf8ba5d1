//! Fixed-window counters in PostgreSQL, so every instance shares them and
//! a new session can't start from zero.

use super::GenericClient;
use crate::error::{AppError, AppResult};

use crate::error::Limit;

/// One counter to bump: `key` may be hit `max` times per window (0 = no limit).
pub struct Counter {
    pub key: String,
    pub max: u32,
}

const WINDOW_START: &str =
    "to_timestamp(floor(extract(epoch FROM now())::float8 / $2::float8) * $2::float8)";

/// The limits that are on (max > 0) and their keys; None if none is.
fn active(limits: &[Counter]) -> Option<(Vec<&Counter>, Vec<&str>)> {
    let active: Vec<&Counter> = limits.iter().filter(|l| l.max > 0).collect();
    let keys = active.iter().map(|l| l.key.as_str()).collect();
    (!active.is_empty()).then_some((active, keys))
}

/// Counts one hit on each limit in the current window of `window_secs`, and
/// refuses if any is now over its maximum.
pub async fn hit(
    client: &impl GenericClient,
    window_secs: i32,
    limits: &[Counter],
    refused_as: Limit,
) -> AppResult<()> {
    let Some((active, keys)) = active(limits) else {
        return Ok(());
    };
    let statement = client
        .prepare_cached(&format!(
            "INSERT INTO rate_limits (key, window_start, hits)
             SELECT key, {WINDOW_START}, 1 FROM unnest($1::text[]) AS key
             ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limits.hits + 1
             RETURNING key, hits,
                       ceil(extract(epoch FROM window_start + make_interval(secs => $2::float8) - now()))::bigint AS retry"
        ))
        .await?;
    let rows = client
        .query(&statement, &[&keys, &f64::from(window_secs)])
        .await?;
    refuse_if_over(&active, &rows, refused_as)
}

/// Refuses if any limit is already at its maximum in the current
/// window, without counting a hit (for counting failures only).
pub async fn check(
    client: &impl GenericClient,
    window_secs: i32,
    limits: &[Counter],
    refused_as: Limit,
) -> AppResult<()> {
    let Some((active, keys)) = active(limits) else {
        return Ok(());
    };
    let statement = client
        .prepare_cached(&format!(
            "SELECT key, hits + 1 AS hits,
                    ceil(extract(epoch FROM window_start + make_interval(secs => $2::float8) - now()))::bigint AS retry
               FROM rate_limits
              WHERE key = ANY($1) AND window_start = {WINDOW_START}"
        ))
        .await?;
    let rows = client
        .query(&statement, &[&keys, &f64::from(window_secs)])
        .await?;
    refuse_if_over(&active, &rows, refused_as)
}

fn refuse_if_over(
    active: &[&Counter],
    rows: &[tokio_postgres::Row],
    refused_as: Limit,
) -> AppResult<()> {
    for row in rows {
        let key: &str = row.get("key");
        let hits: i32 = row.get("hits");
        let retry: i64 = row.get("retry");
        if let Some(limit) = active.iter().find(|l| l.key == key) {
            if hits as i64 > i64::from(limit.max) {
                return Err(AppError::TooManyRequests {
                    limit: refused_as,
                    retry_after_secs: retry.max(1) as u64,
                });
            }
        }
    }
    Ok(())
}

/// Drops windows that ended over an hour ago.
pub async fn delete_old(client: &impl GenericClient) -> AppResult<u64> {
    Ok(client
        .execute(
            "DELETE FROM rate_limits WHERE window_start < now() - interval '1 hour'",
            &[],
        )
        .await?)
}
