//! The live feed: one `LISTEN seat_changes` connection per app instance.
//! The seats trigger notifies in the changing transaction, so every
//! instance hears every committed change. Each batch of notifications is
//! turned into the changed seats with one query per event, and broadcast to
//! this instance's open pages (see `web::buyer::live`), which render them per viewer.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tokio_postgres::{AsyncMessage, NoTls};

use super::{Pool, ga, seats};
use crate::domain::ids::{EventId, SeatId};
use crate::domain::seat::SeatIds;

/// Changes to one event's seats, or (with `event_id` None) a signal that
/// notifications may have been missed and every page must catch up.
#[derive(Debug)]
pub struct SeatChanges {
    pub event_id: Option<EventId>,
    /// Viewer-neutral seats; None when too many changed to list, and pages
    /// catch up by version instead.
    pub seats: Option<Vec<seats::Seat>>,
    /// The event's GA areas as they are now (viewer-neutral), when any of
    /// their counters changed; None otherwise.
    pub ga_areas: Option<Vec<ga::GaAreaView>>,
}

#[derive(Clone)]
pub struct LiveFeed {
    sender: broadcast::Sender<Arc<SeatChanges>>,
    reads: Arc<FeedReads>,
}

/// How often seats were read to serve live pages: by the feed for a change
/// too big to list (once per event), and by single pages catching up.
#[derive(Default)]
pub struct FeedReads {
    feed_catch_ups: AtomicU64,
    page_catch_ups: AtomicU64,
}

#[derive(Deserialize)]
struct Payload {
    event_id: EventId,
    #[serde(default)]
    seat_ids: Option<Vec<SeatId>>,
    /// A GA area's counters changed (and no seat did).
    #[serde(default)]
    ga: bool,
}

/// What one event's notifications in a batch add up to.
struct EventBatch {
    /// None: too many to list, catch up by version.
    seat_ids: Option<Vec<SeatId>>,
    ga_changed: bool,
}

/// A cursor version no seat reaches: `changed_since` then goes by time alone.
const UNSET_VERSION: i64 = i64::MAX;

/// How many batches a slow page may fall behind before it catches up from
/// the database instead.
const FEED_CAPACITY: usize = 256;

impl LiveFeed {
    /// Starts listening in the background, reconnecting after failures.
    pub fn start(pg_config: tokio_postgres::Config, pool: Pool) -> LiveFeed {
        let (sender, _) = broadcast::channel(FEED_CAPACITY);
        let feed = LiveFeed {
            sender,
            reads: Arc::default(),
        };
        tokio::spawn(listen_forever(pg_config, pool, feed.clone()));
        feed
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<SeatChanges>> {
        self.sender.subscribe()
    }

    pub fn count_page_catch_up(&self) {
        self.reads.page_catch_ups.fetch_add(1, Ordering::Relaxed);
    }

    /// (reads by the feed for big changes, reads by single pages) so far.
    pub fn catch_up_reads(&self) -> (u64, u64) {
        (
            self.reads.feed_catch_ups.load(Ordering::Relaxed),
            self.reads.page_catch_ups.load(Ordering::Relaxed),
        )
    }
}

async fn listen_forever(pg_config: tokio_postgres::Config, pool: Pool, feed: LiveFeed) {
    let sender = &feed.sender;
    loop {
        if let Err(err) = listen(&pg_config, &pool, &feed).await {
            tracing::warn!(error = %err, "live feed disconnected; reconnecting");
        }
        // Whatever was committed while we weren't listening was never heard.
        let _ = sender.send(Arc::new(SeatChanges {
            event_id: None,
            seats: None,
            ga_areas: None,
        }));
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn listen(
    pg_config: &tokio_postgres::Config,
    pool: &Pool,
    feed: &LiveFeed,
) -> anyhow::Result<()> {
    let sender = &feed.sender;
    let (client, mut connection) = pg_config.connect(NoTls).await?;
    let (notices, mut incoming) = mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            if let AsyncMessage::Notification(notification) = message? {
                if notices.send(notification).is_err() {
                    break;
                }
            }
        }
        Ok::<_, tokio_postgres::Error>(())
    });
    client.batch_execute("LISTEN seat_changes").await?;
    tracing::info!("live feed listening");
    // What this feed has sent of each event, to read a change too big to
    // list from there, once, for every page. Before the first read of an
    // event: anything changed since we started listening, by the
    // database's clock (the version can't say "since then": it is unset).
    let listening_since = seats::Cursor {
        version: UNSET_VERSION,
        at: client
            .query_one("SELECT clock_timestamp()", &[])
            .await?
            .get(0),
    };
    let mut sent: HashMap<EventId, seats::Cursor> = HashMap::new();
    // Pages connected while we were away must catch up.
    let _ = sender.send(Arc::new(SeatChanges {
        event_id: None,
        seats: None,
        ga_areas: None,
    }));

    while let Some(first) = incoming.recv().await {
        // Take everything already waiting, so a burst costs one query per event.
        let mut by_event: BTreeMap<EventId, EventBatch> = BTreeMap::new();
        let mut batch = vec![first];
        while let Ok(more) = incoming.try_recv() {
            batch.push(more);
        }
        for notification in batch {
            let Ok(payload) = serde_json::from_str::<Payload>(notification.payload()) else {
                tracing::warn!(
                    payload = notification.payload(),
                    "unreadable seat notification"
                );
                continue;
            };
            let entry = by_event.entry(payload.event_id).or_insert(EventBatch {
                seat_ids: Some(Vec::new()),
                ga_changed: false,
            });
            if payload.ga {
                entry.ga_changed = true;
                continue;
            }
            match (entry.seat_ids.as_mut(), payload.seat_ids) {
                (Some(ids), Some(more)) => ids.extend(more),
                _ => entry.seat_ids = None,
            }
        }
        let db = pool.get().await?;
        for (event_id, changed) in by_event {
            let seats = match changed.seat_ids {
                Some(ids) => {
                    let ids = SeatIds::new(ids);
                    seats::by_ids(&db, event_id, &ids, None).await?
                }
                None => {
                    feed.reads.feed_catch_ups.fetch_add(1, Ordering::Relaxed);
                    let from = sent.get(&event_id).copied().unwrap_or(listening_since);
                    seats::changed_since(&db, event_id, from).await?
                }
            };
            let mark = sent.entry(event_id).or_insert(listening_since);
            for seat in &seats {
                mark.version = match mark.version {
                    UNSET_VERSION => seat.version,
                    version => version.max(seat.version),
                };
                mark.at = mark.at.max(seat.changed_at);
            }
            let seats = Some(seats);
            let ga_areas = match changed.ga_changed {
                true => Some(ga::areas(&db, event_id, None).await?),
                false => None,
            };
            let _ = sender.send(Arc::new(SeatChanges {
                event_id: Some(event_id),
                seats,
                ga_areas,
            }));
        }
    }
    drop(client);
    driver.await??;
    Ok(())
}
