//! Reads on a streaming replica (`SEATMAP_READ_DATABASE_URL`): PostgreSQL's
//! own way past one server's reads. Only reads that may be a moment behind
//! go there (the event list, map pages and seat JSON for a viewer with no
//! live hold, reports); claims, purchases, a buyer's own hold and order,
//! and everything staff change stay on the primary.
//!
//! The lag is measured from the app's side, the same on every PostgreSQL
//! version and whatever the replica's clock says: every `measure_every`
//! the primary's WAL position is noted with the time, and the lag is the
//! age of the oldest position the replica has not replayed yet (zero when
//! it has replayed them all). A replica that can't be reached, or that
//! falls further behind than `max_lag`, gets no reads until it is back.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{GenericClient, Pool};
use crate::config::{DbSettings, ReadReplica};
use crate::error::AppResult;
use crate::observability as obs;

/// No measurement yet, or the replica (or the primary) can't be reached.
const UNKNOWN: u64 = u64::MAX;

#[derive(Clone)]
pub struct Replica {
    pool: Pool,
    max_lag: Duration,
    measure_every: Duration,
    /// The last measured lag in microseconds, or [`UNKNOWN`].
    lag_micros: Arc<AtomicU64>,
}

/// Where a read was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFrom {
    Primary,
    Replica,
}

impl Replica {
    /// The replica's pool (connections are opened on first use).
    pub fn new(settings: &ReadReplica, db: &DbSettings) -> anyhow::Result<Replica> {
        let pg_config: tokio_postgres::Config = settings.url.expose().parse()?;
        Ok(Replica {
            pool: super::build_named_pool(pg_config, db, "seatmap-reads")?,
            max_lag: settings.max_lag,
            measure_every: settings.measure_every,
            lag_micros: Arc::new(AtomicU64::new(UNKNOWN)),
        })
    }

    /// The lag last measured; None while unknown or unreachable.
    pub fn lag(&self) -> Option<Duration> {
        match self.lag_micros.load(Ordering::Relaxed) {
            UNKNOWN => None,
            micros => Some(Duration::from_micros(micros)),
        }
    }

    /// Whether reads may go to the replica now.
    pub fn caught_up(&self) -> bool {
        self.lag().is_some_and(|lag| lag <= self.max_lag)
    }

    /// A connection for a read that may be a moment behind: the replica's
    /// when it is caught up and answers, else the primary's.
    pub async fn client_for_read(
        &self,
        primary: &Pool,
    ) -> AppResult<(deadpool_postgres::Object, ReadFrom)> {
        if self.caught_up() {
            match self.pool.get().await {
                Ok(client) => {
                    metrics::counter!(obs::READS_ROUTED, "to" => "replica").increment(1);
                    return Ok((client, ReadFrom::Replica));
                }
                Err(err) => {
                    tracing::debug!(error = %err, "replica unavailable; reading from the primary");
                }
            }
        }
        metrics::counter!(obs::READS_ROUTED, "to" => "primary").increment(1);
        Ok((primary.get().await?, ReadFrom::Primary))
    }

    pub fn close(&self) {
        self.pool.close();
    }

    /// Measures the lag until the app stops (a background task).
    pub async fn measure_lag(self, primary: Pool) {
        let mut ticks = tokio::time::interval(self.measure_every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut unreplayed: VecDeque<(Instant, i64)> = VecDeque::new();
        let mut failing = false;
        loop {
            ticks.tick().await;
            let measured = async {
                let position = wal_position(&primary.get().await?).await?;
                unreplayed.push_back((Instant::now(), position));
                replayed(&self.pool.get().await?).await
            }
            .await;
            let lag = match measured {
                Ok(replayed) => {
                    if failing {
                        tracing::info!("replica reachable again");
                        failing = false;
                    }
                    // A server that isn't replaying (not a standby) is as
                    // current as it can be.
                    let replayed = replayed.unwrap_or(i64::MAX);
                    while unreplayed.front().is_some_and(|(_, at)| *at <= replayed) {
                        unreplayed.pop_front();
                    }
                    let lag = unreplayed
                        .front()
                        .map_or(Duration::ZERO, |(noted, _)| noted.elapsed());
                    metrics::gauge!(obs::REPLICA_LAG).set(lag.as_secs_f64());
                    metrics::gauge!(obs::REPLICA_REACHABLE).set(1.0);
                    u64::try_from(lag.as_micros()).unwrap_or(UNKNOWN - 1)
                }
                Err(err) => {
                    if !failing {
                        tracing::warn!(error = %err.for_log(), "replica lag unknown; reads go to the primary");
                        failing = true;
                    }
                    metrics::gauge!(obs::REPLICA_REACHABLE).set(0.0);
                    UNKNOWN
                }
            };
            // Positions noted long ago tell nothing more than the oldest.
            while unreplayed.len() > 10_000 {
                unreplayed.pop_back();
            }
            self.lag_micros.store(lag, Ordering::Relaxed);
        }
    }
}

/// The primary's WAL position now, in bytes.
async fn wal_position(client: &impl GenericClient) -> AppResult<i64> {
    let statement = client
        .prepare_cached("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
        .await?;
    Ok(client.query_one(&statement, &[]).await?.get(0))
}

/// How far the replica has replayed the primary's WAL, in bytes; None if
/// it is not a standby.
async fn replayed(client: &impl GenericClient) -> AppResult<Option<i64>> {
    let statement = client
        .prepare_cached(
            "SELECT CASE WHEN pg_is_in_recovery()
                         THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint END",
        )
        .await?;
    Ok(client.query_one(&statement, &[]).await?.get(0))
}
