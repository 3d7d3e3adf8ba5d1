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
//! the ticket and outbox writes), offer-cost (the same, with a price type,
//! a promo code, a booking fee and tax against the plain purchase, rounds
//! in turn), door (2,000 tickets sold, then every code
//! scanned twice by --concurrency gates: exactly one admission each),
//! read-flood (--concurrency readers of the arena's seat map from one
//! address, and one buyer's hold latency alone and beside them; in
//! read-flood-holders each reader holds a seat, so its map is its own),
//! stalled-bodies (17 addresses x 256 hold requests whose bodies stall,
//! on an instance with the default connection caps, while a clean
//! address asks /healthz), onsale (--arrivals buyers join an event's
//! waiting room, --before-open of them before the opening, then the rest
//! over --duration while all poll and those admitted pick a seat; with
//! the join, poll and pick figures, the statements per poll, the admission
//! rate against --admit-per-minute, and the order's fairness), failover
//! (alone: a pg_auto_failover monitor, primary and synchronous standby
//! made with pg_autoctl, 2 instances given both nodes, buyers at
//! --concurrency; the primary's machine killed, then on a fresh formation
//! a planned switchover; acknowledged purchases missing, seats sold twice,
//! stray answers, and the gap to the first sale after the fault).
//! --seatmap-binary PATH runs another build;
//! --statements loads pg_stat_statements and prints where the database's
//! time went in ratio, sales and best.
//!
//! The binary's own modules are below; the load generator (loadgen) and the
//! database chores (reset) are the library's, shared with the tests.

mod harness;
mod options;
mod pgbench;
mod print;
mod scenarios;
mod statements;

use anyhow::bail;

use harness::Harness;
use options::Options;
use scenarios::{Extra, Outcome};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = Options::from_args()?;
    if let Some(chosen) = &options.seatmap {
        harness::use_seatmap_binary(chosen)?;
    }
    // failover builds its own pg_auto_failover formation, not the
    // harness's one cluster.
    if options.scenarios.iter().any(|s| s == "failover") {
        anyhow::ensure!(
            options.scenarios.len() == 1,
            "failover runs alone: it brings its own database formation"
        );
        if !scenarios::failover::run(&options).await? {
            bail!("failover: a promise did not hold: see above");
        }
        println!("\nall promises held");
        return Ok(());
    }
    let needs = if options.scenarios.iter().any(|s| s == "scale") {
        options.instances.max(2)
    } else {
        options.instances
    };
    let mut harness = Harness::start(needs, options.durability, options.statements).await?;
    print::banner(harness.apps.len(), &options);
    let mut reports = Vec::new();
    let mut failures = 0;
    let mut extra = Extra::new();
    for scenario in &options.scenarios {
        harness.reset().await?;
        if scenario != "ratio" {
            statements::reset(&harness, &options).await?;
        }
        let deadlocks_before = harness.deadlocks().await?;
        let healthy = match scenarios::run(scenario, &mut harness, &options, &mut extra).await? {
            Outcome::Printed { healthy } => healthy,
            Outcome::Report(report) => {
                let (report, healthy) =
                    scenarios::check(scenario, &harness, &options, report).await?;
                reports.push(report);
                healthy
            }
        };
        // Claims lock in a fixed order, so a herd should deadlock never.
        let deadlocks = harness.deadlocks().await?.saturating_sub(deadlocks_before);
        println!("{scenario}: deadlocks {deadlocks} (pg_stat_database)");
        extra.insert(format!("{scenario}_deadlocks"), deadlocks.into());
        if !healthy {
            failures += 1;
        }
    }
    let breaches: usize = reports.iter().map(|r| r.breaches.len()).sum();
    if let Some(path) = &options.json {
        print::write_json(path, &reports, &extra)?;
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
