//! Serving: the app bound and wired, its background work running, until a
//! signal; the other commands are in `cli`.

use tokio::net::TcpListener;

use crate::app::{AppState, build_router};
use crate::background::Background;
use crate::config::Config;
use crate::db;
use crate::db::database::Database;
use crate::domain::signed_link::OrderLinks;

/// The app, bound and wired, its background work running, ready to serve:
/// what `serve`, the tests and the benchmarks all run.
pub struct Application {
    pub addr: std::net::SocketAddr,
    pub state: AppState,
    listener: TcpListener,
    background: Background,
}

impl Application {
    /// Binds `config.addr` and starts this instance's background work
    /// ([`Background::start`]: the live feed, then the workers).
    pub async fn build(config: Config, database: &Database) -> anyhow::Result<Application> {
        let listener = match TcpListener::bind(config.addr).await {
            Ok(listener) => listener,
            Err(err) if err.kind() == std::io::ErrorKind::AddrInUse => anyhow::bail!(
                "{} is already in use (another seatmap, perhaps). Set SEATMAP_ADDR to another \
                 address, for example SEATMAP_ADDR=127.0.0.1:3001",
                config.addr
            ),
            Err(err) => {
                return Err(anyhow::Error::new(err).context(format!(
                    "listening on {} (set SEATMAP_ADDR to change it)",
                    config.addr
                )));
            }
        };
        let addr = listener.local_addr()?;
        let links = OrderLinks {
            key: db::secrets::order_link_key(&database.pool.get().await?).await?,
            public_url: config
                .public_url
                .clone()
                .unwrap_or_else(|| format!("http://{addr}")),
        };
        let payments = crate::payments::Payments::from_settings(&config.payments)?;
        let background = Background::start(database, &config, links.clone(), &payments)?;
        let state = AppState::new(
            database.pool.clone(),
            config,
            background.live().clone(),
            links,
        )
        .with_payments(payments)
        .with_replica(database.replica.clone())
        .with_queues(background.queues());
        Ok(Application {
            addr,
            state,
            listener,
            background,
        })
    }

    /// The background tasks running now, by name.
    pub fn background_running(&self) -> Vec<&'static str> {
        self.background.running()
    }

    /// Serves until `shutdown` resolves, ends live streams and drains
    /// requests for at most the configured grace period, then stops the
    /// background work ([`Background::stop`] says in what order).
    pub async fn run_until(self, shutdown: impl std::future::Future<Output = ()> + Send) {
        let state = self.state.clone();
        let limits = state.config.server.clone();
        crate::web::assets::prepare_all();
        let router = build_router(self.state);
        crate::server::serve(self.listener, router, limits, async move {
            shutdown.await;
            // Live pages' streams would otherwise keep the drain waiting.
            state.begin_shutdown();
        })
        .await;
        self.background.stop().await;
    }
}

/// Runs the web app until SIGINT or SIGTERM, then drains and shuts down:
/// requests, then background work, then the database.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let database = Database::connect(&config).await?;
    if database.is_embedded() {
        let event_id = db::demo::seed_demo(&database.pool).await?;
        let arena_id = db::demo::seed_arena(&database.pool, &config.queue).await?;
        let matinee_id = db::demo::seed_offer_demo(&database.pool).await?;
        let season_id = db::demo::seed_season_demo(&database.pool).await?;
        tracing::info!(%event_id, %arena_id, %matinee_id, %season_id, "demo events ready");
    }
    let app = Application::build(config, &database).await?;
    println!("seatmap is running at http://{}/", app.addr);
    app.run_until(shutdown_signal()).await;
    database.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("installing the SIGTERM handler");
    tokio::select! {
        _ = interrupt => {},
        _ = terminate.recv() => {},
    }
    tracing::info!("shutting down: draining requests");
}
