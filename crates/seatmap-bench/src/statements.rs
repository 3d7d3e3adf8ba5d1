//! With --statements: pg_stat_statements, reset before a scenario and
//! printed after it, to show where the database's time went.

use crate::harness::Harness;
use crate::options::Options;

/// Forgets what pg_stat_statements has counted so far (with --statements).
pub async fn reset(harness: &Harness, options: &Options) -> anyhow::Result<()> {
    if options.statements {
        let client = harness.pool.get().await?;
        client
            .batch_execute("SELECT pg_stat_statements_reset()")
            .await?;
    }
    Ok(())
}

/// With --statements: the statements the database spent its time on since
/// the last reset, each as calls and time per `unit` (a pick, a sale).
pub async fn print(
    harness: &Harness,
    options: &Options,
    label: &str,
    units: f64,
) -> anyhow::Result<()> {
    if !options.statements {
        return Ok(());
    }
    let client = harness.pool.get().await?;
    let rows = client
        .query(
            "SELECT calls, total_exec_time, total_plan_time, plans, query FROM pg_stat_statements
              WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              ORDER BY total_exec_time + total_plan_time DESC LIMIT 14",
            &[],
        )
        .await?;
    let total: f64 = client
        .query_one(
            "SELECT coalesce(sum(total_exec_time + total_plan_time), 0)::float8 FROM pg_stat_statements
              WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .await?
        .get(0);
    let units = units.max(1.0);
    println!(
        "\nstatements during {label} ({units:.0} units; planning and executor time {:.3} ms per unit):",
        total / units
    );
    println!("  calls/unit  plans/call  exec ms/unit  plan ms/unit  share  statement");
    for row in rows {
        let calls: i64 = row.get(0);
        let time: f64 = row.get(1);
        let planning: f64 = row.get(2);
        let plans: i64 = row.get(3);
        let query: String = row.get(4);
        let query: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
        println!(
            "  {:>10.2} {:>11.2} {:>13.3} {:>13.3} {:>5.1}%  {}",
            calls as f64 / units,
            plans as f64 / (calls as f64).max(1.0),
            time / units,
            planning / units,
            100.0 * (time + planning) / total.max(1e-9),
            query.chars().take(90).collect::<String>()
        );
    }
    Ok(())
}
