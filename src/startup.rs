//! Connecting to the configured database (or starting the embedded one),
//! serving, and the `demo` command.

use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;

use crate::app::{AppState, build_router};
use crate::config::{Config, DatabaseSource};
use crate::db::live::LiveFeed;
use crate::db::{self, Pool};
use crate::pg_cluster::{Durability, PgCluster};

const EMBEDDED_DATABASE: &str = "seatmap";

/// The pool, and the embedded cluster behind it when there is one.
pub struct Database {
    pub pool: Pool,
    /// How to open a connection of our own (the live feed's LISTEN).
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
                    None => crate::pg_cluster::default_data_dir()?,
                };
                tracing::info!(data_dir = %pg_data.display(), "starting the embedded PostgreSQL");
                let cluster = tokio::task::spawn_blocking(move || {
                    PgCluster::start(&pg_data, Durability::Durable)
                })
                .await??;
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
        db::migrate(&pool).await?;
        Ok(Database {
            pool,
            pg_config,
            cluster,
        })
    }

    pub fn is_embedded(&self) -> bool {
        self.cluster.is_some()
    }

    /// Closes the pool and stops the embedded cluster, if any.
    pub async fn shutdown(self) {
        self.pool.close();
        if let Some(cluster) = self.cluster {
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
}

impl Application {
    /// Binds `config.addr` and starts this instance's live feed.
    pub async fn build(config: Config, database: &Database) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(config.addr)
            .await
            .with_context(|| format!("binding {}", config.addr))?;
        let addr = listener.local_addr()?;
        let live = LiveFeed::start(database.pg_config.clone(), database.pool.clone());
        let state = AppState::new(database.pool.clone(), config, live);
        Ok(Application {
            addr,
            state,
            listener,
        })
    }

    /// Serves until `shutdown` resolves, then ends live streams and drains
    /// requests for at most the configured grace period.
    pub async fn run_until(self, shutdown: impl std::future::Future<Output = ()> + Send) {
        let state = self.state.clone();
        let limits = state.config.server.clone();
        let router = build_router(self.state);
        crate::server::serve(self.listener, router, limits, async move {
            shutdown.await;
            // Live pages' streams would otherwise keep the drain waiting.
            state.begin_shutdown();
        })
        .await;
    }
}

/// Runs the web app until SIGINT or SIGTERM, then drains and shuts down.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let database = Database::connect(&config).await?;
    if database.is_embedded() {
        let event_id = db::demo::seed_demo(&database.pool).await?;
        tracing::info!(event_id, "demo event ready");
    }
    let sweeper = tokio::spawn(sweep_sessions(database.pool.clone()));
    let app = Application::build(config, &database).await?;
    println!("seatmap is running at http://{}/", app.addr);
    app.run_until(shutdown_signal()).await;
    sweeper.abort();
    database.shutdown().await;
    Ok(())
}

/// `seatmap demo`: seeds the demo event into the configured database.
pub async fn demo(config: Config) -> anyhow::Result<i64> {
    let database = Database::connect(&config).await?;
    let seeded = db::demo::seed_demo(&database.pool).await;
    database.shutdown().await;
    Ok(seeded?)
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

/// `seatmap staff add NAME`: creates a staff account. The password comes
/// from the terminal (asked twice, not echoed) or, when stdin is not a
/// terminal, from its first line.
pub async fn staff_add(config: Config, name: &str) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    anyhow::ensure!(
        crate::domain::password::valid_staff_name(name),
        "a staff name is 1 to 64 letters, digits or . _ @ -"
    );
    let password = if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("Password for {name}: "))?;
        let again = rpassword::prompt_password("Same password again: ")?;
        anyhow::ensure!(first == again, "the passwords differ");
        first
    } else {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        line.trim_end_matches(['\r', '\n']).to_string()
    };
    let hash =
        tokio::task::spawn_blocking(move || crate::domain::password::hash(&password)).await??;
    let database = Database::connect(&config).await?;
    let created = async {
        let client = database.pool.get().await?;
        db::staff::create(&client, name, &hash).await
    }
    .await;
    database.shutdown().await;
    created.map_err(|err| anyhow::anyhow!(crate::web::error::message(&err)))?;
    println!("staff account {name} created");
    Ok(())
}

/// `seatmap staff list`: one account a line, with when it was made.
pub async fn staff_list(config: Config) -> anyhow::Result<()> {
    let database = Database::connect(&config).await?;
    let listed = async {
        let client = database.pool.get().await?;
        db::staff::list(&client).await
    }
    .await;
    database.shutdown().await;
    for account in listed.map_err(|err| anyhow::anyhow!("{err}"))? {
        println!(
            "{}\t{}",
            account.name,
            crate::web::views::display_time(account.created_at)
        );
    }
    Ok(())
}

/// Reads and validates a layout file; prints every problem (and returns
/// None) if it has any.
fn read_layout(
    path: &std::path::Path,
) -> anyhow::Result<Option<crate::domain::venue::VenueLayout>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    match crate::domain::venue::from_file(&path.to_string_lossy(), &text) {
        Ok(layout) => Ok(Some(layout)),
        Err(errors) => {
            eprintln!("{}: {} problem(s)", path.display(), errors.len());
            for error in errors {
                eprintln!("  {error}");
            }
            Ok(None)
        }
    }
}

/// `seatmap venue check FILE`: validates a layout file (.json, or .csv for
/// simple grids) whole, and prints either what it describes or every
/// problem with where it is. Touches no database.
pub fn venue_check(path: &std::path::Path) -> anyhow::Result<bool> {
    let Some(layout) = read_layout(path)? else {
        return Ok(false);
    };
    println!(
        "{}: {} seats in {} sections, {} general-admission places in {} areas, {} price tiers",
        layout.name,
        layout.seat_count(),
        layout.sections.len(),
        layout.ga_capacity(),
        layout.ga_areas.len(),
        layout.tiers.len()
    );
    Ok(true)
}

/// `seatmap venue import FILE`: validates the whole file, then stores the
/// venue in one statement; a file with any problem writes nothing.
pub async fn venue_import(config: Config, path: &std::path::Path) -> anyhow::Result<bool> {
    let Some(layout) = read_layout(path)? else {
        return Ok(false);
    };
    let database = Database::connect(&config).await?;
    let imported = async {
        let client = database.pool.get().await?;
        db::venues::import(&client, &layout, None).await
    }
    .await;
    database.shutdown().await;
    let venue_id = imported.map_err(|err| anyhow::anyhow!(crate::web::error::message(&err)))?;
    println!(
        "{} (venue {venue_id})",
        crate::web::staff::venues::imported_message(&layout)
    );
    Ok(true)
}
