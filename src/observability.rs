//! Metrics (Prometheus text at /metrics) and the per-request span with its
//! request id. Metric names are the contract dashboards depend on.

use std::sync::OnceLock;
use std::time::Instant;

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
    let response = next.run(request).await;
    metrics::histogram!(
        REQUEST_DURATION,
        "route" => route,
        "method" => method,
        "status" => response.status().as_u16().to_string()
    )
    .record(started.elapsed().as_secs_f64());
    response
}
