//! Best-available throughput and latency as the venue fills.
//!
//!     cargo bench -p seatmap-bench --bench best_available [-- --seconds 5 --workers 4]
//!
//! A 20,000-seat venue (4 sections x 50 rows x 100 seats) on a real
//! PostgreSQL: BENCH_DATABASE_URL if set (a database this may fill and
//! empty), else a throwaway cluster from the system binaries. For each fill
//! level, `workers` tasks ask for 2-4 seats together for `seconds` seconds,
//! each as a new buyer, and release what they got (untimed) so the level
//! stays put. The venue is filled front to back in rank order, the way best
//! available fills it; a scattered fill at 95% is shown too. The same levels
//! are then run without the partial indexes, side by side in one run.
//!
//! The throwaway cluster runs with fsync off: this measures the queries'
//! cost, which is what grows (or doesn't) with seats sold, not the disk.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pg_embedded::{Durability, PgCluster};
use seatmap::db::holds::Holder;
use seatmap::db::{self, Pool, best_available::BestAvailableRequest};
use seatmap::domain::hold::HoldRules;
use seatmap::error::AppError;
use tokio_postgres::NoTls;

const VENUE_SEATS: i64 = 20_000;

struct Options {
    seconds: f64,
    workers: usize,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<f64>().ok())
    };
    Options {
        seconds: value("--seconds").unwrap_or(5.0).clamp(0.5, 120.0),
        workers: value("--workers").unwrap_or(4.0).clamp(1.0, 64.0) as usize,
    }
}

#[derive(Clone, Copy)]
enum Fill {
    FrontFirst,
    Scattered,
}

struct Level {
    label: String,
    ops: usize,
    refused: usize,
    per_second: f64,
    p50_ms: f64,
    p95_ms: f64,
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

async fn set_fill(pool: &Pool, event_id: i64, order_id: uuid::Uuid, percent: u32, fill: Fill) {
    let client = pool.get().await.expect("pool");
    client
        .execute(
            "UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL, order_id = NULL
              WHERE event_id = $1 AND status <> 'AVAILABLE'",
            &[&event_id],
        )
        .await
        .expect("emptying the venue");
    let order = match fill {
        Fill::FrontFirst => "rank, id",
        Fill::Scattered => "md5(id::text)",
    };
    let count = VENUE_SEATS * i64::from(percent) / 100;
    client
        .execute(
            &format!(
                "UPDATE seats SET status = 'SOLD', order_id = $2
                  WHERE id IN (SELECT id FROM seats WHERE event_id = $1 ORDER BY {order} LIMIT $3)"
            ),
            &[&event_id, &order_id, &count],
        )
        .await
        .expect("filling the venue");
    client
        .batch_execute("VACUUM ANALYZE seats")
        .await
        .expect("vacuum");
}

async fn run_level(pool: &Pool, event_id: i64, options: &Options, label: String) -> Level {
    let deadline = Instant::now() + Duration::from_secs_f64(options.seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..options.workers {
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut refused = 0;
            let mut i = worker;
            while Instant::now() < deadline {
                let buyer = seatmap::domain::ids::BuyerId(uuid::Uuid::new_v4());
                let request = BestAvailableRequest {
                    count: 2 + (i % 3) as u32,
                    section: None,
                    tier: None,
                    together: true,
                    mode: db::best_available::BestMode::Add,
                    wheelchair: 0,
                    avoid_restricted_view: false,
                };
                i += 1;
                let t0 = Instant::now();
                let outcome = db::best_available::hold_best_available(
                    &pool,
                    seatmap::domain::ids::EventId(event_id),
                    Holder {
                        buyer_id: buyer,
                        client_ip: None,
                        api_key: None,
                        request: None,
                    },
                    &request,
                    HoldRules {
                        ttl: Duration::from_secs(600),
                        max_seats: 10,
                        max_holds_per_ip: 0,
                        max_holds_per_key: 0,
                        share_seats: 0,
                    },
                )
                .await;
                latencies.push(t0.elapsed());
                match outcome {
                    Ok(found) => {
                        db::holds::release_hold(&pool, found.hold.hold_id, buyer)
                            .await
                            .expect("releasing");
                    }
                    Err(AppError::Conflict { .. }) => refused += 1,
                    Err(other) => panic!("best available failed: {other:?}"),
                }
            }
            (latencies, refused)
        }));
    }
    let mut latencies = Vec::new();
    let mut refused = 0;
    for task in tasks {
        let (mut l, r) = task.await.expect("worker");
        latencies.append(&mut l);
        refused += r;
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort();
    Level {
        label,
        ops: latencies.len(),
        refused,
        per_second: latencies.len() as f64 / elapsed,
        p50_ms: percentile(&latencies, 0.50),
        p95_ms: percentile(&latencies, 0.95),
    }
}

async fn run_matrix(
    pool: &Pool,
    event_id: i64,
    order_id: uuid::Uuid,
    options: &Options,
) -> Vec<Level> {
    let mut levels = Vec::new();
    for (percent, fill, name) in [
        (0, Fill::FrontFirst, "front-first"),
        (50, Fill::FrontFirst, "front-first"),
        (95, Fill::FrontFirst, "front-first"),
        (95, Fill::Scattered, "scattered"),
    ] {
        set_fill(pool, event_id, order_id, percent, fill).await;
        // Warm the statement caches and the buffer pool.
        run_level(
            pool,
            event_id,
            &Options {
                seconds: 0.5,
                workers: options.workers,
            },
            String::new(),
        )
        .await;
        levels.push(run_level(pool, event_id, options, format!("{percent:>3}% {name}")).await);
    }
    levels
}

fn print_table(title: &str, levels: &[Level]) {
    println!("\n{title}");
    println!(
        "{:<17} {:>7} {:>9} {:>8} {:>8} {:>8}",
        "fill", "ops", "ops/s", "p50 ms", "p95 ms", "refused"
    );
    for l in levels {
        println!(
            "{:<17} {:>7} {:>9.0} {:>8.2} {:>8.2} {:>8}",
            l.label, l.ops, l.per_second, l.p50_ms, l.p95_ms, l.refused
        );
    }
    println!(
        "throughput at 95% front-first / 0%: {:.2}",
        levels[2].per_second / levels[0].per_second
    );
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = options();
    let (pg_config, _cluster, _dir) = match std::env::var("BENCH_DATABASE_URL") {
        Ok(url) => (url.parse::<tokio_postgres::Config>()?, None, None),
        Err(_) => {
            let dir = tempfile::Builder::new()
                .prefix("seatmap-bench-")
                .tempdir()?;
            std::fs::set_permissions(
                dir.path(),
                std::os::unix::fs::PermissionsExt::from_mode(0o755),
            )?;
            let cluster = PgCluster::start(&dir.path().join("pgdata"), Durability::Throwaway)?;
            let (admin, connection) = cluster.connect_config("postgres").connect(NoTls).await?;
            tokio::spawn(connection);
            db::ensure_database(&admin, "bench").await?;
            (
                cluster.connect_config("bench"),
                Some(Arc::new(cluster)),
                Some(dir),
            )
        }
    };
    let settings = seatmap::config::DbSettings {
        pool_size: options.workers * 2,
        ..Default::default()
    };
    let pool = db::build_pool(pg_config, &settings)?;
    db::migrate(&pool).await?;

    let arena = seatmap_bench::reset::arena_event(&pool).await?;
    println!("{}", arena.describe());
    let event_id = arena.event_id;
    let create_ms = arena.create.as_secs_f64() * 1000.0;
    let order_id = uuid::Uuid::new_v4();
    pool.get()
        .await?
        .execute(
            "INSERT INTO orders (id, event_id, buyer_id, buyer_name, buyer_email)
             VALUES ($1, $2, gen_random_uuid(), 'Bench', 'bench@example.com')",
            &[&order_id, &event_id],
        )
        .await?;
    println!(
        "best available on a {}-seat venue: {} workers, {} s per level; event created in {create_ms:.0} ms",
        VENUE_SEATS, options.workers, options.seconds
    );

    let with_indexes = run_matrix(&pool, event_id, order_id, &options).await;
    print_table("with the partial indexes (as shipped)", &with_indexes);

    pool.get()
        .await?
        .batch_execute("DROP INDEX seats_available_by_rank; DROP INDEX seats_held_by_expiry;")
        .await?;
    let without = run_matrix(&pool, event_id, order_id, &options).await;
    print_table(
        "without them: (event, section, row, position) index only",
        &without,
    );
    println!(
        "\nshipped vs without, 0%: {:.1}x, 95% front-first: {:.1}x",
        with_indexes[0].per_second / without[0].per_second,
        with_indexes[2].per_second / without[2].per_second
    );

    // Four more events from the same venue (after the matrix, so their
    // seats don't change what it measured), for a median creation time.
    let mut creations = vec![create_ms];
    for _ in 0..4 {
        creations.push(
            seatmap_bench::reset::arena_event(&pool)
                .await?
                .create
                .as_secs_f64()
                * 1000.0,
        );
    }
    creations.sort_by(f64::total_cmp);
    println!(
        "\ncreating the 20,000-seat event from the venue, 5 runs: median {:.0} ms (min {:.0}, max {:.0})",
        creations[2], creations[0], creations[4]
    );

    pool.close();
    if let Some(cluster) = _cluster {
        cluster.stop()?;
    }
    Ok(())
}
