//! Buyers claiming seats: one seat for many (hot seat), random picks,
//! best available, general admission, and the mixed on-sale load.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::json;
use tokio::sync::{Mutex, Semaphore};

use super::requests::{client, gather, ids, send, tasks_lost};
use super::{Report, Target};

/// General admission under a herd: `buyers` distinct sessions ask for 1–4
/// tickets each in one area, `concurrency` at a time. Returns the report
/// and how many tickets the 201s granted in all (never more than the area
/// holds, if the guarded update works).
pub async fn ga(target: &Target, area_id: i64, buyers: usize, concurrency: usize) -> (Report, u64) {
    let http = client(false);
    let gate = Arc::new(Semaphore::new(concurrency));
    let report = Arc::new(Mutex::new(Report::named("ga")));
    let tickets = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(buyers);
    for buyer in 0..buyers {
        let permit = gate.clone().acquire_owned().await.expect("semaphore");
        let count = 1 + (buyer % 4) as u64;
        let request = http
            .post(format!(
                "{}/api/events/{}/holds",
                target.base(buyer),
                target.event_id
            ))
            .json(&json!({ "ga": { "area": area_id, "count": count } }));
        let report = report.clone();
        let tickets = tickets.clone();
        tasks.push(tokio::spawn(async move {
            let (status, _, took) = send(request).await;
            drop(permit);
            if status == 201 {
                tickets.fetch_add(count, Ordering::Relaxed);
            }
            report.lock().await.record("ga", status, took);
        }));
    }
    let lost = tasks_lost(tasks).await;
    let mut report = Arc::try_unwrap(report).expect("tasks done").into_inner();
    report.lost_workers = lost;
    (report.finish(started), tickets.load(Ordering::Relaxed))
}

/// `buyers` distinct sessions (none sends a cookie, so each is a new
/// buyer) ask for the same seat, `concurrency` at a time. Exactly one may win.
pub async fn hot_seat(target: &Target, buyers: usize, concurrency: usize) -> Report {
    let seat = target.seat_ids[target.seat_ids.len() / 2];
    let http = client(false);
    let gate = Arc::new(Semaphore::new(concurrency));
    let report = Arc::new(Mutex::new(Report::named("hot-seat")));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(buyers);
    for buyer in 0..buyers {
        let permit = gate.clone().acquire_owned().await.expect("semaphore");
        let request = http
            .post(format!(
                "{}/api/events/{}/holds",
                target.base(buyer),
                target.event_id
            ))
            .json(&json!({ "seat_ids": [seat] }));
        let report = report.clone();
        tasks.push(tokio::spawn(async move {
            let (status, body, took) = send(request).await;
            drop(permit);
            let mut report = report.lock().await;
            report.record("hold", status, took);
            if status == 201 {
                report.grant(&body, &[seat]);
            }
        }));
    }
    let lost = tasks_lost(tasks).await;
    let mut report = Arc::try_unwrap(report).expect("tasks done").into_inner();
    report.lost_workers = lost;
    report.finish(started)
}

/// Holds one random seat, and lets it go again if it was granted.
pub(super) async fn pick_and_release(
    http: &reqwest::Client,
    base: &str,
    target: &Target,
    report: &mut Report,
) {
    let seat = target.seat_ids[rand::rng().random_range(0..target.seat_ids.len())];
    let (status, body, took) = send(
        http.post(format!("{base}/api/events/{}/holds", target.event_id))
            .json(&json!({ "seat_ids": [seat] })),
    )
    .await;
    report.record("hold", status, took);
    if status == 201 {
        report.grant(&body, &[seat]);
        let hold = body["hold_id"].as_str().unwrap_or_default().to_string();
        let (released, _, _) =
            send(http.delete(format!("{base}/api/holds/{hold}/seats/{seat}"))).await;
        report.tally("release_seat", released);
        // No definite answer (killed app, database restarting) may still
        // have committed: don't count the seat as held.
        if released == 204 || released == 0 || released >= 500 {
            if let Ok(hold) = hold.parse() {
                report.released.insert((hold, seat));
            }
        }
    }
}

/// `workers` buyers, each with its own cookie jar, hold a random seat and
/// release it again, until `duration` is up.
pub async fn picks(target: &Target, duration: Duration, workers: usize) -> Report {
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..workers {
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            let http = client(true);
            let base = target.base(worker).to_string();
            let mut report = Report::named("picks");
            while Instant::now() < deadline {
                pick_and_release(&http, &base, &target, &mut report).await;
            }
            report
        }));
    }
    gather("picks", tasks, started).await
}

/// New buyers ask for 2–4 best available seats together and keep them,
/// until about `fill` of the venue is taken or `max_duration` passes.
pub async fn best(target: &Target, fill: f64, workers: usize, max_duration: Duration) -> Report {
    let total = target.seat_ids.len() as u64;
    let goal = (total as f64 * fill) as u64;
    let taken = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + max_duration;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..workers {
        let target = target.clone();
        let taken = taken.clone();
        tasks.push(tokio::spawn(async move {
            let http = client(false);
            let mut report = Report::named("best");
            let mut i = worker;
            while Instant::now() < deadline && taken.load(Ordering::Relaxed) < goal {
                let count = 2 + (i % 3);
                i += 1;
                let (status, body, took) = send(
                    http.post(format!(
                        "{}/api/events/{}/holds",
                        target.base(worker),
                        target.event_id
                    ))
                    .json(&json!({ "best_available": { "count": count, "mode": "add" } })),
                )
                .await;
                report.record("best", status, took);
                if status == 201 {
                    let added: Vec<i64> = ids(&body, "added");
                    taken.fetch_add(added.len() as u64, Ordering::Relaxed);
                    report.grant(&body, &added);
                } else if status == 409 && body["error"] == "not_enough_seats" {
                    break;
                }
            }
            report
        }));
    }
    gather("best", tasks, started).await
}

/// Buyers with cookie jars browse, pick, ask for best available, buy and
/// release in rough on-sale proportions, until `duration` is up.
pub async fn mixed(target: &Target, duration: Duration, workers: usize) -> Report {
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..workers {
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            let http = client(true);
            let base = target.base(worker).to_string();
            let holds = format!("{base}/api/events/{}/holds", target.event_id);
            let mut report = Report::named("mixed");
            let mut mine: Option<(String, Vec<i64>)> = None;
            while Instant::now() < deadline {
                let mut roll = rand::rng().random_range(0..100);
                // A full hold is bought or let go, as a buyer would, rather
                // than asked for more (a 422 hold_limit).
                if (35..=74).contains(&roll) && mine.as_ref().is_some_and(|(_, s)| s.len() >= 8) {
                    roll += 40;
                }
                match (roll, &mine) {
                    (0..=34, _) => {
                        let (status, _, took) = send(http.get(format!("{base}/api/events"))).await;
                        report.record("read", status, took);
                    }
                    (35..=64, _) => {
                        let seat =
                            target.seat_ids[rand::rng().random_range(0..target.seat_ids.len())];
                        let (status, body, took) =
                            send(http.post(&holds).json(&json!({ "seat_ids": [seat] }))).await;
                        report.record("hold", status, took);
                        if status == 201 {
                            report.grant(&body, &[seat]);
                            let seats = ids(&body, "seat_ids");
                            mine = Some((
                                body["hold_id"].as_str().unwrap_or_default().to_string(),
                                seats,
                            ));
                        }
                    }
                    (65..=74, _) => {
                        let (status, body, took) = send(
                            http.post(&holds)
                                .json(&json!({ "best_available": { "count": 2, "mode": "add" } })),
                        )
                        .await;
                        report.record("best", status, took);
                        if status == 201 {
                            let added: Vec<i64> = ids(&body, "added");
                            report.grant(&body, &added);
                            let seats = ids(&body, "seat_ids");
                            mine = Some((
                                body["hold_id"].as_str().unwrap_or_default().to_string(),
                                seats,
                            ));
                        }
                    }
                    (75..=84, Some((hold, _))) => {
                        let (status, _, took) =
                            send(http.post(format!("{base}/api/holds/{hold}/purchase")).json(
                                &json!({ "name": "Load Tester", "email": "load@example.com" }),
                            ))
                            .await;
                        report.record("purchase", status, took);
                        mine = None;
                    }
                    (85..=99, Some((hold, seats))) => {
                        let (status, _, took) =
                            send(http.delete(format!("{base}/api/holds/{hold}"))).await;
                        report.record("release", status, took);
                        if status == 204 {
                            if let Ok(hold) = hold.parse() {
                                report.released.extend(seats.iter().map(|s| (hold, *s)));
                            }
                        }
                        mine = None;
                    }
                    _ => {
                        let (status, _, took) = send(http.get(format!("{base}/healthz"))).await;
                        report.record("health", status, took);
                    }
                }
            }
            report
        }));
    }
    gather("mixed", tasks, started).await
}
