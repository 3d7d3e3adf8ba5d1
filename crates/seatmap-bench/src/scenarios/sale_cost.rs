//! sale-cost: pgbench on a claim then a purchase of one random seat,
//! without and with the purchase's ticket and outbox writes.

use seatmap_bench::reset;

use super::Extra;
use crate::harness::Harness;
use crate::options::Options;
use crate::pgbench::{self, medians, per_claim};
use crate::statements;

pub async fn run(harness: &Harness, options: &Options, extra: &mut Extra) -> anyhow::Result<()> {
    // Rounds of the purchase without and with its ticket and
    // outbox writes, in turn, for medians on a noisy machine.
    let mut before = Vec::new();
    let mut after = Vec::new();
    for round in 0..3 {
        for (with_tickets, runs) in [(false, &mut before), (true, &mut after)] {
            statements::reset(harness, options).await?;
            let cpu = harness.postgres_cpu()?;
            let (tps, sales) =
                pgbench::claims(harness, options, &reset::sale_script(with_tickets)).await?;
            runs.push((tps, per_claim(harness.postgres_cpu()? - cpu, sales)));
            if round == 2 {
                let label = match with_tickets {
                    true => "sales with tickets and outbox (a unit: a sale)",
                    false => "sales without (a unit: a sale)",
                };
                statements::print(harness, options, label, sales).await?;
            }
            harness.reset().await?;
        }
    }
    let (without, without_cpu) = medians(&before);
    let (with, with_cpu) = medians(&after);
    println!(
        "\nsale-cost (pgbench, claim then purchase of one random seat, medians of 3 rounds in turn):\n\
         \x20 purchase without tickets and outbox (as before) {without:>7.0} sales/s   PostgreSQL CPU {without_cpu:.2} ms/sale\n\
         \x20 purchase with its ticket and outbox row        {with:>7.0} sales/s   {:.2}x   CPU {with_cpu:.2} ms/sale",
        with / without.max(1e-9)
    );
    extra.insert("sale_cost_without_per_sec".into(), without.into());
    extra.insert("sale_cost_with_per_sec".into(), with.into());
    Ok(())
}
