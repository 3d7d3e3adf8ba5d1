//! The live feed. Each app instance polls PostgreSQL for committed changes
//! to seats and GA areas, on its own connection, and broadcasts them to
//! this instance's open pages (see `web::buyer::live`), which render them
//! per viewer.
//!
//! Nothing happens in the changing transaction but the seats trigger
//! stamping the row with its transaction id (`changed_xid`, see migration
//! V8): no NOTIFY, whose database-wide lock would make every claim, release
//! and purchase commit one at a time. The feed's cursor is a snapshot: each
//! poll asks for the rows whose transaction is visible now but was not in
//! the previous poll's snapshot. That is commit order, so a transaction
//! that commits late is found; each change is found once; and a feed that
//! loses its connection resumes from the same snapshot, missing nothing.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{broadcast, watch};

use super::snapshot::{Snapshot, snapshot_now};
use super::{GenericClient, Pool, ga, seats};
use crate::config::DbSettings;
use crate::domain::ids::{EventId, SeatId};
use crate::domain::seat::Seat;
use crate::error::AppResult;
use crate::observability as obs;

/// Changes to one event's seats and GA areas, as they are now.
#[derive(Debug)]
pub struct SeatChanges {
    pub event_id: EventId,
    /// Every change committed before this snapshot has been sent (a page
    /// that has applied this message can resume from here).
    pub through: Snapshot,
    /// The changed seats, viewer-neutral ("held", never "mine").
    pub seats: Vec<Seat>,
    /// The event's GA areas as they are now (viewer-neutral), when any of
    /// their counters changed; None otherwise.
    pub ga_areas: Option<Vec<ga::GaAreaView>>,
}

#[derive(Clone)]
pub struct LiveFeed {
    sender: broadcast::Sender<Arc<SeatChanges>>,
    /// Bumped when the feed takes its first snapshot. Pages opened before
    /// that (the database was down when the app started, say) catch up
    /// from their own cursors, since the feed only sends what committed
    /// after its first snapshot.
    resync: Arc<watch::Sender<u64>>,
    reads: Arc<FeedReads>,
    /// Set when the app shuts down: polling ends quietly.
    stopped: Arc<watch::Sender<bool>>,
}

/// How often seats were read to serve live pages: by the feed (once per
/// changed event per poll, for every page) and by single pages catching up.
#[derive(Default)]
pub struct FeedReads {
    feed_reads: AtomicU64,
    page_catch_ups: AtomicU64,
}

/// How many batches a slow page may fall behind before it catches up from
/// the database instead.
const FEED_CAPACITY: usize = 256;

/// What committed between two snapshots.
#[derive(Debug, PartialEq)]
pub struct Committed {
    /// The snapshot to ask from next time.
    pub snapshot: Snapshot,
    /// Changed seats, by event, in id order.
    pub seats: BTreeMap<EventId, Vec<SeatId>>,
    /// Events with a changed GA area.
    pub ga_events: Vec<EventId>,
}

/// The seats and GA areas changed by transactions that committed after
/// `since` was taken (and before now), with the snapshot to ask from next.
/// One statement, so the new snapshot and the rows agree. Rows a
/// transaction changed twice are named once, and a row changed by a
/// transaction still running is not named until it commits.
pub async fn committed_since(
    client: &impl GenericClient,
    since: &Snapshot,
) -> AppResult<Committed> {
    let statement = client
        .prepare_cached(
            // The snapshot is the parameter itself, not a CTE's column:
            // joined to a CTE, the planner walked the whole changed_xid
            // index (every seat ever changed: 7,224 entries, 9.5 ms a poll
            // under a pick load) instead of the range since `xmin`.
            "WITH changed AS (
                      SELECT id, event_id FROM seats
                       WHERE changed_xid >= pg_snapshot_xmin($1::text::pg_snapshot)
                         AND NOT pg_visible_in_snapshot(changed_xid, $1::text::pg_snapshot))
             SELECT pg_current_snapshot()::text,
                    (SELECT array_agg(id ORDER BY id) FROM changed),
                    (SELECT array_agg(event_id ORDER BY id) FROM changed),
                    (SELECT array_agg(DISTINCT event_id) FROM ga_areas
                      WHERE changed_xid >= pg_snapshot_xmin($1::text::pg_snapshot)
                        AND NOT pg_visible_in_snapshot(changed_xid, $1::text::pg_snapshot))",
        )
        .await?;
    let row = client.query_one(&statement, &[&since.as_str()]).await?;
    let seat_ids: Option<Vec<SeatId>> = row.get(1);
    let seat_events: Option<Vec<EventId>> = row.get(2);
    let mut by_event: BTreeMap<EventId, Vec<SeatId>> = BTreeMap::new();
    for (seat_id, event_id) in seat_ids
        .unwrap_or_default()
        .into_iter()
        .zip(seat_events.unwrap_or_default())
    {
        by_event.entry(event_id).or_default().push(seat_id);
    }
    Ok(Committed {
        snapshot: Snapshot::from_database(row.get(0)),
        seats: by_event,
        ga_events: row.get::<_, Option<Vec<EventId>>>(3).unwrap_or_default(),
    })
}

impl LiveFeed {
    /// Starts polling every `poll_every` in the background, on a connection
    /// of its own (so a busy pool never delays live pages), reconnecting
    /// after failures.
    pub fn start(
        pg_config: tokio_postgres::Config,
        settings: &DbSettings,
        poll_every: Duration,
    ) -> anyhow::Result<LiveFeed> {
        let own = DbSettings {
            pool_size: 1,
            ..settings.clone()
        };
        let pool = super::build_named_pool(pg_config, &own, "seatmap-live")?;
        let (sender, _) = broadcast::channel(FEED_CAPACITY);
        let feed = LiveFeed {
            sender,
            resync: Arc::new(watch::channel(0).0),
            reads: Arc::default(),
            stopped: Arc::new(watch::channel(false).0),
        };
        tokio::spawn(poll_forever(pool, feed.clone(), poll_every));
        Ok(feed)
    }

    /// Ends polling (at shutdown, before the database stops).
    pub fn stop(&self) {
        self.stopped.send_replace(true);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<SeatChanges>> {
        self.sender.subscribe()
    }

    /// Changes when every open page must catch up from its own cursor.
    pub fn resyncs(&self) -> watch::Receiver<u64> {
        self.resync.subscribe()
    }

    pub fn count_page_catch_up(&self) {
        self.reads.page_catch_ups.fetch_add(1, Ordering::Relaxed);
    }

    /// (reads by the feed, reads by single pages) so far.
    pub fn catch_up_reads(&self) -> (u64, u64) {
        (
            self.reads.feed_reads.load(Ordering::Relaxed),
            self.reads.page_catch_ups.load(Ordering::Relaxed),
        )
    }
}

async fn poll_forever(pool: Pool, feed: LiveFeed, poll_every: Duration) {
    // Taken once: after a failure the feed goes on from where it was.
    let mut since: Option<Snapshot> = None;
    let mut ticks = tokio::time::interval(poll_every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    let mut stopped = feed.stopped.subscribe();
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = stopped.wait_for(|stopped| *stopped) => return,
        }
        let started = std::time::Instant::now();
        let outcome = poll(&pool, &feed, &mut since).await;
        metrics::histogram!(obs::LIVE_POLL_DURATION).record(started.elapsed().as_secs_f64());
        if outcome.is_err() {
            metrics::counter!(obs::LIVE_POLL_FAILURES).increment(1);
        }
        match outcome {
            Ok(()) if failing => {
                tracing::info!("live feed polling again");
                failing = false;
            }
            Ok(()) => {}
            Err(err) => {
                if !failing {
                    tracing::warn!(error = %err.for_log(), "live feed poll failed; retrying");
                }
                if *feed.stopped.borrow() {
                    return;
                }
                failing = true;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

async fn poll(pool: &Pool, feed: &LiveFeed, since: &mut Option<Snapshot>) -> AppResult<()> {
    let client = pool.get().await?;
    let Some(from) = since.as_ref() else {
        *since = Some(snapshot_now(&client).await?);
        feed.resync.send_modify(|generation| *generation += 1);
        tracing::info!("live feed polling");
        return Ok(());
    };
    let committed = committed_since(&client, from).await?;
    let mut events: BTreeMap<EventId, (Vec<SeatId>, bool)> = committed
        .seats
        .into_iter()
        .map(|(event_id, ids)| (event_id, (ids, false)))
        .collect();
    for event_id in committed.ga_events {
        events.entry(event_id).or_default().1 = true;
    }
    for (event_id, (seat_ids, ga_changed)) in events {
        let seats = match seat_ids.is_empty() {
            true => Vec::new(),
            false => {
                feed.reads.feed_reads.fetch_add(1, Ordering::Relaxed);
                seats::by_ids(&client, event_id, &seat_ids, None).await?
            }
        };
        let ga_areas = match ga_changed {
            true => Some(ga::areas(&client, event_id, None).await?),
            false => None,
        };
        let _ = feed.sender.send(Arc::new(SeatChanges {
            event_id,
            through: committed.snapshot.clone(),
            seats,
            ga_areas,
        }));
    }
    // Only once everything up to it has been sent: a failure above polls
    // the same span again (a page may get a seat twice, never zero times).
    *since = Some(committed.snapshot);
    Ok(())
}
