//! scale: picks on one instance, then on all; then a streaming replica
//! from pg_basebackup: map reads/s on --instances instances without and
//! with it, and the hot seat with reads on it.

use std::time::Duration;

use anyhow::bail;
use seatmap_bench::loadgen::{self, Report, Target};

use super::Extra;
use crate::harness::{App, Harness, free_port};
use crate::options::Options;

pub async fn run(
    harness: &mut Harness,
    options: &Options,
    extra: &mut Extra,
) -> anyhow::Result<Report> {
    let all = harness.apps.len();
    let one = loadgen::picks(&harness.target(1), options.duration, options.concurrency).await;
    harness.reset().await?;
    let many = loadgen::picks(&harness.target(all), options.duration, options.concurrency).await;
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
    replica_reads(harness, options, all, extra).await
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
    extra: &mut Extra,
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
        let (primary_before, replica_before) = (harness.postgres_cpu()?, harness.replica_cpu()?);
        let flood = loadgen::read_flood(
            &target_of(apps),
            options.duration,
            options.concurrency,
            false,
        )
        .await;
        let primary = (harness.postgres_cpu()? - primary_before).as_secs_f64();
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
