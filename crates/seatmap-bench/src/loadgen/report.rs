//! What a scenario saw, and the checks made against the database after it.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use seatmap::db::Pool;
use seatmap::db::invariants::{self, Granted};

/// What one scenario saw.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub scenario: String,
    pub requests: u64,
    /// Responses by HTTP status; 0 counts transport errors (no response).
    pub statuses: BTreeMap<u16, u64>,
    pub wall_secs: f64,
    /// Successful holds (201s) per second of wall time.
    pub holds_per_sec: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    /// Invariants found broken afterwards (empty is the goal).
    pub breaches: Vec<String>,
    /// Responses by action ("hold", "purchase", ...) and HTTP status.
    pub by_action: BTreeMap<&'static str, BTreeMap<u16, u64>>,
    /// Workers that panicked: their requests are missing from the counts.
    pub lost_workers: u64,
    #[serde(skip)]
    pub(super) latencies: Vec<Duration>,
    #[serde(skip)]
    pub(super) granted: Vec<Granted>,
    #[serde(skip)]
    pub(super) released: HashSet<(Uuid, i64)>,
}

impl Report {
    pub(super) fn named(scenario: &str) -> Report {
        Report {
            scenario: scenario.to_string(),
            ..Report::default()
        }
    }

    pub(super) fn record(&mut self, action: &'static str, status: u16, took: Duration) {
        self.requests += 1;
        *self.statuses.entry(status).or_default() += 1;
        self.tally(action, status);
        self.latencies.push(took);
    }

    /// Counts an answer by action only: a step the scenario takes between
    /// the requests it measures (picks' release), kept out of the table.
    pub(super) fn tally(&mut self, action: &'static str, status: u16) {
        *self
            .by_action
            .entry(action)
            .or_default()
            .entry(status)
            .or_default() += 1;
    }

    pub(super) fn merge(&mut self, other: Report) {
        self.requests += other.requests;
        for (status, n) in other.statuses {
            *self.statuses.entry(status).or_default() += n;
        }
        for (action, statuses) in other.by_action {
            let mine = self.by_action.entry(action).or_default();
            for (status, n) in statuses {
                *mine.entry(status).or_default() += n;
            }
        }
        self.lost_workers += other.lost_workers;
        self.latencies.extend(other.latencies);
        self.granted.extend(other.granted);
        self.released.extend(other.released);
    }

    pub(super) fn finish(mut self, started: Instant) -> Report {
        self.wall_secs = started.elapsed().as_secs_f64();
        self.latencies.sort();
        self.p50_ms = quantile_ms(&self.latencies, 0.50);
        self.p95_ms = quantile_ms(&self.latencies, 0.95);
        self.p99_ms = quantile_ms(&self.latencies, 0.99);
        let created = self.count(201) as f64;
        self.holds_per_sec = created / self.wall_secs.max(1e-9);
        self
    }

    pub fn count(&self, status: u16) -> u64 {
        self.statuses.get(&status).copied().unwrap_or(0)
    }

    /// How many answers `action` got with `status`.
    pub fn count_of(&self, action: &str, status: u16) -> u64 {
        self.by_action
            .get(action)
            .and_then(|statuses| statuses.get(&status))
            .copied()
            .unwrap_or(0)
    }

    /// Every answer outside what a healthy server gives each action under
    /// this load ("hold: 503 × 3"), and any lost worker. Status 0 is no
    /// answer at all. Empty is the goal; the fault scenario expects some.
    pub fn unexpected(&self) -> Vec<String> {
        let mut found: Vec<String> = self
            .by_action
            .iter()
            .flat_map(|(action, statuses)| {
                let allowed = ALLOWED
                    .iter()
                    .find(|(name, _)| name == action)
                    .map_or(&[][..], |(_, allowed)| *allowed);
                statuses
                    .iter()
                    .filter(move |(status, _)| !allowed.contains(status))
                    .map(move |(status, n)| format!("{action}: {status} × {n}"))
            })
            .collect();
        if self.lost_workers > 0 {
            found.push(format!("{} workers panicked", self.lost_workers));
        }
        found
    }

    pub(super) fn grant(&mut self, body: &Value, seats: &[i64]) {
        if let Some(hold) = body["hold_id"].as_str().and_then(|h| h.parse().ok()) {
            for seat in seats {
                self.granted.push(Granted {
                    hold_id: hold,
                    seat_id: seatmap::domain::ids::SeatId(*seat),
                });
            }
        }
    }
}

/// What each action may answer on a healthy server with the abuse limits
/// off: a seat or best-available claim may lose (409), nothing else may.
const ALLOWED: &[(&str, &[u16])] = &[
    ("hold", &[201, 409]),
    ("best", &[201, 409]),
    ("ga", &[201, 409]),
    ("release_seat", &[204]),
    ("release", &[204]),
    ("purchase", &[201]),
    ("sign_in", &[303]),
    ("scan", &[200]),
    ("admitted", &[200]),
    ("already_admitted", &[200]),
    ("read", &[200]),
    ("health", &[200]),
];

/// Checks the database's invariants, and that every seat the clients were
/// given (and did not release) is still held by that hold or sold from it.
/// Appends what it finds to `report.breaches`.
pub async fn verify(pool: &Pool, report: &mut Report, max_seats: u32) -> anyhow::Result<()> {
    let client = pool.get().await?;
    let mut breaches = invariants::check(&client, max_seats)
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let mut seen = HashSet::new();
    let kept: Vec<Granted> = report
        .granted
        .iter()
        .filter(|g| !report.released.contains(&(g.hold_id.0, g.seat_id.0)))
        .filter(|g| seen.insert((g.hold_id, g.seat_id)))
        .cloned()
        .collect();
    breaches.extend(
        invariants::check_granted(&client, &kept)
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?,
    );
    report.breaches.extend(
        breaches
            .into_iter()
            .map(|b| format!("{}: {}", b.invariant, b.detail)),
    );
    Ok(())
}

/// The `q` quantile of sorted latencies, in milliseconds (0 when none).
pub(super) fn quantile_ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}
