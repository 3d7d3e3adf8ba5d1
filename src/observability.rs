//! Metrics (Prometheus text at /metrics) and the per-request span with its
//! request id. Metric names are the contract dashboards depend on.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

pub const SEATS_CLAIMED: &str = "seatmap_seats_claimed_total";
pub const CLAIMS_CONFLICTED: &str = "seatmap_claims_conflicted_total";
pub const SEATS_EXPIRED_RECLAIMED: &str = "seatmap_seats_expired_reclaimed_total";
pub const PURCHASES: &str = "seatmap_purchases_total";
pub const BEST_AVAILABLE: &str = "seatmap_best_available_total";
pub const REQUEST_DURATION: &str = "seatmap_http_request_duration_seconds";
pub const TRANSACTION_RETRIES: &str = "seatmap_db_transaction_retries_total";
/// One live-feed poll: the query for what committed, the reads of the
/// changed seats and the broadcast. Its sum over time is the feed's load
/// on the database; its tail is part of the latency to open pages.
pub const LIVE_POLL_DURATION: &str = "seatmap_live_poll_duration_seconds";
pub const LIVE_POLL_FAILURES: &str = "seatmap_live_poll_failures_total";
/// How far the read replica is behind the primary, in seconds (see
/// `db::replica`), and whether it answered the last measurement.
pub const REPLICA_LAG: &str = "seatmap_replica_lag_seconds";
pub const REPLICA_REACHABLE: &str = "seatmap_replica_reachable";
/// Reads that could go to the replica, by where they went (`to`).
pub const READS_ROUTED: &str = "seatmap_reads_routed_total";
/// This instance's claims' p95 over the last few seconds, and the factor
/// its queue worker last moved "auto" waiting rooms' targets by.
pub const CLAIM_P95: &str = "seatmap_claim_p95_seconds";
pub const QUEUE_AUTO_GROWTH: &str = "seatmap_queue_auto_growth";

/// The process's metrics recorder, installed on first use. Metrics are
/// per process: every app instance in a test process shares one registry.
pub fn metrics() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full(REQUEST_DURATION.to_string()),
                &[
                    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                ],
            )
            .expect("valid buckets")
            .set_buckets_for_metric(
                Matcher::Full(LIVE_POLL_DURATION.to_string()),
                &[
                    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
                ],
            )
            .expect("valid buckets")
            .build_recorder();
        let handle = recorder.handle();
        // Another recorder may already be installed (a host embedding us);
        // then we still render our own registry.
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

/// Times every routed request, labelled by route template (never by raw
/// path, so ids don't explode the label set), method and status.
pub async fn track_requests(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    let method = request.method().to_string();
    let mark = ClaimMark::default();
    let mut request = request;
    request.extensions_mut().insert(mark.clone());
    let response = next.run(request).await;
    if mark.0.load(Ordering::Relaxed) {
        // Kept by when it finished: a claim slower than the window still
        // counts (by its start it would fall out, and the tail with it).
        claim_meter().record(Instant::now(), started.elapsed());
    }
    metrics::histogram!(
        REQUEST_DURATION,
        "route" => route,
        "method" => method,
        "status" => response.status().as_u16().to_string()
    )
    .record(started.elapsed().as_secs_f64());
    response
}

/// Set by the waiting room's gate when a request turns out to be a claim
/// (see `web::queue::gate::admit`), so [`track_requests`] times it into
/// the [`ClaimMeter`] that paces "auto" queues.
#[derive(Debug, Clone, Default)]
pub struct ClaimMark(Arc<AtomicBool>);

impl ClaimMark {
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The claims this process answered lately, and how long each took: what
/// an "auto" waiting room's worker reads to pace admissions
/// (`domain::queue_pace`). Per process, like the metrics: an instance
/// judges the house by its own claims, which share the one database.
pub struct ClaimMeter {
    recent: Mutex<VecDeque<(Instant, Duration)>>,
}

/// Claims kept; at more than this in [`CLAIM_WINDOW`] the rate is read
/// from the span the kept ones cover.
const CLAIM_METER_CAPACITY: usize = 4096;
/// How far back the meter looks.
pub const CLAIM_WINDOW: Duration = Duration::from_secs(3);

pub fn claim_meter() -> &'static ClaimMeter {
    static METER: OnceLock<ClaimMeter> = OnceLock::new();
    METER.get_or_init(|| ClaimMeter {
        recent: Mutex::new(VecDeque::with_capacity(CLAIM_METER_CAPACITY)),
    })
}

impl ClaimMeter {
    /// A claim that finished at `finished`, having taken `took`.
    pub fn record(&self, finished: Instant, took: Duration) {
        let mut recent = self.recent.lock().expect("claim meter lock");
        if recent.len() == CLAIM_METER_CAPACITY {
            recent.pop_front();
        }
        recent.push_back((finished, took));
    }

    /// The claims of the last [`CLAIM_WINDOW`] before `now`, if any.
    pub fn sample(&self, now: Instant) -> Option<crate::domain::queue_pace::ClaimSample> {
        let recent = self.recent.lock().expect("claim meter lock");
        let since = now.checked_sub(CLAIM_WINDOW)?;
        let mut took: Vec<Duration> = recent
            .iter()
            .filter(|(at, _)| *at >= since)
            .map(|(_, took)| *took)
            .collect();
        let oldest = recent.iter().find(|(at, _)| *at >= since)?.0;
        drop(recent);
        let span = match took.len() == CLAIM_METER_CAPACITY {
            true => now.saturating_duration_since(oldest),
            false => CLAIM_WINDOW,
        };
        took.sort_unstable();
        let count = took.len();
        let p95 = took[((count as f64 * 0.95).ceil() as usize).clamp(1, count) - 1];
        let mean = took.iter().sum::<Duration>() / count as u32;
        Some(crate::domain::queue_pace::ClaimSample {
            count,
            per_second: count as f64 / span.as_secs_f64().max(0.001),
            p95,
            mean,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_reads_the_window_s_claims_their_rate_and_tail() {
        let meter = ClaimMeter {
            recent: Mutex::new(VecDeque::new()),
        };
        let now = Instant::now() + Duration::from_secs(60);
        // One claim too old to count, then 100 of 1..=100 ms.
        meter.record(
            now - CLAIM_WINDOW - Duration::from_secs(1),
            Duration::from_secs(9),
        );
        for ms in 1..=100 {
            meter.record(
                now - Duration::from_millis(10 * ms),
                Duration::from_millis(ms),
            );
        }
        let sample = meter.sample(now).expect("claims");
        assert_eq!(sample.count, 100);
        assert_eq!(sample.p95, Duration::from_millis(95));
        assert_eq!(sample.mean, Duration::from_micros(50_500));
        assert!((sample.per_second - 100.0 / CLAIM_WINDOW.as_secs_f64()).abs() < 1e-9);
        assert!(meter.sample(now + Duration::from_secs(10)).is_none());
    }
}
