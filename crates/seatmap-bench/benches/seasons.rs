//! What a season claim costs, next to a single event's pick, side by side.
//!
//!     cargo bench -p seatmap-bench --bench seasons [-- --claims 100 --rounds 3]
//!
//! The app (in this process, through production's `Application`) on its
//! own embedded PostgreSQL with fsync on. The demo hall's Demo Night and
//! 19 copies of it ("Add performances"); a season of the first 3 events
//! and one of all 20. Each claim is a new buyer over HTTP holding one
//! place:
//! - "single pick": one seat of the Demo Night (`POST /api/events/{id}/holds`);
//! - "season of 3": one place in 3 events (`POST /api/seasons/{id}/holds`);
//! - "season of 20": one place in 20 events.
//!
//! Modes take turns, `rounds` times, `claims` claims each, one at a time
//! (the cost of a claim, not a herd's throughput); PostgreSQL's CPU (the
//! postmaster and its children, from /proc) is read around each mode's
//! claims. Each place is claimed once, so every claim finds it free.
//! Medians of the rounds are printed.

use std::time::{Duration, Instant};

use seatmap::config::{Config, DatabaseSource};
use seatmap::db::database::Database;
use seatmap::domain::ids::EventId;
use seatmap::startup::Application;
use serde_json::{Value, json};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

#[derive(Clone, Copy)]
enum Mode {
    Single,
    Season(i64, usize),
}

impl Mode {
    fn label(self) -> String {
        match self {
            Mode::Single => "single pick".into(),
            Mode::Season(_, nights) => format!("season of {nights}"),
        }
    }
}

/// One new buyer claiming `place`; the answer must be 201.
async fn claim(base: &str, event_id: i64, place: i64, mode: Mode) -> Duration {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .expect("client");
    let url = match mode {
        Mode::Single => format!("{base}/api/events/{event_id}/holds"),
        Mode::Season(season, _) => format!("{base}/api/seasons/{season}/holds"),
    };
    let started = Instant::now();
    let response = http
        .post(url)
        .json(&json!({"seat_ids": [place]}))
        .send()
        .await
        .expect("claim");
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("claim body");
    assert_eq!(status, 201, "{body}");
    elapsed
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let claims = arg("--claims", 100);
    let rounds = arg("--rounds", 3);
    let data = tempfile::tempdir()?;
    std::fs::set_permissions(
        data.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )?;
    let mut config = Config::for_tests(DatabaseSource::Embedded {
        data_dir: Some(data.path().to_path_buf()),
    });
    // Every claim is a new buyer from one address: the per-address
    // limits would refuse most of them.
    config.limits.hold_requests_per_ip = 1_000_000;
    config.limits.max_holds_per_ip = 0;
    let database = Database::connect(&config).await?;
    let pool = &database.pool;
    let first = seatmap::db::demo::seed_demo(pool).await?;
    let now = time::OffsetDateTime::now_utc();
    let starts: Vec<time::OffsetDateTime> = (1..20)
        .map(|n| now + time::Duration::days(40 + n))
        .collect();
    let copies = seatmap::db::series::copy_event(pool, first, &starts).await?;
    let client = pool.get().await?;
    client
        .execute(
            "UPDATE events SET published_at = now() WHERE id = ANY($1)",
            &[&copies],
        )
        .await?;
    let mut all = vec![first];
    all.extend(copies);
    let season = |name: &str, events: Vec<EventId>| seatmap::db::seasons::NewSeason {
        name: name.into(),
        event_ids: events,
        prices: None,
        on_sale_at: None,
        choose_events: None,
        release_credit: false,
    };
    let three = seatmap::db::seasons::create(pool, &season("Three", all[..3].to_vec())).await?;
    let twenty = seatmap::db::seasons::create(pool, &season("Twenty", all.clone())).await?;
    let app = Application::build(config, &database).await?;
    let base = format!("http://{}", app.addr);
    tokio::spawn(app.run_until(std::future::pending()));
    let seats: Vec<i64> = client
        .query(
            "SELECT id FROM seats WHERE event_id = $1 ORDER BY id",
            &[&first],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let modes = [
        Mode::Single,
        Mode::Season(three.0, 3),
        Mode::Season(twenty.0, 20),
    ];
    const WARM_UP: usize = 10;
    // The three modes claim the same first-event seats: a single pick
    // holds it in the first event, which the seasons then couldn't have.
    // So each mode takes its own slice of places.
    let per_mode = WARM_UP + claims * rounds;
    anyhow::ensure!(
        seats.len() >= per_mode * modes.len(),
        "the demo hall has {} seats; ask for fewer --claims or --rounds",
        seats.len()
    );
    type Rounds = (Mode, Vec<f64>, Vec<f64>);
    let mut results: Vec<Rounds> = modes.iter().map(|m| (*m, Vec::new(), Vec::new())).collect();
    let mut next = vec![0usize; modes.len()];
    for round in 0..=rounds {
        for (i, (mode, cpu_per_claim, p50)) in results.iter_mut().enumerate() {
            let count = if round == 0 { WARM_UP } else { claims };
            let from = i * per_mode + next[i];
            next[i] += count;
            let cpu = seatmap_bench::postgres_cpu(data.path()).expect("PostgreSQL CPU");
            let mut times = Vec::new();
            for place in &seats[from..from + count] {
                times.push(claim(&base, first.0, *place, *mode).await);
            }
            let spent = seatmap_bench::postgres_cpu(data.path()).expect("PostgreSQL CPU") - cpu;
            if round == 0 {
                continue;
            }
            cpu_per_claim.push(spent.as_secs_f64() * 1000.0 / claims as f64);
            p50.push(median(
                times.iter().map(|t| t.as_secs_f64() * 1000.0).collect(),
            ));
        }
    }
    let base_cpu = median(results[0].1.clone());
    let base_p50 = median(results[0].2.clone());
    println!(
        "\nseason claims: {claims} claims per mode and round, one at a time, medians of {rounds} \
         rounds in turn (embedded PostgreSQL, fsync on; each claim a new buyer, one place):"
    );
    for (mode, cpu, p50) in &results {
        let cpu = median(cpu.clone());
        let p50 = median(p50.clone());
        println!(
            "  {:<14} PostgreSQL CPU {cpu:>5.2} ms/claim ({:>4.2}x single)   p50 {p50:>5.1} ms ({:>4.2}x)",
            mode.label(),
            cpu / base_cpu.max(1e-9),
            p50 / base_p50.max(1e-9),
        );
    }
    Ok(())
}
