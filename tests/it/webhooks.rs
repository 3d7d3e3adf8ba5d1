//! Webhooks against a real HTTP receiver on loopback: signed deliveries of
//! the events each endpoint asked for, retries after a 500, and nothing
//! lost when the app is killed mid-delivery.

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
fn verify(secret: &str, hit: &Hit) -> Value {
    let header = hit.headers["seatmap-signature"].to_str().unwrap();
    let (t, v1) = header
        .strip_prefix("t=")
        .and_then(|rest| rest.split_once(",v1="))
        .unwrap_or_else(|| panic!("signature header {header:?}"));
    let age = time::OffsetDateTime::now_utc().unix_timestamp() - t.parse::<i64>().unwrap();
    assert!((0..300).contains(&age), "signed {age} s ago");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{}", hit.body).as_bytes());
    let expected = data_encoding::HEXLOWER.encode(&mac.finalize().into_bytes());
    assert_eq!(
        v1, expected,
        "the signature verifies with the endpoint's secret"
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
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.hits.lock().await.len(), 3, "nothing twice");
    assert!(
        other.hits.lock().await.is_empty(),
        "an endpoint gets only what it asked for"
    );
    let delivered = app
        .count("SELECT count(*) FROM outbox WHERE kind = 'webhook' AND sent_at IS NOT NULL AND last_status = 200")
        .await;
    assert_eq!(delivered, 3);
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
        .env("SEATMAP_WEBHOOK_LEASE_SECS", "3")
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

    // Another sender takes it once the dead one's lease runs out.
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
