//! failover (issue 53): a pg_auto_failover formation on this machine
//! (a monitor, a primary and a synchronous standby, made with
//! `pg_autoctl` from Debian's packages), two seatmap instances given both
//! nodes in `DATABASE_URL`, and buyers buying at `--concurrency` (16).
//! Run (a) kills the primary's machine: its keeper and its postmaster get
//! SIGKILL, and the monitor promotes the standby. Run (b), on a fresh
//! formation, asks for a planned switchover. Printed for each: purchases
//! acknowledged, acknowledged purchases missing afterwards (must be 0),
//! seats sold twice (0), answers other than 2xx/409/503 (0), and the time
//! from the fault to the first purchase answered 201 after it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::sync::Mutex;

use crate::harness::{free_port, seatmap_binary, wait_ready};
use crate::options::Options;

/// The monitor's health checks, shortened so a dead node is noticed in
/// seconds (pg_auto_failover's defaults take about 20 s to call it).
const MONITOR_SETTINGS: &[(&str, &str)] = &[
    ("pgautofailover.health_check_period", "1000"),
    ("pgautofailover.health_check_timeout", "1000"),
    ("pgautofailover.health_check_max_retries", "1"),
    ("pgautofailover.health_check_retry_delay", "500"),
    ("pgautofailover.node_considered_unhealthy_timeout", "2000"),
];

struct Formation {
    dir: tempfile::TempDir,
    user: Option<String>,
    bin_dir: PathBuf,
    keepers: Vec<(String, Child)>,
    monitor_port: u16,
    ports: [u16; 2],
}

impl Drop for Formation {
    fn drop(&mut self) {
        for (_, keeper) in &mut self.keepers {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(keeper.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        std::thread::sleep(Duration::from_secs(2));
        for (_, keeper) in &mut self.keepers {
            let _ = keeper.kill();
            let _ = keeper.wait();
        }
        // Postgres servers a killed keeper left behind.
        for name in ["monitor", "node1", "node2"] {
            if let Ok(text) =
                std::fs::read_to_string(self.dir.path().join(name).join("postmaster.pid"))
                && let Some(pid) = text
                    .lines()
                    .next()
                    .and_then(|l| l.trim().parse::<i32>().ok())
            {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

impl Formation {
    /// `pg_autoctl …`, as the server's user when run as root (initdb and
    /// postgres refuse root), with the PostgreSQL binaries on its PATH and
    /// its state kept in the formation's folder.
    fn autoctl(&self, args: &[&str]) -> Command {
        let path = format!(
            "{}:{}",
            self.bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let xdg = self.dir.path().join("xdg");
        let envs = [
            format!("PATH={path}"),
            format!("XDG_CONFIG_HOME={}", xdg.join("config").display()),
            format!("XDG_DATA_HOME={}", xdg.join("data").display()),
            format!("XDG_RUNTIME_DIR={}", xdg.join("run").display()),
        ];
        let mut command = match &self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--", "env"]).args(&envs);
                command.arg("pg_autoctl");
                command
            }
            None => {
                let mut command = Command::new("env");
                command.args(&envs).arg("pg_autoctl");
                command
            }
        };
        command
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null());
        command
    }

    fn pgdata(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn monitor_uri(&self) -> String {
        format!(
            "postgres://autoctl_node@127.0.0.1:{}/pg_auto_failover?sslmode=disable",
            self.monitor_port
        )
    }

    fn spawn_keeper(&mut self, name: &str, args: &[&str]) -> anyhow::Result<()> {
        let log = std::fs::File::create(self.dir.path().join(format!("{name}.log")))?;
        let child = self
            .autoctl(args)
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .context("starting pg_autoctl (apt-get install postgresql-15-auto-failover pg-auto-failover-cli)")?;
        self.keepers.push((name.to_string(), child));
        Ok(())
    }

    async fn start() -> anyhow::Result<Formation> {
        anyhow::ensure!(
            Path::new("/usr/bin/pg_autoctl").exists()
                || Command::new("pg_autoctl").arg("--version").output().is_ok(),
            "pg_autoctl is missing: apt-get install postgresql-15-auto-failover pg-auto-failover-cli"
        );
        let dir = tempfile::Builder::new()
            .prefix("seatmap-failover-")
            .tempdir()?;
        let user = pg_embedded::server_user()?;
        for sub in ["xdg/config", "xdg/data", "xdg/run"] {
            std::fs::create_dir_all(dir.path().join(sub))?;
        }
        if let Some(user) = &user {
            let status = Command::new("chown")
                .args(["-R", &format!("{user}:{user}")])
                .arg(dir.path())
                .status()?;
            anyhow::ensure!(status.success(), "chown of the formation's folder");
        }
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )?;
        let mut formation = Formation {
            dir,
            user,
            bin_dir: pg_embedded::find_bin_dir()?,
            keepers: Vec::new(),
            monitor_port: free_port()?,
            ports: [free_port()?, free_port()?],
        };
        let monitor_port = formation.monitor_port.to_string();
        let monitor_data = formation.pgdata("monitor");
        formation.spawn_keeper(
            "monitor",
            &[
                "create",
                "monitor",
                "--pgdata",
                &monitor_data,
                "--pgport",
                &monitor_port,
                "--hostname",
                "127.0.0.1",
                "--auth",
                "trust",
                "--no-ssl",
                "--run",
            ],
        )?;
        let monitor = connect_when_ready(
            &format!(
                "host=127.0.0.1 port={monitor_port} user=autoctl_node dbname=pg_auto_failover"
            ),
            Duration::from_secs(60),
        )
        .await
        .context("the monitor")?;
        drop(monitor);
        let admin = connect_when_ready(
            &format!("host=127.0.0.1 port={monitor_port} user=postgres dbname=pg_auto_failover"),
            Duration::from_secs(10),
        )
        .await?;
        for (name, value) in MONITOR_SETTINGS {
            admin
                .batch_execute(&format!("ALTER SYSTEM SET {name} = {value}"))
                .await?;
        }
        admin.batch_execute("SELECT pg_reload_conf()").await?;
        let uri = formation.monitor_uri();
        for (i, name) in ["node1", "node2"].into_iter().enumerate() {
            let port = formation.ports[i].to_string();
            let data = formation.pgdata(name);
            formation.spawn_keeper(
                name,
                &[
                    "create",
                    "postgres",
                    "--pgdata",
                    &data,
                    "--pgport",
                    &port,
                    "--hostname",
                    "127.0.0.1",
                    "--auth",
                    "trust",
                    "--no-ssl",
                    "--dbname",
                    "bench",
                    "--monitor",
                    &uri,
                    "--name",
                    name,
                    "--run",
                ],
            )?;
            // One node at a time: the first becomes the primary.
            if i == 0 {
                let primary =
                    connect_when_ready(&formation.node_conninfo(0), Duration::from_secs(120))
                        .await
                        .context("the first node")?;
                wait_for(
                    &primary,
                    "SELECT NOT pg_is_in_recovery()",
                    Duration::from_secs(60),
                )
                .await
                .context("the first node becoming primary")?;
            }
        }
        let primary =
            connect_when_ready(&formation.node_conninfo(0), Duration::from_secs(30)).await?;
        // The standby's pg_basebackup waits for a checkpoint, by default a
        // spread one (minutes): a CHECKPOINT now and then hurries it.
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            let synchronous = primary
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM pg_stat_replication
                                     WHERE sync_state IN ('sync', 'quorum'))",
                    &[],
                )
                .await?
                .get::<_, bool>(0);
            if synchronous {
                break;
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the standby never became synchronous"
            );
            let _ = primary.batch_execute("CHECKPOINT").await;
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let names: String = primary
            .query_one("SHOW synchronous_standby_names", &[])
            .await?
            .get(0);
        let commit: String = primary
            .query_one("SHOW synchronous_commit", &[])
            .await?
            .get(0);
        println!(
            "  formation: monitor :{}, nodes :{} and :{}; synchronous_standby_names = {names}, synchronous_commit = {commit}",
            formation.monitor_port, formation.ports[0], formation.ports[1]
        );
        Ok(formation)
    }

    fn node_conninfo(&self, i: usize) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname=bench",
            self.ports[i]
        )
    }

    /// Both nodes; only the one that takes writes is used.
    fn url(&self) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/bench?target_session_attrs=read-write",
            self.ports[0], self.ports[1]
        )
    }
}

async fn connect_when_ready(
    conninfo: &str,
    within: Duration,
) -> anyhow::Result<tokio_postgres::Client> {
    let deadline = Instant::now() + within;
    loop {
        match tokio_postgres::connect(conninfo, tokio_postgres::NoTls).await {
            Ok((client, connection)) => {
                tokio::spawn(connection);
                return Ok(client);
            }
            Err(err) if Instant::now() > deadline => bail!("{conninfo}: {err}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
}

async fn wait_for(
    client: &tokio_postgres::Client,
    check: &str,
    within: Duration,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + within;
    loop {
        if let Ok(row) = client.query_one(check, &[]).await
            && row.get::<_, bool>(0)
        {
            return Ok(());
        }
        anyhow::ensure!(Instant::now() < deadline, "not within {within:?}: {check}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// What the buyers saw.
#[derive(Default)]
struct Tally {
    /// (order id, tickets) of every purchase answered 201.
    acknowledged: Vec<(String, usize)>,
    /// When each 201 purchase was answered.
    bought_at: Vec<Instant>,
    answers_503: usize,
    /// 409s by error code.
    answers_409: std::collections::BTreeMap<String, usize>,
    /// Anything else: status and error code.
    other: Vec<String>,
}

/// A buyer: holds two seats, buys them with an Idempotency-Key, and sends
/// a purchase answered 503 again with the same key until it is answered.
async fn buyer(
    bases: Arc<Vec<String>>,
    event_id: i64,
    seats: Arc<Vec<i64>>,
    next: Arc<std::sync::atomic::AtomicUsize>,
    stop: Arc<AtomicBool>,
    tally: Arc<Mutex<Tally>>,
) {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("http client");
    let mut round = 0usize;
    while !stop.load(Ordering::Relaxed) {
        round += 1;
        let base = &bases[round % bases.len()];
        let at = next.fetch_add(2, Ordering::Relaxed);
        let Some(pair) = seats.get(at..at + 2) else {
            return;
        };
        let hold = http
            .post(format!("{base}/api/events/{event_id}/holds"))
            .header("idempotency-key", uuid::Uuid::new_v4().to_string())
            .json(&serde_json::json!({ "seat_ids": pair }))
            .send()
            .await;
        let (status, body) = answer(hold).await;
        if status != 201 {
            record(&tally, status, &body).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        let hold_id = body["hold_id"].as_str().unwrap_or_default().to_owned();
        let key = uuid::Uuid::new_v4().to_string();
        for _ in 0..300 {
            let bought = http
                .post(format!("{base}/api/holds/{hold_id}/purchase"))
                .header("idempotency-key", &key)
                .json(&serde_json::json!({ "name": "Bench Buyer", "email": "bench@example.com" }))
                .send()
                .await;
            let (status, body) = answer(bought).await;
            if status == 201 {
                let mut tally = tally.lock().await;
                tally.acknowledged.push((
                    body["order_id"].as_str().unwrap_or_default().to_owned(),
                    body["tickets"].as_array().map_or(0, Vec::len),
                ));
                tally.bought_at.push(Instant::now());
                break;
            }
            record(&tally, status, &body).await;
            if status != 503 && status != 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

async fn answer(response: reqwest::Result<reqwest::Response>) -> (u16, serde_json::Value) {
    match response {
        Ok(response) => {
            let status = response.status().as_u16();
            (
                status,
                response.json().await.unwrap_or(serde_json::Value::Null),
            )
        }
        // The instance itself didn't answer (status 0): counted as other.
        Err(_) => (0, serde_json::Value::Null),
    }
}

async fn record(tally: &Mutex<Tally>, status: u16, body: &serde_json::Value) {
    let mut tally = tally.lock().await;
    match status {
        503 => tally.answers_503 += 1,
        409 => {
            *tally
                .answers_409
                .entry(body["error"].to_string())
                .or_default() += 1
        }
        _ => tally.other.push(format!("{status} {}", body["error"])),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Fault {
    KillPrimary,
    Switchover,
}

/// One run: a fresh formation, two instances, buyers for a while, the
/// fault, buyers until sales are back (and a few seconds more). Returns
/// whether every promise held.
async fn run_one(fault: Fault, options: &Options) -> anyhow::Result<bool> {
    println!(
        "\nfailover ({}):",
        match fault {
            Fault::KillPrimary => "the primary's machine dies: keeper and postmaster SIGKILLed",
            Fault::Switchover => "a planned switchover, pg_autoctl perform switchover",
        }
    );
    let mut formation = Formation::start().await?;
    let url = formation.url();
    let mut apps = Vec::new();
    for _ in 0..2 {
        let port = free_port()?;
        let child = tokio::process::Command::new(seatmap_binary()?)
            .env("DATABASE_URL", &url)
            .env("SEATMAP_ADDR", format!("127.0.0.1:{port}"))
            .env("SEATMAP_MAX_HOLDS_PER_IP", "0")
            .env("SEATMAP_HOLD_REQUESTS_PER_MINUTE", "1000000")
            .env("SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP", "0")
            .env("SEATMAP_MAX_CONNECTIONS_PER_IP", "0")
            .env("SEATMAP_READS_PER_IP", "0")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let base = format!("http://127.0.0.1:{port}");
        wait_ready(&base, Duration::from_secs(60)).await?;
        apps.push((child, base));
    }
    let pool = seatmap::db::build_pool(url.parse()?, &seatmap::config::DbSettings::default())?;
    let arena = seatmap_bench::reset::arena_event(&pool)
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let event_id = arena.event_id;
    let seats: Vec<i64> =
        seatmap::db::seats::all_ids(&pool.get().await?, seatmap::domain::ids::EventId(event_id))
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?
            .into_iter()
            .map(|seat| seat.0)
            .collect();
    let bases = Arc::new(
        apps.iter()
            .map(|(_, base)| base.clone())
            .collect::<Vec<_>>(),
    );
    let seats = Arc::new(seats);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let buyers: Vec<_> = (0..options.concurrency)
        .map(|_| {
            tokio::spawn(buyer(
                bases.clone(),
                event_id,
                seats.clone(),
                next.clone(),
                stop.clone(),
                tally.clone(),
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(8)).await;
    let before = tally.lock().await.acknowledged.len();
    let faulted_at = Instant::now();
    match fault {
        Fault::KillPrimary => {
            let primary = primary_index(&formation).await?;
            let name = ["node1", "node2"][primary];
            let pid_file = formation.dir.path().join(name).join("postmaster.pid");
            let postmaster: i32 = std::fs::read_to_string(&pid_file)?
                .lines()
                .next()
                .context("postmaster.pid")?
                .trim()
                .parse()?;
            if let Some((_, keeper)) = formation.keepers.iter_mut().find(|(n, _)| n == name) {
                let _ = keeper.kill();
                let _ = keeper.wait();
            }
            nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(postmaster),
                nix::sys::signal::Signal::SIGKILL,
            )?;
            println!("  killed {name} (postmaster {postmaster} and its keeper)");
        }
        Fault::Switchover => {
            let output = formation
                .autoctl(&[
                    "perform",
                    "switchover",
                    "--monitor",
                    &formation.monitor_uri(),
                ])
                .output()?;
            println!(
                "  pg_autoctl perform switchover: {} in {:.1} s",
                if output.status.success() {
                    "done"
                } else {
                    "failed"
                },
                faulted_at.elapsed().as_secs_f64()
            );
            if !output.status.success() {
                println!("{}", String::from_utf8_lossy(&output.stderr));
            }
        }
    }
    // Sales until they are back, and 5 s more; at most 120 s.
    let deadline = faulted_at + Duration::from_secs(120);
    let back = loop {
        let first = tally
            .lock()
            .await
            .bought_at
            .iter()
            .filter(|at| **at > faulted_at + Duration::from_millis(200))
            .min()
            .copied();
        if let Some(first) = first {
            break Some(first);
        }
        if Instant::now() > deadline {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    tokio::time::sleep(Duration::from_secs(5)).await;
    stop.store(true, Ordering::Relaxed);
    for buyer in buyers {
        let _ = buyer.await;
    }
    let tally = tally.lock().await;
    // What the new primary holds.
    let client = seatmap::db::build_pool(url.parse()?, &seatmap::config::DbSettings::default())?
        .get()
        .await?;
    let mut missing = 0;
    for (order_id, tickets) in &tally.acknowledged {
        let found: i64 = client
            .query_one(
                "SELECT count(*) FROM tickets WHERE order_id = $1::text::uuid",
                &[order_id],
            )
            .await?
            .get(0);
        if found != *tickets as i64 || found == 0 {
            missing += 1;
        }
    }
    let twice: i64 = client
        .query_one(
            "SELECT count(*) FROM (SELECT seat_id FROM order_lines GROUP BY seat_id HAVING count(*) > 1) s",
            &[],
        )
        .await?
        .get(0);
    println!(
        "  purchases acknowledged: {} ({before} before the fault)",
        tally.acknowledged.len()
    );
    println!("  acknowledged purchases missing afterwards: {missing}");
    println!("  seats sold twice: {twice}");
    println!(
        "  answers 503: {}, 409: {:?}, other than 2xx/409/503: {}{}",
        tally.answers_503,
        tally.answers_409,
        tally.other.len(),
        if tally.other.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                tally
                    .other
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    match back {
        Some(first) => println!(
            "  from the fault to the first purchase answered 201: {:.1} s",
            first.duration_since(faulted_at).as_secs_f64()
        ),
        None => println!("  no purchase was answered 201 within 120 s of the fault"),
    }
    // The outage as buyers saw it: the longest time without a purchase
    // answered 201, from the fault on.
    let mut answered: Vec<Instant> = tally.bought_at.clone();
    answered.push(faulted_at);
    answered.sort();
    let longest = answered
        .windows(2)
        .filter(|w| w[1] > faulted_at)
        .map(|w| w[1].duration_since(w[0]))
        .max()
        .unwrap_or_default();
    println!(
        "  the longest time without a sale from the fault on: {:.1} s",
        longest.as_secs_f64()
    );
    for (mut child, _) in apps {
        let _ = child.kill().await;
    }
    Ok(missing == 0 && twice == 0 && tally.other.is_empty() && back.is_some())
}

/// Which node takes writes now.
async fn primary_index(formation: &Formation) -> anyhow::Result<usize> {
    for i in 0..2 {
        if let Ok(client) =
            connect_when_ready(&formation.node_conninfo(i), Duration::from_secs(2)).await
            && let Ok(row) = client
                .query_one("SELECT NOT pg_is_in_recovery()", &[])
                .await
            && row.get::<_, bool>(0)
        {
            return Ok(i);
        }
    }
    bail!("neither node is a primary")
}

/// Both runs; whether every promise held in both.
pub async fn run(options: &Options) -> anyhow::Result<bool> {
    let killed = run_one(Fault::KillPrimary, options).await?;
    let switched = run_one(Fault::Switchover, options).await?;
    Ok(killed && switched)
}
