//! ratio: pgbench on the claim SQL without and with the app's trigger,
//! HTTP picks at --concurrency and at 16, PostgreSQL CPU per pick.

use seatmap_bench::loadgen::{self, Report};
use seatmap_bench::reset;

use super::Extra;
use crate::harness::Harness;
use crate::options::Options;
use crate::pgbench::{self, medians, per_claim};
use crate::statements;

/// pgbench on the claim SQL without the app's trigger (the ceiling) and
/// with it, then HTTP picks at --concurrency and at 16, on one instance,
/// with PostgreSQL's CPU time per claim for each.
pub async fn run(
    harness: &Harness,
    options: &Options,
    extra: &mut Extra,
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
        let cpu = harness.postgres_cpu()?;
        let ceiling = pgbench::claims(harness, options, &reset::ceiling_script()).await;
        let ceiling_cpu = harness.postgres_cpu()? - cpu;
        reset::set_live_feed_triggers(&client, true)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        drop(client);
        let (tps, claims) = ceiling?;
        ceilings.push((tps, per_claim(ceiling_cpu, claims)));
        harness.reset().await?;
        let cpu = harness.postgres_cpu()?;
        let (tps, claims) = pgbench::claims(harness, options, reset::PGBENCH_CLAIM_SCRIPT).await?;
        apps.push((tps, per_claim(harness.postgres_cpu()? - cpu, claims)));
        harness.reset().await?;
    }
    let (ceiling, ceiling_cpu) = medians(&ceilings);
    let (tps, sql_cpu) = medians(&apps);
    statements::reset(harness, options).await?;
    let cpu = harness.postgres_cpu()?;
    let report = loadgen::picks(&harness.target(1), options.duration, options.concurrency).await;
    let http_cpu = harness.postgres_cpu()? - cpu;
    statements::print(
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
