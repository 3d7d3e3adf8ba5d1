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

use super::Pool;
use crate::config::{DbSettings, ReadReplica};
use crate::error::AppResult;
use crate::observability as obs;

/// No measurement yet, or the replica (or the primary) can't be reached.
const UNKNOWN: u64 = u64::MAX;

/// A measurement (both servers) must answer within this.
const MEASURE_WITHIN: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub struct Replica {
    pool: Pool,
    /// For the lag's own connection: a flood of reads holding every pooled
    /// connection must not make the lag unknown (and send them all to the
    /// primary).
    pg_config: tokio_postgres::Config,
    max_lag: Duration,
    measure_every: Duration,
    /// The last measured lag in microseconds, or [`UNKNOWN`].
    lag_micros: Arc<AtomicU64>,
    /// Reads this instance served from the replica and from the primary
    /// (the metric's counts are the process's; these are this instance's).
    served: Arc<[AtomicU64; 2]>,
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
            pool: super::build_named_pool(pg_config.clone(), db, "seatmap-reads")?,
            pg_config,
            max_lag: settings.max_lag,
            measure_every: settings.measure_every,
            served: Arc::new([AtomicU64::new(0), AtomicU64::new(0)]),
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
        let (client, from) = self.client_unrecorded(primary).await?;
        self.record(from);
        Ok((client, from))
    }

    /// [`Replica::client_for_read`] for a caller that may still fall back
    /// to the primary: it says where the read went with [`Replica::record`].
    pub async fn client_unrecorded(
        &self,
        primary: &Pool,
    ) -> AppResult<(deadpool_postgres::Object, ReadFrom)> {
        if self.caught_up() {
            match self.pool.get().await {
                Ok(client) => return Ok((client, ReadFrom::Replica)),
                Err(err) => {
                    tracing::debug!(error = %err, "replica unavailable; reading from the primary");
                }
            }
        }
        Ok((primary.get().await?, ReadFrom::Primary))
    }

    /// Counts a read where it was served.
    pub fn record(&self, from: ReadFrom) {
        let (label, index) = match from {
            ReadFrom::Replica => ("replica", 0),
            ReadFrom::Primary => ("primary", 1),
        };
        metrics::counter!(obs::READS_ROUTED, "to" => label).increment(1);
        self.served[index].fetch_add(1, Ordering::Relaxed);
    }

    /// How many reads this instance has served from `from`.
    pub fn served(&self, from: ReadFrom) -> u64 {
        self.served[match from {
            ReadFrom::Replica => 0,
            ReadFrom::Primary => 1,
        }]
        .load(Ordering::Relaxed)
    }

    pub fn close(&self) {
        self.pool.close();
    }

    /// Measures the lag until the app stops (a background task), on a
    /// connection of its own to each server (`primary` says how to open
    /// the primary's), opened again after a failure.
    pub async fn measure_lag(self, primary: tokio_postgres::Config) {
        let mut ticks = tokio::time::interval(self.measure_every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut unreplayed: VecDeque<(Instant, i64)> = VecDeque::new();
        let mut failing = false;
        let mut connections: Option<(tokio_postgres::Client, tokio_postgres::Client)> = None;
        loop {
            ticks.tick().await;
            // A server that doesn't answer in time (a partition, a frozen
            // host: its statement_timeout can't fire) is one that failed.
            let measured = tokio::time::timeout(MEASURE_WITHIN, async {
                if connections.is_none() {
                    connections = Some((
                        own_connection(&primary).await?,
                        own_connection(&self.pg_config).await?,
                    ));
                }
                let (on_primary, on_replica) = connections.as_ref().expect("connected above");
                let position = wal_position(on_primary).await?;
                unreplayed.push_back((Instant::now(), position));
                replayed(on_replica).await
            })
            .await
            .unwrap_or_else(|_| {
                Err(crate::error::AppError::Unavailable(anyhow::anyhow!(
                    "no answer within {MEASURE_WITHIN:?}"
                )))
            });
            if measured.is_err() {
                connections = None;
            }
            let lag = match measured {
                Ok(Some(replayed)) => {
                    if failing {
                        tracing::info!("replica reachable again");
                        failing = false;
                    }
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
                // Not a standby (promoted, or not a replica at all): it no
                // longer follows the primary, so it gets no reads.
                Ok(None) => {
                    if !failing {
                        tracing::warn!(
                            "the read replica is not replaying the primary; reads go to the primary"
                        );
                        failing = true;
                    }
                    metrics::gauge!(obs::REPLICA_REACHABLE).set(0.0);
                    UNKNOWN
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
            // Far past any allowed lag: the oldest positions go (the lag
            // stays as old as the oldest kept, still far too old).
            while unreplayed.len() > 10_000 {
                unreplayed.pop_front();
            }
            self.lag_micros.store(lag, Ordering::Relaxed);
        }
    }
}

/// Whether the replica behind `client` has replayed the primary's WAL up
/// to `position` (bytes), asking a few times over `within`.
pub async fn has_replayed(
    client: &impl super::GenericClient,
    position: i64,
    within: Duration,
) -> AppResult<bool> {
    let statement = client
        .prepare_cached(
            "SELECT coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint >= $1, false)",
        )
        .await?;
    let deadline = Instant::now() + within;
    loop {
        if client
            .query_one(&statement, &[&position])
            .await?
            .get::<_, bool>(0)
        {
            return Ok(true);
        }
        if Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A connection of the lag measurement's own, with a short statement
/// timeout: a measurement that can't answer quickly is a failed one.
async fn own_connection(config: &tokio_postgres::Config) -> AppResult<tokio_postgres::Client> {
    let mut config = config.clone();
    config
        .options("-c statement_timeout=2000")
        .application_name("seatmap-replica-lag")
        .connect_timeout(Duration::from_secs(2));
    let (client, connection) = config.connect(tokio_postgres::NoTls).await?;
    tokio::spawn(connection);
    Ok(client)
}

/// The primary's WAL position now, in bytes: where the last record was
/// inserted, commits not yet written out included (with asynchronous
/// commit, the written position lags commits that already returned).
async fn wal_position(client: &tokio_postgres::Client) -> AppResult<i64> {
    Ok(client
        .query_one(
            "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint",
            &[],
        )
        .await?
        .get(0))
}

/// How far the replica has replayed the primary's WAL, in bytes; None if
/// it is not a standby.
async fn replayed(client: &tokio_postgres::Client) -> AppResult<Option<i64>> {
    Ok(client
        .query_one(
            "SELECT CASE WHEN pg_is_in_recovery()
                         THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint END",
            &[],
        )
        .await?
        .get(0))
}
