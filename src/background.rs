//! The app's background work, started from one place
//! ([`crate::startup::Application::build`]) so that production and the
//! tests run the same set, and stopped in one stated order. Eight tasks:
//!
//! - the live feed (`db::live`), on a connection of its own: seat changes
//!   for the pages that follow them;
//! - the session sweeper: expired sessions deleted;
//! - the webhook sender (`webhooks`): the outbox's deliveries, signed;
//! - the mail worker (`mail`), when SMTP is configured;
//! - the waitlist's offers (`db::waitlist_offers`), unless turned off;
//! - the replica's lag measured (`db::replica`), when there is a replica;
//! - the payment worker (`payments`), when Stripe is configured: the
//!   queued calls to it (expire a session, refund);
//! - the waiting rooms' worker (`run_queues`): each second, the queues'
//!   figures read into this instance's board and an admission batch
//!   offered for each opened queue.

use std::time::Duration;

use tokio::task::JoinHandle;

use crate::config::Config;
use crate::db::database::Database;
use crate::db::live::LiveFeed;
use crate::db::{self, Pool};
use crate::domain::signed_link::OrderLinks;

/// The running background tasks of one instance.
pub struct Background {
    /// In the order they stop.
    tasks: Vec<(&'static str, JoinHandle<()>)>,
    live: LiveFeed,
    queues: std::sync::Arc<crate::db::queue_board::QueueBoard>,
}

impl Background {
    /// Starts the live feed (on a connection of its own), then the other
    /// seven tasks (those configured) on the workers' own pool.
    pub fn start(
        database: &Database,
        config: &Config,
        links: OrderLinks,
        payments: &crate::payments::Payments,
    ) -> anyhow::Result<Background> {
        let workers = &database.workers;
        // First what can fail (a bad SMTP URL), so a failure leaves nothing running.
        let mail = crate::mail::Worker::new(workers.clone(), &config.mail, links)?;
        let live = LiveFeed::start(
            database.pg_config.clone(),
            &config.db,
            config.live.poll_every,
        )?;
        let mut tasks = vec![
            (
                "session sweeper",
                tokio::spawn(sweep_sessions(workers.clone(), config.session_sweep_every)),
            ),
            (
                "webhook sender",
                tokio::spawn(crate::webhooks::Sender::new(workers.clone(), &config.webhooks).run()),
            ),
        ];
        if let Some(mail) = mail {
            tasks.push(("mail worker", tokio::spawn(mail.run())));
        }
        if let Some(every) = config.waitlist.every {
            tasks.push((
                "waitlist offers",
                tokio::spawn(offer_to_waitlists(
                    workers.clone(),
                    every,
                    config.waitlist.offer_for,
                )),
            ));
        }
        let queues = std::sync::Arc::new(crate::db::queue_board::QueueBoard::default());
        if let Some(every) = config.queue.every {
            tasks.push((
                "queue worker",
                tokio::spawn(run_queues(
                    workers.clone(),
                    queues.clone(),
                    every,
                    config.queue.clone(),
                    config.db.pool_size,
                )),
            ));
        }
        if let Some(replica) = &database.replica {
            tasks.push((
                "replica lag",
                tokio::spawn(replica.clone().measure_lag(database.pg_config.clone())),
            ));
        }
        if let Some(stripe) = &payments.stripe {
            let worker =
                crate::payments::Worker::new(workers.clone(), stripe.clone(), &config.payments);
            tasks.push(("payment worker", tokio::spawn(worker.run())));
        }
        Ok(Background {
            tasks,
            live,
            queues,
        })
    }

    /// The live feed, for the pages that follow it.
    pub fn live(&self) -> &LiveFeed {
        &self.live
    }

    /// The waiting rooms' figures the queue worker keeps.
    pub fn queues(&self) -> std::sync::Arc<crate::db::queue_board::QueueBoard> {
        self.queues.clone()
    }

    /// The worker tasks running, by name.
    pub fn running(&self) -> Vec<&'static str> {
        self.tasks
            .iter()
            .filter(|(_, task)| !task.is_finished())
            .map(|(name, _)| *name)
            .collect()
    }

    /// Stops everything, after the last request has been answered: first
    /// the workers (aborted together and awaited: a delivery or message
    /// mid-send is not lost, its lease runs out and a worker here or on
    /// another instance sends it again), then the live feed, whose polling
    /// would otherwise log the database's going as a failure. The pools
    /// close after this returns.
    pub async fn stop(mut self) {
        let tasks = std::mem::take(&mut self.tasks);
        // All aborted first: were this future dropped part-way, none is left running.
        for (_, task) in &tasks {
            task.abort();
        }
        for (name, task) in tasks {
            if let Err(err) = task.await
                && !err.is_cancelled()
            {
                tracing::error!(task = name, error = ?err, "background task failed");
            }
            tracing::debug!(task = name, "stopped");
        }
        self.live.stop();
    }
}

impl Drop for Background {
    /// An app built and never run leaves nothing running behind it.
    fn drop(&mut self) {
        for (_, task) in &self.tasks {
            task.abort();
        }
        self.live.stop();
    }
}

/// The waitlist's offer worker: each tick, one pass over every event
/// with parties waiting or offers out (`db::waitlist_offers::offer_pass`; an
/// event another instance is passing over is skipped, not waited for).
async fn offer_to_waitlists(pool: Pool, every: Duration, offer_for: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let events = match pool.get().await {
            Ok(client) => db::waitlist_offers::events_due(&client).await,
            Err(err) => Err(err.into()),
        };
        let events = match events {
            Ok(events) => events,
            Err(err) => {
                tracing::warn!(error = %err, "finding waitlists with work");
                continue;
            }
        };
        for event_id in events {
            match db::waitlist_offers::offer_pass(&pool, event_id, offer_for).await {
                Ok(pass) if !pass.offered.is_empty() || pass.lapsed > 0 => {
                    tracing::info!(
                        event_id = event_id.0,
                        offered = pass.offered.len(),
                        lapsed = pass.lapsed,
                        accepted = pass.accepted,
                        "waitlist pass"
                    );
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(event_id = event_id.0, error = %err, "waitlist pass"),
            }
        }
    }
}

/// The waiting rooms' worker: each tick, one read of every queue's figures
/// and new joins into the board (what waiting buyers are answered from),
/// then an admission batch offered for each opened queue (one statement;
/// the instance that gets the queue's row admits, the others skip it).
/// "auto" queues move their target by what this instance's claims measured
/// over the last few seconds (`domain::queue_pace`).
async fn run_queues(
    pool: Pool,
    board: std::sync::Arc<crate::db::queue_board::QueueBoard>,
    every: Duration,
    settings: crate::config::QueueSettings,
    pool_size: usize,
) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let sample = crate::observability::claim_meter().sample(std::time::Instant::now());
        let auto = db::queue::AutoStep {
            start_target: settings.auto_start_target,
            growth: crate::domain::queue_pace::growth(sample, settings.auto_claim_p95, pool_size),
        };
        if let Some(sample) = sample {
            metrics::gauge!(crate::observability::CLAIM_P95).set(sample.p95.as_secs_f64());
        }
        metrics::gauge!(crate::observability::QUEUE_AUTO_GROWTH).set(auto.growth);
        if let Err(err) = queue_tick(&pool, &board, auto, settings.first_claim).await {
            tracing::warn!(error = %err, "waiting room tick");
        }
    }
}

/// One tick of the queue worker (see [`run_queues`]); public for tests
/// that step it themselves. Admissions wait `first_claim` for their first
/// claim.
pub async fn queue_tick(
    pool: &Pool,
    board: &crate::db::queue_board::QueueBoard,
    auto: db::queue::AutoStep,
    first_claim: Duration,
) -> crate::error::AppResult<u64> {
    let read = {
        let client = pool.get().await?;
        db::queue::feed(&client, board.cursor()).await?
    };
    let now = time::OffsetDateTime::now_utc();
    let opened: Vec<_> = read
        .queues
        .iter()
        .filter(|q| q.spec.opens_at <= now)
        .map(|q| q.event_id)
        .collect();
    board.apply(read);
    let mut admitted = 0;
    // One queue's failure doesn't hold up the others' batches.
    for event_id in opened {
        match db::queue::admit_batch(pool, event_id, auto, first_claim).await {
            Ok(n) => {
                if n > 0 {
                    tracing::debug!(event_id = event_id.0, admitted = n, "queue batch");
                }
                admitted += n as u64;
            }
            Err(err) => tracing::warn!(event_id = event_id.0, error = %err, "queue batch"),
        }
    }
    Ok(admitted)
}

/// Expired session rows are harmless (loads ignore them) but would pile
/// up; so would `Idempotency-Key` answers past their 24 hours.
async fn sweep_sessions(pool: Pool, every: Duration) {
    let store = db::sessions::PgSessionStore::new(pool.clone());
    // The first sweep one period after start, not at once: a test that
    // plants an expired session must find it there.
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match store.delete_expired().await {
            Ok(deleted) => tracing::debug!(deleted, "expired sessions deleted"),
            Err(err) => tracing::warn!(error = %err, "deleting expired sessions"),
        }
        let swept = async { db::idempotency::sweep(&pool.get().await?).await };
        match swept.await {
            Ok(deleted) => tracing::debug!(deleted, "idempotency keys past 24 hours deleted"),
            Err(err) => tracing::warn!(error = %err, "deleting old idempotency keys"),
        }
    }
}
