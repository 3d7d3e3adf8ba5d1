//! stalled-bodies: 17 addresses x 256 hold requests whose bodies stall,
//! on an instance with the default connection caps, while a clean address
//! asks /healthz.

use seatmap_bench::loadgen;

use super::Extra;
use crate::harness::{Harness, free_port};
use crate::options::Options;

pub async fn run(harness: &Harness, options: &Options, extra: &mut Extra) -> anyhow::Result<()> {
    // An instance with the default caps on connections.
    let port = free_port()?;
    let app = harness
        .spawn_app_with(port, &[("SEATMAP_MAX_CONNECTIONS_PER_IP", "256")])
        .await?;
    let stall =
        loadgen::stalled_bodies(&app.base(), harness.event_id, 17, 256, options.duration).await;
    println!(
        "\nstalled-bodies (17 addresses x 256 stalled hold requests, kept up for {} s):\n\
         \x20 /healthz from a clean address: {} of {} answered within 5 s\n\
         \x20 stalled bodies sent {}, closed by the server {} (the longest after {:.1} s); \
         still open at the end {} (the oldest for {:.1} s)",
        options.duration.as_secs(),
        stall.probes_answered,
        stall.probes,
        stall.stalled_sent,
        stall.stalled_closed,
        stall.longest_open_secs,
        stall.still_open,
        stall.oldest_still_open_secs
    );
    extra.insert("stalled_bodies".into(), serde_json::to_value(&stall)?);
    drop(app);
    Ok(())
}
