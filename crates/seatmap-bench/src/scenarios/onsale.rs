//! onsale: on-sale day behind the waiting room (issue 52). The arena's
//! event gets a queue opening in an hour; `--before-open` buyers join it;
//! their polls alone are measured against PostgreSQL (statements per
//! poll, from pg_stat_statements, less what the same span costs idle);
//! then the queue opens, the rest of `--arrivals` join over `--duration`,
//! everyone in line polls when told to, and each buyer admitted picks a
//! seat. Printed: joins, polls and picks, the admissions per minute
//! against `--admit-per-minute`, oversells (the invariants), and the
//! order's fairness from the database.

use std::time::Duration;

use seatmap::db::queue::QueueSpec;
use seatmap::domain::ids::EventId;
use seatmap_bench::loadgen::{self, Timings};
use time::OffsetDateTime;

use super::Extra;
use crate::harness::{Harness, MAX_SEATS_PER_HOLD};
use crate::options::Options;

/// Every statement the database has run (pg_stat_statements' calls).
async fn statements_so_far(harness: &Harness) -> anyhow::Result<i64> {
    let client = harness.pool.get().await?;
    Ok(client
        .query_one(
            "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
              WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .await?
        .get(0))
}

fn line(what: &str, timings: &Timings) {
    println!(
        "  {what:<28} {:>7} in {:>5.1} s: {:>8.0}/s, p95 {:>7.1} ms, {} failed",
        timings.count(),
        timings.wall_secs,
        timings.per_sec(),
        timings.p95_ms(),
        timings.failed
    );
}

/// Spearman's rank correlation of (x, y) pairs (ranks already).
fn spearman(pairs: &[(f64, f64)]) -> f64 {
    let n = pairs.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let d2: f64 = pairs.iter().map(|(x, y)| (x - y).powi(2)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

fn ranks(values: &[i64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by_key(|i| values[*i]);
    let mut ranks = vec![0.0; values.len()];
    for (rank, i) in order.into_iter().enumerate() {
        ranks[i] = rank as f64;
    }
    ranks
}

/// "auto" or "600 a minute".
fn rate(options: &Options) -> String {
    match options.admit_per_minute {
        Some(n) => format!("{n} a minute"),
        None => "auto".into(),
    }
}

/// An "auto" queue's target once a second while the sale runs, printed as
/// its trajectory (every 5 s) with the admitted count beside it.
fn watch_target(
    harness: &Harness,
    event_id: EventId,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> tokio::task::JoinHandle<Vec<(i64, i64)>> {
    let pool = harness.pool.clone();
    tokio::spawn(async move {
        let mut seen = Vec::new();
        let mut ticks = tokio::time::interval(Duration::from_secs(5));
        loop {
            ticks.tick().await;
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return seen;
            }
            let Ok(client) = pool.get().await else {
                continue;
            };
            match client
                .query_opt(
                    "SELECT coalesce(auto_target, 0)::bigint, admitted FROM event_queues WHERE event_id = $1",
                    &[&event_id],
                )
                .await
            {
                Ok(Some(row)) => seen.push((row.get(0), row.get(1))),
                _ => return seen,
            }
        }
    })
}

pub async fn run(harness: &Harness, options: &Options, extra: &mut Extra) -> anyhow::Result<bool> {
    let target = harness.target(harness.apps.len());
    let event_id = EventId(harness.event_id);
    let spec = |opens_at| QueueSpec {
        opens_at,
        admit_per_minute: options.admit_per_minute,
        window_minutes: 15,
        proof_of_work: false,
    };
    let later = OffsetDateTime::now_utc() + time::Duration::hours(1);
    seatmap::db::queue::put(&harness.pool, event_id, &spec(later)).await?;
    // Every instance reads the queues once a second.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    println!(
        "\nonsale: {} arrivals, {} before the opening, {} instance(s), admitting {}, concurrency {}",
        options.arrivals,
        options.before_open,
        harness.apps.len(),
        rate(options),
        options.concurrency
    );
    let (early, joins_before) =
        loadgen::join_crowd(&target, options.before_open, options.concurrency).await;
    line("joins before the opening", &joins_before);

    // What a waiting buyer's poll costs the database: the statements run
    // while they poll, less those the same span runs with nobody polling
    // (the workers' reads, the live feed).
    let window = Duration::from_secs(5);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_from = statements_so_far(harness).await?;
    tokio::time::sleep(window).await;
    let idle = statements_so_far(harness).await? - idle_from;
    let polling_from = statements_so_far(harness).await?;
    let polls_alone = loadgen::polls_only(&target, &early, window, options.concurrency).await;
    let polling = statements_so_far(harness).await? - polling_from;
    let idle_share = idle as f64 * polls_alone.wall_secs / window.as_secs_f64();
    let per_poll = (polling as f64 - idle_share).max(0.0) / (polls_alone.count().max(1) as f64);
    line("waiting polls, polls alone", &polls_alone);
    println!(
        "  SQL statements per waiting poll: {per_poll:.4} ({polling} statements during {} polls, {idle} in the same span idle)",
        polls_alone.count()
    );

    let opened = OffsetDateTime::now_utc();
    seatmap::db::queue::put(&harness.pool, event_id, &spec(opened)).await?;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watching = watch_target(harness, event_id, stop.clone());
    let after = loadgen::after_opening(
        &target,
        early,
        options.arrivals - options.before_open,
        options.duration,
        options.concurrency,
    )
    .await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let trajectory = watching.await?;
    line("joins after the opening", &after.joins);
    if options.admit_per_minute.is_none() {
        let shown: Vec<String> = trajectory
            .iter()
            .enumerate()
            .map(|(i, (target, admitted))| format!("{}s {target}/{admitted}", i * 5))
            .collect();
        println!(
            "  auto target / admitted so far, every 5 s: {}",
            shown.join(", ")
        );
    }
    line("waiting polls, on sale", &after.polls);
    let mut picks = after.picks;
    println!(
        "  admitted buyers' picks      {:>7} in {:>5.1} s: p50 {:.1} ms, p95 {:.1} ms; 201: {}, 409: {} ({} admitted buyers seen)",
        picks.requests,
        picks.wall_secs,
        picks.p50_ms,
        picks.p95_ms,
        picks.count(201),
        picks.count(409),
        after.admitted_seen
    );

    let client = harness.pool.get().await?;
    // Admissions per minute: the most in any 60 s, by whole seconds.
    let busiest: i64 = client
        .query_one(
            "WITH per_second AS (
                SELECT date_trunc('second', admitted_at) AS at, count(*) AS n
                  FROM queue_joins WHERE event_id = $1 AND admitted_at IS NOT NULL GROUP BY 1)
             SELECT coalesce(max(s), 0)::bigint FROM (
                SELECT sum(n) OVER (ORDER BY at RANGE BETWEEN CURRENT ROW AND '59 seconds' FOLLOWING) AS s
                  FROM per_second) w",
            &[&event_id],
        )
        .await?
        .get(0);
    let admitted: i64 = client
        .query_one(
            "SELECT count(*) FROM queue_joins WHERE event_id = $1 AND admitted_at IS NOT NULL",
            &[&event_id],
        )
        .await?
        .get(0);
    println!(
        "  admissions: {admitted} in all; the busiest minute {busiest} against a setting of {}",
        rate(options)
    );
    // Fairness, from the database: the admission order is (admitted_at,
    // order_key); arrival order is the join's sequence number.
    let rows = client
        .query(
            "SELECT early, seq FROM queue_joins WHERE event_id = $1 AND admitted_at IS NOT NULL
              ORDER BY admitted_at, order_key",
            &[&event_id],
        )
        .await?;
    let early_seqs: Vec<i64> = rows.iter().filter(|r| r.get(0)).map(|r| r.get(1)).collect();
    let late_seqs: Vec<i64> = rows
        .iter()
        .filter(|r| !r.get::<_, bool>(0))
        .map(|r| r.get(1))
        .collect();
    let early_first = rows
        .iter()
        .skip_while(|r| r.get::<_, bool>(0))
        .all(|r| !r.get::<_, bool>(0));
    let arrival_ranks = ranks(&early_seqs);
    let pairs: Vec<(f64, f64)> = arrival_ranks
        .iter()
        .enumerate()
        .map(|(admission, arrival)| (*arrival, admission as f64))
        .collect();
    let rho = spearman(&pairs);
    let late_in_order = late_seqs.windows(2).all(|w| w[0] < w[1]);
    println!(
        "  fairness: early arrivals admitted {} (rank correlation of arrival and admission {rho:+.3}); \
         every early one before every later one: {}; later arrivals ({}) in arrival order: {}",
        early_seqs.len(),
        if early_first { "yes" } else { "no" },
        late_seqs.len(),
        if late_in_order { "yes" } else { "no" }
    );
    loadgen::verify(&harness.pool, &mut picks, MAX_SEATS_PER_HOLD).await?;
    println!(
        "  oversells and other invariant breaches: {}",
        picks.breaches.len()
    );
    for breach in &picks.breaches {
        println!("    {breach}");
    }
    let prefix = format!("onsale_{}i", harness.apps.len());
    for (name, value) in [
        ("joins_per_sec", joins_before.per_sec()),
        ("join_p95_ms", joins_before.p95_ms()),
        ("polls_per_sec", polls_alone.per_sec()),
        ("poll_p95_ms", polls_alone.p95_ms()),
        ("statements_per_poll", per_poll),
        ("onsale_polls_per_sec", after.polls.per_sec()),
        ("onsale_poll_p95_ms", after.polls.p95_ms()),
        ("pick_p95_ms", picks.p95_ms),
        ("busiest_minute_admissions", busiest as f64),
        ("early_rank_correlation", rho),
    ] {
        extra.insert(format!("{prefix}_{name}"), value.into());
    }
    // The scenarios after this one sell without a queue.
    seatmap::db::queue::delete(&harness.pool, event_id).await?;
    let unexpected = picks.unexpected();
    if !unexpected.is_empty() {
        println!("  unexpected answers: {}", unexpected.join(", "));
    }
    Ok(picks.breaches.is_empty()
        && unexpected.is_empty()
        && early_first
        && late_in_order
        && joins_before.failed == 0)
}
