//! offer-cost: the purchase with the offer (a price type per seat, a promo
//! code, a booking fee and tax) against the plain purchase, through the
//! app, side by side: new buyers hold one seat of the arena and buy it,
//! rounds of each in turn, medians of three. The arena gets its offer
//! (types priced for every tier, a code without a limit, a fee and 19 %
//! VAT) for the offer's rounds and loses it for the plain ones.

use seatmap_bench::{loadgen, reset};

use super::Extra;
use crate::harness::Harness;
use crate::options::Options;
use crate::pgbench::{medians, per_claim};
use crate::statements;

pub async fn run(harness: &Harness, options: &Options, extra: &mut Extra) -> anyhow::Result<()> {
    let target = harness.target(harness.apps.len());
    // (purchases/s, PostgreSQL CPU ms per hold-and-purchase), and the
    // purchase's median latency, per round.
    let mut plain = (Vec::new(), Vec::new());
    let mut offer = (Vec::new(), Vec::new());
    for round in 0..3 {
        for (with_offer, runs) in [(false, &mut plain), (true, &mut offer)] {
            harness.reset().await?;
            reset::set_offer(&harness.pool.get().await?, harness.event_id, with_offer)
                .await
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            statements::reset(harness, options).await?;
            let cpu = harness.postgres_cpu()?;
            let report = loadgen::sales_as(
                &target,
                options.duration,
                options.concurrency,
                with_offer.then_some(("child", "BENCH")),
            )
            .await;
            let bought = report.count_of("purchase", 201) as f64;
            let refused: u64 = report
                .by_action
                .get("purchase")
                .map(|statuses| {
                    statuses
                        .iter()
                        .filter(|(s, _)| **s != 201)
                        .map(|(_, n)| n)
                        .sum()
                })
                .unwrap_or(0);
            anyhow::ensure!(
                refused == 0,
                "{refused} purchases were refused: {:?}",
                report.by_action
            );
            let cpu = per_claim(harness.postgres_cpu()? - cpu, bought);
            runs.0.push((bought / report.wall_secs.max(1e-9), cpu));
            runs.1.push(report.p50_ms);
            if round == 2 {
                let label = match with_offer {
                    true => "hold and purchase with type, code, fee and tax (a unit: a sale)",
                    false => "hold and plain purchase (a unit: a sale)",
                };
                statements::print(harness, options, label, bought).await?;
            }
        }
    }
    harness.reset().await?;
    reset::set_offer(&harness.pool.get().await?, harness.event_id, false)
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let (plain_rate, plain_cpu) = medians(&plain.0);
    let (offer_rate, offer_cpu) = medians(&offer.0);
    let (plain_p50, offer_p50) = (median(plain.1), median(offer.1));
    println!(
        "\noffer-cost (new buyers hold one seat and buy it, through the app; medians of 3 rounds in turn):\n\
         \x20 plain purchase                       {plain_rate:>7.0} sales/s   purchase p50 {plain_p50:>6.1} ms   PostgreSQL CPU {plain_cpu:.2} ms/sale\n\
         \x20 with a type, a code, fee and tax     {offer_rate:>7.0} sales/s   purchase p50 {offer_p50:>6.1} ms   PostgreSQL CPU {offer_cpu:.2} ms/sale\n\
         \x20 ratio (offer / plain)                {:>7.2}x              {:>6.2}x                        {:.2}x",
        offer_rate / plain_rate.max(1e-9),
        offer_p50 / plain_p50.max(1e-9),
        offer_cpu / plain_cpu.max(1e-9),
    );
    extra.insert("offer_cost_plain_per_sec".into(), plain_rate.into());
    extra.insert("offer_cost_offer_per_sec".into(), offer_rate.into());
    extra.insert("offer_cost_plain_cpu_ms".into(), plain_cpu.into());
    extra.insert("offer_cost_offer_cpu_ms".into(), offer_cpu.into());
    Ok(())
}
