//! ga: buyers of 1–4 general-admission tickets herding on the concert
//! hall's floor; never more tickets granted than the floor holds.

use std::sync::Arc;

use seatmap_bench::loadgen::{self, Report, Target};

use super::Extra;
use crate::harness::Harness;
use crate::options::Options;

pub async fn run(
    harness: &Harness,
    target: Target,
    options: &Options,
    extra: &mut Extra,
) -> Report {
    let (event_id, area_id, capacity) = harness.ga_event;
    let target = Target {
        event_id,
        seat_ids: Arc::new(Vec::new()),
        ..target
    };
    let (mut report, tickets) =
        loadgen::ga(&target, area_id, options.buyers, options.concurrency).await;
    println!("\nga: {tickets} tickets granted of {capacity}");
    extra.insert("ga_tickets_granted".into(), tickets.into());
    extra.insert("ga_capacity".into(), capacity.into());
    if tickets > capacity as u64 {
        report.breaches.push(format!(
            "ga: {tickets} tickets granted in an area of {capacity}"
        ));
    }
    report
}
