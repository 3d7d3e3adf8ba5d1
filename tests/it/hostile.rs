//! Hostile traffic (issue 11): connections that never finish a request,
//! more connections or live streams than one client should have, pool
//! exhaustion, and limits raced by concurrent requests.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{Api, spawn_app_with};

/// Opens a connection and sends half a request head, then nothing.
async fn half_sent(addr: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.expect("connecting");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: seatmap\r\nX-Slow: ")
        .await
        .expect("writing half a request");
    stream
}

/// Waits (bounded) for the server to close the connection; true if it did.
async fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            // A 408 or similar before the close: keep reading to the end.
            Ok(Ok(_)) => continue,
        }
    }
}

/// A client whose connections come from another loopback address, so a
/// per-address cap on 127.0.0.1 doesn't apply to it.
fn client_from(local: &str) -> reqwest::Client {
    crate::support::client_builder()
        .local_address(local.parse::<IpAddr>().expect("address"))
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client")
}

fn host_port(base: &str) -> String {
    base.trim_start_matches("http://").to_string()
}

#[tokio::test]
async fn half_sent_requests_are_closed_and_health_keeps_answering() {
    let app = spawn_app_with(|config| {
        config.server.header_read_timeout = Duration::from_secs(1);
        config.server.max_connections_per_ip = 0;
    })
    .await;
    let addr = host_port(&app.base);
    let mut slow = Vec::new();
    for _ in 0..300 {
        slow.push(half_sent(&addr).await);
    }
    // With 300 connections stuck mid-request, others are still served.
    let health = Api::new(&app.base)
        .http
        .get(format!("{}/healthz", app.base));
    let health = health.send().await.expect("healthz while flooded");
    assert_eq!(health.status(), StatusCode::OK);

    // Every stuck connection is closed by the server. (The bound is
    // generous: this checks that they close, not how fast.)
    let mut still_open = 0;
    for stream in &mut slow {
        if !closed_by_server(stream, Duration::from_secs(20)).await {
            still_open += 1;
        }
    }
    assert_eq!(still_open, 0, "half-sent connections the server kept open");

    // An idle keep-alive connection is closed too.
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: seatmap\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 256];
    let read = idle.read(&mut first).await.unwrap();
    assert!(
        String::from_utf8_lossy(&first[..read]).starts_with("HTTP/1.1 200"),
        "the keep-alive request was answered"
    );
    assert!(
        closed_by_server(&mut idle, Duration::from_secs(20)).await,
        "an idle keep-alive connection stayed open"
    );
}

#[tokio::test]
async fn one_address_cannot_take_every_connection() {
    let app = spawn_app_with(|config| {
        config.server.max_connections_per_ip = 20;
    })
    .await;
    let addr = host_port(&app.base);
    let mut held = Vec::new();
    for _ in 0..20 {
        held.push(half_sent(&addr).await);
    }
    // The 21st from the same address is closed at once, unanswered.
    let mut extra = half_sent(&addr).await;
    assert!(
        closed_by_server(&mut extra, Duration::from_secs(5)).await,
        "a connection over the per-address cap was kept"
    );
    // Another address is still served.
    let other = client_from("127.0.0.2")
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .expect("healthz from another address");
    assert_eq!(other.status(), StatusCode::OK);
    // Places come back when connections close.
    drop(held);
    let mut served = false;
    for _ in 0..50 {
        let again = Api::new(&app.base)
            .http
            .get(format!("{}/healthz", app.base))
            .send()
            .await;
        if again.is_ok_and(|r| r.status() == StatusCode::OK) {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        served,
        "the address got no connection back after closing its own"
    );
}

/// A first-time visitor's reads (the map, the list, the live stream) write
/// no session, so a flood of them can't exhaust the pool through the
/// session store; what the pool can't serve is a 503 with Retry-After.
#[tokio::test]
async fn a_flood_of_first_time_readers_gets_pages_or_503s_and_writes_no_session() {
    let app = spawn_app_with(|config| {
        config.db.pool_size = 4;
        config.db.pool_wait = Duration::from_millis(300);
    })
    .await;
    let event = app.create_event(10, 20).await;
    let paths = [
        format!("/events/{}", event.id),
        format!("/events/{}/list", event.id),
        format!("/events/{}/live", event.id),
    ];
    let requests = (0..450).map(|i| {
        let url = format!("{}{}", app.base, paths[i % paths.len()]);
        tokio::spawn(async move {
            // A new client each: no cookies, a first visit.
            let response = Api::new("http://unused").http.get(url).send().await?;
            let status = response.status();
            let retry_after = response.headers().get("retry-after").cloned();
            let session_cookie = response
                .headers()
                .get_all("set-cookie")
                .iter()
                .any(|c| c.to_str().unwrap_or("").starts_with("seatmap_session="));
            Ok::<_, reqwest::Error>((status, retry_after, session_cookie, response))
        })
    });
    let outcomes = futures::future::join_all(requests).await;
    let mut by_status = std::collections::BTreeMap::new();
    let mut held_open = Vec::new();
    for outcome in outcomes {
        let (status, retry_after, session_cookie, response) =
            outcome.expect("task").expect("the server answered");
        *by_status.entry(status.as_u16()).or_insert(0) += 1;
        assert!(!session_cookie, "a read set a session cookie ({status})");
        assert!(
            status == StatusCode::OK || status == StatusCode::SERVICE_UNAVAILABLE,
            "{status}: {by_status:?}"
        );
        if status == StatusCode::SERVICE_UNAVAILABLE {
            assert!(retry_after.is_some(), "a 503 without Retry-After");
        }
        held_open.push(response);
    }
    eprintln!("first-time readers by status: {by_status:?}");
    assert!(
        by_status.get(&200).copied().unwrap_or(0) > 0,
        "nothing served"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM tower_sessions").await,
        0,
        "reads wrote sessions"
    );
}

/// When saving a session fails (the pool is exhausted), the answer is the
/// documented 503 with Retry-After, not the session layer's bare 500.
/// A session that can't be saved (the sessions table locked past the
/// lock timeout, as an overloaded or failing store would be) is a 503
/// page with Retry-After, not tower-sessions' bare, empty 500.
#[tokio::test]
async fn a_failed_session_save_is_a_503_with_retry_after() {
    let app = spawn_app_with(|config| {
        config.db.lock_timeout = Duration::from_millis(300);
    })
    .await;
    let event = app.create_event(1, 2).await;
    let buyer = app.buyer();
    let csrf = crate::pages::csrf_from(&buyer, &format!("/events/{}", event.id)).await;
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE tower_sessions IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    // A first hold: the new buyer's session must be saved, and can't be.
    let path = format!("/events/{}/seats", event.id);
    let response = buyer
        .http
        .post(format!("{}{path}", app.base))
        .form(&[
            ("csrf", csrf.as_str()),
            ("hold", &event.seat_ids[0].to_string()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
    assert_eq!(response.headers()["retry-after"], "1");
    let body = response.text().await.unwrap();
    assert!(body.contains("very busy"), "the error page: {body}");
    lock.rollback().await.unwrap();
}

async fn open_stream(client: &reqwest::Client, url: &str) -> reqwest::Response {
    client
        .get(url)
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .expect("opening a live stream")
}

#[tokio::test]
async fn live_streams_are_capped_per_address_and_in_total() {
    let app = spawn_app_with(|config| {
        config.live.max_streams = 5;
        config.live.max_streams_per_ip = 3;
    })
    .await;
    let event = app.create_event(1, 4).await;
    let url = format!("{}/events/{}/live", app.base, event.id);
    let first = client_from("127.0.0.1");
    let mut open = Vec::new();
    for _ in 0..3 {
        let stream = open_stream(&first, &url).await;
        assert_eq!(stream.status(), StatusCode::OK);
        open.push(stream);
    }
    let over = open_stream(&first, &url).await;
    assert_eq!(
        over.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "a 4th from one address"
    );
    assert!(over.headers().contains_key("retry-after"));
    let second = client_from("127.0.0.2");
    for _ in 0..2 {
        let stream = open_stream(&second, &url).await;
        assert_eq!(stream.status(), StatusCode::OK);
        open.push(stream);
    }
    let third = client_from("127.0.0.3");
    let full = open_stream(&third, &url).await;
    assert_eq!(
        full.status(),
        StatusCode::SERVICE_UNAVAILABLE,
        "over the total"
    );
    assert!(full.headers().contains_key("retry-after"));
    // A closed page gives its place back.
    drop(open.remove(0));
    let mut reopened = false;
    for _ in 0..50 {
        let stream = open_stream(&third, &url).await;
        if stream.status() == StatusCode::OK {
            reopened = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(reopened, "a closed stream's place never came back");
}

/// Hundreds of seats change at once: the feed reads them once for the
/// event, and every open page gets them without reading anything itself.
#[tokio::test]
async fn a_big_change_is_read_once_for_every_open_page() {
    let app = spawn_app_with(|_| {}).await;
    let event = app.create_event(30, 20).await;
    let url = format!("{}/events/{}/live", app.base, event.id);
    let client = client_from("127.0.0.1");
    let mut pages = Vec::new();
    for _ in 0..40 {
        let stream = open_stream(&client, &url).await;
        assert_eq!(stream.status(), StatusCode::OK);
        pages.push(stream);
    }
    // Each page catches up once as it opens; wait for all of them.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while app.state.live.catch_up_reads().1 < 40 {
        assert!(tokio::time::Instant::now() < deadline, "pages never opened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (feed_before, pages_before) = app.state.live.catch_up_reads();

    let changed = app
        .sql()
        .await
        .execute(
            "UPDATE seats SET status = 'BLOCKED' WHERE event_id = $1",
            &[&event.id],
        )
        .await
        .unwrap();
    assert_eq!(changed, 600);
    let last_seat = format!("seat-{}", event.seat_ids.last().unwrap());
    for page in &mut pages {
        let mut seen = String::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while !seen.contains(&last_seat) {
            let chunk = tokio::time::timeout_at(deadline, page.chunk())
                .await
                .unwrap_or_else(|_| panic!("a page never got the change"))
                .unwrap()
                .expect("stream ended");
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
        assert!(seen.contains("blocked"), "the seats arrive as blocked");
    }
    let (feed_after, pages_after) = app.state.live.catch_up_reads();
    assert_eq!(pages_after - pages_before, 0, "pages read for themselves");
    assert_eq!(
        feed_after - feed_before,
        1,
        "one read by the feed for the event"
    );
}

/// Closing sales on a big event releases every held seat in one
/// statement: each open page gets every released seat, as available, from
/// one read by the feed.
#[tokio::test]
async fn closing_sales_on_an_arena_releases_hundreds_of_seats_to_every_open_page() {
    let app = spawn_app_with(|_| {}).await;
    let event = app.create_event(25, 20).await;
    let held: Vec<i64> = event.seat_ids[..450].to_vec();
    let holds = futures_util::future::join_all(held.chunks(10).map(|seats| {
        let buyer = app.buyer();
        async move { buyer.hold(event.id, seats).await }
    }))
    .await;
    for (status, body) in &holds {
        assert_eq!(*status, StatusCode::CREATED, "{body}");
    }
    let url = format!("{}/events/{}/live", app.base, event.id);
    let client = client_from("127.0.0.1");
    let mut pages = Vec::new();
    for _ in 0..20 {
        let stream = open_stream(&client, &url).await;
        assert_eq!(stream.status(), StatusCode::OK);
        pages.push(stream);
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while app.state.live.catch_up_reads().1 < 20 {
        assert!(tokio::time::Instant::now() < deadline, "pages never opened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A marker after the holds: once a page has it, the feed has read
    // every change before it (it sends in commit order), so none of the
    // holds' reads is still to come and counted below as the close's.
    let marker = event.seat_ids[450];
    let (status, _) = app.buyer().hold(event.id, &[marker]).await;
    assert_eq!(status, StatusCode::CREATED);
    let mut seen = String::new();
    crate::support::read_stream_until(
        &mut pages[0],
        &mut seen,
        &format!("id=\"seat-{marker}\" class=\"seat seat--held"),
    )
    .await;
    let (feed_before, pages_before) = app.state.live.catch_up_reads();

    let clerk = crate::staff::staff(&app, "clerk").await;
    let closed = crate::staff::console_action(
        &clerk,
        event.id,
        &format!("/staff/events/{}/close-sales", event.id),
        &[("confirm", "yes")],
    )
    .await;
    assert_eq!(closed.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'AVAILABLE'")
            .await,
        500
    );
    let released: Vec<String> = held
        .iter()
        .map(|id| format!("id=\"seat-{id}\" class=\"seat seat--available"))
        .collect();
    for page in &mut pages {
        let mut seen = String::new();
        for seat in &released {
            crate::support::read_stream_until(page, &mut seen, seat).await;
        }
    }
    let (feed_after, pages_after) = app.state.live.catch_up_reads();
    assert_eq!(pages_after - pages_before, 0, "pages read for themselves");
    assert_eq!(feed_after - feed_before, 1, "one read by the feed");
}

/// Many fresh sessions from one address at once: the live holds of that
/// address never pass SEATMAP_MAX_HOLDS_PER_IP.
#[tokio::test]
async fn concurrent_fresh_sessions_from_one_address_stay_under_the_hold_cap() {
    const CAP: u32 = 5;
    let app = spawn_app_with(|config| config.limits.max_holds_per_ip = CAP).await;
    let event = app.create_event(4, 10).await;
    let claims = event.seat_ids.iter().map(|&seat| {
        let buyer = app.buyer();
        let event_id = event.id;
        tokio::spawn(async move { buyer.hold(event_id, &[seat]).await })
    });
    let mut by_status = std::collections::BTreeMap::new();
    for claim in futures::future::join_all(claims).await {
        let (status, body) = claim.expect("task");
        assert!(
            status == StatusCode::CREATED || status == StatusCode::TOO_MANY_REQUESTS,
            "{status}: {body}"
        );
        *by_status.entry(status.as_u16()).or_insert(0) += 1;
    }
    let live = app
        .count("SELECT count(*) FROM holds WHERE client_ip = '127.0.0.1' AND state = 'OPEN'")
        .await;
    assert_eq!(
        live,
        i64::from(CAP),
        "live holds from one address: {by_status:?}"
    );
    assert_eq!(by_status.get(&201), Some(&(CAP as i32)), "{by_status:?}");
}

/// Values no validator should pass to the database unchecked.
fn hostile_values() -> Vec<String> {
    vec![
        "a\0b".into(),
        "\0".into(),
        "ctrl\u{1}\u{7f}\r\nline".into(),
        "x".repeat(10_000),
        "💺".repeat(3_000),
        "\u{202e}gnirts".into(),
        "%00%ff".into(),
        "'; DROP TABLE seats; --".into(),
        "99999999999999999999999999".into(),
        "-9223372036854775809".into(),
        "1e309".into(),
        "NaN".into(),
        String::new(),
    ]
}

/// What a refused request must not have changed.
async fn written(app: &crate::support::TestApp) -> Vec<i64> {
    let mut counts = Vec::new();
    for table in [
        "holds",
        "orders",
        "venues",
        "events",
        "audit_log",
        "ga_tickets",
        "tickets",
        "webhook_endpoints",
        "outbox",
    ] {
        counts.push(app.count(&format!("SELECT count(*) FROM {table}")).await);
    }
    counts.push(
        app.count("SELECT count(*) FROM seats WHERE status <> 'AVAILABLE'")
            .await,
    );
    counts.push(
        app.count(
            "SELECT count(*) FROM tickets WHERE voided_at IS NOT NULL OR admitted_at IS NOT NULL",
        )
        .await,
    );
    counts
}

/// Sends one request per (field, hostile value) to every text and number
/// field of every form and endpoint, and checks: never a 5xx, and a refusal
/// writes nothing.
#[tokio::test]
async fn hostile_values_in_any_field_get_a_4xx_never_a_5xx_and_refusals_write_nothing() {
    let app = spawn_app_with(|config| config.limits = seatmap::config::AbuseLimits::off()).await;
    let (event, areas) = app.create_ga_event(6, &[("Floor", 50)]).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let buyer = app.buyer();
    let event_path = format!("/events/{}", event.id);
    let buyer_csrf = crate::pages::csrf_from(&buyer, &event_path).await;
    let console_path = format!("/staff/events/{}", event.id);
    let clerk_csrf = crate::pages::csrf_from(&clerk, &console_path).await;
    let (status, hold) = buyer.hold(event.id, &event.seat_ids[..1]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let hold_id = crate::support::id_segment(&hold["hold_id"]);
    let seat = event.seat_ids[1].to_string();
    let area = areas[0].to_string();
    // An order to refund, reseat and scan (the after-sale forms and APIs).
    let (_, sold) = crate::after_sale::buy(&app, event.id, &event.seat_ids[2..3], None).await;
    let order = crate::support::id_segment(&sold["order_id"]);
    let ticket: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT id FROM tickets WHERE order_id = $1::text::uuid",
            &[&order],
        )
        .await
        .unwrap()
        .get(0);
    let order_path = format!("{console_path}/orders/{order}");
    let area_field = format!("area_{area}");
    let walk_up_path = format!("{console_path}/walk-up");
    let webhooks_path = "/staff/webhooks".to_string();
    let (sell_key, sell_hash) = seatmap::domain::api_key::generate();
    seatmap::db::api_keys::create(
        &app.sql().await,
        "hostile-shop",
        seatmap::domain::api_key::Scope::Sell,
        &sell_hash,
    )
    .await
    .unwrap();

    // (client, csrf, path, the form's other fields, the field under test)
    type Form<'a> = (&'a Api, &'a str, String, Vec<(&'a str, String)>, &'a str);
    let forms: Vec<Form> = vec![
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/seats"),
            vec![],
            "hold",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/seats"),
            vec![],
            "release",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/seats"),
            vec![],
            "inspect",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/seats"),
            vec![("hold", seat.clone())],
            "back",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/best"),
            vec![],
            "count",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/best"),
            vec![("count", "2".into())],
            "section",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/best"),
            vec![("count", "2".into())],
            "tier",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/ga"),
            vec![("count", "1".into())],
            "area",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/ga"),
            vec![("area", area.clone())],
            "count",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/ga"),
            vec![],
            "release",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/purchase"),
            vec![("email", "a@b.example".into())],
            "name",
        ),
        (
            &buyer,
            &buyer_csrf,
            format!("{event_path}/purchase"),
            vec![("name", "Ada".into())],
            "email",
        ),
        (
            &clerk,
            &clerk_csrf,
            format!("{console_path}/seats/{seat}/sell"),
            vec![("email", "a@b.example".into())],
            "name",
        ),
        (
            &clerk,
            &clerk_csrf,
            format!("{console_path}/seats/{seat}/sell"),
            vec![("name", "Ada".into())],
            "email",
        ),
        (
            &buyer,
            &buyer_csrf,
            "/staff/login".into(),
            vec![("password", "x".repeat(12))],
            "name",
        ),
        (
            &buyer,
            &buyer_csrf,
            "/staff/login".into(),
            vec![("name", "clerk".into())],
            "password",
        ),
        (
            &buyer,
            &buyer_csrf,
            "/staff/login".into(),
            vec![("name", "nobody".into()), ("password", "x".repeat(12))],
            "next",
        ),
        // After the sale: walk-up, the door, refunds, reseats, webhooks.
        (
            &clerk,
            &clerk_csrf,
            walk_up_path.clone(),
            vec![("name", "Sam".into()), ("tender", "cash".into())],
            "seats",
        ),
        (
            &clerk,
            &clerk_csrf,
            walk_up_path.clone(),
            vec![("seats", "A2".into()), ("tender", "cash".into())],
            "name",
        ),
        (
            &clerk,
            &clerk_csrf,
            walk_up_path.clone(),
            vec![
                ("seats", "A2".into()),
                ("name", "Sam".into()),
                ("tender", "cash".into()),
            ],
            "email",
        ),
        (
            &clerk,
            &clerk_csrf,
            walk_up_path.clone(),
            vec![("seats", "A2".into()), ("name", "Sam".into())],
            "tender",
        ),
        (
            &clerk,
            &clerk_csrf,
            walk_up_path.clone(),
            vec![
                ("seats", "A2".into()),
                ("name", "Sam".into()),
                ("tender", "comp".into()),
            ],
            "comp_reason",
        ),
        (
            &clerk,
            &clerk_csrf,
            walk_up_path.clone(),
            vec![("name", "Sam".into()), ("tender", "cash".into())],
            area_field.as_str(),
        ),
        (
            &clerk,
            &clerk_csrf,
            format!("{console_path}/door/scan"),
            vec![("gate", "A".into())],
            "code",
        ),
        (
            &clerk,
            &clerk_csrf,
            format!("{console_path}/door/scan"),
            vec![("code", "A".repeat(32))],
            "gate",
        ),
        (
            &clerk,
            &clerk_csrf,
            format!("{order_path}/tickets/{ticket}/reseat"),
            vec![],
            "seat",
        ),
        (
            &clerk,
            &clerk_csrf,
            webhooks_path.clone(),
            vec![("event", "order.created".into())],
            "url",
        ),
        (
            &clerk,
            &clerk_csrf,
            webhooks_path.clone(),
            // A public address, so the URL needs no DNS to be checked.
            vec![("url", "https://93.184.216.34/x".into())],
            "event",
        ),
    ];
    let mut requests = 0;
    for value in hostile_values() {
        for (client, csrf, path, others, field) in &forms {
            let mut fields: Vec<(&str, String)> = vec![("csrf", csrf.to_string())];
            fields.extend(others.iter().cloned());
            fields.push((field, value.clone()));
            let before = written(&app).await;
            let response = client
                .http
                .post(format!("{}{path}", app.base))
                .form(&fields)
                .send()
                .await
                .expect("an answer");
            let status = response.status();
            requests += 1;
            assert!(
                !status.is_server_error(),
                "{status} for {field}={:?} on {path}",
                crate::support::short(&value)
            );
            // The token is good: a 403 would mean the field was never tried.
            assert_ne!(status, StatusCode::FORBIDDEN, "{field} on {path}");
            // A page's refusal is a redirect back with an error notice.
            let refused = status.is_client_error()
                || (status == StatusCode::SEE_OTHER && {
                    let back = response
                        .headers()
                        .get("location")
                        .and_then(|l| l.to_str().ok())
                        .unwrap_or("/")
                        .to_string();
                    client.get_text(&back).await.contains("notice--error")
                });
            if refused {
                assert_eq!(
                    written(&app).await,
                    before,
                    "{field} on {path} wrote something"
                );
            }
        }
        // JSON bodies, query strings and path segments.
        let json_bodies = [
            format!(
                r#"{{"best_available": {{"count": 2, "section": {}}}}}"#,
                serde_json::json!(value)
            ),
            format!(
                r#"{{"best_available": {{"count": 2, "tier": {}}}}}"#,
                serde_json::json!(value)
            ),
            format!(r#"{{"best_available": {{"count": {value}}}}}"#),
            format!(r#"{{"seat_ids": [{value}]}}"#),
            format!(r#"{{"ga": {{"area": {area}, "count": {value}}}}}"#),
        ];
        for body in json_bodies {
            let before = written(&app).await;
            let (status, answer) = app
                .buyer()
                .post_raw(&format!("/api/events/{}/holds", event.id), &body)
                .await;
            requests += 1;
            assert!(
                !status.is_server_error(),
                "{status} for {}: {answer}",
                crate::support::short(&body)
            );
            if status.is_client_error() {
                assert_eq!(
                    written(&app).await,
                    before,
                    "a refused hold wrote something"
                );
            }
        }
        // The staff JSON API of after the sale, each field hostile in turn.
        let json = serde_json::json!(value);
        let staff_bodies = [
            (
                format!("/api/staff/events/{}/sales", event.id),
                format!(r#"{{"seat_ids": [{value}], "name": "Sam", "tender": "cash"}}"#),
            ),
            (
                format!("/api/staff/events/{}/sales", event.id),
                format!(r#"{{"seat_ids": [{seat}], "name": {json}, "tender": "cash"}}"#),
            ),
            (
                format!("/api/staff/events/{}/sales", event.id),
                format!(
                    r#"{{"seat_ids": [{seat}], "name": "Sam", "email": {json}, "tender": "cash"}}"#
                ),
            ),
            (
                format!("/api/staff/events/{}/sales", event.id),
                format!(r#"{{"seat_ids": [{seat}], "name": "Sam", "tender": {json}}}"#),
            ),
            (
                format!("/api/staff/events/{}/sales", event.id),
                format!(
                    r#"{{"seat_ids": [{seat}], "name": "Sam", "tender": "comp", "comp_reason": {json}}}"#
                ),
            ),
            (
                format!("/api/staff/events/{}/sales", event.id),
                format!(
                    r#"{{"ga": [{{"area_id": {area}, "quantity": {value}}}], "name": "Sam", "tender": "cash"}}"#
                ),
            ),
            (
                format!("/api/staff/events/{}/sales", event.id),
                format!(
                    r#"{{"ga": [{{"area_id": {value}, "quantity": 1}}], "name": "Sam", "tender": "cash"}}"#
                ),
            ),
            (
                format!("/api/staff/events/{}/admissions", event.id),
                format!(r#"{{"code": {json}}}"#),
            ),
            (
                format!("/api/staff/events/{}/admissions", event.id),
                format!(r#"{{"code": "{}", "gate": {json}}}"#, "A".repeat(32)),
            ),
            (
                format!("/api/staff/events/{}/orders/{order}/refund", event.id),
                format!(r#"{{"ticket_ids": [{value}]}}"#),
            ),
            (
                format!("/api/staff/events/{}/tickets/{ticket}/reseat", event.id),
                format!(r#"{{"seat_id": {value}}}"#),
            ),
            (
                format!("/api/staff/events/{}/tickets/{ticket}/reseat", event.id),
                format!(r#"{{"seat_id": {json}}}"#),
            ),
        ];
        for (path, body) in &staff_bodies {
            let before = written(&app).await;
            let (status, answer) = clerk.post_raw(path, body).await;
            requests += 1;
            assert!(
                !status.is_server_error(),
                "{status} for {} on {path}: {answer}",
                crate::support::short(body)
            );
            if status.is_client_error() {
                assert_eq!(
                    written(&app).await,
                    before,
                    "a refused {path} wrote something"
                );
            }
        }
        // A sell key's customer reference, as a header (values a header
        // can't carry are refused by the client itself).
        if let Ok(header) = reqwest::header::HeaderValue::from_str(&value) {
            let before = written(&app).await;
            let response = crate::support::http_client()
                .post(format!("{}/api/events/{}/holds", app.base, event.id))
                .bearer_auth(&sell_key)
                .header("x-customer-ref", header)
                .json(&serde_json::json!({ "seat_ids": [event.seat_ids[3]] }))
                .send()
                .await
                .unwrap();
            requests += 1;
            let status = response.status();
            assert!(!status.is_server_error(), "{status} for X-Customer-Ref");
            if status.is_client_error() {
                assert_eq!(
                    written(&app).await,
                    before,
                    "a refused customer wrote something"
                );
            } else {
                // A customer ref that is fine: let its seat go again.
                let hold: serde_json::Value = response.json().await.unwrap();
                let id = crate::support::id_segment(&hold["hold_id"]);
                let released = crate::support::http_client()
                    .delete(format!("{}/api/holds/{id}", app.base))
                    .bearer_auth(&sell_key)
                    .header("x-customer-ref", &value)
                    .send()
                    .await
                    .unwrap();
                assert!(released.status().is_success(), "{}", released.status());
            }
        }
        for (name, email) in [(value.as_str(), "a@b.example"), ("Ada", value.as_str())] {
            let before = written(&app).await;
            let (status, answer) = buyer
                .post(
                    &format!("/api/holds/{hold_id}/purchase"),
                    serde_json::json!({ "name": name, "email": email }),
                )
                .await;
            requests += 1;
            assert!(!status.is_server_error(), "{status}: {answer}");
            if status.is_client_error() {
                assert_eq!(
                    written(&app).await,
                    before,
                    "a refused purchase wrote something"
                );
            }
        }
        let encoded: String = url_escape(&value);
        for path in [
            format!("{event_path}/live?since={encoded}"),
            format!("{event_path}/seat-fragments?ids={encoded}"),
            format!("{console_path}?q={encoded}"),
            format!("{console_path}?seat={encoded}"),
            format!("/staff/login?next={encoded}"),
            format!("/events/{encoded}"),
            format!("/api/holds/{encoded}/extend"),
            format!("{console_path}/orders/{encoded}"),
            format!("/tickets/{encoded}"),
            format!("/orders/{order}?until=1&sig={encoded}"),
        ] {
            let client = if path.starts_with("/staff") {
                &clerk
            } else {
                &buyer
            };
            let response = client
                .http
                .get(format!("{}{path}", app.base))
                .timeout(Duration::from_secs(5))
                .send()
                .await;
            requests += 1;
            // A live stream that opened stays open: its status is what counts.
            let response = response.expect("an answer");
            assert!(
                !response.status().is_server_error(),
                "{} for {}",
                response.status(),
                crate::support::short(&path)
            );
        }
        // A layout file: the value as each name and label it has.
        let json = serde_json::json!(value);
        let layouts = [
            (
                "v.json".to_string(),
                format!(
                    r#"{{"name": {json}, "tiers": [{{"code": "std", "name": "S"}}], "sections": [{{"name": "A", "rows": [{{"label": "1", "seats": [{{"label": "1", "tier": "std"}}]}}]}}]}}"#
                ),
            ),
            (
                "v.json".to_string(),
                format!(
                    r#"{{"name": "N", "tiers": [{{"code": {json}, "name": "S"}}], "ga_areas": [{{"name": "F", "tier": {json}, "capacity": 5}}]}}"#
                ),
            ),
            (
                "v.json".to_string(),
                format!(
                    r#"{{"name": "N", "tiers": [{{"code": "s", "name": "S"}}], "sections": [{{"name": {json}, "rows": [{{"label": {json}, "seats": [{{"label": {json}, "tier": "s"}}]}}]}}]}}"#
                ),
            ),
            (
                "v.json".to_string(),
                format!(
                    r#"{{"name": "N", "tiers": [{{"code": "s", "name": "S"}}], "ga_areas": [{{"name": "F", "tier": "s", "capacity": {value}}}]}}"#
                ),
            ),
            (
                "v.csv".to_string(),
                format!(
                    "section,row,seat,x,y,tier,flags\n{0},{0},{0},{0},1,{0},{0}\n",
                    value.replace([',', '\n', '\r'], " ")
                ),
            ),
        ];
        for (file_name, text) in layouts {
            let before = written(&app).await;
            let response = crate::venues::upload(&clerk, &file_name, text.into_bytes()).await;
            requests += 1;
            assert!(
                !response.status().is_server_error(),
                "{} for a layout",
                response.status()
            );
            let imported = response
                .headers()
                .get("location")
                .is_some_and(|l| l.to_str().unwrap_or("").starts_with("/staff/venues/"));
            if !imported {
                assert_eq!(
                    written(&app).await,
                    before,
                    "a refused layout wrote something"
                );
            }
        }
    }
    // The new-event form on a good venue, each field hostile in turn.
    let good = r#"{"name": "Good Hall", "tiers": [{"code": "std", "name": "Standard"}], "sections": [{"name": "A", "rows": [{"label": "1", "seats": [{"label": "1", "tier": "std"}]}]}]}"#;
    let imported = crate::venues::upload(&clerk, "good.json", good.as_bytes().to_vec()).await;
    assert!(imported.status().is_redirection(), "{}", imported.status());
    let venue_path = imported.headers()["location"].to_str().unwrap().to_string();
    let venue_csrf = crate::pages::csrf_from(&clerk, &venue_path).await;
    for value in hostile_values() {
        for field in ["name", "starts_at", "on_sale_at", "price.std"] {
            let mut fields = vec![
                ("csrf", venue_csrf.clone()),
                ("name", "Fine Night".to_string()),
                ("starts_at", "2099-01-01T20:00".to_string()),
                ("price.std", "45".to_string()),
            ];
            fields.retain(|(key, _)| *key != field);
            fields.push((field, value.clone()));
            let before = written(&app).await;
            let response = clerk
                .http
                .post(format!("{}{venue_path}/events", app.base))
                .form(&fields)
                .send()
                .await
                .unwrap();
            requests += 1;
            let status = response.status();
            assert!(
                !status.is_server_error(),
                "{status} for {field}={}",
                crate::support::short(&value)
            );
            assert_ne!(status, StatusCode::FORBIDDEN, "{field}");
            if status.is_client_error() {
                assert_eq!(
                    written(&app).await,
                    before,
                    "a refused event wrote something"
                );
            }
        }
    }
    // Whatever was accepted is plain text.
    for (table, column) in [
        ("events", "name"),
        ("venues", "name"),
        ("sections", "name"),
        ("seats", "row_label"),
        ("seats", "seat_label"),
        ("price_tiers", "code"),
    ] {
        let bad = app
            .count(&format!("SELECT count(*) FROM {table} WHERE {column} ~ '[[:cntrl:]]' OR length({column}) > 200"))
            .await;
        assert_eq!(
            bad, 0,
            "{table}.{column} holds a control character or a huge value"
        );
    }
    eprintln!("{requests} hostile requests, no 5xx");
}

/// Hostile traffic, round three: the surfaces added since round two,
/// each field hostile in turn: venues and layouts (create, save, read a
/// file, each name, tier, design and number), sections added to an event
/// on sale, the waitlist's join, the door's batch and device, and the
/// staff API with a key of each role. Never a 5xx; a refusal writes nothing.
#[tokio::test]
async fn hostile_values_on_venues_sections_waitlist_door_and_keys_get_a_4xx_never_a_5xx() {
    use seatmap::domain::role::Role;
    let app = spawn_app_with(|config| {
        config.limits = seatmap::config::AbuseLimits::off();
        config.waitlist.entries_per_client = 100_000;
    })
    .await;
    let manager = crate::staff::staff(&app, "manager").await;
    let door = crate::staff::staff_as(&app, "gate", Role::Door).await;
    let layout = |name: &str| {
        serde_json::json!({"name": name, "tiers": [{"code": "std", "name": "Standard"}],
            "sections": [{"name": "Stalls", "position": {"x": 100, "y": 100},
                          "rows": [{"label": "A", "count": 4, "tier": "std"}]}]})
    };
    let (status, venue) = manager
        .post("/api/staff/venues", layout("Round Three Hall"))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{venue}");
    let venue_id = venue["id"].as_i64().unwrap();
    let event = app.create_event(1, 4).await;
    let (_, order) = crate::after_sale::buy(&app, event.id, &event.seat_ids[..1], None).await;
    // The rest held: sold out, so joins reach the waitlist's own rules.
    let (status, _) = app.buyer().hold(event.id, &event.seat_ids[1..]).await;
    assert_eq!(status, StatusCode::CREATED);
    let code = order["tickets"][0]["code"].as_str().unwrap().to_string();
    let (_, list) = door
        .get(&format!("/api/staff/events/{}/door-list", event.id))
        .await;
    let key_hex = list["key"].as_str().unwrap().to_string();
    let hash = crate::door_offline::hash_for(&key_hex, &code);
    let device = crate::door_offline::issued_device(&door).await;
    let now = crate::support::rfc3339(time::OffsetDateTime::now_utc());
    let mut keys = Vec::new();
    for role in Role::ALL {
        keys.push(
            crate::api_keys::make_staff_key(&app, &format!("hostile-{}", role.as_str()), role)
                .await,
        );
    }
    let written = || async {
        let mut counts = written(&app).await;
        for table in [
            "waitlist_entries",
            "door_conflicts",
            "venue_versions",
            "sections",
            "price_tiers",
        ] {
            counts.push(app.count(&format!("SELECT count(*) FROM {table}")).await);
        }
        counts
    };
    let mut requests = 0;
    for value in hostile_values() {
        let json = serde_json::json!(value);
        let raw = &value;
        let mut named = layout("Hostile Hall");
        let joiners: Vec<Api> = (0..5).map(|_| app.buyer()).collect();
        let bodies: Vec<(&Api, reqwest::Method, String, String)> = {
            let with = |pointer: &str, v: serde_json::Value| {
                let mut body = named.clone();
                *body.pointer_mut(pointer).unwrap() = v;
                body.to_string()
            };
            let venues = "/api/staff/venues".to_string();
            let put = format!("/api/staff/venues/{venue_id}/layout");
            let read = "/api/staff/layouts/read?file_name=x.json".to_string();
            let mut list = Vec::new();
            for (pointer, v) in [
                ("/name", json.clone()),
                ("/tiers/0/code", json.clone()),
                ("/sections/0/name", json.clone()),
                ("/sections/0/rows/0/label", json.clone()),
                ("/sections/0/rows/0/count", json.clone()),
                ("/sections/0/rows/0/tier", json.clone()),
                ("/sections/0/position/x", json.clone()),
                (
                    "/sections/0/position",
                    serde_json::json!({"x": -100000, "y": value}),
                ),
            ] {
                let body = with(pointer, v);
                list.push((
                    &manager,
                    reqwest::Method::POST,
                    venues.clone(),
                    body.clone(),
                ));
                list.push((&manager, reqwest::Method::PUT, put.clone(), body.clone()));
                list.push((&manager, reqwest::Method::POST, read.clone(), body));
            }
            named["sections"][0]["design"] =
                serde_json::json!({"kind": "rows", "numbering": value});
            list.push((
                &manager,
                reqwest::Method::POST,
                venues.clone(),
                named.to_string(),
            ));
            named["sections"][0]["design"] = serde_json::json!({"kind": value});
            list.push((
                &manager,
                reqwest::Method::POST,
                venues.clone(),
                named.to_string(),
            ));
            named["sections"][0]["rows"][0]["flags"] = serde_json::json!({"1": [value]});
            list.push((&manager, reqwest::Method::POST, venues, named.to_string()));
            let sections = format!("/api/staff/events/{}/sections", event.id);
            for body in [
                format!(r#"{{"version": 1, "section": {json}}}"#),
                format!(r#"{{"version": {raw}, "section": "Stalls"}}"#),
                format!(r#"{{"version": 1, "section": "Stalls", "prices": {{"std": {raw}}}}}"#),
            ] {
                list.push((&manager, reqwest::Method::POST, sections.clone(), body));
            }
            let waitlist = format!("/api/events/{}/waitlist", event.id);
            for (joiner, body) in joiners.iter().zip([
                format!(r#"{{"count": {raw}, "email": "a@b.example"}}"#),
                format!(r#"{{"count": 1, "email": {json}}}"#),
                format!(r#"{{"count": 1, "email": "a@b.example", "section": {json}}}"#),
                format!(r#"{{"count": 1, "email": "a@b.example", "tier": {json}}}"#),
                format!(r#"{{"count": 1, "email": "a@b.example", "max_price_cents": {raw}}}"#),
            ]) {
                list.push((joiner, reqwest::Method::POST, waitlist.clone(), body));
            }
            let batch = format!("/api/staff/events/{}/admissions/batch", event.id);
            for body in [
                format!(
                    r#"{{"device": {json}, "scans": [{{"hash": "{hash}", "gate": "A", "scanned_at": "{now}"}}]}}"#
                ),
                format!(
                    r#"{{"device": "{device}", "scans": [{{"hash": {json}, "gate": "A", "scanned_at": "{now}"}}]}}"#
                ),
                format!(
                    r#"{{"device": "{device}", "scans": [{{"hash": "{hash}", "gate": {json}, "scanned_at": "{now}"}}]}}"#
                ),
                format!(
                    r#"{{"device": "{device}", "scans": [{{"hash": "{hash}", "gate": "A", "scanned_at": {json}}}]}}"#
                ),
            ] {
                list.push((&door, reqwest::Method::POST, batch.clone(), body));
            }
            list
        };
        for (client, method, path, body) in bodies {
            let before = written().await;
            let response = client
                .http
                .request(method.clone(), format!("{}{path}", app.base))
                .header("content-type", "application/json")
                .header("if-match", "*")
                .body(body.clone())
                .send()
                .await
                .unwrap();
            requests += 1;
            let status = response.status();
            let answer = response.text().await.unwrap();
            assert!(
                !status.is_server_error(),
                "{status} for {method} {path} {}: {}",
                crate::support::short(&body),
                crate::support::short(&answer)
            );
            if status.is_client_error() {
                assert_eq!(
                    written().await,
                    before,
                    "a refused {method} {path} wrote something"
                );
            }
        }
        // Keys of each role, on a staff route of each role's, the value
        // in a field: a refusal by role or by value writes nothing.
        for key in &keys {
            for (path, body) in [
                (
                    format!("/api/staff/events/{}/admissions", event.id),
                    format!(r#"{{"code": {json}}}"#),
                ),
                (
                    format!("/api/staff/events/{}/seats/block", event.id),
                    format!(r#"{{"seat_ids": [{raw}]}}"#),
                ),
                (
                    format!("/api/staff/events/{}/tiers/std/price", event.id),
                    format!(r#"{{"price_cents": {raw}}}"#),
                ),
                (
                    format!(
                        "/api/staff/events/{}/orders/{}/refund",
                        event.id,
                        crate::support::id_segment(&order["order_id"])
                    ),
                    format!(r#"{{"ticket_ids": [{raw}]}}"#),
                ),
            ] {
                let before = written().await;
                let method = if path.ends_with("/price") {
                    reqwest::Method::PUT
                } else {
                    reqwest::Method::POST
                };
                let response = crate::support::http_client()
                    .request(method, format!("{}{path}", app.base))
                    .bearer_auth(key)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                requests += 1;
                let status = response.status();
                assert!(
                    !status.is_server_error(),
                    "{status} for {path} {}",
                    crate::support::short(&body)
                );
                if status.is_client_error() {
                    assert_eq!(written().await, before, "a refused {path} wrote something");
                }
            }
        }
    }
    eprintln!("{requests} hostile requests on round three's surfaces, no 5xx");
}

fn url_escape(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Round four's surfaces (issue 65): the waiting room (joins, puzzles,
/// tickets, the page a view joins through), idempotency keys, ticket
/// files and the season map, each with every hostile value: never a 5xx,
/// and a refusal writes nothing (no join, no kept key, no hold).
#[tokio::test]
async fn hostile_values_on_the_waiting_room_keys_files_and_season_maps_get_a_4xx_never_a_5xx() {
    use seatmap::domain::role::Role;
    let app = spawn_app_with(|config| {
        config.limits = seatmap::config::AbuseLimits::off();
        config.queue.every = None;
    })
    .await;
    let key = crate::api_keys::make_staff_key(&app, "hostile-queue", Role::Manager).await;
    // A season over an event and a copy of it; the event's first seat sold.
    let season = crate::seasons::season_of(&app, 1, 4, 2).await;
    let (season_id, event_id, seats) = (season.id, season.events[0], season.places.clone());
    let (_, order) = crate::after_sale::buy(&app, event_id, &seats[..1], None).await;
    let order_id = crate::support::id_segment(&order["order_id"]);
    // The waiting room on, asking a puzzle of every join.
    let (status, queue) = crate::promo_codes::staff_call(
        &app,
        &key,
        reqwest::Method::PUT,
        &format!("/api/staff/events/{}/queue", event_id),
        Some(
            serde_json::json!({"opens_at": crate::support::rfc3339(time::OffsetDateTime::now_utc()),
            "admit_per_minute": "auto", "window_minutes": 15, "proof_of_work": true}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{queue}");
    let buyer = app.buyer();
    let (_, challenge) = buyer
        .get(&format!("/api/events/{}/queue/challenge", event_id))
        .await;
    let challenge = challenge["challenge"].as_str().unwrap().to_string();
    let written = || async {
        let mut counts = written(&app).await;
        for table in ["queue_joins", "idempotency_keys"] {
            counts.push(app.count(&format!("SELECT count(*) FROM {table}")).await);
        }
        counts
    };
    let queue_path = format!("/api/events/{}/queue", event_id);
    let mut requests = 0;
    for value in hostile_values() {
        let json = serde_json::json!(value);
        // In a path or query, 500 characters at most: past some 64 KB of
        // escapes the client can't make a URI of it at all.
        let escaped = url_escape(&value.chars().take(500).collect::<String>());
        // Values a header may carry at all (the client refuses the rest).
        let header = reqwest::header::HeaderValue::from_str(&value).ok();
        let mut sends: Vec<reqwest::RequestBuilder> = Vec::new();
        let http = crate::support::http_client();
        let url = |path: &str| format!("{}{path}", app.base);
        for body in [
            value.clone(),
            format!(r#"{{"challenge": {json}, "nonce": {json}}}"#),
            format!(r#"{{"challenge": "{challenge}", "nonce": {json}}}"#),
            format!(r#"{{"challenge": {json}, "nonce": "1"}}"#),
        ] {
            sends.push(
                http.post(url(&queue_path))
                    .header("content-type", "application/json")
                    .body(body),
            );
        }
        sends.push(http.get(url(&format!("/api/events/{escaped}/queue"))));
        sends.push(http.get(url(&format!("/api/events/{escaped}/queue/challenge"))));
        sends.push(http.get(url(&format!("/events/{}/queue?next={escaped}", event_id))));
        if let Some(header) = &header {
            sends.push(
                http.get(url(&queue_path))
                    .header("queue-ticket", header.clone()),
            );
            sends.push(
                http.post(url(&format!("/api/events/{}/holds", event_id)))
                    .header("queue-ticket", header.clone())
                    .json(&serde_json::json!({"seat_ids": [seats[1]]})),
            );
            // A made-up session (the value as its cookie) with the value as
            // its key: refused or run unkeyed, never kept.
            sends.push(
                http.post(url(&format!(
                    "/api/holds/{}/purchase",
                    uuid::Uuid::new_v4()
                )))
                .header("cookie", format!("seatmap_session={value}"))
                .header("idempotency-key", header.clone())
                .json(&serde_json::json!({"name": "Ada", "email": "ada@example.com"})),
            );
        }
        sends.push(http.get(url(&format!("/tickets/{escaped}.pdf"))));
        sends.push(http.get(url(&format!("/tickets/{escaped}.pkpass"))));
        sends.push(http.get(url(&format!(
            "/orders/{order_id}/tickets.pdf?until={escaped}&sig={escaped}"
        ))));
        sends.push(http.get(url(&format!("/orders/{escaped}/tickets.pdf"))));
        sends.push(http.get(url(&format!(
            "/api/seasons/{season_id}/seats?event_ids={escaped}"
        ))));
        sends.push(http.get(url(&format!("/api/seasons/{escaped}/seats"))));
        for send in sends {
            let request = send.build().unwrap();
            let what = format!("{} {}", request.method(), request.url());
            let before = written().await;
            let response = http.execute(request).await.unwrap();
            requests += 1;
            let status = response.status();
            let answer = response.text().await.unwrap();
            assert!(
                !status.is_server_error(),
                "{status} for {what}: {}",
                crate::support::short(&answer)
            );
            if status.is_client_error() {
                assert_eq!(written().await, before, "a refused {what} wrote something");
            }
        }
    }
    eprintln!("{requests} hostile requests on round four's surfaces, no 5xx");
}
