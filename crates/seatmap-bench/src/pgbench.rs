//! pgbench on the SQL the app runs (claims, sales), against the bench's
//! database: the ceilings the HTTP numbers are compared with.

use std::process::Command;
use std::time::Duration;

use anyhow::Context;

use crate::harness::Harness;
use crate::options::Options;

/// pgbench on the claim (and release) SQL the app runs, against the same
/// database at the same concurrency: the ceiling for HTTP picks.
/// Returns claims per second and claims made (each pgbench transaction
/// pair is one claim and its release).
pub async fn claims(harness: &Harness, options: &Options, sql: &str) -> anyhow::Result<(f64, f64)> {
    let script = harness.data_dir.path().join("claim.sql");
    std::fs::write(&script, sql)?;
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
    let bin = pg_embedded::find_bin_dir()?.join("pgbench");
    let output = Command::new(bin)
        .args(["-n", "-M", "prepared", "-j", "2"])
        .arg("-c")
        .arg(options.concurrency.to_string())
        .arg("-T")
        .arg(options.duration.as_secs().max(1).to_string())
        .arg("-D")
        .arg(format!("event={}", harness.event_id))
        .arg("-D")
        .arg(format!("lo={}", harness.seat_ids[0]))
        .arg("-D")
        .arg(format!(
            "hi={}",
            harness.seat_ids[harness.seat_ids.len() - 1]
        ))
        .arg("-f")
        .arg(&script)
        .arg("-h")
        .arg(harness.data_dir.path().join("pgdata"))
        .args(["-p", "5432", "-U", pg_embedded::SUPERUSER, "bench"])
        .output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let tps = text
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<f64>().ok())
        .with_context(|| {
            format!(
                "pgbench printed no tps:\n{text}\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    let processed = text
        .lines()
        .find_map(|line| line.strip_prefix("number of transactions actually processed: "))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<f64>().ok())
        .unwrap_or(0.0);
    Ok((tps, processed))
}

/// CPU time in milliseconds per claim (or sale).
pub fn per_claim(cpu: Duration, claims: f64) -> f64 {
    cpu.as_secs_f64() * 1000.0 / claims.max(1.0)
}

/// The median of each column.
pub fn medians(runs: &[(f64, f64)]) -> (f64, f64) {
    let median = |mut values: Vec<f64>| {
        values.sort_by(|a, b| a.total_cmp(b));
        values[values.len() / 2]
    };
    (
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
    )
}
