//! door: 2,000 tickets sold, then every code scanned twice by
//! --concurrency gates: exactly one admission each. Then the offline
//! door's list, fetched and timed.

use seatmap_bench::loadgen::{self, Report, Target};

use super::Extra;
use crate::harness::Harness;
use crate::options::Options;

pub async fn run(
    harness: &Harness,
    target: &Target,
    options: &Options,
    extra: &mut Extra,
) -> anyhow::Result<Report> {
    const TICKETS: usize = 2000;
    let (name, password) = ("bench-door", "a long bench door password");
    let hash = seatmap::domain::password::hash(password)?;
    let client = harness.pool.get().await?;
    let _ =
        seatmap::db::staff::create(&client, name, &hash, seatmap::domain::role::Role::Door).await;
    drop(client);
    let report = loadgen::door(target, (name, password), TICKETS, options.concurrency).await;
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
    let (mut took, bytes) = loadgen::door_list_times(target, (name, password), 11).await;
    took.sort_by(f64::total_cmp);
    if let Some(median) = took.get(took.len() / 2) {
        println!(
            "door list: {TICKETS} tickets, {bytes} bytes, median {median:.1} ms \
             over {} fetches",
            took.len()
        );
        extra.insert("door_list_median_ms".into(), (*median).into());
    }
    Ok(report)
}
