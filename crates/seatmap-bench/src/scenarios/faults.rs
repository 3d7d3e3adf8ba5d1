//! faults: kill the app, restart PostgreSQL, hold a stray lock, all
//! under load.

use std::time::{Duration, Instant};

use anyhow::Context;
use seatmap_bench::loadgen::{self, Report};
use seatmap_bench::reset;
use tokio_postgres::NoTls;

use crate::harness::{Harness, MAX_SEATS_PER_HOLD, wait_ready};
use crate::options::Options;

/// Picks under load while the app is killed three times, PostgreSQL is
/// restarted, and a stray transaction sits on seats' locks.
pub async fn run(harness: &mut Harness, options: &Options) -> anyhow::Result<Report> {
    let duration = options.duration.max(Duration::from_secs(30));
    let target = harness.target(harness.apps.len());
    let load = tokio::spawn(async move { loadgen::picks(&target, duration, 32).await });
    let probe = reqwest::Client::builder()
        .timeout(Duration::from_secs(15))
        .build()?;

    for round in 1..=3 {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let app = &mut harness.apps[0];
        app.child.kill()?; // SIGKILL
        app.child.wait()?;
        let port = app.port;
        let restarted = Instant::now();
        harness.apps[0] = harness.spawn_app(port).await?;
        println!(
            "fault: SIGKILLed the app ({round}/3), back in {} ms",
            restarted.elapsed().as_millis()
        );
    }

    tokio::time::sleep(Duration::from_secs(2)).await;
    let base = harness.apps[0].base();
    let probe_down = {
        let base = base.clone();
        let probe = probe.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let started = Instant::now();
            let status = probe
                .get(format!("{base}/api/events"))
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0);
            (status, started.elapsed())
        })
    };
    let down_for = harness.restart_postgres().await?;
    let (status, took) = probe_down.await?;
    println!(
        "fault: restarted PostgreSQL (down {} ms); a request meanwhile got {status} in {} ms",
        down_for.as_millis(),
        took.as_millis()
    );
    let recovered = Instant::now();
    wait_ready(&base, Duration::from_secs(30)).await?;
    println!(
        "fault: the app was ready again {} ms after PostgreSQL, with no restart",
        recovered.elapsed().as_millis()
    );

    tokio::time::sleep(Duration::from_secs(1)).await;
    let (mut stray, connection) = harness
        .cluster
        .as_ref()
        .context("no cluster")?
        .connect_config("bench")
        .connect(NoTls)
        .await?;
    tokio::spawn(connection);
    reset::lock_seats_for_a_while(
        &mut stray,
        seatmap::domain::ids::EventId(harness.event_id),
        2000,
        tokio::time::sleep(Duration::from_secs(5)),
    )
    .await
    .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    println!(
        "fault: a stray transaction held 2,000 seats' locks for 5 s (claims there hit lock_timeout)"
    );

    let mut report = load.await?;
    report.scenario = "faults".into();
    loadgen::verify(&harness.pool, &mut report, MAX_SEATS_PER_HOLD).await?;
    let metrics = probe
        .get(format!("{base}/metrics"))
        .send()
        .await?
        .text()
        .await?;
    if let Some(line) = metrics
        .lines()
        .find(|l| l.starts_with("seatmap_db_transaction_retries_total"))
    {
        println!("fault: {line} (on the last instance since its restart)");
    }
    Ok(report)
}
