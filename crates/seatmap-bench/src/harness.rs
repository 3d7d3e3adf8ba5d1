//! What the bench runs against: a throwaway PostgreSQL cluster, the
//! arena and concert hall events in it, and `seatmap` instances on
//! loopback ports (a streaming replica too, once `scale` has made one).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use pg_embedded::{Durability, PgCluster};
use seatmap::config::DbSettings;
use seatmap::db::{self, Pool};
use seatmap_bench::loadgen::Target;
use seatmap_bench::reset;
use tokio_postgres::NoTls;

/// The instances' cap on a hold's seats, which the invariant checks are
/// told as well.
pub const MAX_SEATS_PER_HOLD: u32 = 10;

/// A `seatmap` process serving on a loopback port.
pub struct App {
    pub child: Child,
    pub port: u16,
}

impl App {
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// However the bench ends, no app process outlives it.
impl Drop for App {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub struct Harness {
    pub data_dir: tempfile::TempDir,
    pub cluster: Option<PgCluster>,
    durability: Durability,
    /// Server settings beyond pg-embedded's own (pg_stat_statements).
    settings: Vec<&'static str>,
    /// A streaming replica of the cluster, once `scale` has made one.
    replica: Option<PgCluster>,
    pub pool: Pool,
    conninfo: String,
    pub apps: Vec<App>,
    pub event_id: i64,
    pub seat_ids: Arc<Vec<i64>>,
    /// The concert hall event, its standing floor, and the floor's capacity.
    pub ga_event: (i64, i64, i32),
}

pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// The build under test: --seatmap-binary, or the one beside the bench.
static SEATMAP_BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Runs `chosen` (--seatmap-binary) instead of the build beside the bench.
pub fn use_seatmap_binary(chosen: &std::path::Path) -> anyhow::Result<()> {
    anyhow::ensure!(chosen.exists(), "no seatmap binary at {}", chosen.display());
    let _ = SEATMAP_BINARY.set(chosen.to_path_buf());
    Ok(())
}

pub(crate) fn seatmap_binary() -> anyhow::Result<PathBuf> {
    if let Some(chosen) = SEATMAP_BINARY.get() {
        return Ok(chosen.clone());
    }
    let beside = std::env::current_exe()?.with_file_name("seatmap");
    anyhow::ensure!(
        beside.exists(),
        "no seatmap binary at {}: build it first (cargo build --release)",
        beside.display()
    );
    Ok(beside)
}

/// Starts the chosen build once against the database, so that it runs
/// its own migrations, and stops it.
async fn migrate_with_chosen_build(config: &tokio_postgres::Config) -> anyhow::Result<()> {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        None => bail!("the bench database has no host"),
    };
    let port = free_port()?;
    let mut child = Command::new(seatmap_binary()?)
        .env(
            "DATABASE_URL",
            format!(
                "host={host} port=5432 user={} dbname=bench",
                pg_embedded::SUPERUSER
            ),
        )
        .env("SEATMAP_ADDR", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()?;
    let ready = wait_ready(&format!("http://127.0.0.1:{port}"), Duration::from_secs(60)).await;
    let _ = child.kill();
    let _ = child.wait();
    ready
}

impl Harness {
    pub async fn start(
        instances: usize,
        durability: Durability,
        statements: bool,
    ) -> anyhow::Result<Harness> {
        let data_dir = tempfile::Builder::new()
            .prefix("seatmap-bench-")
            .tempdir()?;
        std::fs::set_permissions(
            data_dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )?;
        let pg_data = data_dir.path().join("pgdata");
        let settings = if statements {
            vec![
                "shared_preload_libraries=pg_stat_statements",
                "pg_stat_statements.track=all",
                "pg_stat_statements.track_planning=on",
            ]
        } else {
            Vec::new()
        };
        let cluster = {
            let settings = settings.clone();
            tokio::task::spawn_blocking(move || {
                PgCluster::start_with(&pg_data, durability, &settings)
            })
            .await??
        };
        let (admin, connection) = cluster.connect_config("postgres").connect(NoTls).await?;
        tokio::spawn(connection);
        db::ensure_database(&admin, "bench").await?;
        if statements {
            let (bench, connection) = cluster.connect_config("bench").connect(NoTls).await?;
            tokio::spawn(connection);
            bench
                .batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                .await?;
        }
        let pg_config = cluster.connect_config("bench");
        let pool = db::build_pool(
            pg_config,
            &DbSettings {
                pool_size: 8,
                ..DbSettings::default()
            },
        )?;
        if SEATMAP_BINARY.get().is_some() {
            // Another build: its own migrations make the schema it expects
            // (this one's would be newer than it knows).
            migrate_with_chosen_build(&cluster.connect_config("bench")).await?;
        } else {
            db::migrate(&pool).await?;
        }
        let arena = reset::arena_event(&pool)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        println!("{}", arena.describe());
        let event_id = arena.event_id;
        let ga_event = reset::concert_hall_event(&pool)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let seat_ids = Arc::new(
            db::seats::all_ids(&pool.get().await?, seatmap::domain::ids::EventId(event_id))
                .await
                .map_err(|e| anyhow::anyhow!("{e:?}"))?
                .into_iter()
                .map(|seat| seat.0)
                .collect::<Vec<i64>>(),
        );
        let conninfo = format!(
            "host={} port=5432 user={} dbname=bench",
            data_dir.path().join("pgdata").display(),
            pg_embedded::SUPERUSER
        );
        let mut harness = Harness {
            data_dir,
            cluster: Some(cluster),
            durability,
            settings,
            replica: None,
            pool,
            conninfo,
            apps: Vec::new(),
            event_id,
            seat_ids,
            ga_event,
        };
        for _ in 0..instances {
            let port = free_port()?;
            let app = harness.spawn_app(port).await?;
            harness.apps.push(app);
        }
        Ok(harness)
    }

    pub async fn spawn_app(&self, port: u16) -> anyhow::Result<App> {
        self.spawn_app_with(port, &[]).await
    }

    /// [`spawn_app`](Self::spawn_app) with some settings of its own.
    pub async fn spawn_app_with(
        &self,
        port: u16,
        settings: &[(&str, &str)],
    ) -> anyhow::Result<App> {
        let mut command = Command::new(seatmap_binary()?);
        command
            .env("DATABASE_URL", &self.conninfo)
            .env("SEATMAP_ADDR", format!("127.0.0.1:{port}"))
            .env("SEATMAP_MAX_HOLDS_PER_IP", "0")
            // Each bench buyer is one session: its per-minute counter is
            // written on every hold request, as in production, but never
            // refuses (the per-address one would: every buyer is 127.0.0.1).
            .env("SEATMAP_HOLD_REQUESTS_PER_MINUTE", "1000000")
            .env("SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP", "0")
            .env("SEATMAP_MAX_SEATS_PER_HOLD", MAX_SEATS_PER_HOLD.to_string())
            // Every page and buyer of the bench comes from 127.0.0.1.
            .env("SEATMAP_LIVE_STREAMS_PER_IP", "0")
            .env("SEATMAP_MAX_CONNECTIONS_PER_IP", "0")
            .env("SEATMAP_READS_PER_IP", "0")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (name, value) in settings {
            command.env(name, value);
        }
        let child = command.spawn()?;
        let app = App { child, port };
        wait_ready(&app.base(), Duration::from_secs(30)).await?;
        Ok(app)
    }

    pub fn target(&self, instances: usize) -> Target {
        Target {
            bases: self.apps.iter().take(instances).map(App::base).collect(),
            event_id: self.event_id,
            seat_ids: self.seat_ids.clone(),
        }
    }

    /// Every seat back on sale, every hold and order of the arena gone.
    pub async fn reset(&self) -> anyhow::Result<()> {
        let client = self.pool.get().await?;
        reset::empty_event(&client, seatmap::domain::ids::EventId(self.event_id))
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))
    }

    pub async fn restart_postgres(&mut self) -> anyhow::Result<Duration> {
        let cluster = self.cluster.take().context("no cluster")?;
        let down = Instant::now();
        tokio::task::spawn_blocking(move || cluster.stop()).await??;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let pg_data = self.data_dir.path().join("pgdata");
        let durability = self.durability;
        let settings = self.settings.clone();
        self.cluster = Some(
            tokio::task::spawn_blocking(move || {
                PgCluster::start_with(&pg_data, durability, &settings)
            })
            .await??,
        );
        Ok(down.elapsed())
    }

    /// Makes a streaming replica of the cluster (pg_basebackup -R, which
    /// writes its primary_conninfo), starts it, waits until it has replayed
    /// everything written so far, and returns its connection string.
    pub async fn start_replica(&mut self) -> anyhow::Result<String> {
        let replica_dir = self.data_dir.path().join("replica/pgdata");
        let primary_dir = self.data_dir.path().join("pgdata");
        let (durability, mut settings) = (self.durability, self.settings.clone());
        // Long map reads on the replica would otherwise hold up its replay
        // (a query conflicting with a cleanup waits out
        // max_standby_streaming_delay): the primary keeps what they read.
        settings.push("hot_standby_feedback=on");
        let started = Instant::now();
        let replica = tokio::task::spawn_blocking(move || {
            let primary = PgCluster::start(&primary_dir, durability)?;
            primary.base_backup(&replica_dir)?;
            PgCluster::start_with(&replica_dir, durability, &settings)
        })
        .await??;
        let conninfo = format!(
            "host={} port=5432 user={} dbname=bench",
            self.data_dir.path().join("replica/pgdata").display(),
            pg_embedded::SUPERUSER
        );
        let (replica_client, connection) = tokio_postgres::connect(&conninfo, NoTls).await?;
        tokio::spawn(connection);
        let target: String = self
            .pool
            .get()
            .await?
            .query_one("SELECT pg_current_wal_lsn()::text", &[])
            .await?
            .get(0);
        loop {
            let caught_up: bool = replica_client
                .query_one(
                    "SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn",
                    &[&target],
                )
                .await?
                .get(0);
            if caught_up {
                break;
            }
            anyhow::ensure!(
                started.elapsed() < Duration::from_secs(120),
                "the replica did not catch up within 120 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        println!(
            "replica: base backup, started and caught up in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        self.replica = Some(replica);
        Ok(conninfo)
    }

    /// CPU time PostgreSQL has used so far (see [`seatmap_bench::postgres_cpu`]).
    /// Deadlocks PostgreSQL has detected in the bench's database so far
    /// (its statistics may lag by a moment; read after a scenario ends).
    pub async fn deadlocks(&self) -> anyhow::Result<i64> {
        let client = self.pool.get().await?;
        client
            .batch_execute("SELECT pg_stat_clear_snapshot()")
            .await?;
        let row = client
            .query_one(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
                &[],
            )
            .await?;
        Ok(row.get(0))
    }

    pub fn postgres_cpu(&self) -> anyhow::Result<Duration> {
        seatmap_bench::postgres_cpu(self.data_dir.path())
    }

    /// CPU time the replica has used so far.
    pub fn replica_cpu(&self) -> anyhow::Result<Duration> {
        seatmap_bench::postgres_cpu(&self.data_dir.path().join("replica"))
    }

    pub async fn stop(mut self) -> anyhow::Result<()> {
        for app in &mut self.apps {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(app.child.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
            let _ = app.child.wait();
        }
        self.pool.close();
        if let Some(replica) = self.replica.take() {
            tokio::task::spawn_blocking(move || replica.stop()).await??;
        }
        if let Some(cluster) = self.cluster.take() {
            tokio::task::spawn_blocking(move || cluster.stop()).await??;
        }
        Ok(())
    }
}

/// Waits until `base` answers /readyz, for up to `within`.
pub async fn wait_ready(base: &str, within: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + within;
    let http = reqwest::Client::new();
    loop {
        if let Ok(response) = http.get(format!("{base}/readyz")).send().await {
            if response.status().is_success() {
                return Ok(());
            }
        }
        if Instant::now() > deadline {
            bail!("{base} was not ready within {within:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
