//! Fixed-window counters in PostgreSQL, so every instance shares them and
//! a new session can't start from zero.

use super::GenericClient;
use crate::config::LimitClock;
use crate::error::{AppError, AppResult};

use crate::error::Limit;

/// The per-minute limits a hold request counts against: its buyer's, and
/// its peer's (the client address's or, for an integrator's customer, the
/// API key's). 0 turns one off.
#[derive(Debug, Clone, Copy)]
pub struct RequestLimits {
    pub per_buyer: u32,
    pub per_peer: u32,
    pub clock: LimitClock,
}

/// One counter to bump: `key` may be hit `max` times per window (0 = no limit).
pub struct Counter {
    pub key: String,
    pub max: u32,
}

/// The clock windows are laid out by: the database's, unless a frozen
/// instant is given (`$4`, tests: a window can't roll over mid-test).
const NOW: &str = "coalesce($4::timestamptz, now())";
const WINDOW_START: &str = "to_timestamp(floor(extract(epoch FROM coalesce($4::timestamptz, now()))::float8 / $2::float8) * $2::float8)";

/// The limits that are on (max > 0) and their keys; None if none is.
fn active(limits: &[Counter]) -> Option<(Vec<&Counter>, Vec<&str>)> {
    let active: Vec<&Counter> = limits.iter().filter(|l| l.max > 0).collect();
    let keys = active.iter().map(|l| l.key.as_str()).collect();
    (!active.is_empty()).then_some((active, keys))
}

/// The refusal, with the seconds until the window ends (the row's `retry`).
fn refused(row: &tokio_postgres::Row, limit: Limit) -> AppError {
    let retry: i64 = row.get("retry");
    AppError::TooManyRequests {
        limit,
        retry_after_secs: retry.max(1) as u64,
    }
}

fn maxes(active: &[&Counter]) -> Vec<i32> {
    active
        .iter()
        .map(|l| i32::try_from(l.max).unwrap_or(i32::MAX))
        .collect()
}

/// Counts one hit on each limit in the current window of `window_secs`,
/// unless that would take any of them over its maximum: then it refuses
/// and, in the usual case (a counter already full), writes nothing. One
/// statement: each counter is only ever bumped while it is under its
/// maximum, so concurrent hits can't all slip past a limit together.
pub async fn hit(
    client: &impl GenericClient,
    clock: LimitClock,
    window_secs: i32,
    limits: &[Counter],
    refused_as: Limit,
) -> AppResult<()> {
    let Some((active, keys)) = active(limits) else {
        return Ok(());
    };
    let maxes = maxes(&active);
    let statement = client
        .prepare_cached(&format!(
            "WITH want AS (SELECT key, max FROM unnest($1::text[], $3::int[]) AS w(key, max)),
                  at_max AS (SELECT 1 FROM rate_limits r JOIN want ON r.key = want.key
                              WHERE r.window_start = {WINDOW_START} AND r.hits >= want.max),
                  bumped AS (
                      INSERT INTO rate_limits (key, window_start, hits)
                      SELECT key, {WINDOW_START}, 1 FROM want WHERE NOT EXISTS (SELECT 1 FROM at_max)
                      ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limits.hits + 1
                       WHERE rate_limits.hits < (SELECT max FROM want WHERE want.key = rate_limits.key)
                      RETURNING key)
             SELECT (SELECT count(*) FROM bumped) AS bumped,
                    ceil(extract(epoch FROM {WINDOW_START} + make_interval(secs => $2::float8) - {NOW}))::bigint AS retry"
        ))
        .await?;
    let row = client
        .query_one(
            &statement,
            &[&keys, &f64::from(window_secs), &maxes, &clock.frozen()],
        )
        .await?;
    let bumped: i64 = row.get("bumped");
    if bumped < active.len() as i64 {
        return Err(refused(&row, refused_as));
    }
    Ok(())
}

/// Refuses, without writing, when any of the counters is already at its
/// maximum in the current window: a request over its limit is turned away
/// before it takes any lock (its count, by [`hit`], comes later).
pub async fn refuse_if_spent(
    client: &impl GenericClient,
    clock: LimitClock,
    window_secs: i32,
    limits: &[Counter],
    refused_as: Limit,
) -> AppResult<()> {
    let Some((active, keys)) = active(limits) else {
        return Ok(());
    };
    let maxes = maxes(&active);
    let statement = client
        .prepare_cached(&format!(
            "SELECT EXISTS (SELECT 1 FROM rate_limits r
                              JOIN unnest($1::text[], $3::int[]) AS w(key, max) ON r.key = w.key
                             WHERE r.window_start = {WINDOW_START} AND r.hits >= w.max) AS spent,
                    ceil(extract(epoch FROM {WINDOW_START} + make_interval(secs => $2::float8) - {NOW}))::bigint AS retry"
        ))
        .await?;
    let row = client
        .query_one(
            &statement,
            &[&keys, &f64::from(window_secs), &maxes, &clock.frozen()],
        )
        .await?;
    if row.get::<_, bool>("spent") {
        return Err(refused(&row, refused_as));
    }
    Ok(())
}

/// Takes back one hit counted by [`hit`] in the current window (a sign-in
/// that turned out right counts as no failure).
pub async fn give_back(
    client: &impl GenericClient,
    clock: LimitClock,
    window_secs: i32,
    limits: &[Counter],
) -> AppResult<()> {
    let Some((_, keys)) = active(limits) else {
        return Ok(());
    };
    let statement = client
        .prepare_cached(&format!(
            "UPDATE rate_limits SET hits = hits - 1
              WHERE key = ANY($1) AND window_start = {} AND hits > 0",
            WINDOW_START.replace("$4", "$3")
        ))
        .await?;
    client
        .execute(
            &statement,
            &[&keys, &f64::from(window_secs), &clock.frozen()],
        )
        .await?;
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
