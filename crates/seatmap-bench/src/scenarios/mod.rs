//! The scenarios, one module each (hot-seat, picks, best and mixed are
//! the load generator's own, called as they are), and the checks made
//! after every one that ends with a report.

mod door;
pub mod failover;
mod faults;
mod ga;
mod live;
mod offer_cost;
mod onsale;
mod ratio;
mod read_flood;
mod sale_cost;
mod sales;
mod scale;
mod stalled_bodies;

use std::time::Duration;

use anyhow::bail;
use seatmap_bench::loadgen::{self, Report};

use crate::harness::{Harness, MAX_SEATS_PER_HOLD};
use crate::options::Options;
use crate::{print, statements};

/// Numbers the scenarios keep beside their reports, for --json.
pub type Extra = serde_json::Map<String, serde_json::Value>;

/// How a scenario ended.
pub enum Outcome {
    /// A report for the table, to be checked against the database (boxed:
    /// it is large beside the other variant).
    Report(Box<Report>),
    /// Its own lines printed and its numbers kept in `extra`, and whether
    /// the server answered as a healthy one does.
    Printed { healthy: bool },
}

/// Runs the scenario named `scenario` across every instance.
pub async fn run(
    scenario: &str,
    harness: &mut Harness,
    options: &Options,
    extra: &mut Extra,
) -> anyhow::Result<Outcome> {
    let all = harness.apps.len();
    let target = harness.target(all);
    let report = match scenario {
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
        "sales" => sales::run(&target, options, extra).await,
        "door" => door::run(harness, &target, options, extra).await?,
        "ga" => ga::run(harness, target, options, extra).await,
        "ratio" => ratio::run(harness, options, extra).await?,
        "offer-cost" => {
            offer_cost::run(harness, options, extra).await?;
            return Ok(Outcome::Printed { healthy: true });
        }
        "sale-cost" => {
            sale_cost::run(harness, options, extra).await?;
            return Ok(Outcome::Printed { healthy: true });
        }
        "live" => {
            let healthy = live::run(&target, all, options, extra).await?;
            return Ok(Outcome::Printed { healthy });
        }
        "faults" => faults::run(harness, options).await?,
        "read-flood" | "read-flood-holders" => {
            read_flood::run(scenario, harness, target, options, extra).await?;
            return Ok(Outcome::Printed { healthy: true });
        }
        "stalled-bodies" => {
            stalled_bodies::run(harness, options, extra).await?;
            return Ok(Outcome::Printed { healthy: true });
        }
        "scale" => scale::run(harness, options, extra).await?,
        "onsale" => {
            let healthy = onsale::run(harness, options, extra).await?;
            return Ok(Outcome::Printed { healthy });
        }
        other => bail!("unknown scenario {other}"),
    };
    Ok(Outcome::Report(Box::new(report)))
}

/// After a scenario with a report: where the database's time went (with
/// --statements), the database's invariants, exactly one winner of a hot
/// seat, and the table's row. Returns the report, and whether every answer
/// was one a healthy server gives (faults are the one scenario whose 503s
/// and lost answers are the point).
pub async fn check(
    scenario: &str,
    harness: &Harness,
    options: &Options,
    report: Box<Report>,
) -> anyhow::Result<(Report, bool)> {
    let mut report = *report;
    report.scenario = scenario.to_string();
    if scenario != "ratio" {
        statements::print(
            harness,
            options,
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
    print::print_header();
    print::print_row(&report);
    // Faults are the one scenario whose 503s and lost answers are the
    // point; anywhere else they are failures, not numbers to print.
    let unexpected = report.unexpected();
    let healthy = scenario == "faults" || unexpected.is_empty();
    if !healthy {
        println!("unexpected answers: {}", unexpected.join(", "));
    }
    Ok((report, healthy))
}
