//! sales: new buyers hold one seat and buy it; purchases per second and
//! the purchase's latency, with its ticket and outbox writes.

use seatmap_bench::loadgen::{self, Report, Target};

use super::Extra;
use crate::options::Options;

pub async fn run(target: &Target, options: &Options, extra: &mut Extra) -> Report {
    let report = loadgen::sales(target, options.duration, options.concurrency).await;
    println!(
        "\nsales: {:.0} purchases/s (each: one seat, its ticket and its e-mail row, one transaction); \
         purchase p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms",
        report.holds_per_sec, report.p50_ms, report.p95_ms, report.p99_ms
    );
    extra.insert(
        "sales_purchases_per_sec".into(),
        report.holds_per_sec.into(),
    );
    extra.insert("sales_purchase_p95_ms".into(), report.p95_ms.into());
    report
}
