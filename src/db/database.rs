//! The databases an instance uses: its request pool, the background
//! workers' pool and how to open connections of its own, over the
//! configured PostgreSQL or the embedded cluster it starts.

use anyhow::Context;
use pg_embedded::{Durability, PgCluster};

use crate::config::{Config, DatabaseSource};
use crate::db::{self, Pool};

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
    /// The streaming replica for reads that may be a moment behind.
    pub replica: Option<db::replica::Replica>,
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
                let log = format!("{shown}/server.log");
                if cluster.attached() {
                    tracing::info!(data_dir = %shown, %log, "using the embedded PostgreSQL already running");
                } else if let Some(user) = pg_embedded::server_user()? {
                    tracing::info!(
                        data_dir = %shown,
                        %log,
                        "embedded PostgreSQL started, running as the '{user}' user (initdb and postgres refuse to run as root)"
                    );
                } else {
                    tracing::info!(data_dir = %shown, %log, "embedded PostgreSQL started");
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
        let replica = config
            .read_replica
            .as_ref()
            .map(|replica| db::replica::Replica::new(replica, &config.db))
            .transpose()
            .context("SEATMAP_READ_DATABASE_URL")?;
        Ok(Database {
            pool,
            workers,
            pg_config,
            replica,
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
        if let Some(replica) = &self.replica {
            replica.close();
        }
        if let Some(cluster) = self.cluster.filter(|cluster| !cluster.attached()) {
            match tokio::task::spawn_blocking(move || cluster.stop()).await {
                Ok(Ok(())) => tracing::info!("embedded PostgreSQL stopped"),
                Ok(Err(err)) => tracing::error!(error = ?err, "stopping the embedded PostgreSQL"),
                Err(err) => tracing::error!(error = ?err, "stopping the embedded PostgreSQL"),
            }
        }
    }
}
