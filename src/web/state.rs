//! What every handler shares: the pool, the configuration, the live feed,
//! the stream gate, and the shutdown signal.

use std::sync::Arc;

use tokio::sync::watch;

use crate::config::Config;
use crate::db::Pool;
use crate::db::live::LiveFeed;
use crate::domain::hold::HoldRules;
use crate::domain::signed_link::OrderLinks;
use crate::error::{AppError, AppResult};

#[derive(Clone)]
pub struct AppState {
    pub pool: Pool,
    pub config: Arc<Config>,
    /// Seat changes from every instance, for live pages.
    pub live: LiveFeed,
    /// Open live streams on this instance, in total and per address.
    pub live_streams: crate::server::AddressGate,
    pub links: Arc<OrderLinks>,
    /// Pooled connections public reads may hold at once (see `reads`).
    pub reads: Arc<crate::web::reads::ReadGate>,
    /// Hot events' seat maps, as anonymous viewers see them.
    pub seat_maps: Arc<crate::web::reads::SeatMapCache>,
    /// Seasons' maps as nobody's, per choice of nights, kept as events'
    /// maps are (40 nights of 1,038 seats cost 0.2–0.6 s a read).
    pub season_maps: Arc<crate::web::reads::SeatMapCache<crate::web::reads::SeasonMapKey>>,
    /// Ticket files being made, and order PDFs kept (see `ticket_files`).
    pub files: Arc<crate::web::file_work::FileWork>,
    /// The payment provider's client, when one is configured.
    pub payments: crate::payments::Payments,
    /// The streaming replica reads may go to, when one is configured.
    pub replica: Option<crate::db::replica::Replica>,
    /// The waiting rooms' figures, as this instance last read them.
    pub queues: Arc<crate::db::queue_board::QueueBoard>,
    /// Set when the app starts shutting down: long-lived streams end, so
    /// a graceful shutdown doesn't wait on them forever.
    shutdown: Arc<watch::Sender<bool>>,
}

/// See [`AppState::live_page_read`].
pub struct LivePageRead {
    pub client: deadpool_postgres::Object,
    pub event: crate::db::events::EventSummary,
    pub since: crate::db::snapshot::Snapshot,
    pub hold: Option<crate::domain::hold::Hold>,
}

/// How long a live page waits for the replica to replay past its cursor
/// before it is read from the primary instead.
const REPLAY_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

impl AppState {
    /// The rules a new or growing hold keeps, from the configuration.
    pub fn hold_rules(&self) -> HoldRules {
        HoldRules {
            ttl: self.config.hold_ttl,
            max_seats: self.config.max_seats_per_hold,
            max_holds_per_ip: self.config.limits.max_holds_per_ip,
            max_holds_per_key: self.config.limits.max_holds_per_key,
            share_seats: 0,
        }
    }

    pub fn new(pool: Pool, config: Config, live: LiveFeed, links: OrderLinks) -> AppState {
        let live_streams = crate::server::AddressGate::new(
            config.live.max_streams,
            config.live.max_streams_per_ip,
        );
        let reads = Arc::new(crate::web::reads::ReadGate::new(
            config.db.pool_size,
            config.limits.reads_per_ip,
        ));
        let seat_maps = Arc::new(crate::web::reads::SeatMapCache::new(
            config.seat_map_cache,
            Some(&live),
        ));
        let season_maps = Arc::new(crate::web::reads::SeatMapCache::new(
            config.seat_map_cache,
            Some(&live),
        ));
        AppState {
            pool,
            config: Arc::new(config),
            live,
            live_streams,
            links: Arc::new(links),
            reads,
            seat_maps,
            season_maps,
            files: Arc::default(),
            payments: crate::payments::Payments::default(),
            replica: None,
            queues: Arc::default(),
            shutdown: Arc::new(watch::channel(false).0),
        }
    }

    /// Sharing the queue worker's board.
    pub fn with_queues(mut self, queues: Arc<crate::db::queue_board::QueueBoard>) -> AppState {
        self.queues = queues;
        self
    }

    /// With reads that may be a moment behind going to a replica.
    pub fn with_replica(mut self, replica: Option<crate::db::replica::Replica>) -> AppState {
        self.replica = replica;
        self
    }

    /// A connection for a read that may be a moment behind (no viewer's
    /// own hold or order in it): the replica's when one is set up and
    /// caught up, else the primary's.
    pub async fn read_client(
        &self,
    ) -> AppResult<(deadpool_postgres::Object, crate::db::replica::ReadFrom)> {
        match &self.replica {
            Some(replica) => replica.client_for_read(&self.pool).await,
            None => Ok((
                self.pool.get().await?,
                crate::db::replica::ReadFrom::Primary,
            )),
        }
    }

    /// A connection for a read of an event that may be a moment behind
    /// (no viewer's own hold in it), and the event: see
    /// [`read_client`](Self::read_client). An event the replica doesn't
    /// have yet (made a moment ago) is looked for on the primary before it
    /// is called missing.
    pub async fn event_read_client(
        &self,
        event_id: crate::domain::ids::EventId,
    ) -> AppResult<(
        deadpool_postgres::Object,
        crate::db::events::EventSummary,
        crate::db::replica::ReadFrom,
    )> {
        use crate::db::replica::ReadFrom;
        let (client, from) = self.read_client().await?;
        match crate::db::events::find(&client, event_id).await? {
            Some(event) => Ok((client, event, from)),
            None if from == ReadFrom::Replica => {
                let primary = self.pool.get().await?;
                let event = crate::db::events::find(&primary, event_id)
                    .await?
                    .ok_or(AppError::NotFound(crate::error::Missing::Event))?;
                Ok((primary, event, ReadFrom::Primary))
            }
            None => Err(AppError::NotFound(crate::error::Missing::Event)),
        }
    }

    /// What a live page of an event (its map, its list) is read from, for
    /// `buyer`: the buyer's live hold, looked up on the primary; the
    /// page's live-feed cursor, taken on the primary; and a connection to
    /// read the rest on. That is the replica's when the buyer holds
    /// nothing there and the replica has replayed past the cursor (so the
    /// feed sends the page every change its rows miss; a replica's own
    /// snapshot can't serve as the cursor, since it doesn't list the
    /// primary's transactions in progress); else the primary's.
    pub async fn live_page_read(
        &self,
        event_id: crate::domain::ids::EventId,
        buyer: Option<crate::domain::ids::BuyerId>,
    ) -> AppResult<LivePageRead> {
        use crate::db::{events, holds, replica::ReadFrom, snapshot};
        let missing = || AppError::NotFound(crate::error::Missing::Event);
        let primary = self.pool.get().await?;
        let hold = match buyer {
            Some(buyer_id) => holds::live_for_buyer(&primary, event_id, buyer_id).await?,
            None => None,
        };
        let mut since = None;
        if let Some(replica) = self.replica.as_ref().filter(|r| r.caught_up())
            && hold.is_none()
        {
            let (cursor, position) = snapshot::snapshot_now_with_wal_position(&primary).await?;
            let (client, from) = replica.client_unrecorded(&self.pool).await?;
            if from == ReadFrom::Replica
                && crate::db::replica::has_replayed(&client, position, REPLAY_WAIT).await?
                && let Some(event) = events::find(&client, event_id).await?
            {
                replica.record(ReadFrom::Replica);
                return Ok(LivePageRead {
                    client,
                    event,
                    since: cursor,
                    hold,
                });
            }
            // Behind, or without the event yet: the primary, with the same
            // cursor (taken before any of the page's reads).
            replica.record(ReadFrom::Primary);
            since = Some(cursor);
        }
        let event = events::find(&primary, event_id)
            .await?
            .ok_or_else(missing)?;
        // The cursor first: a change landing while the seats are read is
        // then resent by the live feed rather than missed.
        let since = match since {
            Some(cursor) => cursor,
            None => snapshot::snapshot_now(&primary).await?,
        };
        Ok(LivePageRead {
            client: primary,
            event,
            since,
            hold,
        })
    }

    /// With the payment provider's client (built once, at start-up).
    pub fn with_payments(mut self, payments: crate::payments::Payments) -> AppState {
        self.payments = payments;
        self
    }

    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    /// Resolves once shutdown has begun.
    pub async fn shutting_down(&self) {
        let mut receiver = self.shutdown.subscribe();
        let _ = receiver.wait_for(|down| *down).await;
    }
}
