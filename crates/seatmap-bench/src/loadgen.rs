//! Load scenarios that drive a running seatmap over HTTP on loopback, one
//! cookie jar per simulated buyer, bounded in count and time. `seatmap-bench`
//! runs them at full size; the test suite runs them small. Every scenario
//! records what the clients were told, so the database can be checked
//! against it afterwards (`verify`).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::Rng;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{Mutex, Semaphore};
use uuid::Uuid;

use seatmap::db::Pool;
use seatmap::db::invariants::{self, Granted};

/// A running app and the event to load.
#[derive(Clone)]
pub struct Target {
    /// One or more instances' base URLs; buyers are spread across them.
    pub bases: Vec<String>,
    pub event_id: i64,
    pub seat_ids: Arc<Vec<i64>>,
}

impl Target {
    fn base(&self, buyer: usize) -> &str {
        &self.bases[buyer % self.bases.len()]
    }
}

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
    latencies: Vec<Duration>,
    #[serde(skip)]
    granted: Vec<Granted>,
    #[serde(skip)]
    released: HashSet<(Uuid, i64)>,
}

impl Report {
    fn named(scenario: &str) -> Report {
        Report {
            scenario: scenario.to_string(),
            ..Report::default()
        }
    }

    fn record(&mut self, action: &'static str, status: u16, took: Duration) {
        self.requests += 1;
        *self.statuses.entry(status).or_default() += 1;
        self.tally(action, status);
        self.latencies.push(took);
    }

    /// Counts an answer by action only: a step the scenario takes between
    /// the requests it measures (picks' release), kept out of the table.
    fn tally(&mut self, action: &'static str, status: u16) {
        *self
            .by_action
            .entry(action)
            .or_default()
            .entry(status)
            .or_default() += 1;
    }

    fn merge(&mut self, other: Report) {
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

    fn finish(mut self, started: Instant) -> Report {
        self.wall_secs = started.elapsed().as_secs_f64();
        self.latencies.sort();
        let at = |q: f64| {
            if self.latencies.is_empty() {
                return 0.0;
            }
            let i = ((self.latencies.len() as f64 - 1.0) * q).round() as usize;
            self.latencies[i].as_secs_f64() * 1000.0
        };
        self.p50_ms = at(0.50);
        self.p95_ms = at(0.95);
        self.p99_ms = at(0.99);
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

    fn grant(&mut self, body: &Value, seats: &[i64]) {
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

/// The seat ids a response lists under `key` ("added", "seat_ids").
fn ids(body: &Value, key: &str) -> Vec<i64> {
    body[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default()
}

fn client(cookies: bool) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(cookies)
        .pool_max_idle_per_host(512)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("http client")
}

/// One request, timed. Status 0 means no response at all.
async fn send(request: reqwest::RequestBuilder) -> (u16, Value, Duration) {
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
async fn gather(
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
async fn tasks_lost(tasks: Vec<tokio::task::JoinHandle<()>>) -> u64 {
    let mut lost = 0;
    for task in tasks {
        if task.await.is_err() {
            lost += 1;
        }
    }
    lost
}

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

/// `workers` buyers, each with its own cookie jar, hold a random seat and
/// release it again, until `duration` is up.
/// Holds one random seat, and lets it go again if it was granted.
async fn pick_and_release(
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

/// New buyers, one after another on each worker, hold one random seat and
/// buy it: the purchase (its tickets and its outbox row written in the same
/// transaction) is what is timed; a lost claim (409) is only counted.
pub async fn sales(target: &Target, duration: Duration, workers: usize) -> Report {
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..workers {
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            let base = target.base(worker).to_string();
            let mut report = Report::named("sales");
            while Instant::now() < deadline {
                let http = client(true);
                let seat = target.seat_ids[rand::rng().random_range(0..target.seat_ids.len())];
                let (status, body, _) = send(
                    http.post(format!("{base}/api/events/{}/holds", target.event_id))
                        .json(&json!({ "seat_ids": [seat] })),
                )
                .await;
                report.tally("hold", status);
                if status != 201 {
                    continue;
                }
                report.grant(&body, &[seat]);
                let hold = body["hold_id"].as_str().unwrap_or_default();
                let (bought, _, took) = send(
                    http.post(format!("{base}/api/holds/{hold}/purchase"))
                        .json(&json!({ "name": "Bench Buyer", "email": "bench@example.com" })),
                )
                .await;
                report.record("purchase", bought, took);
            }
            report
        }));
    }
    gather("sales", tasks, started).await
}

/// A staff session on `base`: signs in through the form, as a browser does.
async fn staff_client(base: &str, name: &str, password: &str) -> (reqwest::Client, u16) {
    // Not following the redirect: a 303 is what a good sign-in answers.
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .expect("http client");
    let page = match http.get(format!("{base}/staff/login")).send().await {
        Ok(response) => response.text().await.unwrap_or_default(),
        Err(_) => return (http, 0),
    };
    let csrf = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_string();
    let status = http
        .post(format!("{base}/staff/login"))
        .form(&[
            ("csrf", csrf.as_str()),
            ("name", name),
            ("password", password),
            ("next", "/staff"),
        ])
        .send()
        .await
        .map_or(0, |response| response.status().as_u16());
    (http, status)
}

/// The door: `tickets` seats are sold first (untimed), then `workers`
/// gates, each its own staff session, scan every code twice in a shuffled
/// order, as a queue with people showing a ticket again would. Each scan
/// is timed; exactly `tickets` must be admitted and as many refused as
/// already admitted.
/// How long the offline door's list takes to fetch, `times` times in a
/// row by one signed-in gate (the server hashes every ticket's code for
/// each): the times in milliseconds, and the last list's size in bytes.
pub async fn door_list_times(
    target: &Target,
    staff: (&str, &str),
    times: usize,
) -> (Vec<f64>, usize) {
    let base = target.base(0).to_string();
    let (http, _) = staff_client(&base, staff.0, staff.1).await;
    let url = format!("{base}/api/staff/events/{}/door-list", target.event_id);
    let mut took = Vec::new();
    let mut bytes = 0;
    for _ in 0..times {
        let started = Instant::now();
        if let Ok(response) = http.get(&url).send().await
            && response.status().is_success()
        {
            bytes = response.bytes().await.map(|b| b.len()).unwrap_or(0);
            took.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    (took, bytes)
}

pub async fn door(target: &Target, staff: (&str, &str), tickets: usize, workers: usize) -> Report {
    let seats: Vec<i64> = target.seat_ids.iter().take(tickets).copied().collect();
    let codes = Arc::new(Mutex::new(Vec::new()));
    let sellers = seats
        .chunks(seats.len().div_ceil(workers.max(1)).max(1))
        .map(|chunk| {
            let chunk = chunk.to_vec();
            let codes = codes.clone();
            let base = target.bases[0].clone();
            let event_id = target.event_id;
            tokio::spawn(async move {
                for seat in chunk {
                    let http = client(true);
                    let (status, body, _) = send(
                        http.post(format!("{base}/api/events/{event_id}/holds"))
                            .json(&json!({ "seat_ids": [seat] })),
                    )
                    .await;
                    if status != 201 {
                        continue;
                    }
                    let hold = body["hold_id"].as_str().unwrap_or_default();
                    let (_, order, _) = send(
                        http.post(format!("{base}/api/holds/{hold}/purchase"))
                            .json(&json!({ "name": "Door Bench", "email": "door@example.com" })),
                    )
                    .await;
                    let mut codes = codes.lock().await;
                    for ticket in order["tickets"].as_array().into_iter().flatten() {
                        if let Some(code) = ticket["code"].as_str() {
                            codes.push(code.to_string());
                        }
                    }
                }
            })
        });
    for seller in sellers.collect::<Vec<_>>() {
        let _ = seller.await;
    }
    let mut queue: Vec<String> = {
        let codes = codes.lock().await;
        codes.iter().chain(codes.iter()).cloned().collect()
    };
    {
        use rand::seq::SliceRandom;
        queue.shuffle(&mut rand::rng());
    }
    let queue = Arc::new(Mutex::new(queue));
    // Each gate signs in first, one after another (argon2 is meant to be
    // slow): only the scans are timed.
    let mut gates = Vec::new();
    let mut signed_in = Vec::new();
    for worker in 0..workers {
        let base = target.base(worker).to_string();
        let (http, status) = staff_client(&base, staff.0, staff.1).await;
        signed_in.push(status);
        gates.push((http, base));
    }
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (worker, ((http, base), signed_in)) in gates.into_iter().zip(signed_in).enumerate() {
        let queue = queue.clone();
        let event_id = target.event_id;
        tasks.push(tokio::spawn(async move {
            let mut report = Report::named("door");
            report.tally("sign_in", signed_in);
            loop {
                let Some(code) = queue.lock().await.pop() else {
                    break;
                };
                let (status, body, took) = send(
                    http.post(format!("{base}/api/staff/events/{event_id}/admissions"))
                        .json(&json!({ "code": code, "gate": format!("Gate {worker}") })),
                )
                .await;
                report.record("scan", status, took);
                match body["result"].as_str() {
                    Some("admitted") => report.tally("admitted", 200),
                    Some("already_admitted") => report.tally("already_admitted", 200),
                    Some(other) => report.tally(
                        if other == "refunded" {
                            "refunded"
                        } else {
                            "other"
                        },
                        200,
                    ),
                    None => {}
                }
            }
            report
        }));
    }
    gather("door", tasks, started).await
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

/// What stalled request bodies did to a clean client.
#[derive(Debug, Default, Serialize)]
pub struct StallReport {
    /// Stalled bodies sent (each a connection, opened again when closed).
    pub stalled_sent: u64,
    /// Of those, closed by the server while the attack ran.
    pub stalled_closed: u64,
    /// The longest the server kept a stalled body's connection open
    /// before closing it.
    pub longest_open_secs: f64,
    /// Still open when the attack ended, and the oldest of them.
    pub still_open: u64,
    pub oldest_still_open_secs: f64,
    pub probes: u64,
    pub probes_answered: u64,
}

/// Sends, from each of `addresses` loopback addresses (127.0.0.2 on),
/// `per_address` hold requests that promise 1,000 bytes of body and send
/// one, each connection opened again as soon as the server closes it,
/// for `duration`. A clean address (127.0.0.250) asks /healthz every
/// second, on a new connection, giving each 5 s.
pub async fn stalled_bodies(
    base: &str,
    event_id: i64,
    addresses: u8,
    per_address: usize,
    duration: Duration,
) -> StallReport {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server: std::net::SocketAddr = base
        .trim_start_matches("http://")
        .parse()
        .expect("a loopback base URL");
    let until = Instant::now() + duration;
    let request = format!(
        "POST /api/events/{event_id}/holds HTTP/1.1\r\nHost: seatmap\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
    );
    let sent = Arc::new(AtomicU64::new(0));
    let closed = Arc::new(AtomicU64::new(0));
    let longest_ms = Arc::new(AtomicU64::new(0));
    let still_open = Arc::new(AtomicU64::new(0));
    let oldest_open_ms = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for address in 0..addresses {
        for _ in 0..per_address {
            let local = std::net::SocketAddr::from(([127, 0, 0, 2 + address], 0));
            let (request, sent, closed, longest_ms) = (
                request.clone(),
                sent.clone(),
                closed.clone(),
                longest_ms.clone(),
            );
            let (still_open, oldest_open_ms) = (still_open.clone(), oldest_open_ms.clone());
            tasks.push(tokio::spawn(async move {
                while Instant::now() < until {
                    let Ok(socket) = tokio::net::TcpSocket::new_v4() else {
                        break;
                    };
                    let connected = async {
                        socket.bind(local)?;
                        socket.connect(server).await
                    };
                    if let Ok(mut stream) = connected.await {
                        if stream.write_all(request.as_bytes()).await.is_ok() {
                            sent.fetch_add(1, Ordering::Relaxed);
                            let opened = Instant::now();
                            let mut buffer = [0u8; 1024];
                            loop {
                                let read =
                                    tokio::time::timeout_at(until.into(), stream.read(&mut buffer))
                                        .await;
                                match read {
                                    Err(_) => {
                                        still_open.fetch_add(1, Ordering::Relaxed);
                                        oldest_open_ms.fetch_max(
                                            opened.elapsed().as_millis() as u64,
                                            Ordering::Relaxed,
                                        );
                                        break;
                                    }
                                    Ok(Ok(0)) | Ok(Err(_)) => {
                                        closed.fetch_add(1, Ordering::Relaxed);
                                        longest_ms.fetch_max(
                                            opened.elapsed().as_millis() as u64,
                                            Ordering::Relaxed,
                                        );
                                        break;
                                    }
                                    Ok(Ok(_)) => {}
                                }
                            }
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }));
        }
    }
    let probe = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 250]))
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(5))
        .build()
        .expect("http client");
    let (mut probes, mut answered) = (0, 0);
    tokio::time::sleep(Duration::from_secs(1)).await;
    while Instant::now() + Duration::from_secs(5) < until {
        let asked = Instant::now();
        probes += 1;
        if probe
            .get(format!("{base}/healthz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == reqwest::StatusCode::OK)
        {
            answered += 1;
        }
        tokio::time::sleep(Duration::from_secs(1).saturating_sub(asked.elapsed())).await;
    }
    tasks_lost(tasks).await;
    StallReport {
        stalled_sent: sent.load(Ordering::Relaxed),
        stalled_closed: closed.load(Ordering::Relaxed),
        longest_open_secs: longest_ms.load(Ordering::Relaxed) as f64 / 1000.0,
        still_open: still_open.load(Ordering::Relaxed),
        oldest_still_open_secs: oldest_open_ms.load(Ordering::Relaxed) as f64 / 1000.0,
        probes,
        probes_answered: answered,
    }
}
