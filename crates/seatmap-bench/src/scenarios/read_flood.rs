//! read-flood and read-flood-holders: --concurrency readers of the
//! arena's seat map from one address, and one buyer's hold latency alone
//! and beside them (in read-flood-holders each reader holds a seat, so its
//! map is its own).

use seatmap_bench::loadgen::{self, Report, Target};

use super::Extra;
use crate::harness::{Harness, free_port};
use crate::options::Options;

pub async fn run(
    scenario: &str,
    harness: &Harness,
    target: Target,
    options: &Options,
    extra: &mut Extra,
) -> anyhow::Result<()> {
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
    let flood = loadgen::read_flood(&target, options.duration, options.concurrency, holding).await;
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
    Ok(())
}
