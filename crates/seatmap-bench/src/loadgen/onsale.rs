//! On-sale day behind the waiting room: arrivals join the queue, waiting
//! buyers ask where they stand at the interval the server gives, and each
//! buyer admitted picks one seat with their queue ticket.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::requests::{client, gather, ids, send};
use super::{Report, Target};

/// Timings of one kind of request.
#[derive(Debug, Default, Clone)]
pub struct Timings {
    pub latencies: Vec<Duration>,
    /// Answers other than the expected status.
    pub failed: u64,
    pub wall_secs: f64,
}

impl Timings {
    pub fn count(&self) -> usize {
        self.latencies.len()
    }

    pub fn per_sec(&self) -> f64 {
        self.latencies.len() as f64 / self.wall_secs.max(1e-9)
    }

    pub fn p95_ms(&self) -> f64 {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        super::report::quantile_ms(&sorted, 0.95)
    }

    fn merge(&mut self, other: Timings) {
        self.latencies.extend(other.latencies);
        self.failed += other.failed;
    }
}

/// A buyer in the line: their ticket, and the instance they talk to.
#[derive(Debug, Clone)]
pub struct Waiter {
    pub ticket: String,
    pub instance: usize,
}

/// `n` arrivals join the queue, `concurrency` at a time, spread over
/// the instances.
pub async fn join_crowd(target: &Target, n: usize, concurrency: usize) -> (Vec<Waiter>, Timings) {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency.max(1) {
        let (target, next) = (target.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let http = client(false);
            let mut joined = Vec::new();
            let mut timings = Timings::default();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                match join(&http, &target, i).await {
                    (Some(waiter), took) => {
                        timings.latencies.push(took);
                        joined.push(waiter);
                    }
                    (None, _) => timings.failed += 1,
                }
            }
            (joined, timings)
        }));
    }
    let mut waiters = Vec::new();
    let mut timings = Timings::default();
    for task in tasks {
        if let Ok((joined, part)) = task.await {
            waiters.extend(joined);
            timings.merge(part);
        }
    }
    timings.wall_secs = started.elapsed().as_secs_f64();
    (waiters, timings)
}

async fn join(http: &reqwest::Client, target: &Target, i: usize) -> (Option<Waiter>, Duration) {
    let instance = i % target.bases.len();
    let (status, body, took) = send(http.post(format!(
        "{}/api/events/{}/queue",
        target.bases[instance], target.event_id
    )))
    .await;
    let waiter = (status == 201)
        .then(|| body["ticket"].as_str().map(str::to_owned))
        .flatten()
        .map(|ticket| Waiter { ticket, instance });
    (waiter, took)
}

async fn ask(http: &reqwest::Client, target: &Target, waiter: &Waiter) -> (u16, Value, Duration) {
    send(
        http.get(format!(
            "{}/api/events/{}/queue",
            target.bases[waiter.instance], target.event_id
        ))
        .header("Queue-Ticket", &waiter.ticket),
    )
    .await
}

/// Waiting buyers' polls only, as fast as `concurrency` clients go, for
/// `duration`: what a poll costs on its own.
pub async fn polls_only(
    target: &Target,
    waiters: &[Waiter],
    duration: Duration,
    concurrency: usize,
) -> Timings {
    let waiters = Arc::new(waiters.to_vec());
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for _ in 0..concurrency.max(1) {
        let (target, waiters, next) = (target.clone(), waiters.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let http = client(false);
            let mut timings = Timings::default();
            while Instant::now() < deadline && !waiters.is_empty() {
                let waiter = &waiters[next.fetch_add(1, Ordering::Relaxed) % waiters.len()];
                let (status, body, took) = ask(&http, &target, waiter).await;
                timings.latencies.push(took);
                if status != 200 || body["state"] != "waiting" {
                    timings.failed += 1;
                }
            }
            timings
        }));
    }
    let mut timings = Timings::default();
    for task in tasks {
        if let Ok(part) = task.await {
            timings.merge(part);
        }
    }
    timings.wall_secs = started.elapsed().as_secs_f64();
    timings
}

/// The buyers in line, by when each asks next (and their index).
type Line = BinaryHeap<Reverse<(Instant, usize)>>;

/// What the time after the opening came to.
pub struct AfterOpening {
    pub joins: Timings,
    pub polls: Timings,
    /// The admitted buyers' picks (each one seat), checkable with `verify`.
    pub picks: Report,
    /// Buyers whose poll said "admitted".
    pub admitted_seen: usize,
}

/// After the opening, for `duration`: `arrivals` more buyers join at an
/// even pace; every buyer in line asks where they stand when the server
/// said to ask again; each one admitted picks one seat (the next of the
/// event's seats in a shuffled order) with their ticket.
pub async fn after_opening(
    target: &Target,
    already_waiting: Vec<Waiter>,
    arrivals: usize,
    duration: Duration,
    concurrency: usize,
) -> AfterOpening {
    let started = Instant::now();
    let deadline = started + duration;
    // The line, by when each buyer asks next.
    let line: Arc<Mutex<Line>> = Arc::default();
    let waiters: Arc<Mutex<Vec<Waiter>>> = Arc::default();
    for waiter in already_waiting {
        let mut all = waiters.lock().expect("waiters");
        line.lock()
            .expect("line")
            .push(Reverse((started, all.len())));
        all.push(waiter);
    }
    let mut seats: Vec<i64> = target.seat_ids.to_vec();
    // A fixed shuffle (no RNG needed): buyers spread over the house.
    seats.sort_by_key(|id| (id.wrapping_mul(2_654_435_761)) % 1_000_003);
    let seats = Arc::new(seats);
    let next_seat = Arc::new(AtomicUsize::new(0));

    let joiner = {
        let (target, line, waiters) = (target.clone(), line.clone(), waiters.clone());
        tokio::spawn(async move {
            let http = client(false);
            let mut timings = Timings::default();
            let gap = duration.div_f64(arrivals.max(1) as f64);
            for i in 0..arrivals {
                let due = started + gap.mul_f64(i as f64);
                if due > deadline {
                    break;
                }
                tokio::time::sleep_until(due.into()).await;
                match join(&http, &target, i).await {
                    (Some(waiter), took) => {
                        timings.latencies.push(took);
                        let mut all = waiters.lock().expect("waiters");
                        line.lock().expect("line").push(Reverse((
                            Instant::now() + Duration::from_secs(1),
                            all.len(),
                        )));
                        all.push(waiter);
                    }
                    (None, _) => timings.failed += 1,
                }
            }
            timings.wall_secs = started.elapsed().as_secs_f64();
            timings
        })
    };

    let mut pollers = Vec::new();
    for _ in 0..concurrency.max(1) {
        let (target, line, waiters) = (target.clone(), line.clone(), waiters.clone());
        let (seats, next_seat) = (seats.clone(), next_seat.clone());
        pollers.push(tokio::spawn(async move {
            let http = client(false);
            let mut polls = Timings::default();
            let mut picks = Report::named("onsale");
            let mut admitted = 0;
            while Instant::now() < deadline {
                let due = {
                    let mut line = line.lock().expect("line");
                    match line.peek() {
                        Some(Reverse((at, _))) if *at <= Instant::now() => line.pop(),
                        _ => None,
                    }
                };
                let Some(Reverse((_, index))) = due else {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                };
                let waiter = waiters.lock().expect("waiters")[index].clone();
                let (status, body, took) = ask(&http, &target, &waiter).await;
                polls.latencies.push(took);
                match (status, body["state"].as_str()) {
                    (200, Some("waiting")) => {
                        let after = body["poll_after_secs"].as_u64().unwrap_or(5).clamp(1, 60);
                        line.lock().expect("line").push(Reverse((
                            Instant::now() + Duration::from_secs(after),
                            index,
                        )));
                    }
                    (200, Some("admitted")) => {
                        admitted += 1;
                        let seat = seats[next_seat.fetch_add(1, Ordering::Relaxed) % seats.len()];
                        let (status, body, took) = send(
                            http.post(format!(
                                "{}/api/events/{}/holds",
                                target.bases[waiter.instance], target.event_id
                            ))
                            .header("Queue-Ticket", &waiter.ticket)
                            .json(&json!({ "seat_ids": [seat] })),
                        )
                        .await;
                        picks.record("hold", status, took);
                        if status == 201 {
                            picks.grant(&body, &ids(&body, "seat_ids"));
                        }
                    }
                    _ => polls.failed += 1,
                }
            }
            (polls, picks, admitted)
        }));
    }
    let mut polls = Timings::default();
    let mut reports = Vec::new();
    let mut admitted_seen = 0;
    for poller in pollers {
        if let Ok((part, picks, admitted)) = poller.await {
            polls.merge(part);
            admitted_seen += admitted;
            reports.push(tokio::spawn(async move { picks }));
        }
    }
    polls.wall_secs = started.elapsed().as_secs_f64();
    let joins = joiner.await.unwrap_or_default();
    AfterOpening {
        joins,
        polls,
        picks: gather("onsale", reports, started).await,
        admitted_seen,
    }
}
