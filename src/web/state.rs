//! What every handler shares: the pool, the configuration, the live feed,
//! the stream gate, and the shutdown signal.

use std::sync::Arc;

use tokio::sync::watch;

use crate::config::Config;
use crate::db::Pool;
use crate::db::live::LiveFeed;
use crate::domain::signed_link::OrderLinks;

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
    /// The payment provider's client, when one is configured.
    pub payments: crate::payments::Payments,
    /// Set when the app starts shutting down: long-lived streams end, so
    /// a graceful shutdown doesn't wait on them forever.
    shutdown: Arc<watch::Sender<bool>>,
}

impl AppState {
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
        AppState {
            pool,
            config: Arc::new(config),
            live,
            live_streams,
            links: Arc::new(links),
            reads,
            seat_maps,
            payments: crate::payments::Payments::default(),
            shutdown: Arc::new(watch::channel(false).0),
        }
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
