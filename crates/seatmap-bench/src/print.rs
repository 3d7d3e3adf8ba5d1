//! What the bench prints and writes: the run's first line, the results
//! table (one row per scenario, its breaches beneath), and --json.

use std::io::Write;
use std::path::Path;

use pg_embedded::Durability;
use seatmap_bench::loadgen::Report;

use crate::options::Options;
use crate::scenarios::Extra;

/// The run's first line: instances, concurrency, run length and fsync.
pub fn banner(instances: usize, options: &Options) {
    println!(
        "{} instance(s), concurrency {}, {} s runs, fsync {}",
        instances,
        options.concurrency,
        options.duration.as_secs(),
        if options.durability == Durability::Durable {
            "on"
        } else {
            "off"
        }
    );
}

pub fn print_header() {
    println!(
        "\n{:<14} {:>8} {:>7} {:>7} {:>6} {:>6} {:>7} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "scenario",
        "requests",
        "201",
        "409",
        "503",
        "other",
        "wall s",
        "holds/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "breaches"
    );
}

pub fn print_row(report: &Report) {
    let listed: u64 = [201, 409, 503].iter().map(|s| report.count(*s)).sum();
    println!(
        "{:<14} {:>8} {:>7} {:>7} {:>6} {:>6} {:>7.2} {:>9.0} {:>8.2} {:>8.2} {:>8.2} {:>8}",
        report.scenario,
        report.requests,
        report.count(201),
        report.count(409),
        report.count(503),
        report.requests - listed,
        report.wall_secs,
        report.holds_per_sec,
        report.p50_ms,
        report.p95_ms,
        report.p99_ms,
        report.breaches.len()
    );
    for breach in &report.breaches {
        println!("    BREACH {breach}");
    }
}

/// Every report and the scenarios' other numbers, as one JSON document.
pub fn write_json(path: &Path, reports: &[Report], extra: &Extra) -> anyhow::Result<()> {
    let document = serde_json::json!({ "reports": reports, "extra": extra });
    std::fs::File::create(path)?.write_all(serde_json::to_string_pretty(&document)?.as_bytes())?;
    println!("\nwrote {}", path.display());
    Ok(())
}
