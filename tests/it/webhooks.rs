//! Webhooks against a real HTTP receiver on loopback: signed deliveries of
//! the events each endpoint asked for, retries after a 500, and nothing
//! lost when the app is killed mid-delivery.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::sync::Mutex;

use crate::after_sale::buy;
use crate::support::{TestApp, id_segment, spawn_app_with};

#[derive(Clone, Copy)]
enum Behaviour {
    Accept,
    /// 500 for the first n requests.
    FailFirst(usize),
    /// The first request never gets an answer.
    HangFirst,
}

#[derive(Clone, Debug)]
struct Hit {
    headers: HeaderMap,
    body: String,
}

struct Receiver {
    url: String,
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl Receiver {
    async fn start(behaviour: Behaviour) -> Receiver {
        let hits: Arc<Mutex<Vec<Hit>>> = Arc::default();
        let seen = Arc::new(AtomicUsize::new(0));
        let recorded = hits.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: HeaderMap, body: String| {
                let recorded = recorded.clone();
                let seen = seen.clone();
                async move {
                    recorded.lock().await.push(Hit { headers, body });
                    let n = seen.fetch_add(1, Ordering::SeqCst);
                    match behaviour {
                        Behaviour::FailFirst(fails) if n < fails => (
                            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                            "receiver down",
                        ),
                        Behaviour::HangFirst if n == 0 => std::future::pending().await,
                        _ => (axum::http::StatusCode::OK, "thanks"),
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, hits }
    }

    async fn wait_for(&self, count: usize) -> Vec<Hit> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let hits = self.hits.lock().await.clone();
            if hits.len() >= count {
                return hits;
            }
            assert!(
                Instant::now() < deadline,
                "{} of {count} requests arrived",
                hits.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn endpoint(app: &TestApp, url: &str, events: &[&str]) -> String {
    let secret = seatmap::domain::webhook::new_secret();
    let events: Vec<String> = events.iter().map(|e| e.to_string()).collect();
    seatmap::db::webhooks::create(&app.sql().await, url, &secret, &events, None)
        .await
        .unwrap();
    secret
}

/// Checks the signature as a receiver would, with its own HMAC.
/// The signature header's timestamp and its `v1` signatures.
fn signatures(hit: &Hit) -> (String, Vec<String>) {
    let header = hit.headers["seatmap-signature"].to_str().unwrap();
    let mut parts = header.split(',');
    let t = parts
        .next()
        .and_then(|t| t.strip_prefix("t="))
        .unwrap_or_else(|| panic!("signature header {header:?}"))
        .to_string();
    let v1 = parts
        .map(|part| {
            part.strip_prefix("v1=")
                .unwrap_or_else(|| panic!("signature header {header:?}"))
                .to_string()
        })
        .collect();
    (t, v1)
}

/// What a receiver computes with `secret` for `hit`.
fn expected_signature(secret: &str, t: &str, hit: &Hit) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{}", hit.body).as_bytes());
    data_encoding::HEXLOWER.encode(&mac.finalize().into_bytes())
}

fn verify(secret: &str, hit: &Hit) -> Value {
    let (t, v1) = signatures(hit);
    let age = time::OffsetDateTime::now_utc().unix_timestamp() - t.parse::<i64>().unwrap();
    assert!((0..300).contains(&age), "signed {age} s ago");
    assert_eq!(
        v1,
        [expected_signature(secret, &t, hit)],
        "one signature, and it verifies with the endpoint's secret"
    );
    let body: Value = serde_json::from_str(&hit.body).unwrap();
    assert_eq!(
        hit.headers["seatmap-delivery"].to_str().unwrap(),
        body["id"].as_str().unwrap(),
        "the delivery id is in the header and the body"
    );
    body
}

/// The receivers here listen on loopback, which deliveries may reach
/// only when the operator allows it.
fn allow_loopback(config: &mut seatmap::config::Config) {
    config.webhooks.allowed_networks = vec!["127.0.0.0/8".parse().unwrap()];
}

fn fast(config: &mut seatmap::config::Config) {
    allow_loopback(config);
    config.webhooks.poll_every = Duration::from_millis(20);
    config.webhooks.first_retry = Duration::from_millis(50);
}

#[tokio::test]
async fn each_endpoint_gets_its_events_signed() {
    let receiver = Receiver::start(Behaviour::Accept).await;
    let other = Receiver::start(Behaviour::Accept).await;
    let app = spawn_app_with(fast).await;
    let secret = endpoint(
        &app,
        &receiver.url,
        &["order.created", "ticket.admitted", "order.refunded"],
    )
    .await;
    endpoint(&app, &other.url, &["event.cancelled"]).await;
    let event = app.create_event(1, 4).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..2], None).await;

    let hits = receiver.wait_for(1).await;
    let created = verify(&secret, &hits[0]);
    assert_eq!(created["type"], "order.created");
    assert_eq!(created["data"]["order_id"], order["order_id"]);
    assert_eq!(created["data"]["event_id"], event.id);
    assert_eq!(hits[0].headers["seatmap-event"], "order.created");

    let clerk = crate::staff::staff(&app, "door").await;
    let code = order["tickets"][0]["code"].as_str().unwrap();
    let (_, scan) = clerk
        .post(
            &format!("/api/staff/events/{}/admissions", event.id),
            json!({ "code": code, "gate": "B" }),
        )
        .await;
    assert_eq!(scan["result"], "admitted");
    let (_, again) = clerk
        .post(
            &format!("/api/staff/events/{}/admissions", event.id),
            json!({ "code": code }),
        )
        .await;
    assert_eq!(again["result"], "already_admitted");
    let (status, _) = clerk
        .post(
            &format!(
                "/api/staff/events/{}/orders/{}/refund",
                event.id,
                id_segment(&order["order_id"])
            ),
            json!({ "ticket_ids": [order_ticket_id(&app, code, false).await] }),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::OK);

    let hits = receiver.wait_for(3).await;
    let types: Vec<Value> = hits
        .iter()
        .map(|hit| verify(&secret, hit)["type"].clone())
        .collect();
    // One admission (the second scan admitted nothing), then the refund.
    assert_eq!(
        types,
        [
            json!("order.created"),
            json!("ticket.admitted"),
            json!("order.refunded")
        ]
    );
    let admitted = verify(&secret, &hits[1]);
    assert_eq!(admitted["data"]["gate"], "B");
    // A later event as a marker: the sender takes deliveries in order, so
    // once the marker has arrived, a second copy of any of the first three
    // (sent again without a lost lease) would have arrived before it.
    buy(&app, event.id, &event.seat_ids[2..3], None).await;
    let hits = receiver.wait_for(4).await;
    assert_eq!(hits.len(), 4, "nothing twice");
    let ids: HashSet<String> = hits
        .iter()
        .map(|hit| verify(&secret, hit)["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 4, "four deliveries, each once");
    assert!(
        other.hits.lock().await.is_empty(),
        "an endpoint gets only what it asked for"
    );
    // And by the outbox: each delivered on its one attempt.
    let delivered = app
        .count("SELECT count(*) FROM outbox WHERE kind = 'webhook' AND sent_at IS NOT NULL AND last_status = 200 AND attempts = 1")
        .await;
    assert_eq!(delivered, 4);
    // Staff see the log.
    let page = clerk.get_text("/staff/webhooks").await;
    assert!(
        page.contains(&receiver.url) && page.contains("delivered"),
        "{page}"
    );
}

/// A valid ticket of the order with this code: its own id, or another's.
async fn order_ticket_id(app: &TestApp, code: &str, same: bool) -> i64 {
    let sql = if same {
        "SELECT id FROM tickets WHERE code = $1"
    } else {
        "SELECT t.id FROM tickets t JOIN tickets c ON c.order_id = t.order_id
          WHERE c.code = $1 AND t.code <> $1 AND t.voided_at IS NULL LIMIT 1"
    };
    app.sql()
        .await
        .query_one(sql, &[&code])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn a_receiver_answering_500_gets_retries_with_the_same_delivery() {
    let receiver = Receiver::start(Behaviour::FailFirst(2)).await;
    let app = spawn_app_with(fast).await;
    let secret = endpoint(&app, &receiver.url, &["order.created"]).await;
    let event = app.create_event(1, 2).await;
    buy(&app, event.id, &event.seat_ids[..1], None).await;

    let hits = receiver.wait_for(3).await;
    let ids: Vec<Value> = hits
        .iter()
        .map(|hit| verify(&secret, hit)["id"].clone())
        .collect();
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "retries carry the same delivery id"
    );
    assert!(hits.iter().all(|hit| hit.body == hits[0].body));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let row = app
            .sql()
            .await
            .query_one(
                "SELECT attempts, last_status, sent_at IS NOT NULL AS sent FROM outbox WHERE kind = 'webhook'",
                &[],
            )
            .await
            .unwrap();
        if row.get::<_, bool>("sent") {
            assert_eq!(row.get::<_, i32>("attempts"), 3);
            assert_eq!(row.get::<_, Option<i32>>("last_status"), Some(200));
            break;
        }
        assert!(Instant::now() < deadline, "never marked delivered");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn killing_the_app_mid_delivery_loses_nothing() {
    let receiver = Receiver::start(Behaviour::HangFirst).await;
    // This instance's own sender looks once at start and then not for a
    // minute: the app process below is the one caught mid-delivery.
    let app = spawn_app_with(|config| {
        allow_loopback(config);
        config.webhooks.poll_every = Duration::from_secs(60);
    })
    .await;
    let secret = endpoint(&app, &receiver.url, &["order.created"]).await;
    let event = app.create_event(1, 2).await;
    buy(&app, event.id, &event.seat_ids[..1], None).await;

    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
        .env("DATABASE_URL", app.db.conninfo())
        .env("SEATMAP_ADDR", "127.0.0.1:0")
        // Far longer than any machine takes to kill the app once the
        // delivery is in (each request may take a third of it): the app
        // can't give up first. Its running out is then made, not waited for.
        .env("SEATMAP_WEBHOOK_LEASE_SECS", "600")
        .env("SEATMAP_WEBHOOK_POLL_MS", "50")
        .env("SEATMAP_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("starting seatmap");
    let first = receiver.wait_for(1).await;
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT attempts, sent_at IS NULL AS unsent, lease IS NOT NULL AS leased
               FROM outbox WHERE kind = 'webhook'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>("attempts"), 1);
    assert!(row.get::<_, bool>("unsent") && row.get::<_, bool>("leased"));

    // Another sender takes it once the dead one's lease runs out (moved
    // to the past here, as ten minutes would).
    app.lapse_leases().await;
    let settings = seatmap::config::WebhookSettings {
        lease: Duration::from_secs(3),
        poll_every: Duration::from_millis(50),
        first_retry: Duration::from_millis(50),
        ..app.config.webhooks.clone()
    };
    let pool = seatmap::db::build_pool(app.db.pg_config(), &app.config.db).unwrap();
    let sending = tokio::spawn(seatmap::webhooks::Sender::new(pool, &settings).run());
    let hits = receiver.wait_for(2).await;
    sending.abort();
    assert_eq!(
        verify(&secret, &hits[1])["id"],
        verify(&secret, &first[0])["id"]
    );
    assert_eq!(hits[1].body, first[0].body);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'webhook' AND sent_at IS NOT NULL AND attempts = 2")
            .await,
        1
    );
}

/// A URL staff type in the form, and the page's answer.
async fn add_endpoint(clerk: &crate::support::Api, url: &str) -> (reqwest::StatusCode, String) {
    let csrf = crate::pages::csrf_from(clerk, "/staff/webhooks").await;
    let response = clerk
        .http
        .post(format!("{}/staff/webhooks", clerk.base))
        .form(&[
            ("csrf", csrf.as_str()),
            ("url", url),
            ("event", "order.created"),
        ])
        .send()
        .await
        .unwrap();
    let status = response.status();
    let cache = response
        .headers()
        .get("cache-control")
        .map(|v| v.to_str().unwrap().to_string());
    if status == reqwest::StatusCode::SEE_OTHER {
        // Refused: back on the list, with the reason as a notice.
        return (status, clerk.get_text("/staff/webhooks").await);
    }
    assert_eq!(
        cache.as_deref(),
        Some("no-store"),
        "a secret's page is not cached"
    );
    (status, response.text().await.unwrap())
}

/// Inward targets are refused when added, by the address the name
/// resolves to; credentials in a URL and URLs without a host are refused
/// with a 4xx (they were a 500), and nothing is stored.
#[tokio::test]
async fn webhooks_aimed_inward_or_malformed_are_refused_when_added() {
    let app = spawn_app_with(|_| {}).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    for (url, says) in [
        ("http://127.0.0.1:5432/", "private or local network"),
        ("http://localhost:3000/metrics", "private or local network"),
        ("http://[::1]/x", "private or local network"),
        ("http://0.0.0.0/", "private or local network"),
        ("http://10.1.2.3/hook", "private or local network"),
        (
            "http://169.254.169.254/latest/meta-data",
            "private or local network",
        ),
        ("http://[::ffff:127.0.0.1]/", "private or local network"),
        // IPv4-translated (::ffff:0:0/96) and local-use NAT64 (64:ff9b:1::/48).
        ("http://[::ffff:0:7f00:1]/", "private or local network"),
        ("http://[64:ff9b:1::7f00:1]/", "private or local network"),
        ("http://2130706433/", "private or local network"),
        (
            "https://user:pass@hooks.example.org/",
            "no user name or password",
        ),
        ("http://", "full URL"),
        ("https://", "full URL"),
        ("ftp://example.org/", "full URL"),
        ("http://bad\u{0}host/", "full URL"),
    ] {
        let (status, page) = add_endpoint(&clerk, url).await;
        assert_eq!(
            status,
            reqwest::StatusCode::SEE_OTHER,
            "{url}: back on the page"
        );
        assert!(page.contains(says), "{url}: the page says why: {page}");
        assert!(!page.contains("whsec_"), "{url}: no secret was made");
    }
    assert_eq!(
        app.count("SELECT count(*) FROM webhook_endpoints").await,
        0,
        "nothing was stored"
    );
}

/// DNS can change after an endpoint is added: the delivery itself checks
/// the addresses it would connect to. An endpoint stored pointing at
/// loopback (by address and by a name that resolves there) gets nothing,
/// and the log says why in a few words.
#[tokio::test]
async fn a_delivery_to_an_address_that_turned_inward_is_refused() {
    let receiver = Receiver::start(Behaviour::Accept).await;
    // No allow-list: loopback is not a permitted target.
    let app = spawn_app_with(|config| {
        config.webhooks.poll_every = Duration::from_millis(20);
    })
    .await;
    let port = receiver.url.rsplit(':').next().unwrap().to_string();
    endpoint(&app, &receiver.url, &["order.created"]).await;
    endpoint(
        &app,
        &format!("http://localhost:{port}"),
        &["order.created"],
    )
    .await;
    let event = app.create_event(1, 2).await;
    buy(&app, event.id, &event.seat_ids[..1], None).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let errors: Vec<String> = loop {
        let rows = app
            .sql()
            .await
            .query(
                "SELECT coalesce(last_error, 'delivered') FROM outbox
                  WHERE kind = 'webhook' AND (last_error IS NOT NULL OR sent_at IS NOT NULL)",
                &[],
            )
            .await
            .unwrap();
        if rows.len() == 2 {
            break rows.iter().map(|row| row.get(0)).collect();
        }
        assert!(Instant::now() < deadline, "both deliveries were attempted");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        errors
            .iter()
            .all(|e| e == "refused: the host is not a public address"),
        "{errors:?}"
    );
    assert!(
        receiver.hits.lock().await.is_empty(),
        "the receiver on loopback was reached"
    );
}

/// The log keeps a receiver's status line, never what it answered.
#[tokio::test]
async fn the_delivery_log_shows_the_status_not_the_receivers_answer() {
    // Always down: the row keeps the 500 (and retries keep it so).
    let receiver = Receiver::start(Behaviour::FailFirst(usize::MAX)).await;
    let app = spawn_app_with(fast).await;
    endpoint(&app, &receiver.url, &["order.created"]).await;
    let event = app.create_event(1, 2).await;
    buy(&app, event.id, &event.seat_ids[..1], None).await;
    receiver.wait_for(1).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let failed = app
            .count("SELECT count(*) FROM outbox WHERE kind = 'webhook' AND last_status = 500")
            .await;
        if failed == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "the 500 was recorded");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT last_response, last_error FROM outbox WHERE kind = 'webhook'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(
        row.get::<_, Option<String>>("last_response").as_deref(),
        Some("HTTP 500 Internal Server Error")
    );
    assert_eq!(
        row.get::<_, Option<String>>("last_error").as_deref(),
        Some("HTTP 500 Internal Server Error")
    );
    let clerk = crate::staff::staff(&app, "clerk").await;
    let page = clerk.get_text("/staff/webhooks").await;
    assert!(page.contains("HTTP 500 Internal Server Error"), "{page}");
    assert!(
        !page.contains("receiver down"),
        "the receiver's answer is not shown"
    );
}

fn secret_on(page: &str) -> String {
    let start = page
        .find("whsec_")
        .unwrap_or_else(|| panic!("no secret on {page}"));
    page[start..start + "whsec_".len() + 48].to_string()
}

/// A secret is shown once when added, never on the list, again only to a
/// member of staff who asks (and that is audited); a rotation signs with
/// both secrets for the overlap. Buyers can do none of it.
#[tokio::test]
async fn a_secret_is_shown_once_then_on_an_audited_request_and_rotates_with_an_overlap() {
    let receiver = Receiver::start(Behaviour::Accept).await;
    let app = spawn_app_with(fast).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let (status, created) = add_endpoint(&clerk, &receiver.url).await;
    assert_eq!(status, reqwest::StatusCode::OK);
    assert!(created.contains("only time it is shown"), "{created}");
    let first = secret_on(&created);

    let list = clerk.get_text("/staff/webhooks").await;
    assert!(!list.contains("whsec_"), "the list shows no secret");

    let endpoint_id: i64 = app
        .sql()
        .await
        .query_one("SELECT id FROM webhook_endpoints", &[])
        .await
        .unwrap()
        .get(0);
    let csrf = crate::pages::csrf_from(&clerk, "/staff/webhooks").await;
    let shown = clerk
        .http
        .post(format!("{}/staff/webhooks/{endpoint_id}/secret", app.base))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(shown.headers()["cache-control"], "no-store");
    assert_eq!(secret_on(&shown.text().await.unwrap()), first);
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'webhook_secret_shown'")
            .await,
        1,
        "looking at the secret is audited"
    );

    // A buyer can neither see nor rotate it.
    let event = app.create_event(1, 2).await;
    let buyer = app.buyer();
    let buyer_csrf = crate::pages::csrf_from(&buyer, &format!("/events/{}", event.id)).await;
    for action in ["secret", "rotate"] {
        let response = buyer
            .http
            .post(format!(
                "{}/staff/webhooks/{endpoint_id}/{action}",
                app.base
            ))
            .form(&[("csrf", buyer_csrf.as_str())])
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        assert!(
            !text.contains("whsec_") && (status.is_client_error() || status.is_redirection()),
            "{action}: {status}"
        );
    }

    let rotated = clerk
        .http
        .post(format!("{}/staff/webhooks/{endpoint_id}/rotate", app.base))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let second = secret_on(&rotated);
    assert_ne!(second, first);
    assert!(rotated.contains("24 hours"), "{rotated}");

    buy(&app, event.id, &event.seat_ids[..1], None).await;
    let hits = receiver.wait_for(1).await;
    let (t, v1) = signatures(&hits[0]);
    assert_eq!(
        v1,
        [
            expected_signature(&second, &t, &hits[0]),
            expected_signature(&first, &t, &hits[0])
        ],
        "signed with the new secret and, during the overlap, the old one"
    );

    // After the overlap only the new one signs.
    app.sql()
        .await
        .execute(
            "UPDATE webhook_endpoints SET previous_secret_until = now() - interval '1 second'",
            &[],
        )
        .await
        .unwrap();
    buy(&app, event.id, &event.seat_ids[1..2], None).await;
    let hits = receiver.wait_for(2).await;
    verify(&second, &hits[1]);
}

/// The box office's events reach an endpoint that asked for them: a hold
/// released by staff, sales closed, an event cancelled; each with the
/// facts a receiver needs.
#[tokio::test]
async fn staff_releases_closings_and_cancellations_are_delivered() {
    let receiver = Receiver::start(Behaviour::Accept).await;
    let app = spawn_app_with(fast).await;
    let secret = endpoint(
        &app,
        &receiver.url,
        &[
            "hold.released_by_staff",
            "event.sales_closed",
            "event.cancelled",
        ],
    )
    .await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let closing = app.create_event(1, 4).await;
    let cancelling = app.create_event(1, 4).await;

    let buyer = app.buyer();
    let (_, hold) = buyer.hold(closing.id, &closing.seat_ids[..2]).await;
    let (status, _) = clerk
        .post(
            &format!("/api/staff/holds/{}/release", id_segment(&hold["hold_id"])),
            json!({}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::NO_CONTENT);
    let hits = receiver.wait_for(1).await;
    let released = verify(&secret, &hits[0]);
    assert_eq!(released["type"], "hold.released_by_staff");
    assert_eq!(released["data"]["hold_id"], hold["hold_id"]);
    assert_eq!(released["data"]["event_id"], closing.id);
    assert_eq!(released["data"]["seat_ids"], json!(&closing.seat_ids[..2]));

    // A live hold when sales close: released by the closing.
    let (status, _) = app.buyer().hold(closing.id, &closing.seat_ids[2..3]).await;
    assert_eq!(status, reqwest::StatusCode::CREATED);
    let closed = crate::staff::console_action(
        &clerk,
        closing.id,
        &format!("/staff/events/{}/close-sales", closing.id),
        &[("confirm", "yes")],
    )
    .await;
    assert_eq!(closed.status(), reqwest::StatusCode::SEE_OTHER);
    let (_, order) = buy(&app, cancelling.id, &cancelling.seat_ids[..1], None).await;
    let _ = order;
    let cancelled = crate::staff::console_action(
        &clerk,
        cancelling.id,
        &format!("/staff/events/{}/cancel", cancelling.id),
        &[("confirm", "yes")],
    )
    .await;
    assert_eq!(cancelled.status(), reqwest::StatusCode::SEE_OTHER);
    let hits = receiver.wait_for(3).await;
    let closed = verify(&secret, &hits[1]);
    assert_eq!(closed["type"], "event.sales_closed");
    assert_eq!(closed["data"]["event_id"], closing.id);
    assert_eq!(closed["data"]["holds_released"], 1);
    let cancelled = verify(&secret, &hits[2]);
    assert_eq!(cancelled["type"], "event.cancelled");
    assert_eq!(cancelled["data"]["event_id"], cancelling.id);
    assert_eq!(cancelled["data"]["orders_flagged_for_refund"], 1);
}

/// Two senders (two instances, say) over forty deliveries: each delivered
/// exactly once, on its one attempt.
#[tokio::test]
async fn two_senders_never_deliver_one_delivery_twice() {
    const DELIVERIES: i64 = 40;
    let receiver = Receiver::start(Behaviour::Accept).await;
    // The app's own sender idles: only the two below send.
    let app = spawn_app_with(|config| {
        allow_loopback(config);
        config.webhooks.poll_every = Duration::from_secs(600);
    })
    .await;
    endpoint(&app, &receiver.url, &["order.created"]).await;
    let event = app.create_event(1, 2).await;
    buy(&app, event.id, &event.seat_ids[..1], None).await;
    // Forty deliveries of the one sale (copies with their own ids).
    app.sql()
        .await
        .execute(
            "INSERT INTO outbox (message_id, kind, endpoint_id, event_type, payload)
             SELECT gen_random_uuid()::text, kind, endpoint_id, event_type, payload
               FROM outbox CROSS JOIN generate_series(2, $1::bigint) WHERE kind = 'webhook'",
            &[&DELIVERIES],
        )
        .await
        .unwrap();
    let settings = seatmap::config::WebhookSettings {
        poll_every: Duration::from_millis(10),
        ..app.config.webhooks.clone()
    };
    let senders: Vec<_> = (0..2)
        .map(|_| {
            let pool = seatmap::db::build_pool(app.db.pg_config(), &app.config.db).unwrap();
            tokio::spawn(seatmap::webhooks::Sender::new(pool, &settings).run())
        })
        .collect();
    let hits = receiver.wait_for(DELIVERIES as usize).await;
    // Every row is marked delivered: a second copy of any would have been
    // sent before its row was, by the sender holding its lease.
    let deadline = Instant::now() + Duration::from_secs(20);
    while app
        .count("SELECT count(*) FROM outbox WHERE kind = 'webhook' AND sent_at IS NOT NULL")
        .await
        < DELIVERIES
    {
        assert!(Instant::now() < deadline, "every delivery recorded");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for sender in senders {
        sender.abort();
    }
    let hits = {
        let all = receiver.hits.lock().await.clone();
        assert!(all.len() >= hits.len());
        all
    };
    let ids: HashSet<String> = hits
        .iter()
        .map(|hit| {
            hit.headers["seatmap-delivery"]
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(hits.len(), DELIVERIES as usize, "none twice");
    assert_eq!(ids.len(), DELIVERIES as usize);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'webhook' AND attempts = 1")
            .await,
        DELIVERIES
    );
}

/// The webhooks page and its actions are staff's only, and bad input gets
/// a 4xx (an unknown endpoint or delivery is a 404), never a 5xx.
#[tokio::test]
async fn the_webhooks_page_is_staff_only_and_refuses_bad_input() {
    let app = spawn_app_with(allow_loopback).await;
    let event = app.create_event(1, 2).await;
    let endpoint_id: i64 = {
        endpoint(&app, "http://127.0.0.1:9/hook", &["order.created"]).await;
        app.sql()
            .await
            .query_one("SELECT id FROM webhook_endpoints", &[])
            .await
            .unwrap()
            .get(0)
    };
    let buyer = app.buyer();
    let page = buyer
        .http
        .get(format!("{}/staff/webhooks", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        page.status(),
        reqwest::StatusCode::SEE_OTHER,
        "sent to sign in"
    );
    let buyer_csrf = crate::pages::csrf_from(&buyer, &format!("/events/{}", event.id)).await;
    for path in [
        "/staff/webhooks".to_string(),
        format!("/staff/webhooks/{endpoint_id}/disable"),
        format!("/staff/webhooks/{endpoint_id}/secret"),
        format!("/staff/webhooks/{endpoint_id}/rotate"),
        format!("/staff/webhooks/deliveries/{}/retry", uuid::Uuid::new_v4()),
    ] {
        let response = buyer
            .http
            .post(format!("{}{path}", app.base))
            .form(&[
                ("csrf", buyer_csrf.as_str()),
                ("url", "https://93.184.216.34/x"),
                ("event", "order.created"),
            ])
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert!(
            status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::SEE_OTHER,
            "{path}: {status}"
        );
        if status == reqwest::StatusCode::SEE_OTHER {
            let to = response.headers()["location"].to_str().unwrap();
            assert!(to.starts_with("/staff/login"), "{path}: sent to {to}");
        }
    }
    assert_eq!(app.count("SELECT count(*) FROM webhook_endpoints").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM webhook_endpoints WHERE disabled_at IS NOT NULL")
            .await,
        0,
        "a buyer disabled nothing"
    );

    let clerk = crate::staff::staff(&app, "clerk").await;
    let csrf = crate::pages::csrf_from(&clerk, "/staff/webhooks").await;
    for path in [
        "/staff/webhooks/999999/disable".to_string(),
        "/staff/webhooks/999999/secret".to_string(),
        "/staff/webhooks/999999/rotate".to_string(),
        "/staff/webhooks/not-a-number/secret".to_string(),
        format!("/staff/webhooks/deliveries/{}/retry", uuid::Uuid::new_v4()),
        "/staff/webhooks/deliveries/not-a-uuid/retry".to_string(),
    ] {
        let response = clerk
            .http
            .post(format!("{}{path}", app.base))
            .form(&[("csrf", csrf.as_str())])
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert!(
            status == reqwest::StatusCode::NOT_FOUND
                || (status == reqwest::StatusCode::SEE_OTHER
                    && clerk
                        .get_text("/staff/webhooks")
                        .await
                        .contains("notice--error")),
            "{path}: {status}"
        );
    }
    // The form without a token is refused.
    let response = clerk
        .http
        .post(format!("{}/staff/webhooks", app.base))
        .form(&[
            ("url", "https://93.184.216.34/x"),
            ("event", "order.created"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::FORBIDDEN);
    assert_eq!(app.count("SELECT count(*) FROM webhook_endpoints").await, 1);
}
