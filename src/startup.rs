//! Connecting to the configured database (or starting the embedded one),
//! and serving until a signal; the other commands are in `cli`.

use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;

use crate::app::{AppState, build_router};
use crate::config::{Config, DatabaseSource};
use crate::db::live::LiveFeed;
use crate::db::{self, Pool};
use pg_embedded::{Durability, PgCluster};
use crate::web::state::OrderLinks;

const EMBEDDED_DATABASE: &str = "seatmap";
/// The mail worker, the webhook sender and the session sweeper share these.
const WORKER_CONNECTIONS: usize = 2;

/// The pools, and the embedded cluster behind them when there is one.
pub struct Database {
    /// Requests' connections.
    pub pool: Pool,
    /// The background workers' (mail, webhooks, the session sweeper): a
    /// pool of their own, so they never take a request's connection nor
    /// wait behind a flood of requests, and a request's round trips are
    /// its own (`application_name` "seatmap-worker").
    pub workers: Pool,
    /// How to open connections of our own (the live feed's).
    pub pg_config: tokio_postgres::Config,
    cluster: Option<PgCluster>,
}

impl Database {
    pub async fn connect(config: &Config) -> anyhow::Result<Database> {
        let (pg_config, cluster) = match &config.database {
            DatabaseSource::Url(url) => {
                let pg_config: tokio_postgres::Config = url
                    .expose()
                    .parse()
                    .context("DATABASE_URL is not a valid PostgreSQL connection string")?;
                (pg_config, None)
            }
            DatabaseSource::Embedded { data_dir } => {
                let pg_data = match data_dir {
                    Some(dir) => dir.join("pgdata"),
                    None => pg_embedded::default_data_dir()?,
                };
                let shown = pg_data.display().to_string();
                let cluster = tokio::task::spawn_blocking(move || {
                    PgCluster::start(&pg_data, Durability::Durable)
                })
                .await??;
                if cluster.attached() {
                    tracing::info!(data_dir = %shown, "using the embedded PostgreSQL already running");
                } else {
                    tracing::info!(data_dir = %shown, "embedded PostgreSQL started");
                }
                let (admin, connection) = cluster
                    .connect_config("postgres")
                    .connect(tokio_postgres::NoTls)
                    .await
                    .context("connecting to the embedded PostgreSQL")?;
                let connection = tokio::spawn(connection);
                db::ensure_database(&admin, EMBEDDED_DATABASE).await?;
                drop(admin);
                let _ = connection.await;
                (cluster.connect_config(EMBEDDED_DATABASE), Some(cluster))
            }
        };
        let pool = db::build_pool(pg_config.clone(), &config.db)?;
        let workers = db::build_named_pool(
            pg_config.clone(),
            &crate::config::DbSettings {
                pool_size: WORKER_CONNECTIONS,
                ..config.db.clone()
            },
            "seatmap-worker",
        )?;
        db::migrate(&pool).await?;
        Ok(Database {
            pool,
            workers,
            pg_config,
            cluster,
        })
    }

    pub fn is_embedded(&self) -> bool {
        self.cluster.is_some()
    }

    /// Closes the pools and stops the embedded cluster, if any.
    pub async fn shutdown(self) {
        self.pool.close();
        self.workers.close();
        if let Some(cluster) = self.cluster.filter(|cluster| !cluster.attached()) {
            match tokio::task::spawn_blocking(move || cluster.stop()).await {
                Ok(Ok(())) => tracing::info!("embedded PostgreSQL stopped"),
                Ok(Err(err)) => tracing::error!(error = ?err, "stopping the embedded PostgreSQL"),
                Err(err) => tracing::error!(error = ?err, "stopping the embedded PostgreSQL"),
            }
        }
    }
}

/// The app, bound and wired, ready to serve: what `serve`, the tests and
/// the benchmarks all run.
pub struct Application {
    pub addr: std::net::SocketAddr,
    pub state: AppState,
    listener: TcpListener,
    /// Sends the outbox while the app serves (None without SMTP).
    mail_worker: Option<crate::mail::Worker>,
    workers: Pool,
}

impl Application {
    /// Binds `config.addr` and starts this instance's live feed.
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
        let live = LiveFeed::start(
            database.pg_config.clone(),
            &config.db,
            config.live.poll_every,
        )?;
        let links = OrderLinks {
            key: db::secrets::order_link_key(&database.pool.get().await?).await?,
            public_url: config
                .public_url
                .clone()
                .unwrap_or_else(|| format!("http://{addr}")),
        };
        let mail_worker =
            crate::mail::Worker::new(database.workers.clone(), &config.mail, links.clone())?;
        let state = AppState::new(database.pool.clone(), config, live, links);
        Ok(Application {
            addr,
            state,
            listener,
            mail_worker,
            workers: database.workers.clone(),
        })
    }

    /// Serves until `shutdown` resolves, then ends live streams and drains
    /// requests for at most the configured grace period.
    pub async fn run_until(self, shutdown: impl std::future::Future<Output = ()> + Send) {
        let state = self.state.clone();
        let limits = state.config.server.clone();
        let mail = self.mail_worker.map(|worker| tokio::spawn(worker.run()));
        let webhooks = tokio::spawn(
            crate::webhooks::Sender::new(self.workers.clone(), &state.config.webhooks).run(),
        );
        let live = state.live.clone();
        crate::web::assets::prepare_all();
        let router = build_router(self.state);
        crate::server::serve(self.listener, router, limits, async move {
            shutdown.await;
            // Live pages' streams would otherwise keep the drain waiting.
            state.begin_shutdown();
        })
        .await;
        // A message mid-send is not lost: its lease runs out and the next
        // worker (here or on another instance) sends it again.
        if let Some(mail) = mail {
            mail.abort();
        }
        webhooks.abort();
        // Before the database goes: a feed still polling would log the
        // shutdown as a failure.
        live.stop();
    }
}

/// Runs the web app until SIGINT or SIGTERM, then drains and shuts down.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let database = Database::connect(&config).await?;
    if database.is_embedded() {
        let event_id = db::demo::seed_demo(&database.pool).await?;
        let arena_id = db::demo::seed_arena(&database.pool).await?;
        tracing::info!(%event_id, %arena_id, "demo events ready");
    }
    let sweeper = tokio::spawn(sweep_sessions(database.workers.clone()));
    let app = Application::build(config, &database).await?;
    println!("seatmap is running at http://{}/", app.addr);
    app.run_until(shutdown_signal()).await;
    sweeper.abort();
    database.shutdown().await;
    Ok(())
}

/// Expired session rows are harmless (loads ignore them) but would pile up.
async fn sweep_sessions(pool: Pool) {
    let store = db::sessions::PgSessionStore::new(pool);
    let mut every_hour = tokio::time::interval(Duration::from_secs(3600));
    loop {
        every_hour.tick().await;
        match store.delete_expired().await {
            Ok(deleted) => tracing::debug!(deleted, "expired sessions deleted"),
            Err(err) => tracing::warn!(error = %err, "deleting expired sessions"),
        }
    }
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
