//! The live feed: one `LISTEN seat_changes` connection per app instance.
//! The seats trigger notifies in the changing transaction, so every
//! instance hears every committed change. Each batch of notifications is
//! turned into the changed seats with one query per event, and broadcast to
//! this instance's open pages (see `web::live`), which render them per viewer.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tokio_postgres::{AsyncMessage, NoTls};

use super::{Pool, seats};

/// Changes to one event's seats, or (with `event_id` None) a signal that
/// notifications may have been missed and every page must catch up.
#[derive(Debug)]
pub struct SeatChanges {
    pub event_id: Option<i64>,
    /// Viewer-neutral seats; None when too many changed to list, and pages
    /// catch up by version instead.
    pub seats: Option<Vec<seats::Seat>>,
}

#[derive(Clone)]
pub struct LiveFeed {
    sender: broadcast::Sender<Arc<SeatChanges>>,
}

#[derive(Deserialize)]
struct Payload {
    event_id: i64,
    seat_ids: Option<Vec<i64>>,
}

/// How many batches a slow page may fall behind before it catches up from
/// the database instead.
const FEED_CAPACITY: usize = 256;

impl LiveFeed {
    /// Starts listening in the background, reconnecting after failures.
    pub fn start(pg_config: tokio_postgres::Config, pool: Pool) -> LiveFeed {
        let (sender, _) = broadcast::channel(FEED_CAPACITY);
        let feed = LiveFeed { sender };
        tokio::spawn(listen_forever(pg_config, pool, feed.sender.clone()));
        feed
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<SeatChanges>> {
        self.sender.subscribe()
    }
}

async fn listen_forever(
    pg_config: tokio_postgres::Config,
    pool: Pool,
    sender: broadcast::Sender<Arc<SeatChanges>>,
) {
    loop {
        if let Err(err) = listen(&pg_config, &pool, &sender).await {
            tracing::warn!(error = %err, "live feed disconnected; reconnecting");
        }
        // Whatever was committed while we weren't listening was never heard.
        let _ = sender.send(Arc::new(SeatChanges {
            event_id: None,
            seats: None,
        }));
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn listen(
    pg_config: &tokio_postgres::Config,
    pool: &Pool,
    sender: &broadcast::Sender<Arc<SeatChanges>>,
) -> anyhow::Result<()> {
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
    // Pages connected while we were away must catch up.
    let _ = sender.send(Arc::new(SeatChanges {
        event_id: None,
        seats: None,
    }));

    while let Some(first) = incoming.recv().await {
        // Take everything already waiting, so a burst costs one query per event.
        let mut by_event: BTreeMap<i64, Option<Vec<i64>>> = BTreeMap::new();
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
            let entry = by_event.entry(payload.event_id).or_insert(Some(Vec::new()));
            match (entry.as_mut(), payload.seat_ids) {
                (Some(ids), Some(more)) => ids.extend(more),
                _ => *entry = None,
            }
        }
        let db = pool.get().await?;
        for (event_id, ids) in by_event {
            let seats = match ids {
                Some(mut ids) => {
                    ids.sort_unstable();
                    ids.dedup();
                    Some(seats::by_ids(&db, event_id, &ids, None).await?)
                }
                None => None,
            };
            let _ = sender.send(Arc::new(SeatChanges {
                event_id: Some(event_id),
                seats,
            }));
        }
    }
    drop(client);
    driver.await??;
    Ok(())
}
