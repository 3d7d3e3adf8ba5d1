//! Open pages on the live feed, and how soon each sees a pick.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use super::Target;
use super::requests::{client, send};

/// What open pages saw of picks made while they watched.
#[derive(Debug, Default, Serialize)]
pub struct LiveReport {
    pub pages: usize,
    pub pages_opened: usize,
    pub picks: usize,
    /// (page, pick) pairs that arrived, of pages_opened × picks.
    pub deliveries: usize,
    pub expected: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// Opens `pages` live streams spread across the target's instances (every
/// seat shown: each pick reaches every page), then picks a fresh seat
/// `picks_per_sec` times a second for `duration`, through the instances in
/// turn. Latency: from the pick's 201 reaching its buyer to the seat
/// arriving, as held, on each page (0 if it arrived first).
pub async fn live(
    target: &Target,
    pages: usize,
    picks_per_sec: u32,
    duration: Duration,
) -> LiveReport {
    let arrivals: Arc<std::sync::Mutex<Vec<(i64, Instant)>>> = Arc::default();
    let opened = Arc::new(AtomicU64::new(0));
    let mut readers = Vec::new();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("http client");
    for page in 0..pages {
        let url = format!("{}/events/{}/live", target.base(page), target.event_id);
        let http = http.clone();
        let arrivals = arrivals.clone();
        let opened = opened.clone();
        readers.push(tokio::spawn(async move {
            let Ok(mut response) = http.get(url).send().await else {
                return;
            };
            if response.status() != 200 {
                return;
            }
            opened.fetch_add(1, Ordering::Relaxed);
            let mut tail = String::new();
            let mut seen: HashSet<i64> = HashSet::new();
            while let Ok(Some(chunk)) = response.chunk().await {
                let now = Instant::now();
                tail.push_str(&String::from_utf8_lossy(&chunk));
                let mut mine = Vec::new();
                for held in tail.split("id=\"seat-").skip(1) {
                    let Some((id, rest)) = held.split_once('"') else {
                        continue;
                    };
                    if rest.starts_with(" class=\"seat seat--held") {
                        if let Ok(id) = id.parse::<i64>() {
                            if seen.insert(id) {
                                mine.push((id, now));
                            }
                        }
                    }
                }
                // Keep only an unfinished tag for the next chunk.
                let keep = tail.rfind("id=\"seat-").unwrap_or(tail.len());
                tail.drain(..keep);
                if !mine.is_empty() {
                    arrivals.lock().unwrap().extend(mine);
                }
            }
        }));
    }
    // Wait for the pages to open (each catches up once), up to 60 s.
    let opening = Instant::now();
    while (opened.load(Ordering::Relaxed) as usize) < pages
        && opening.elapsed() < Duration::from_secs(60)
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let pages_opened = opened.load(Ordering::Relaxed) as usize;

    let mut order: Vec<i64> = target.seat_ids.iter().copied().collect();
    {
        use rand::seq::SliceRandom;
        order.shuffle(&mut rand::rng());
    }
    let count = (f64::from(picks_per_sec) * duration.as_secs_f64()) as usize;
    let picked: Arc<std::sync::Mutex<BTreeMap<i64, Instant>>> = Arc::default();
    let mut ticks = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(picks_per_sec)));
    let mut pickers = Vec::new();
    for (n, seat) in order.into_iter().take(count).enumerate() {
        ticks.tick().await;
        let base = target.base(n).to_string();
        let event_id = target.event_id;
        let picked = picked.clone();
        pickers.push(tokio::spawn(async move {
            let http = client(true);
            let (status, _, _) = send(
                http.post(format!("{base}/api/events/{event_id}/holds"))
                    .json(&json!({ "seat_ids": [seat] })),
            )
            .await;
            if status == 201 {
                picked.lock().unwrap().insert(seat, Instant::now());
            }
        }));
    }
    for picker in pickers {
        let _ = picker.await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    for reader in &readers {
        reader.abort();
    }
    let picked = picked.lock().unwrap().clone();
    let arrivals = arrivals.lock().unwrap().clone();
    let mut latencies: Vec<f64> = arrivals
        .iter()
        .filter_map(|(seat, at)| {
            picked
                .get(seat)
                .map(|created| at.saturating_duration_since(*created).as_secs_f64() * 1000.0)
        })
        .collect();
    latencies.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| {
        if latencies.is_empty() {
            return 0.0;
        }
        latencies[((latencies.len() as f64 - 1.0) * q).round() as usize]
    };
    LiveReport {
        pages,
        pages_opened,
        picks: picked.len(),
        deliveries: latencies.len(),
        expected: picked.len() * pages_opened,
        p50_ms: at(0.50),
        p95_ms: at(0.95),
        p99_ms: at(0.99),
        max_ms: latencies.last().copied().unwrap_or(0.0),
    }
}
