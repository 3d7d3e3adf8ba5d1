//! The waiting room (issue 52): fair order at the opening, the gate on
//! claims, the admission rate, and the proof of work.

use reqwest::StatusCode;
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::api_keys::make_staff_key;
use crate::promo_codes::staff_call;
use crate::support::{Api, TestApp, rfc3339, spawn_app_with};
use seatmap::domain::ids::EventId;
use seatmap::domain::queue::QueueTicket;
use seatmap::domain::role::Role;

/// An app whose queue worker doesn't run: the tests step it themselves.
/// Its free joins a minute are raised: these tests join many buyers from
/// one address (the joins' cost has tests of its own, at the defaults).
async fn app() -> TestApp {
    spawn_app_with(|config| {
        config.queue.every = None;
        config.queue.free_joins_per_minute = 100_000;
    })
    .await
}

/// An app at the default free joins, whose worker the test steps.
async fn app_at_default_joins() -> TestApp {
    spawn_app_with(|config| config.queue.every = None).await
}

async fn put_queue(app: &TestApp, key: &str, event_id: i64, body: Value) -> (StatusCode, Value) {
    staff_call(
        app,
        key,
        reqwest::Method::PUT,
        &format!("/api/staff/events/{event_id}/queue"),
        Some(body),
    )
    .await
}

/// One step of every instance's worker: the figures read, a batch offered.
async fn tick(app: &TestApp) -> u64 {
    let auto = seatmap::db::queue::AutoStep {
        start_target: 200,
        growth: 1.0,
    };
    seatmap::background::queue_tick(
        &app.pool,
        &app.state.queues,
        auto,
        app.state.config.queue.first_claim,
    )
    .await
    .expect("a queue tick")
}

async fn join(buyer: &Api, event_id: i64) -> (StatusCode, Value) {
    buyer
        .post(&format!("/api/events/{event_id}/queue"), json!({}))
        .await
}

/// Spearman's rank correlation of two orderings of the same items.
fn spearman(a: &[usize], b: &[usize]) -> f64 {
    let n = a.len() as f64;
    let d2: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (*x as f64 - *y as f64).powi(2))
        .sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

#[tokio::test]
async fn early_arrivals_go_first_in_random_order_and_later_ones_in_arrival_order() {
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(2, 10).await;
    let opens = OffsetDateTime::now_utc() + time::Duration::hours(1);
    let body = |opens_at: OffsetDateTime| json!({"opens_at": rfc3339(opens_at), "admit_per_minute": 1_000_000, "window_minutes": 15});
    let (status, queue) = put_queue(&app, &key, event.id, body(opens)).await;
    assert_eq!(status, StatusCode::OK, "{queue}");
    assert_eq!(queue["admit_per_minute"], 1_000_000);

    // 300 arrive before the opening, in this order.
    let mut early = Vec::new();
    for _ in 0..300 {
        let buyer = app.buyer();
        let (status, joined) = join(&buyer, event.id).await;
        assert_eq!(status, StatusCode::CREATED, "{joined}");
        assert_eq!(joined["state"], "waiting");
        early.push(joined["ticket"].as_str().unwrap().to_owned());
    }
    // Nobody is admitted before the opening, whatever the worker does.
    assert_eq!(tick(&app).await, 0);
    // Staff open it now (a running queue keeps its joins); 100 arrive after.
    let now = OffsetDateTime::now_utc();
    let (status, _) = put_queue(&app, &key, event.id, body(now)).await;
    assert_eq!(status, StatusCode::OK);
    app.wait_for_database_time(now).await;
    let mut late = Vec::new();
    for _ in 0..100 {
        let (status, joined) = join(&app.buyer(), event.id).await;
        assert_eq!(status, StatusCode::CREATED, "{joined}");
        late.push(joined["ticket"].as_str().unwrap().to_owned());
    }
    let mut admitted = 0;
    while admitted < 400 {
        let n = tick(&app).await;
        assert!(n > 0, "the worker stopped admitting at {admitted} of 400");
        admitted += n;
    }

    // The admission order, as PostgreSQL recorded it.
    let order: Vec<uuid::Uuid> = app
        .sql()
        .await
        .query(
            "SELECT id FROM queue_joins WHERE event_id = $1 ORDER BY admitted_at, order_key",
            &[&event.id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let join_id = |text: &String| {
        QueueTicket::verify(
            text,
            EventId(event.id),
            &app.state.links.key,
            OffsetDateTime::now_utc(),
        )
        .expect("a ticket the app signed")
        .join_id
    };
    let rank_of = |id: uuid::Uuid| order.iter().position(|o| *o == id).unwrap();
    let early_ranks: Vec<usize> = early.iter().map(|t| rank_of(join_id(t))).collect();
    let late_ranks: Vec<usize> = late.iter().map(|t| rank_of(join_id(t))).collect();
    assert!(
        early_ranks.iter().max() < late_ranks.iter().min(),
        "every early arrival is admitted before every late one"
    );
    assert!(
        late_ranks.windows(2).all(|w| w[0] < w[1]),
        "late arrivals are admitted in arrival order: {late_ranks:?}"
    );
    let arrival: Vec<usize> = (0..early_ranks.len()).collect();
    let rho = spearman(&arrival, &early_ranks);
    assert!(
        rho.abs() < 0.2,
        "early arrivals' admission order is uncorrelated with arrival: rho {rho}"
    );
}

#[tokio::test]
async fn a_claim_needs_an_admission_while_the_queue_is_on_and_holds_nothing_without_one() {
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(2, 10).await;
    let other = app.create_event(1, 5).await;
    let seat = event.seat_ids[0];

    // No queue: a claim is as before.
    let buyer = app.buyer();
    let (status, _) = buyer.hold(event.id, &[seat]).await;
    assert_eq!(status, StatusCode::CREATED);

    let past = OffsetDateTime::now_utc() - time::Duration::minutes(1);
    for id in [event.id, other.id] {
        let (status, queue) = put_queue(
            &app,
            &key,
            id,
            json!({"opens_at": rfc3339(past), "admit_per_minute": 60, "window_minutes": 15}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{queue}");
    }
    let second = event.seat_ids[1];
    let refused = |body: &Value| {
        assert_eq!(body["error"], "queue_required", "{body}");
        assert_eq!(body["queue"], format!("/api/events/{}/queue", event.id));
    };

    // Without a ticket.
    let newcomer = app.buyer();
    let (status, body) = newcomer.hold(event.id, &[second]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    refused(&body);
    // Best available and the waitlist's join go through the same gate.
    let (status, body) = newcomer
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({"best_available": {"count": 2}}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    refused(&body);

    let with_header = |text: String| {
        let base = app.base.clone();
        let seats = vec![second];
        async move {
            let response = crate::support::http_client()
                .post(format!("{base}/api/events/{}/holds", event.id))
                .header("Queue-Ticket", text)
                .json(&json!({"seat_ids": seats}))
                .send()
                .await
                .unwrap();
            let status = response.status();
            (status, response.json::<Value>().await.unwrap())
        }
    };
    let signer = &app.state.links.key;
    let forged_key = seatmap::domain::signed_link::LinkKey::new(vec![1; 32]);
    let ticket = |event_id: i64, until: OffsetDateTime| QueueTicket {
        event_id: EventId(event_id),
        join_id: uuid::Uuid::new_v4(),
        order_key: 1,
        until: until.unix_timestamp(),
    };
    let later = OffsetDateTime::now_utc() + time::Duration::hours(1);
    let cases = [
        ("forged", ticket(event.id, later).encode(&forged_key)),
        ("expired", ticket(event.id, past).encode(signer)),
        ("another event's", ticket(other.id, later).encode(signer)),
        // Signed and in time, but no such join: PostgreSQL decides.
        ("never joined", ticket(event.id, later).encode(signer)),
    ];
    for (what, text) in cases {
        let (status, body) = with_header(text).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "a {what} ticket");
        refused(&body);
    }
    // Another event's real ticket doesn't open this one.
    let elsewhere = app.buyer();
    let (_, joined) = join(&elsewhere, other.id).await;
    let (status, body) = with_header(joined["ticket"].as_str().unwrap().to_owned()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    refused(&body);

    // Joined but not yet admitted: refused; admitted: holds.
    let (status, joined) = join(&newcomer, event.id).await;
    assert_eq!(status, StatusCode::CREATED, "{joined}");
    let (status, body) = newcomer.hold(event.id, &[second]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    refused(&body);
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'HELD'",
            event.id
        ))
        .await,
        1,
        "nothing was held by a refused claim"
    );
    assert_eq!(
        tick(&app).await,
        2,
        "the one buyer waiting in each queue admitted"
    );
    // The board a waiting buyer is answered from is read at the start of
    // a tick: the next one shows the admission.
    tick(&app).await;
    let (_, standing) = newcomer
        .get(&format!("/api/events/{}/queue", event.id))
        .await;
    assert_eq!(standing["state"], "admitted", "{standing}");
    assert!(standing["until"].is_string());
    let (status, body) = newcomer.hold(event.id, &[second]).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // The admission is the newcomer's now: passed to another buyer, the
    // same ticket admits nobody else.
    let ticket = joined["ticket"].as_str().unwrap().to_owned();
    let (status, body) = with_header(ticket).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a shared admission: {body}");
    refused(&body);

    // Off again: claims need nothing.
    let (status, _) = staff_call(
        &app,
        &key,
        reqwest::Method::DELETE,
        &format!("/api/staff/events/{}/queue", event.id),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = app.buyer().hold(event.id, &[event.seat_ids[2]]).await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test]
async fn admissions_keep_to_the_rate_and_two_workers_never_admit_one_join_twice() {
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(1, 5).await;
    let past = OffsetDateTime::now_utc() - time::Duration::minutes(5);
    let (status, _) = put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(past), "admit_per_minute": 120, "window_minutes": 5}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    for _ in 0..60 {
        let (status, _) = join(&app.buyer(), event.id).await;
        assert_eq!(status, StatusCode::CREATED);
    }
    // Two workers (as two instances' would) step as fast as they can for 3 s.
    let started = std::time::Instant::now();
    let worker = || async {
        let mut admitted = 0;
        while started.elapsed() < std::time::Duration::from_secs(3) {
            admitted += tick(&app).await;
        }
        admitted
    };
    let (a, b) = tokio::join!(worker(), worker());
    let elapsed = started.elapsed().as_secs_f64();
    let recorded = app
        .count(&format!(
            "SELECT count(*) FROM queue_joins WHERE event_id = {} AND admitted_at IS NOT NULL",
            event.id
        ))
        .await;
    let counted = app
        .count(&format!(
            "SELECT admitted FROM event_queues WHERE event_id = {}",
            event.id
        ))
        .await;
    assert_eq!((a + b) as i64, recorded, "each admission counted once");
    assert_eq!(counted, recorded);
    // 120 a minute is 2 a second; a batch is at most one second's worth.
    let most = (elapsed * 2.0).ceil() as i64 + 2;
    assert!(
        (1..=most).contains(&recorded),
        "{recorded} admitted in {elapsed:.1} s at 120 a minute (at most {most})"
    );
}

#[tokio::test]
async fn a_proof_of_work_must_be_right_and_is_used_once() {
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(1, 5).await;
    let (status, _) = put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(OffsetDateTime::now_utc()), "admit_per_minute": "auto",
               "window_minutes": 10, "proof_of_work": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let path = format!("/api/events/{}/queue", event.id);
    let buyer = app.buyer();
    let (status, body) = buyer.post(&path, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "proof_of_work_invalid");

    let (status, challenge) = buyer.get(&format!("{path}/challenge")).await;
    assert_eq!(status, StatusCode::OK);
    let text = challenge["challenge"].as_str().unwrap().to_owned();
    let bits = challenge["bits"].as_u64().unwrap() as u32;
    assert!(bits >= 8, "a puzzle worth the name: {bits} bits");
    let wrong = (0u64..)
        .map(|n| n.to_string())
        .find(|n| !seatmap::domain::queue::solves(&text, n, bits))
        .unwrap();
    let (status, body) = buyer
        .post(&path, json!({"challenge": text, "nonce": wrong}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "proof_of_work_invalid");

    let nonce = seatmap::domain::queue::solve(&text, bits);
    let (status, joined) = buyer
        .post(&path, json!({"challenge": text, "nonce": nonce}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{joined}");
    let (status, body) = app
        .buyer()
        .post(&path, json!({"challenge": text, "nonce": nonce}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "proof_of_work_reused");
    // The buyer with a ticket keeps their place rather than joining again.
    let (status, again) = buyer.post(&path, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{again}");
}

#[tokio::test]
async fn waiting_buyers_are_told_their_place_and_bad_settings_are_refused() {
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(1, 5).await;
    for bad in [
        json!({"opens_at": "soon", "admit_per_minute": 10, "window_minutes": 10}),
        // Further than PostgreSQL gives back: refused, not a 500 later.
        json!({"opens_at": "9999-12-31T23:59:59-12:00", "admit_per_minute": 10, "window_minutes": 10}),
        json!({"opens_at": "2026-12-01T10:00:00Z", "admit_per_minute": 0, "window_minutes": 10}),
        json!({"opens_at": "2026-12-01T10:00:00Z", "admit_per_minute": "fast", "window_minutes": 10}),
        json!({"opens_at": "2026-12-01T10:00:00Z", "admit_per_minute": 10, "window_minutes": 0}),
        // Past a year ahead.
        json!({"opens_at": rfc3339(OffsetDateTime::now_utc() + time::Duration::days(366)),
               "admit_per_minute": 10, "window_minutes": 10}),
    ] {
        let (status, body) = put_queue(&app, &key, event.id, bad.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert_eq!(body["error"], "invalid_queue");
    }
    let (status, _) = join(&app.buyer(), event.id).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no queue, nothing to join");

    let opens = OffsetDateTime::now_utc() + time::Duration::minutes(30);
    let (status, _) = put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(opens), "admit_per_minute": 60, "window_minutes": 10}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let buyers: Vec<Api> = (0..5).map(|_| app.buyer()).collect();
    for buyer in &buyers {
        join(buyer, event.id).await;
    }
    let path = format!("/api/events/{}/queue", event.id);
    let mut positions = Vec::new();
    for buyer in &buyers {
        let (status, standing) = buyer.get(&path).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(standing["state"], "waiting", "{standing}");
        assert_eq!(
            standing["ahead"],
            standing["position"].as_u64().unwrap() - 1
        );
        assert!(standing["estimated_wait_secs"].as_u64().unwrap() >= 1);
        positions.push(standing["position"].as_u64().unwrap());
    }
    positions.sort();
    assert_eq!(positions, vec![1, 2, 3, 4, 5]);
    let (_, stranger) = app.buyer().get(&path).await;
    assert_eq!(stranger["state"], "not_joined");
    let (status, shown) = staff_call(
        &app,
        &key,
        reqwest::Method::GET,
        &format!("/api/staff/events/{}/queue", event.id),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (shown["joined"].as_i64(), shown["waiting"].as_i64()),
        (Some(5), Some(5))
    );

    // Open, with people in line: the opening may come earlier, not later,
    // and the refusal says why.
    let opened = OffsetDateTime::now_utc() - time::Duration::minutes(1);
    let queue_at = |at: OffsetDateTime| json!({"opens_at": rfc3339(at), "admit_per_minute": 60, "window_minutes": 10});
    let (status, _) = put_queue(&app, &key, event.id, queue_at(opened)).await;
    assert_eq!(status, StatusCode::OK, "earlier is allowed");
    let (status, body) = put_queue(&app, &key, event.id, queue_at(opens)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "invalid_queue");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("can't move later"),
        "the reason, not a range: {body}"
    );
}

#[tokio::test]
async fn a_browser_waits_on_the_waiting_page_before_the_opening_and_goes_straight_in_after() {
    use crate::pages::{csrf_from, page};
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(1, 5).await;
    let map = format!("/events/{}", event.id);
    let waiting = format!("/events/{}/queue", event.id);
    let opens = OffsetDateTime::now_utc() + time::Duration::minutes(30);
    let (status, _) = put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(opens), "admit_per_minute": "auto", "window_minutes": 10}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    // Before the opening the map sends a browser to the waiting page.
    let browser = app.buyer();
    let response = browser.raw_get(&map).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()["location"], waiting.as_str());
    let (status, html) = page(&browser, &waiting).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Join the queue"), "{html}");
    assert!(html.contains("data-opens-at"), "the opening's countdown");
    // The form joins (without JavaScript), and the page then shows the
    // place and asks again by itself.
    let token = csrf_from(&browser, &waiting).await;
    let response = browser
        .http
        .post(format!("{}{waiting}", app.base))
        .form(&[("csrf", token)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let response = browser.raw_get(&waiting).await;
    assert!(
        response.headers().contains_key("refresh"),
        "refreshes without a script"
    );
    let html = response.text().await.unwrap();
    assert!(html.contains("data-queue-position>1<"), "{html}");
    assert!(
        browser
            .cookie(&format!("seatmap_queue_{}", event.id))
            .is_some()
    );
    // In German too.
    let german = app.buyer();
    let response = german
        .http
        .get(format!("{}{waiting}", app.base))
        .header("Accept-Language", "de")
        .send()
        .await
        .unwrap();
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("In die Warteschlange")
    );

    // After the opening an "auto" queue with no line lets a newcomer
    // straight onto the map, with a ticket admitted as it arrived.
    let now = OffsetDateTime::now_utc();
    put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(now), "admit_per_minute": "auto", "window_minutes": 10}),
    )
    .await;
    app.wait_for_database_time(now).await;
    // The early joiner is waiting, so a newcomer queues behind them…
    let newcomer = app.buyer();
    let response = newcomer.raw_get(&map).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    // …until the worker admits the line; then the next newcomer walks in.
    tick(&app).await;
    tick(&app).await;
    let (status, _) = browser.hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(status, StatusCode::CREATED, "the early joiner holds a seat");
    let (status, html) = page(&newcomer, &map).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let last = app.buyer();
    let (status, _) = page(&last, &map).await;
    assert_eq!(status, StatusCode::OK, "no line: straight in");
    let (status, body) = last.hold(event.id, &[event.seat_ids[1]]).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn two_thousand_buyers_behind_one_address_are_all_admitted_in_turn_and_hold_up_to_its_share()
{
    use futures::StreamExt;
    // One carrier address: without the queue, its 4th live hold would be
    // refused (and its 31st request in a minute). With it, every buyer
    // behind the address gets a turn, and together they hold at most the
    // address's share of the house: max(5 % of 2,050, 200) = 200 seats.
    // (The free joins are raised here: each real phone would solve its
    // own puzzle; the puzzles have tests of their own.)
    let app = spawn_app_with(|config| {
        config.queue.every = None;
        config.queue.free_joins_per_minute = 100_000;
        config.limits.max_holds_per_ip = 3;
        config.limits.hold_requests_per_ip = 30;
    })
    .await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(41, 50).await;
    // A hold from elsewhere before the queue (the address's share is its own).
    let elsewhere = Api::from_address(&app.base, "127.0.0.2");
    let (status, _) = elsewhere.hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(status, StatusCode::CREATED);
    let now = OffsetDateTime::now_utc();
    let (status, _) = put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(now), "admit_per_minute": 1_000_000, "window_minutes": 15}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    app.wait_for_database_time(now).await;

    let buyers: Vec<(Api, i64)> = event.seat_ids[1..2001]
        .iter()
        .map(|seat| (app.buyer(), *seat))
        .collect();
    let joined = futures::stream::iter(&buyers)
        .map(|(buyer, _)| join(buyer, event.id))
        .buffer_unordered(16)
        .filter(|(status, _)| std::future::ready(*status == StatusCode::CREATED))
        .count()
        .await;
    assert_eq!(joined, 2000);
    let mut admitted = 0;
    while admitted < 2000 {
        let n = tick(&app).await;
        assert!(n > 0, "admissions stopped at {admitted}");
        admitted += n;
    }
    let held: Vec<(StatusCode, Value)> = futures::stream::iter(&buyers)
        .map(|(buyer, seat)| async move { buyer.hold(event.id, &[*seat]).await })
        .buffer_unordered(16)
        .collect()
        .await;
    let holding = held
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(holding, 200, "the address's share, and no more");
    for (status, body) in held.iter().filter(|(s, _)| *s != StatusCode::CREATED) {
        assert_eq!(*status, StatusCode::TOO_MANY_REQUESTS, "{body}");
        assert_eq!(body["error"], "house_share_reached", "{body}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("200 seats") && message.contains("network"),
            "the refusal says why: {message}"
        );
    }
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'HELD'",
            event.id
        ))
        .await,
        201
    );
}

/// The joins of the event's queue admitted so far.
async fn admitted_joins(app: &TestApp, event_id: i64) -> std::collections::HashSet<uuid::Uuid> {
    app.own_connection()
        .await
        .query(
            "SELECT id FROM queue_joins WHERE event_id = $1 AND admitted_at IS NOT NULL",
            &[&event_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// The join id a join's answer carries in its ticket.
fn join_id_of(joined: &Value) -> uuid::Uuid {
    let ticket = joined["ticket"].as_str().expect("a ticket");
    let join = ticket.split('.').nth(1).expect("a join id");
    uuid::Uuid::try_parse(join).expect("a uuid")
}

#[tokio::test]
async fn fifteen_hundred_clients_from_one_address_hold_at_most_its_share_of_an_auto_queued_house() {
    use futures::StreamExt;
    // The attack: 1,500 fresh clients from one address join an "auto"
    // queue and each tries to hold two seats (without the share: 3,000 of
    // 4,000 seats). The free joins are raised so the share alone is tried.
    let app = spawn_app_with(|config| {
        config.queue.every = None;
        config.queue.free_joins_per_minute = 100_000;
    })
    .await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(40, 100).await;
    let now = OffsetDateTime::now_utc();
    let (status, _) = put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(now), "admit_per_minute": "auto", "window_minutes": 15}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    app.wait_for_database_time(now).await;
    // An honest buyer elsewhere, in line with them.
    let honest = Api::from_address(&app.base, "127.0.0.2");
    let (status, _) = join(&honest, event.id).await;
    assert!(status.is_success());

    let clients: Vec<(Api, [i64; 2])> = (0..1500)
        .map(|i| {
            (
                app.buyer(),
                [event.seat_ids[2 * i + 10], event.seat_ids[2 * i + 11]],
            )
        })
        .collect();
    let joins: Vec<uuid::Uuid> = futures::stream::iter(&clients)
        .map(|(client, _)| async move {
            let (status, joined) = join(client, event.id).await;
            assert!(status.is_success(), "{joined}");
            join_id_of(&joined)
        })
        .buffered(16)
        .collect()
        .await;
    // Rounds of the worker (an "auto" target of 400, which may grow by
    // 1.15 a round while the buyers shopping fill it), each admitted
    // client claiming once, until every client has had its turn.
    let mut done = vec![false; clients.len()];
    let (mut held, mut refused) = (0usize, 0usize);
    for _round in 0..60 {
        if done.iter().all(|d| *d) {
            break;
        }
        tick_from(&app, 400, 1.15).await;
        let admitted = admitted_joins(&app, event.id).await;
        let turn: Vec<usize> = (0..clients.len())
            .filter(|i| !done[*i] && admitted.contains(&joins[*i]))
            .collect();
        let outcomes: Vec<(usize, StatusCode, Value)> = futures::stream::iter(turn)
            .map(|i| {
                let (client, seats) = &clients[i];
                async move {
                    let (status, body) = client.hold(event.id, seats).await;
                    (i, status, body)
                }
            })
            .buffer_unordered(16)
            .collect()
            .await;
        for (i, status, body) in outcomes {
            done[i] = true;
            match status {
                StatusCode::CREATED => held += 1,
                StatusCode::TOO_MANY_REQUESTS => {
                    assert_eq!(body["error"], "house_share_reached", "{body}");
                    refused += 1;
                }
                other => panic!("an admitted claim answered {other}: {body}"),
            }
        }
    }
    assert!(done.iter().all(|d| *d), "every client had its turn");
    let from_address = app
        .count(&format!(
            "SELECT count(*) FROM seats s JOIN holds h ON h.id = s.hold_id
              WHERE s.event_id = {} AND s.status = 'HELD' AND h.client_ip = '127.0.0.1'",
            event.id
        ))
        .await;
    println!("one address: {held} holds, {from_address} seats, {refused} refused");
    assert_eq!(
        from_address, 200,
        "max(5 % of 4,000, 200) seats, and no more"
    );
    assert_eq!((held, refused), (100, 1400));
    // Refused claims and unclaimed admissions don't make the house look
    // busy: the target never grew past its start.
    let target = app
        .count(&format!(
            "SELECT coalesce(auto_target, 0)::bigint FROM event_queues WHERE event_id = {}",
            event.id
        ))
        .await;
    assert!(
        target <= 400,
        "the target grew to {target} on refused claims"
    );
    // The honest buyer, from another address, still holds.
    let (status, body) = honest.hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

/// 600 joins from one address, then 20 honest buyers from 20 others: the
/// positions the honest buyers get. Past its free joins the flooding
/// address is refused without a proof of work.
async fn honest_positions_after_a_flood(app: &TestApp, event_id: i64) -> Vec<u64> {
    use futures::StreamExt;
    let statuses: Vec<(StatusCode, Value)> = futures::stream::iter(0..600)
        .map(|_| async { join(&app.buyer(), event_id).await })
        .buffered(16)
        .collect()
        .await;
    let free = statuses.iter().filter(|(s, _)| s.is_success()).count();
    assert_eq!(free, 20, "the address's free joins a minute");
    for (status, body) in statuses.iter().filter(|(s, _)| !s.is_success()) {
        assert_eq!(*status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["error"], "proof_of_work_required", "{body}");
    }
    let mut positions = Vec::new();
    for i in 0..20 {
        let honest = Api::from_address(&app.base, &format!("127.0.0.{}", i + 2));
        let (status, joined) = join(&honest, event_id).await;
        assert_eq!(status, StatusCode::CREATED, "{joined}");
        positions.push(joined["position"].as_u64().expect("a position"));
    }
    positions
}

#[tokio::test]
async fn twenty_honest_buyers_get_places_ahead_of_an_address_flooding_the_line() {
    let app = app_at_default_joins().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let (open, early) = (app.create_event(2, 10).await, app.create_event(2, 10).await);
    let now = OffsetDateTime::now_utc();
    put_queue(
        &app,
        &key,
        open.id,
        json!({"opens_at": rfc3339(now - time::Duration::minutes(1)), "admit_per_minute": 1, "window_minutes": 15}),
    )
    .await;
    put_queue(
        &app,
        &key,
        early.id,
        json!({"opens_at": rfc3339(now + time::Duration::minutes(30)), "admit_per_minute": 1, "window_minutes": 15}),
    )
    .await;
    tick(&app).await;
    let mut positions = honest_positions_after_a_flood(&app, open.id).await;
    positions.sort();
    println!("after the opening, honest positions: {positions:?}");
    assert_eq!(positions, (21..=40).collect::<Vec<u64>>());
    // Before an opening everyone in line is placed at random among
    // themselves: the honest 20 share the line with only 20 of the flood's.
    tick(&app).await;
    let mut positions = honest_positions_after_a_flood(&app, early.id).await;
    positions.sort();
    let median = positions[positions.len() / 2];
    println!("before the opening, honest positions: {positions:?}, median {median}");
    assert!(positions.iter().all(|p| *p <= 40), "{positions:?}");
}

#[tokio::test]
async fn past_its_free_joins_an_address_pays_a_puzzle_that_grows_with_its_count() {
    let app = spawn_app_with(|config| {
        config.queue.every = None;
        config.queue.free_joins_per_minute = 4;
    })
    .await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(2, 10).await;
    let past = OffsetDateTime::now_utc() - time::Duration::minutes(1);
    put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(past), "admit_per_minute": 1, "window_minutes": 15}),
    )
    .await;
    tick(&app).await;
    let path = format!("/api/events/{}/queue", event.id);
    let bits_now = |buyer: Api| {
        let path = path.clone();
        async move {
            let (status, challenge) = buyer.get(&format!("{path}/challenge")).await;
            assert_eq!(status, StatusCode::OK);
            (challenge["bits"].as_u64().unwrap() as u32, challenge)
        }
    };
    assert_eq!(bits_now(app.buyer()).await.0, 0, "free at first");
    for _ in 0..4 {
        assert_eq!(join(&app.buyer(), event.id).await.0, StatusCode::CREATED);
    }
    let (status, body) = join(&app.buyer(), event.id).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "proof_of_work_required");
    assert!(
        body["message"].as_str().unwrap().contains("16 bits"),
        "{body}"
    );
    // Another address is still free.
    let elsewhere = Api::from_address(&app.base, "127.0.0.9");
    assert_eq!(bits_now(elsewhere).await.0, 0);
    // Solved at the asked size, the join goes through; each doubling of
    // the count asks one bit more (4 free: 4 → 16, 8 → 17).
    let mut kept = None;
    for expected in [16, 16, 16, 16, 17] {
        let buyer = app.buyer();
        if kept.is_none() {
            // A puzzle set now, solved, and kept for later.
            let (_, challenge) = bits_now(buyer.clone()).await;
            let text = challenge["challenge"].as_str().unwrap().to_owned();
            let nonce = seatmap::domain::queue::solve(&text, 16);
            kept = Some((text, nonce));
        }
        let (bits, challenge) = bits_now(buyer.clone()).await;
        assert_eq!(bits, expected);
        let text = challenge["challenge"].as_str().unwrap();
        let nonce = seatmap::domain::queue::solve(text, bits);
        let (status, body) = buyer
            .post(&path, json!({"challenge": text, "nonce": nonce}))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    // The puzzle set when the address had joined less is too easy now.
    let (text, nonce) = kept.unwrap();
    let (status, body) = app
        .buyer()
        .post(&path, json!({"challenge": text, "nonce": nonce}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "proof_of_work_required");
    assert!(
        body["message"].as_str().unwrap().contains("17 bits"),
        "{body}"
    );
}

#[tokio::test]
async fn page_views_mint_only_the_free_joins_and_an_unclaimed_admission_lapses_soon() {
    use futures::StreamExt;
    let app = app_at_default_joins().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(2, 10).await;
    let now = OffsetDateTime::now_utc();
    put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(now), "admit_per_minute": "auto", "window_minutes": 15}),
    )
    .await;
    app.wait_for_database_time(now).await;
    tick(&app).await;
    // 300 cookieless page views of the map from one address.
    let shown: Vec<StatusCode> = futures::stream::iter(0..300)
        .map(|_| async {
            app.buyer()
                .http
                .get(format!("{}/events/{}", app.base, event.id))
                .send()
                .await
                .unwrap()
                .status()
        })
        .buffered(16)
        .collect()
        .await;
    let maps = shown.iter().filter(|s| **s == StatusCode::OK).count();
    let sent_to_wait = shown.iter().filter(|s| s.is_redirection()).count();
    assert_eq!((maps, sent_to_wait), (20, 280), "{shown:?}");
    let sql = |what: &str| {
        format!(
            "SELECT {what} FROM queue_joins WHERE event_id = {}",
            event.id
        )
    };
    assert_eq!(app.count(&sql("count(*)")).await, 20);
    // Admitted for the first-claim time (3 minutes), not the window.
    let longest = app
        .count(&sql(
            "max(extract(epoch FROM admitted_until - admitted_at))::bigint",
        ))
        .await;
    assert_eq!(longest, 180);
    // A claim binds its admission, and the full window runs from the admission.
    let buyer = app.buyer();
    let (status, joined) = Api::from_address(&app.base, "127.0.0.5")
        .post(&format!("/api/events/{}/queue", event.id), json!({}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{joined}");
    let ticket = joined["ticket"].as_str().unwrap();
    let response = buyer
        .http
        .post(format!("{}/api/events/{}/holds", app.base, event.id))
        .header("Queue-Ticket", ticket)
        .json(&json!({"seat_ids": [event.seat_ids[0]]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let bound = app
        .count(&format!(
            "SELECT extract(epoch FROM admitted_until - admitted_at)::bigint FROM queue_joins
              WHERE id = '{}'",
            join_id_of(&joined)
        ))
        .await;
    assert_eq!(bound, 15 * 60);
}

#[tokio::test]
async fn two_buyers_racing_with_one_admission_get_one_hold() {
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(2, 10).await;
    let past = OffsetDateTime::now_utc() - time::Duration::minutes(1);
    put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(past), "admit_per_minute": 600, "window_minutes": 15}),
    )
    .await;
    let (status, joined) = join(&app.buyer(), event.id).await;
    assert_eq!(status, StatusCode::CREATED);
    tick(&app).await;
    let ticket = joined["ticket"].as_str().unwrap().to_owned();
    // Both buyers read the admission as unbound, then wait on its row;
    // when it is let go, only one of them may bind it.
    let mut locker = app.own_connection().await;
    let tx = locker.transaction().await.unwrap();
    tx.execute(
        "SELECT 1 FROM queue_joins WHERE event_id = $1 FOR UPDATE",
        &[&event.id],
    )
    .await
    .unwrap();
    let claim = |seat: i64| {
        let (base, ticket) = (app.base.clone(), ticket.clone());
        tokio::spawn(async move {
            crate::support::http_client()
                .post(format!("{base}/api/events/{}/holds", event.id))
                .header("Queue-Ticket", ticket)
                .json(&json!({"seat_ids": [seat]}))
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    let (first, second) = (claim(event.seat_ids[0]), claim(event.seat_ids[1]));
    app.lock_waiters("queue_joins", 2).await;
    tx.commit().await.unwrap();
    let mut statuses = vec![first.await.unwrap(), second.await.unwrap()];
    statuses.sort();
    assert_eq!(statuses, vec![StatusCode::CREATED, StatusCode::FORBIDDEN]);
}

/// One tick with the given factor for "auto" targets.
async fn tick_with(app: &TestApp, growth: f64) -> u64 {
    tick_from(app, 50, growth).await
}

/// One tick, "auto" targets starting at `start_target` and moving by `growth`.
async fn tick_from(app: &TestApp, start_target: i64, growth: f64) -> u64 {
    let auto = seatmap::db::queue::AutoStep {
        start_target,
        growth,
    };
    seatmap::background::queue_tick(
        &app.pool,
        &app.state.queues,
        auto,
        app.state.config.queue.first_claim,
    )
    .await
    .expect("a queue tick")
}

#[tokio::test]
async fn an_auto_queue_moves_its_target_with_the_house_and_admits_up_to_it() {
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(2, 100).await;
    let opens = OffsetDateTime::now_utc() + time::Duration::minutes(30);
    let put = |at: OffsetDateTime| json!({"opens_at": rfc3339(at), "admit_per_minute": "auto", "window_minutes": 10});
    assert_eq!(
        put_queue(&app, &key, event.id, put(opens)).await.0,
        StatusCode::OK
    );
    let mut buyers = Vec::new();
    for _ in 0..150 {
        let buyer = app.buyer();
        let (status, joined) = join(&buyer, event.id).await;
        assert_eq!(status, StatusCode::CREATED);
        buyers.push((buyer, join_id_of(&joined), false));
    }
    // Only buyers who claimed count towards growing the target (page views
    // and unused admissions must not): each admitted buyer holds a seat.
    let claim_admitted = async |buyers: &mut Vec<(Api, uuid::Uuid, bool)>| {
        let admitted = admitted_joins(&app, event.id).await;
        for (i, (buyer, join_id, claimed)) in buyers.iter_mut().enumerate() {
            if !*claimed && admitted.contains(join_id) {
                let (status, body) = buyer.hold(event.id, &[event.seat_ids[i]]).await;
                assert_eq!(status, StatusCode::CREATED, "{body}");
                *claimed = true;
            }
        }
    };
    let now = OffsetDateTime::now_utc();
    assert_eq!(
        put_queue(&app, &key, event.id, put(now)).await.0,
        StatusCode::OK
    );
    app.wait_for_database_time(now).await;
    let path = format!("/api/staff/events/{}/queue", event.id);
    let target = || async {
        let (status, body) = staff_call(&app, &key, reqwest::Method::GET, &path, None).await;
        assert_eq!(status, StatusCode::OK);
        (
            body["auto_target"].as_i64(),
            body["admitted"].as_i64().unwrap(),
        )
    };

    // It starts from its starting target, and holds it while the house is at budget.
    assert_eq!(tick_with(&app, 1.0).await, 50);
    assert_eq!(target().await, (Some(50), 50));
    claim_admitted(&mut buyers).await;
    // The target moves once a second, however many workers offer a batch
    // (three instances' workers must not compound their growth).
    assert_eq!(tick_with(&app, 1.15).await, 0);
    assert_eq!(target().await, (Some(50), 50));
    // Claims well within budget: it grows while it binds, and admits the difference.
    let app = &app;
    let a_second_on = |growth| async move {
        tokio::time::sleep(std::time::Duration::from_millis(950)).await;
        tick_with(app, growth).await
    };
    assert_eq!(a_second_on(1.15).await, 8);
    assert_eq!(target().await, (Some(58), 58));
    claim_admitted(&mut buyers).await;
    // Over budget: it shrinks (0.5 here), admitting nobody until shoppers fall below.
    assert_eq!(a_second_on(0.5).await, 0);
    assert_eq!(target().await, (Some(29), 58));
    // However bad it gets, it never goes below its floor.
    for _ in 0..2 {
        a_second_on(0.5).await;
    }
    assert_eq!(
        target().await.0,
        Some(seatmap::domain::queue_pace::MIN_TARGET)
    );
    // Good news again: 58 shopping is above the target, so it binds and
    // grows; nobody is admitted while it is below the shoppers.
    for _ in 0..3 {
        assert_eq!(a_second_on(1.15).await, 0);
    }
    assert_eq!(target().await.0, Some(17), "10 → 12 → 14 → 17");

    // A fixed rate shows no target.
    let fixed = json!({"opens_at": rfc3339(now), "admit_per_minute": 60, "window_minutes": 10});
    assert_eq!(
        put_queue(app, &key, event.id, fixed).await.0,
        StatusCode::OK
    );
    tick_with(app, 1.15).await;
    let (_, body) = staff_call(app, &key, reqwest::Method::GET, &path, None).await;
    assert!(body.get("auto_target").is_none(), "{body}");
}

#[tokio::test]
async fn claims_are_timed_for_the_auto_pace() {
    use futures::StreamExt;
    let app = app().await;
    let event = app.create_event(1, 30).await;
    let started = std::time::Instant::now();
    let statuses: Vec<StatusCode> = futures::stream::iter(event.seat_ids[..25].to_vec())
        .map(|seat| {
            let buyer = app.buyer();
            let event_id = event.id;
            async move { buyer.hold(event_id, &[seat]).await.0 }
        })
        .buffer_unordered(25)
        .collect()
        .await;
    assert!(
        statuses.iter().all(|s| *s == StatusCode::CREATED),
        "{statuses:?}"
    );
    let sample = seatmap::observability::claim_meter()
        .sample(std::time::Instant::now())
        .expect("claims measured");
    assert!(
        started.elapsed() < seatmap::observability::CLAIM_WINDOW,
        "the claims took longer than the meter looks back"
    );
    // Other tests in this process claim too: at least ours were counted.
    assert!(sample.count >= 25, "{}", sample.count);
    assert!(sample.p95 > std::time::Duration::ZERO && sample.per_second > 0.0);
}

#[tokio::test]
async fn undoing_best_available_is_a_claim_the_waiting_room_gates() {
    use crate::pages::{post_form, undo_field};
    let app = app().await;
    let key = make_staff_key(&app, "queue", Role::Manager).await;
    let event = app.create_event(2, 5).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let event_path = format!("/events/{}", event.id);
    // Before the queue: B1 held, and best available for 2 swaps it for
    // two seats together, offering an Undo that would take B1 back.
    let (status, _) = buyer.hold(event.id, &[s[5]]).await;
    assert_eq!(status, StatusCode::CREATED);
    let found = post_form(
        &buyer,
        &format!("{event_path}/best"),
        &[("count", "2".into())],
        true,
    )
    .await;
    let html = found.text().await.unwrap();
    let offered: Vec<(&str, String)> = ["hold", "restore", "drop", "proof"]
        .map(|name| (name, undo_field(&html, name)))
        .to_vec();
    assert_eq!(offered[1].1, s[5].to_string(), "the Undo restores B1");

    // The queue goes on; the buyer has no admission.
    let past = OffsetDateTime::now_utc() - time::Duration::minutes(1);
    let (status, queue) = put_queue(
        &app,
        &key,
        event.id,
        json!({"opens_at": rfc3339(past), "admit_per_minute": 60, "window_minutes": 15}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{queue}");
    let before = app.holders(event.id).await;
    let undo = post_form(&buyer, &format!("{event_path}/best/undo"), &offered, true).await;
    assert_eq!(
        undo.status(),
        StatusCode::FORBIDDEN,
        "the gate, as on every claim"
    );
    assert_eq!(
        app.holders(event.id).await,
        before,
        "nothing was taken back past the gate"
    );
}
