//! live: --pages open pages across the instances, picks at
//! --picks-per-sec, and the time from a pick's 201 to each page.

use seatmap_bench::loadgen::{self, Target};

use super::Extra;
use crate::options::Options;

/// Returns whether every page saw every pick.
pub async fn run(
    target: &Target,
    all: usize,
    options: &Options,
    extra: &mut Extra,
) -> anyhow::Result<bool> {
    let pages = options.pages;
    let live = loadgen::live(target, pages, options.picks_per_sec, options.duration).await;
    println!(
        "\nlive: {} of {pages} pages open across {all} instance(s), {} picks at {}/s; \
         {} of {} (page, pick) deliveries; 201 to page: p50 {:.1} ms, p95 {:.1} ms, \
         p99 {:.1} ms, max {:.1} ms",
        live.pages_opened,
        live.picks,
        options.picks_per_sec,
        live.deliveries,
        live.expected,
        live.p50_ms,
        live.p95_ms,
        live.p99_ms,
        live.max_ms
    );
    let healthy = live.deliveries >= live.expected;
    if !healthy {
        println!(
            "live: {} deliveries missing",
            live.expected - live.deliveries
        );
    }
    extra.insert("live".into(), serde_json::to_value(&live)?);
    Ok(healthy)
}
