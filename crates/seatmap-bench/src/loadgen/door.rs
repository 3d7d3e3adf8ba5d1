//! The door: staff sessions scanning sold tickets, and the offline door's
//! list.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::Mutex;

use super::requests::{client, gather, send};
use super::{Report, Target};

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

/// The door: `tickets` seats are sold first (untimed), then `workers`
/// gates, each its own staff session, scan every code twice in a shuffled
/// order, as a queue with people showing a ticket again would. Each scan
/// is timed; exactly `tickets` must be admitted and as many refused as
/// already admitted.
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
