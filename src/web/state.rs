//! What every handler shares: the pool, the configuration, the live feed,
//! the stream gate, and the shutdown signal.

use std::sync::Arc;

use tokio::sync::watch;

use crate::config::Config;
use crate::db::Pool;
use crate::db::live::LiveFeed;

#[derive(Clone)]
pub struct AppState {
    pub pool: Pool,
    pub config: Arc<Config>,
    /// Seat changes from every instance, for live pages.
    pub live: LiveFeed,
    /// Open live streams on this instance, in total and per address.
    pub live_streams: crate::server::AddressGate,
    /// Set when the app starts shutting down: long-lived streams end, so
    /// a graceful shutdown doesn't wait on them forever.
    shutdown: Arc<watch::Sender<bool>>,
}

impl AppState {
    pub fn new(pool: Pool, config: Config, live: LiveFeed) -> AppState {
        let live_streams = crate::server::AddressGate::new(
            config.live.max_streams,
            config.live.max_streams_per_ip,
        );
        AppState {
            pool,
            config: Arc::new(config),
            live,
            live_streams,
            shutdown: Arc::new(watch::channel(false).0),
        }
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
