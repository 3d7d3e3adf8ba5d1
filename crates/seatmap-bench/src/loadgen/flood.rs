//! Readers flooding the seat map beside one buyer.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;
use tokio::sync::Mutex;

use super::holds::pick_and_release;
use super::requests::{client, send, tasks_lost};
use super::{Report, Target};

/// One buyer picking a random seat and releasing it, over and over, until
/// `until`: its holds are what is timed.
async fn lone_buyer(target: &Target, until: Instant, scenario: &str) -> Report {
    let http = client(true);
    let base = target.base(0).to_string();
    let mut report = Report::named(scenario);
    while Instant::now() < until {
        pick_and_release(&http, &base, target, &mut report).await;
    }
    report
}

/// What a read flood did to another buyer.
#[derive(Debug, Default, Serialize)]
pub struct FloodReport {
    /// The lone buyer's holds with nobody else about.
    pub quiet: Report,
    /// The same buyer's holds while the flood ran.
    pub flooded: Report,
    pub reads: u64,
    pub reads_per_sec: f64,
    /// Reads answered other than 200 (status 0: no answer).
    pub reads_refused: BTreeMap<u16, u64>,
}

/// `readers` clients with no session (or, `holding`, each holding a seat
/// of its own) read the event's seat map as fast as they can (asking for
/// Brotli or gzip, as browsers do) for `duration`, all from this one
/// address; meanwhile one buyer holds and releases seats. The buyer is
/// first timed alone for the same duration.
pub async fn read_flood(
    target: &Target,
    duration: Duration,
    readers: usize,
    holding: bool,
) -> FloodReport {
    let started = Instant::now();
    let quiet = lone_buyer(target, Instant::now() + duration, "quiet").await;
    let quiet = quiet.finish(started);
    let until = Instant::now() + duration;
    let reads = Arc::new(AtomicU64::new(0));
    let refused: Arc<Mutex<BTreeMap<u16, u64>>> = Arc::default();
    let mut tasks = Vec::new();
    for reader in 0..readers {
        let url = format!(
            "{}/api/events/{}/seats",
            target.base(reader),
            target.event_id
        );
        let (reads, refused) = (reads.clone(), refused.clone());
        let hold_url = format!(
            "{}/api/events/{}/holds",
            target.base(reader),
            target.event_id
        );
        let seat = target.seat_ids[target.seat_ids.len() - 1 - reader % target.seat_ids.len()];
        tasks.push(tokio::spawn(async move {
            // A reader holding a seat sees its own map, not the shared one.
            let http = client(holding);
            if holding {
                let _ = send(http.post(&hold_url).json(&json!({ "seat_ids": [seat] }))).await;
            }
            while Instant::now() < until {
                let answer = http
                    .get(&url)
                    .header("accept-encoding", "br, gzip")
                    .send()
                    .await;
                let status = match answer {
                    Ok(response) => {
                        let status = response.status().as_u16();
                        let _ = response.bytes().await;
                        status
                    }
                    Err(_) => 0,
                };
                reads.fetch_add(1, Ordering::Relaxed);
                if status != 200 {
                    *refused.lock().await.entry(status).or_default() += 1;
                }
            }
        }));
    }
    let flood_started = Instant::now();
    let flooded = lone_buyer(target, until, "flooded")
        .await
        .finish(flood_started);
    tasks_lost(tasks).await;
    let reads = reads.load(Ordering::Relaxed);
    let refused = refused.lock().await.clone();
    FloodReport {
        quiet,
        flooded,
        reads,
        reads_per_sec: reads as f64 / flood_started.elapsed().as_secs_f64().max(1e-9),
        reads_refused: refused,
    }
}
