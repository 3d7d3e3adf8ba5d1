//! The HTTP plumbing the scenarios share: clients, a timed request, and
//! the workers' reports gathered into one.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::Report;

/// The seat ids a response lists under `key` ("added", "seat_ids").
pub(super) fn ids(body: &Value, key: &str) -> Vec<i64> {
    body[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default()
}

/// An HTTP client for one buyer (its own cookie jar when `cookies`) or a
/// crowd of sessionless ones.
pub(super) fn client(cookies: bool) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(cookies)
        .pool_max_idle_per_host(512)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("http client")
}

/// One request, timed. Status 0 means no response at all.
pub(super) async fn send(request: reqwest::RequestBuilder) -> (u16, Value, Duration) {
    let started = Instant::now();
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            let body = response.json::<Value>().await.unwrap_or(Value::Null);
            (status, body, started.elapsed())
        }
        Err(_) => (0, Value::Null, started.elapsed()),
    }
}

/// Merges the workers' reports into one, timed from `started`.
pub(super) async fn gather(
    scenario: &str,
    tasks: Vec<tokio::task::JoinHandle<Report>>,
    started: Instant,
) -> Report {
    let mut report = Report::named(scenario);
    for task in tasks {
        match task.await {
            Ok(part) => report.merge(part),
            Err(_) => report.lost_workers += 1,
        }
    }
    report.finish(started)
}

/// Waits for every task; returns how many panicked.
pub(super) async fn tasks_lost(tasks: Vec<tokio::task::JoinHandle<()>>) -> u64 {
    let mut lost = 0;
    for task in tasks {
        if task.await.is_err() {
            lost += 1;
        }
    }
    lost
}
