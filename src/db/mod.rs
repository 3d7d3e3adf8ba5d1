//! Every SQL statement of the app lives under this module. Functions take
//! `&impl GenericClient` so the same query runs on a pooled client or inside
//! a transaction; operations that need several statements atomically take
//! the pool, run one transaction, and retry it on deadlock or serialization
//! failure.

/// The results of statements sent together in one transaction (a
/// `tokio::join!`), checked: returns the error that caused the others, if
/// any. A statement that runs after one that failed answers 25P02
/// ("transaction aborted"), which is only an echo; returning it would hide
/// a deadlock that must be retried behind a 500. The order statements reach
/// the server in is not always the join's (one still preparing its
/// statement sends later), so the cause is looked for among all of them.
/// Each result stays usable afterwards (`?` on it can no longer fail).
macro_rules! sent_together {
    ($($result:ident),+ $(,)?) => {
        $(
            if matches!(&$result, Err(err) if !$crate::db::AbortedEcho::is_echo(err)) {
                return Err($result.err().expect("an error").into());
            }
        )+
        $(
            if $result.is_err() {
                return Err($result.err().expect("an error").into());
            }
        )+
    };
}

pub mod accessible;
pub mod api_keys;
pub mod audit;
pub mod best_available;
pub mod box_office;
pub mod bulk_seats;
pub mod charges;
mod counter_offer;
pub mod database;
pub mod demo;
pub mod door;
pub mod event_details;
pub mod events;
pub mod ga;
pub mod holds;
pub mod idempotency;
mod ids;
pub mod invariants;
pub mod live;
pub mod map;
mod offer_lines;
pub mod order_changes;
pub mod orders;
pub mod outage;
pub mod outbox;
pub mod payments;
pub mod price_types;
pub mod promo_codes;
pub mod publishing;
mod purchase_landed;
pub mod queue;
pub mod queue_board;
pub mod rate_limits;
pub mod replica;
pub mod reports;
pub mod seasons;
pub mod seats;
pub mod secrets;
pub mod series;
pub mod sessions;
pub mod snapshot;
pub mod staff;
pub mod tickets;
pub mod transfers;
pub mod venue_move;
pub mod venue_move_check;
pub mod venues;
pub mod waitlist;
pub mod waitlist_cap;
pub mod waitlist_first;
pub mod waitlist_offers;
pub mod webhooks;

use std::future::Future;
use std::time::Duration;

use anyhow::Context;
use deadpool_postgres::{Manager, ManagerConfig, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

pub use deadpool_postgres::{GenericClient, Pool};

use crate::config::DbSettings;
use crate::error::{AppError, AppResult};

/// An error that may be the echo of an earlier one in its transaction
/// (25P02), for [`sent_together!`].
pub(crate) trait AbortedEcho {
    fn is_echo(&self) -> bool;
}

impl AbortedEcho for tokio_postgres::Error {
    fn is_echo(&self) -> bool {
        self.code() == Some(&tokio_postgres::error::SqlState::IN_FAILED_SQL_TRANSACTION)
    }
}

impl AbortedEcho for AppError {
    fn is_echo(&self) -> bool {
        self.is_transaction_aborted()
    }
}

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// How many times a transaction runs in all before a deadlock or
/// serialization failure is reported (as unavailable).
pub const MAX_ATTEMPTS: u32 = 4;

/// A bounded pool whose connections carry short lock and statement
/// timeouts, so no request can wait on the database for long.
pub fn build_pool(pg: tokio_postgres::Config, settings: &DbSettings) -> anyhow::Result<Pool> {
    build_named_pool(pg, settings, "seatmap")
}

/// [`build_pool`], its connections named `application_name` (in
/// `pg_stat_activity`, and to tell the live feed's connection apart).
pub fn build_named_pool(
    mut pg: tokio_postgres::Config,
    settings: &DbSettings,
    application_name: &str,
) -> anyhow::Result<Pool> {
    pg.options(format!(
        "-c lock_timeout={} -c statement_timeout={} -c idle_in_transaction_session_timeout=30000",
        settings.lock_timeout.as_millis(),
        settings.statement_timeout.as_millis()
    ))
    .application_name(application_name)
    .connect_timeout(Duration::from_secs(3));
    let manager = Manager::from_config(
        pg,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(settings.pool_size)
        .wait_timeout(Some(settings.pool_wait))
        .create_timeout(Some(Duration::from_secs(3)))
        .recycle_timeout(Some(Duration::from_secs(1)))
        .pre_recycle(outage::check_before_use())
        .post_create(outage::count_new_connection())
        .runtime(Runtime::Tokio1)
        .build()
        .context("building the database pool")
}

/// Applies pending migrations. An advisory lock keeps several instances
/// starting at once from racing each other.
pub async fn migrate(pool: &Pool) -> anyhow::Result<()> {
    let mut client = pool.get().await.context("connecting to run migrations")?;
    migrate_client(&mut client).await
}

/// [`migrate`] on a plain connection (tests migrate a template this way).
pub async fn migrate_client(client: &mut tokio_postgres::Client) -> anyhow::Result<()> {
    const MIGRATION_LOCK: i64 = 0x5ea7_3a90;
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    let outcome = embedded::migrations::runner()
        .run_async(client)
        .await
        .context("running migrations");
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await?;
    outcome.map(|_| ())
}

/// Creates `name` if the server doesn't have it (for the embedded cluster).
pub async fn ensure_database(admin: &tokio_postgres::Client, name: &str) -> anyhow::Result<()> {
    let exists = admin
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await?
        .is_some();
    if !exists {
        admin
            .batch_execute(&format!("CREATE DATABASE {}", quote_ident(name)))
            .await?;
    }
    Ok(())
}

/// Quotes an identifier for the few statements (CREATE/DROP DATABASE) that
/// can't take parameters.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Runs `attempt` again, a bounded number of times, when it fails with a
/// deadlock or serialization failure. Each attempt must be one whole
/// transaction, so re-running it is safe.
pub async fn retrying<T, F, Fut>(mut attempt: F) -> AppResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = AppResult<T>>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(err) if err.is_retryable() && tries < MAX_ATTEMPTS => {
                metrics::counter!(crate::observability::TRANSACTION_RETRIES).increment(1);
                tracing::info!(tries, error = %err, "retrying transaction");
                tokio::time::sleep(Duration::from_millis(5 * u64::from(tries))).await;
                tries += 1;
            }
            outcome => return outcome,
        }
    }
}

/// Makes the rest of the transaction run prepared statements on their
/// generic plans. PostgreSQL otherwise plans a statement afresh on every
/// call whenever its generic plan's estimate looks worse than a custom
/// one, as for a claim's `id = ANY($n)`: measured under a pick load, the
/// claim spent 0.61 ms planning for 0.25 ms running, every time. The
/// claim's statements name their states as literals (so partial indexes
/// still match) and look seats up by key: their generic plans are the
/// custom ones. Send it first in the transaction's first flight.
pub async fn generic_plans(tx: &impl GenericClient) -> AppResult<()> {
    tx.batch_execute("SET LOCAL plan_cache_mode = force_generic_plan")
        .await?;
    Ok(())
}

/// Runs `work` in a transaction on a pooled connection and ends it as the
/// work went (see [`finish`]).
pub async fn in_transaction<T>(
    pool: &Pool,
    work: impl AsyncFnOnce(&deadpool_postgres::Transaction<'_>) -> AppResult<T>,
) -> AppResult<T> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let outcome = work(&tx).await;
    finish(tx, outcome).await
}

/// Ends a transaction as its work went: commits on success, rolls back on
/// a refusal or failure. The rollback is awaited, so the connection goes
/// back to the pool clean and a refusal is answered only once its locks
/// are let go; if the rollback itself fails (the connection died), the
/// original error is what the caller gets.
async fn finish<T>(tx: deadpool_postgres::Transaction<'_>, outcome: AppResult<T>) -> AppResult<T> {
    match outcome {
        Ok(value) => {
            tx.commit().await?;
            Ok(value)
        }
        Err(err) => {
            if let Err(rollback) = tx.rollback().await {
                tracing::warn!(error = %rollback, "rolling back a refused transaction");
            }
            Err(err)
        }
    }
}

/// Prepares a flight's statements on this connection before they are
/// sent together. Statements awaited together (`tokio::join!`) go out in
/// the order written and PostgreSQL runs them in that order, one round
/// trip for all; but one not yet prepared on this connection waits for
/// its preparation while the others overtake it. Preparing first keeps
/// the written order on a new connection as on a warm one (where this
/// costs nothing: the statements are cached).
pub async fn prepare_together(client: &impl GenericClient, statements: &[&str]) -> AppResult<()> {
    let prepared = futures_util::future::join_all(
        statements
            .iter()
            .map(|statement| client.prepare_cached(statement)),
    )
    .await;
    for statement in prepared {
        statement?;
    }
    Ok(())
}

/// Whether the schema is as this binary expects: every embedded migration
/// applied. (Readiness: an instance of a newer build waits for its migrations.)
/// Whether the server takes writes (a primary), not a standby replaying one.
pub async fn is_primary(client: &impl GenericClient) -> AppResult<bool> {
    let in_recovery: bool = client
        .query_one("SELECT pg_is_in_recovery()", &[])
        .await?
        .get(0);
    Ok(!in_recovery)
}

pub async fn migrations_current(client: &impl GenericClient) -> AppResult<bool> {
    let expected = embedded::migrations::runner()
        .get_migrations()
        .iter()
        .map(|m| m.version())
        .max()
        .unwrap_or(0);
    let applied: Option<i32> = client
        .query_one("SELECT max(version) FROM refinery_schema_history", &[])
        .await?
        .get(0);
    Ok(applied.is_some_and(|v| i64::from(v) >= i64::from(expected)))
}
