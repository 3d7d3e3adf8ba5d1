//! seatmap-bench: load, faults and several instances, measured against a
//! real PostgreSQL, with the database's invariants checked after each run.
//!
//! It hosts everything itself: a throwaway PostgreSQL cluster from the
//! system binaries, N instances of the `seatmap` binary beside this one
//! (limits against hoarding turned off: every buyer comes from 127.0.0.1),
//! and a 20,000-seat arena. All traffic is on loopback and bounded.
//!
//!     seatmap-bench [SCENARIO ...] [--buyers 10000] [--duration 30]
//!                   [--concurrency 64] [--instances 1] [--json FILE] [--fsync off]
//!                   [--pages 1000] [--picks-per-sec 10]
//! Scenarios: hot-seat, picks, best, mixed (the default set), ga (buyers of
//! 1–4 general-admission tickets herding on the concert hall's floor), ratio
//! (pgbench on the claim SQL without and with the app's trigger, HTTP picks
//! at --concurrency and at 16, PostgreSQL CPU per pick), faults (kill the
//! app, restart PostgreSQL, hold a stray lock, all under load), scale (picks
//! on one instance, then on all; then a streaming replica from
//! pg_basebackup: map reads/s on --instances instances without and with it,
//! and the hot seat with reads on it), live (--pages open pages across the
//! instances, picks at --picks-per-sec, 201-to-page latency), sales (new
//! buyers hold one seat and buy it: purchases/s and purchase latency with
//! the ticket and outbox writes), door (2,000 tickets sold, then every code
//! scanned twice by --concurrency gates: exactly one admission each),
//! read-flood (--concurrency readers of the arena's seat map from one
//! address, and one buyer's hold latency alone and beside them; in
//! read-flood-holders each reader holds a seat, so its map is its own),
//! stalled-bodies (17 addresses x 256 hold requests whose bodies stall,
//! on an instance with the default connection caps, while a clean
//! address asks /healthz). --seatmap-binary PATH runs another build;
//! --statements loads pg_stat_statements and prints where the database's
//! time went in ratio, sales and best.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use pg_embedded::{Durability, PgCluster};
use seatmap::config::DbSettings;
use seatmap::db::{self, Pool};
use seatmap_bench::loadgen::{self, Report, Target};
use seatmap_bench::reset;
use tokio_postgres::NoTls;

const MAX_SEATS_PER_HOLD: u32 = 10;

struct Options {
    scenarios: Vec<String>,
    buyers: usize,
    duration: Duration,
    concurrency: usize,
    instances: usize,
    json: Option<PathBuf>,
    durability: Durability,
    pages: usize,
    picks_per_sec: u32,
    /// The `seatmap` to run; default: the one beside this binary.
    seatmap: Option<PathBuf>,
    /// Load pg_stat_statements and print where the database's time went.
    statements: bool,
}

fn options() -> anyhow::Result<Options> {
    let mut options = Options {
        scenarios: Vec::new(),
        buyers: 10_000,
        duration: Duration::from_secs(30),
        concurrency: 64,
        instances: 1,
        json: None,
        durability: Durability::Durable,
        pages: 1000,
        picks_per_sec: 10,
        seatmap: None,
        statements: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--buyers" => options.buyers = value("--buyers")?.parse()?,
            "--duration" => {
                let raw = value("--duration")?;
                options.duration = Duration::from_secs_f64(raw.trim_end_matches('s').parse()?);
            }
            "--concurrency" => options.concurrency = value("--concurrency")?.parse()?,
            "--instances" => options.instances = value("--instances")?.parse()?,
            "--json" => options.json = Some(PathBuf::from(value("--json")?)),
            "--pages" => options.pages = value("--pages")?.parse()?,
            "--picks-per-sec" => options.picks_per_sec = value("--picks-per-sec")?.parse()?,
            "--statements" => options.statements = true,
            "--seatmap-binary" => options.seatmap = Some(PathBuf::from(value("--seatmap-binary")?)),
            "--fsync" => {
                options.durability = match value("--fsync")?.as_str() {
                    "off" => Durability::Throwaway,
                    _ => Durability::Durable,
                }
            }
            "-h" | "--help" => {
                println!(
                    "{}",
                    include_str!("main.rs")
                        .lines()
                        .skip(11)
                        .take(20)
                        .map(|l| l.trim_start_matches("//! "))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                std::process::exit(0);
            }
            scenario if !scenario.starts_with('-') => options.scenarios.push(scenario.to_string()),
            other => bail!("unknown option {other}"),
        }
    }
    anyhow::ensure!(options.buyers <= 100_000, "--buyers is capped at 100000");
    anyhow::ensure!(
        options.duration <= Duration::from_secs(600),
        "--duration is capped at 600 s"
    );
    anyhow::ensure!(
        (1..=512).contains(&options.concurrency),
        "--concurrency is 1..512"
    );
    anyhow::ensure!((1..=8).contains(&options.instances), "--instances is 1..8");
    anyhow::ensure!((1..=5000).contains(&options.pages), "--pages is 1..5000");
    anyhow::ensure!(
        (1..=200).contains(&options.picks_per_sec),
        "--picks-per-sec is 1..200"
    );
    if options.scenarios.is_empty() {
        options.scenarios = ["hot-seat", "picks", "best", "mixed"]
            .map(String::from)
            .to_vec();
    }
    Ok(options)
}

/// A `seatmap` process serving on a loopback port.
struct App {
    child: Child,
    port: u16,
}

impl App {
    fn base(&self) -> String {
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

struct Harness {
    data_dir: tempfile::TempDir,
    cluster: Option<PgCluster>,
    durability: Durability,
    /// Server settings beyond pg-embedded's own (pg_stat_statements).
    settings: Vec<&'static str>,
    /// A streaming replica of the cluster, once `scale` has made one.
    replica: Option<PgCluster>,
    pool: Pool,
    conninfo: String,
    apps: Vec<App>,
    event_id: i64,
    seat_ids: Arc<Vec<i64>>,
    /// The concert hall event, its standing floor, and the floor's capacity.
    ga_event: (i64, i64, i32),
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// The build under test: --seatmap-binary, or the one beside the bench.
static SEATMAP_BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

fn seatmap_binary() -> anyhow::Result<PathBuf> {
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
    async fn start(
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

    async fn spawn_app(&self, port: u16) -> anyhow::Result<App> {
        self.spawn_app_with(port, &[]).await
    }

    /// [`spawn_app`](Self::spawn_app) with some settings of its own.
    async fn spawn_app_with(&self, port: u16, settings: &[(&str, &str)]) -> anyhow::Result<App> {
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

    fn target(&self, instances: usize) -> Target {
        Target {
            bases: self.apps.iter().take(instances).map(App::base).collect(),
            event_id: self.event_id,
            seat_ids: self.seat_ids.clone(),
        }
    }

    /// Every seat back on sale, every hold and order of the arena gone.
    async fn reset(&self) -> anyhow::Result<()> {
        let client = self.pool.get().await?;
        reset::empty_event(&client, seatmap::domain::ids::EventId(self.event_id))
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))
    }

    async fn restart_postgres(&mut self) -> anyhow::Result<Duration> {
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
    async fn start_replica(&mut self) -> anyhow::Result<String> {
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

    /// CPU time the replica has used so far.
    fn replica_cpu(&self) -> anyhow::Result<Duration> {
        seatmap_bench::postgres_cpu(&self.data_dir.path().join("replica"))
    }

    async fn stop(mut self) -> anyhow::Result<()> {
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

async fn wait_ready(base: &str, within: Duration) -> anyhow::Result<()> {
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

fn print_header() {
    println!(
        "\n{:<14} {:>8} {:>7} {:>7} {:>6} {:>6} {:>7} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "scenario",
        "requests",
        "201",
        "409",
        "503",
        "other",
        "wall s",
        "holds/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "breaches"
    );
}

fn print_row(report: &Report) {
    let listed: u64 = [201, 409, 503].iter().map(|s| report.count(*s)).sum();
    println!(
        "{:<14} {:>8} {:>7} {:>7} {:>6} {:>6} {:>7.2} {:>9.0} {:>8.2} {:>8.2} {:>8.2} {:>8}",
        report.scenario,
        report.requests,
        report.count(201),
        report.count(409),
        report.count(503),
        report.requests - listed,
        report.wall_secs,
        report.holds_per_sec,
        report.p50_ms,
        report.p95_ms,
        report.p99_ms,
        report.breaches.len()
    );
    for breach in &report.breaches {
        println!("    BREACH {breach}");
    }
}

/// pgbench on the claim (and release) SQL the app runs, against the same
/// database at the same concurrency: the ceiling for HTTP picks.
/// Returns claims per second and claims made (each pgbench transaction
/// pair is one claim and its release).
async fn pgbench_claims(
    harness: &Harness,
    options: &Options,
    sql: &str,
) -> anyhow::Result<(f64, f64)> {
    let script = harness.data_dir.path().join("claim.sql");
    std::fs::write(&script, sql)?;
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
    let bin = pg_embedded::find_bin_dir()?.join("pgbench");
    let output = Command::new(bin)
        .args(["-n", "-M", "prepared", "-j", "2"])
        .arg("-c")
        .arg(options.concurrency.to_string())
        .arg("-T")
        .arg(options.duration.as_secs().max(1).to_string())
        .arg("-D")
        .arg(format!("event={}", harness.event_id))
        .arg("-D")
        .arg(format!("lo={}", harness.seat_ids[0]))
        .arg("-D")
        .arg(format!(
            "hi={}",
            harness.seat_ids[harness.seat_ids.len() - 1]
        ))
        .arg("-f")
        .arg(&script)
        .arg("-h")
        .arg(harness.data_dir.path().join("pgdata"))
        .args(["-p", "5432", "-U", pg_embedded::SUPERUSER, "bench"])
        .output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let tps = text
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<f64>().ok())
        .with_context(|| {
            format!(
                "pgbench printed no tps:\n{text}\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    let processed = text
        .lines()
        .find_map(|line| line.strip_prefix("number of transactions actually processed: "))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<f64>().ok())
        .unwrap_or(0.0);
    Ok((tps, processed))
}

/// CPU time PostgreSQL has used so far (see [`seatmap_bench::postgres_cpu`]).
fn postgres_cpu(harness: &Harness) -> anyhow::Result<Duration> {
    seatmap_bench::postgres_cpu(harness.data_dir.path())
}

/// pgbench on the claim SQL without the app's trigger (the ceiling) and
/// with it, then HTTP picks at --concurrency and at 16, on one instance,
/// with PostgreSQL's CPU time per claim for each.
async fn ratio(
    harness: &Harness,
    options: &Options,
    extra: &mut serde_json::Map<String, serde_json::Value>,
) -> anyhow::Result<Report> {
    // Rounds of the ceiling and the app's SQL in turn, for medians: the
    // machine is noisy, and the table ages over a run.
    let mut ceilings = Vec::new();
    let mut apps = Vec::new();
    for _ in 0..3 {
        let client = harness.pool.get().await?;
        // The ceiling: the claim SQL without the stamp, the trigger off
        // (turned back on whatever happens).
        reset::set_live_feed_triggers(&client, false)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let cpu = postgres_cpu(harness)?;
        let ceiling = pgbench_claims(harness, options, &reset::ceiling_script()).await;
        let ceiling_cpu = postgres_cpu(harness)? - cpu;
        reset::set_live_feed_triggers(&client, true)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        drop(client);
        let (tps, claims) = ceiling?;
        ceilings.push((tps, per_claim(ceiling_cpu, claims)));
        harness.reset().await?;
        let cpu = postgres_cpu(harness)?;
        let (tps, claims) = pgbench_claims(harness, options, reset::PGBENCH_CLAIM_SCRIPT).await?;
        apps.push((tps, per_claim(postgres_cpu(harness)? - cpu, claims)));
        harness.reset().await?;
    }
    let (ceiling, ceiling_cpu) = medians(&ceilings);
    let (tps, sql_cpu) = medians(&apps);
    statements_reset(harness, options).await?;
    let cpu = postgres_cpu(harness)?;
    let report = loadgen::picks(&harness.target(1), options.duration, options.concurrency).await;
    let http_cpu = postgres_cpu(harness)? - cpu;
    statements_print(
        harness,
        options,
        "HTTP picks (a unit: a pick and its release)",
        report.count(201) as f64,
    )
    .await?;
    harness.reset().await?;
    let gentle = loadgen::picks(&harness.target(1), options.duration, 16).await;
    let http_cpu = per_claim(http_cpu, report.count(201) as f64);
    let rounds = |runs: &[(f64, f64)]| {
        runs.iter()
            .map(|(tps, _)| format!("{tps:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "\nratio (claims/s; each claim is released again, as in pgbench's script; \
         pgbench medians of 3 rounds in turn: ceiling {}; app {}):\n\
         \x20 pgbench, claim SQL without live-feed machinery (ceiling) {ceiling:>7.0}   PostgreSQL CPU {:.2} ms/claim\n\
         \x20 pgbench, the app's claim SQL and trigger              {tps:>7.0}   {:.2}x ceiling   CPU {:.2} ms/claim\n\
         \x20 HTTP picks, 1 instance, concurrency {:<3}              {:>7.0}   {:.2}x ceiling   CPU {:.2} ms/pick   p95 {:.1} ms\n\
         \x20 HTTP picks, 1 instance, concurrency 16               {:>7.0}   {:.2}x ceiling   p50 {:.1} ms  p95 {:.1} ms  p99 {:.1} ms",
        rounds(&ceilings),
        rounds(&apps),
        ceiling_cpu,
        tps / ceiling.max(1e-9),
        sql_cpu,
        options.concurrency,
        report.holds_per_sec,
        report.holds_per_sec / ceiling.max(1e-9),
        http_cpu,
        report.p95_ms,
        gentle.holds_per_sec,
        gentle.holds_per_sec / ceiling.max(1e-9),
        gentle.p50_ms,
        gentle.p95_ms,
        gentle.p99_ms,
    );
    extra.insert("pgbench_ceiling_claims_per_sec".into(), ceiling.into());
    extra.insert("pgbench_claims_per_sec".into(), tps.into());
    extra.insert(
        "http_to_ceiling_ratio".into(),
        (report.holds_per_sec / ceiling.max(1e-9)).into(),
    );
    extra.insert("http_c16_p95_ms".into(), gentle.p95_ms.into());
    extra.insert("postgres_cpu_ms_per_http_pick".into(), http_cpu.into());
    Ok(report)
}

/// Forgets what pg_stat_statements has counted so far (with --statements).
async fn statements_reset(harness: &Harness, options: &Options) -> anyhow::Result<()> {
    if options.statements {
        let client = harness.pool.get().await?;
        client
            .batch_execute("SELECT pg_stat_statements_reset()")
            .await?;
    }
    Ok(())
}

/// With --statements: the statements the database spent its time on since
/// the last reset, each as calls and time per `unit` (a pick, a sale).
async fn statements_print(
    harness: &Harness,
    options: &Options,
    label: &str,
    units: f64,
) -> anyhow::Result<()> {
    if !options.statements {
        return Ok(());
    }
    let client = harness.pool.get().await?;
    let rows = client
        .query(
            "SELECT calls, total_exec_time, total_plan_time, plans, query FROM pg_stat_statements
              WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              ORDER BY total_exec_time + total_plan_time DESC LIMIT 14",
            &[],
        )
        .await?;
    let total: f64 = client
        .query_one(
            "SELECT coalesce(sum(total_exec_time + total_plan_time), 0)::float8 FROM pg_stat_statements
              WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .await?
        .get(0);
    let units = units.max(1.0);
    println!(
        "\nstatements during {label} ({units:.0} units; planning and executor time {:.3} ms per unit):",
        total / units
    );
    println!("  calls/unit  plans/call  exec ms/unit  plan ms/unit  share  statement");
    for row in rows {
        let calls: i64 = row.get(0);
        let time: f64 = row.get(1);
        let planning: f64 = row.get(2);
        let plans: i64 = row.get(3);
        let query: String = row.get(4);
        let query: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
        println!(
            "  {:>10.2} {:>11.2} {:>13.3} {:>13.3} {:>5.1}%  {}",
            calls as f64 / units,
            plans as f64 / (calls as f64).max(1.0),
            time / units,
            planning / units,
            100.0 * (time + planning) / total.max(1e-9),
            query.chars().take(90).collect::<String>()
        );
    }
    Ok(())
}

fn per_claim(cpu: Duration, claims: f64) -> f64 {
    cpu.as_secs_f64() * 1000.0 / claims.max(1.0)
}

/// The median of each column.
fn medians(runs: &[(f64, f64)]) -> (f64, f64) {
    let median = |mut values: Vec<f64>| {
        values.sort_by(|a, b| a.total_cmp(b));
        values[values.len() / 2]
    };
    (
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
    )
}

/// The scale scenario's second half: a streaming replica of the cluster,
/// and `instances` app instances without it and as many with it
/// (`SEATMAP_READ_DATABASE_URL`), the map cache off in both so every read
/// reaches a database. Map reads per second, another buyer's holds beside
/// them and each server's CPU, without and with the replica; then the hot
/// seat on the instances with the replica, beside readers: exactly one
/// winner. Returns the hot seat's report.
async fn replica_reads(
    harness: &mut Harness,
    options: &Options,
    instances: usize,
    extra: &mut serde_json::Map<String, serde_json::Value>,
) -> anyhow::Result<Report> {
    let replica = harness.start_replica().await?;
    let mut plain = Vec::new();
    let mut replicated = Vec::new();
    for _ in 0..instances {
        plain.push(
            harness
                .spawn_app_with(free_port()?, &[("SEATMAP_SEAT_MAP_CACHE_MS", "0")])
                .await?,
        );
        replicated.push(
            harness
                .spawn_app_with(
                    free_port()?,
                    &[
                        ("SEATMAP_SEAT_MAP_CACHE_MS", "0"),
                        ("SEATMAP_READ_DATABASE_URL", replica.as_str()),
                    ],
                )
                .await?,
        );
    }
    let target_of = |apps: &[App]| Target {
        bases: apps.iter().map(App::base).collect(),
        ..harness.target(1)
    };
    // The instances measure the replica's lag before sending it reads.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut rows = Vec::new();
    for (label, apps) in [("primary only", &plain), ("with the replica", &replicated)] {
        let (primary_before, replica_before) = (postgres_cpu(harness)?, harness.replica_cpu()?);
        let flood = loadgen::read_flood(
            &target_of(apps),
            options.duration,
            options.concurrency,
            false,
        )
        .await;
        let primary = (postgres_cpu(harness)? - primary_before).as_secs_f64();
        let replica = (harness.replica_cpu()? - replica_before).as_secs_f64();
        // The flood's half (the buyer alone ran first for as long).
        let reads = flood.reads.max(1) as f64;
        println!(
            "  {label:<17} {:>6.0} map reads/s   primary CPU {:.2} ms/read, replica {:.2} ms/read   \
             a buyer's holds beside them: p50 {:.1} ms, p95 {:.1} ms   not 200: {:?}",
            flood.reads_per_sec,
            primary * 1000.0 / reads,
            replica * 1000.0 / reads,
            flood.flooded.p50_ms,
            flood.flooded.p95_ms,
            flood.reads_refused
        );
        if label == "with the replica" {
            // Where the instances sent the reads (the rest went to the
            // primary: the replica was behind past the allowed lag).
            for app in apps.iter() {
                let metrics = reqwest::get(format!("{}/metrics", app.base()))
                    .await?
                    .text()
                    .await?;
                let routed: Vec<&str> = metrics
                    .lines()
                    .filter(|l| {
                        l.starts_with("seatmap_reads_routed_total")
                            || l.starts_with("seatmap_replica_lag_seconds")
                    })
                    .collect();
                println!("    {}: {}", app.base(), routed.join("; "));
            }
        }
        extra.insert(
            format!("scale_reads_{}", label.replace(' ', "_")),
            serde_json::to_value(&flood)?,
        );
        rows.push(flood);
        harness.reset().await?;
    }
    if rows.iter().any(|flood| !flood.reads_refused.is_empty()) {
        bail!("map reads were refused: see above");
    }
    // The hot seat with reads on the replica.
    let target = target_of(&replicated);
    let (hot, _) = tokio::join!(
        loadgen::hot_seat(&target, options.buyers, options.concurrency),
        loadgen::read_flood(&target, Duration::from_secs(5), 16, false)
    );
    println!(
        "  hot seat with reads on the replica: {} buyers, {} winner(s)",
        hot.requests,
        hot.count(201)
    );
    drop(plain);
    drop(replicated);
    Ok(hot)
}

/// Picks under load while the app is killed three times, PostgreSQL is
/// restarted, and a stray transaction sits on seats' locks.
async fn faults(harness: &mut Harness, options: &Options) -> anyhow::Result<Report> {
    let duration = options.duration.max(Duration::from_secs(30));
    let target = harness.target(harness.apps.len());
    let load = tokio::spawn(async move { loadgen::picks(&target, duration, 32).await });
    let probe = reqwest::Client::builder()
        .timeout(Duration::from_secs(15))
        .build()?;

    for round in 1..=3 {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let app = &mut harness.apps[0];
        app.child.kill()?; // SIGKILL
        app.child.wait()?;
        let port = app.port;
        let restarted = Instant::now();
        harness.apps[0] = harness.spawn_app(port).await?;
        println!(
            "fault: SIGKILLed the app ({round}/3), back in {} ms",
            restarted.elapsed().as_millis()
        );
    }

    tokio::time::sleep(Duration::from_secs(2)).await;
    let base = harness.apps[0].base();
    let probe_down = {
        let base = base.clone();
        let probe = probe.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let started = Instant::now();
            let status = probe
                .get(format!("{base}/api/events"))
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0);
            (status, started.elapsed())
        })
    };
    let down_for = harness.restart_postgres().await?;
    let (status, took) = probe_down.await?;
    println!(
        "fault: restarted PostgreSQL (down {} ms); a request meanwhile got {status} in {} ms",
        down_for.as_millis(),
        took.as_millis()
    );
    let recovered = Instant::now();
    wait_ready(&base, Duration::from_secs(30)).await?;
    println!(
        "fault: the app was ready again {} ms after PostgreSQL, with no restart",
        recovered.elapsed().as_millis()
    );

    tokio::time::sleep(Duration::from_secs(1)).await;
    let (mut stray, connection) = harness
        .cluster
        .as_ref()
        .context("no cluster")?
        .connect_config("bench")
        .connect(NoTls)
        .await?;
    tokio::spawn(connection);
    reset::lock_seats_for_a_while(
        &mut stray,
        seatmap::domain::ids::EventId(harness.event_id),
        2000,
        tokio::time::sleep(Duration::from_secs(5)),
    )
    .await
    .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    println!(
        "fault: a stray transaction held 2,000 seats' locks for 5 s (claims there hit lock_timeout)"
    );

    let mut report = load.await?;
    report.scenario = "faults".into();
    loadgen::verify(&harness.pool, &mut report, MAX_SEATS_PER_HOLD).await?;
    let metrics = probe
        .get(format!("{base}/metrics"))
        .send()
        .await?
        .text()
        .await?;
    if let Some(line) = metrics
        .lines()
        .find(|l| l.starts_with("seatmap_db_transaction_retries_total"))
    {
        println!("fault: {line} (on the last instance since its restart)");
    }
    Ok(report)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = options()?;
    if let Some(chosen) = &options.seatmap {
        anyhow::ensure!(chosen.exists(), "no seatmap binary at {}", chosen.display());
        let _ = SEATMAP_BINARY.set(chosen.clone());
    }
    let needs = if options.scenarios.iter().any(|s| s == "scale") {
        options.instances.max(2)
    } else {
        options.instances
    };
    let mut harness = Harness::start(needs, options.durability, options.statements).await?;
    println!(
        "{} instance(s), concurrency {}, {} s runs, fsync {}",
        harness.apps.len(),
        options.concurrency,
        options.duration.as_secs(),
        if options.durability == Durability::Durable {
            "on"
        } else {
            "off"
        }
    );
    let mut reports: Vec<Report> = Vec::new();
    let mut failures = 0;
    let mut extra = serde_json::Map::new();
    let all = harness.apps.len();
    for scenario in options.scenarios.clone() {
        harness.reset().await?;
        if scenario != "ratio" {
            statements_reset(&harness, &options).await?;
        }
        let target = harness.target(all);
        let mut report = match scenario.as_str() {
            "hot-seat" => loadgen::hot_seat(&target, options.buyers, options.concurrency).await,
            "picks" => loadgen::picks(&target, options.duration, options.concurrency).await,
            "best" => {
                loadgen::best(
                    &target,
                    0.95,
                    options.concurrency,
                    options.duration.max(Duration::from_secs(120)),
                )
                .await
            }
            "mixed" => loadgen::mixed(&target, options.duration, options.concurrency).await,
            "sales" => {
                let report = loadgen::sales(&target, options.duration, options.concurrency).await;
                println!(
                    "\nsales: {:.0} purchases/s (each: one seat, its ticket and its e-mail row, one transaction); \
                     purchase p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms",
                    report.holds_per_sec, report.p50_ms, report.p95_ms, report.p99_ms
                );
                extra.insert(
                    "sales_purchases_per_sec".into(),
                    report.holds_per_sec.into(),
                );
                extra.insert("sales_purchase_p95_ms".into(), report.p95_ms.into());
                report
            }
            "door" => {
                const TICKETS: usize = 2000;
                let (name, password) = ("bench-door", "a long bench door password");
                let hash = seatmap::domain::password::hash(password)?;
                let client = harness.pool.get().await?;
                let _ = seatmap::db::staff::create(
                    &client,
                    name,
                    &hash,
                    seatmap::domain::role::Role::Door,
                )
                .await;
                drop(client);
                let report =
                    loadgen::door(&target, (name, password), TICKETS, options.concurrency).await;
                let scans = report.requests as f64;
                let admitted = report.count_of("admitted", 200);
                let again = report.count_of("already_admitted", 200);
                println!(
                    "\ndoor: {TICKETS} tickets, each scanned twice by {} gates: {:.0} scans/s; \
                     {admitted} admitted, {again} told already admitted; scan p50 {:.1} ms, \
                     p95 {:.1} ms, p99 {:.1} ms",
                    options.concurrency,
                    scans / report.wall_secs.max(1e-9),
                    report.p50_ms,
                    report.p95_ms,
                    report.p99_ms
                );
                let mut report = report;
                if admitted != TICKETS as u64 || again != TICKETS as u64 {
                    report.breaches.push(format!(
                        "door: {admitted} admitted and {again} refused of {TICKETS} tickets scanned twice"
                    ));
                }
                extra.insert(
                    "door_scans_per_sec".into(),
                    (scans / report.wall_secs.max(1e-9)).into(),
                );
                extra.insert("door_scan_p95_ms".into(), report.p95_ms.into());
                // The offline door's list: every ticket's code hashed by
                // the server on each fetch (devices fetch every 15 s).
                let (mut took, bytes) =
                    loadgen::door_list_times(&target, (name, password), 11).await;
                took.sort_by(f64::total_cmp);
                if let Some(median) = took.get(took.len() / 2) {
                    println!(
                        "door list: {TICKETS} tickets, {bytes} bytes, median {median:.1} ms \
                         over {} fetches",
                        took.len()
                    );
                    extra.insert("door_list_median_ms".into(), (*median).into());
                }
                report
            }
            "ga" => {
                let (event_id, area_id, capacity) = harness.ga_event;
                let target = Target {
                    event_id,
                    seat_ids: Arc::new(Vec::new()),
                    ..target
                };
                let (mut report, tickets) =
                    loadgen::ga(&target, area_id, options.buyers, options.concurrency).await;
                println!("\nga: {tickets} tickets granted of {capacity}");
                extra.insert("ga_tickets_granted".into(), tickets.into());
                extra.insert("ga_capacity".into(), capacity.into());
                if tickets > capacity as u64 {
                    report.breaches.push(format!(
                        "ga: {tickets} tickets granted in an area of {capacity}"
                    ));
                }
                report
            }
            "ratio" => ratio(&harness, &options, &mut extra).await?,
            "sale-cost" => {
                // Rounds of the purchase without and with its ticket and
                // outbox writes, in turn, for medians on a noisy machine.
                let mut before = Vec::new();
                let mut after = Vec::new();
                for round in 0..3 {
                    for (with_tickets, runs) in [(false, &mut before), (true, &mut after)] {
                        statements_reset(&harness, &options).await?;
                        let cpu = postgres_cpu(&harness)?;
                        let (tps, sales) =
                            pgbench_claims(&harness, &options, &reset::sale_script(with_tickets))
                                .await?;
                        runs.push((tps, per_claim(postgres_cpu(&harness)? - cpu, sales)));
                        if round == 2 {
                            let label = match with_tickets {
                                true => "sales with tickets and outbox (a unit: a sale)",
                                false => "sales without (a unit: a sale)",
                            };
                            statements_print(&harness, &options, label, sales).await?;
                        }
                        harness.reset().await?;
                    }
                }
                let (without, without_cpu) = medians(&before);
                let (with, with_cpu) = medians(&after);
                println!(
                    "\nsale-cost (pgbench, claim then purchase of one random seat, medians of 3 rounds in turn):\n\
                     \x20 purchase without tickets and outbox (as before) {without:>7.0} sales/s   PostgreSQL CPU {without_cpu:.2} ms/sale\n\
                     \x20 purchase with its ticket and outbox row        {with:>7.0} sales/s   {:.2}x   CPU {with_cpu:.2} ms/sale",
                    with / without.max(1e-9)
                );
                extra.insert("sale_cost_without_per_sec".into(), without.into());
                extra.insert("sale_cost_with_per_sec".into(), with.into());
                continue;
            }
            "live" => {
                let pages = options.pages;
                let live =
                    loadgen::live(&target, pages, options.picks_per_sec, options.duration).await;
                println!(
                    "\nlive: {} of {pages} pages open across {all} instance(s), {} picks at {}/s; \
                     {} of {} (page, pick) deliveries; 201 to page: p50 {:.1} ms, p95 {:.1} ms, \
                     p99 {:.1} ms, max {:.1} ms",
                    live.pages_opened,
                    live.picks,
                    options.picks_per_sec,
                    live.deliveries,
                    live.expected,
                    live.p50_ms,
                    live.p95_ms,
                    live.p99_ms,
                    live.max_ms
                );
                if live.deliveries < live.expected {
                    failures += 1;
                    println!(
                        "live: {} deliveries missing",
                        live.expected - live.deliveries
                    );
                }
                extra.insert("live".into(), serde_json::to_value(&live)?);
                continue;
            }
            "faults" => faults(&mut harness, &options).await?,
            "read-flood" | "read-flood-holders" => {
                let holding = scenario == "read-flood-holders";
                // An instance with the default share of reads per address.
                let port = free_port()?;
                let app = harness
                    .spawn_app_with(port, &[("SEATMAP_READS_PER_IP", "4")])
                    .await?;
                let target = Target {
                    bases: vec![app.base()],
                    ..target
                };
                let flood =
                    loadgen::read_flood(&target, options.duration, options.concurrency, holding)
                        .await;
                drop(app);
                let row = |r: &Report| {
                    format!(
                        "{} holds, p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, not 201: {}",
                        r.requests,
                        r.p50_ms,
                        r.p95_ms,
                        r.p99_ms,
                        r.requests - r.count(201)
                    )
                };
                println!(
                    "\n{scenario} ({} readers of the {}-seat map, {} s each way):\n\
                     \x20 the buyer alone:          {}\n\
                     \x20 the buyer beside readers: {}\n\
                     \x20 reads: {} ({:.0}/s), not 200: {:?}",
                    options.concurrency,
                    harness.seat_ids.len(),
                    options.duration.as_secs(),
                    row(&flood.quiet),
                    row(&flood.flooded),
                    flood.reads,
                    flood.reads_per_sec,
                    flood.reads_refused
                );
                extra.insert(scenario.replace('-', "_"), serde_json::to_value(&flood)?);
                continue;
            }
            "stalled-bodies" => {
                // An instance with the default caps on connections.
                let port = free_port()?;
                let app = harness
                    .spawn_app_with(port, &[("SEATMAP_MAX_CONNECTIONS_PER_IP", "256")])
                    .await?;
                let stall = loadgen::stalled_bodies(
                    &app.base(),
                    harness.event_id,
                    17,
                    256,
                    options.duration,
                )
                .await;
                println!(
                    "\nstalled-bodies (17 addresses x 256 stalled hold requests, kept up for {} s):\n\
                     \x20 /healthz from a clean address: {} of {} answered within 5 s\n\
                     \x20 stalled bodies sent {}, closed by the server {} (the longest after {:.1} s); \
                     still open at the end {} (the oldest for {:.1} s)",
                    options.duration.as_secs(),
                    stall.probes_answered,
                    stall.probes,
                    stall.stalled_sent,
                    stall.stalled_closed,
                    stall.longest_open_secs,
                    stall.still_open,
                    stall.oldest_still_open_secs
                );
                extra.insert("stalled_bodies".into(), serde_json::to_value(&stall)?);
                drop(app);
                continue;
            }
            "scale" => {
                let one =
                    loadgen::picks(&harness.target(1), options.duration, options.concurrency).await;
                harness.reset().await?;
                let many =
                    loadgen::picks(&harness.target(all), options.duration, options.concurrency)
                        .await;
                println!(
                    "\nscale: picks on 1 instance {:.0} holds/s, on {all} instances {:.0} holds/s ({:.2}x)",
                    one.holds_per_sec,
                    many.holds_per_sec,
                    many.holds_per_sec / one.holds_per_sec.max(1e-9)
                );
                extra.insert(
                    "scale_one_instance_holds_per_sec".into(),
                    one.holds_per_sec.into(),
                );
                extra.insert(
                    "scale_all_instances_holds_per_sec".into(),
                    many.holds_per_sec.into(),
                );
                harness.reset().await?;
                replica_reads(&mut harness, &options, all, &mut extra).await?
            }
            other => bail!("unknown scenario {other}"),
        };
        report.scenario = scenario.clone();
        if scenario != "ratio" {
            statements_print(
                &harness,
                &options,
                &format!("{scenario} (a unit: a 201)"),
                report.count(201) as f64,
            )
            .await?;
        }
        loadgen::verify(&harness.pool, &mut report, MAX_SEATS_PER_HOLD).await?;
        if (scenario == "hot-seat" || scenario == "scale") && report.count(201) != 1 {
            report.breaches.push(format!(
                "hot-seat: {} winners, not exactly one",
                report.count(201)
            ));
        }
        if (scenario == "hot-seat" || scenario == "scale")
            && report.count(201) + report.count(409) != report.requests
        {
            report
                .breaches
                .push("hot-seat: some requests were not answered 201 or 409".into());
        }
        print_header();
        print_row(&report);
        // Faults are the one scenario whose 503s and lost answers are the
        // point; anywhere else they are failures, not numbers to print.
        let unexpected = report.unexpected();
        if scenario != "faults" && !unexpected.is_empty() {
            println!("unexpected answers: {}", unexpected.join(", "));
            failures += 1;
        }
        reports.push(report);
    }
    let breaches: usize = reports.iter().map(|r| r.breaches.len()).sum();
    if let Some(path) = &options.json {
        let document = serde_json::json!({ "reports": reports, "extra": extra });
        std::fs::File::create(path)?
            .write_all(serde_json::to_string_pretty(&document)?.as_bytes())?;
        println!("\nwrote {}", path.display());
    }
    harness.stop().await?;
    if breaches > 0 {
        bail!("{breaches} invariant breach(es): see above");
    }
    if failures > 0 {
        bail!("{failures} scenario(s) got answers a healthy server never gives: see above");
    }
    println!("\nall invariants held");
    Ok(())
}
