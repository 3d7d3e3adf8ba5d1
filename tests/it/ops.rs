//! Health, readiness, metrics, request ids, and answering (not hanging)
//! while the database is down.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use seatmap::app::{AppState, build_router};
use seatmap::config::{Config, DatabaseSource, Secret};
use seatmap::db::{self, live::LiveFeed};

use crate::support::{Api, spawn_app};

#[tokio::test]
async fn health_readiness_and_metrics_report_what_happened() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let client = app.buyer();
    let health = client
        .http
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let (status, body) = client.get("/readyz").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["migrations"], "current");

    assert_eq!(
        client.hold(event.id, &[event.seat_ids[0]]).await.0,
        StatusCode::CREATED
    );
    assert_eq!(
        app.buyer().hold(event.id, &[event.seat_ids[0]]).await.0,
        StatusCode::CONFLICT
    );
    let metrics = client
        .http
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for name in [
        "seatmap_seats_claimed_total",
        "seatmap_claims_conflicted_total",
        "seatmap_db_pool_size",
        "seatmap_db_pool_waiting",
        "seatmap_live_poll_duration_seconds_bucket",
    ] {
        assert!(metrics.contains(name), "{name} missing from /metrics");
    }
    // Latency is labelled by route template, never by raw path.
    assert!(metrics.contains(
        "seatmap_http_request_duration_seconds_bucket{route=\"/api/events/{event_id}/holds\",method=\"POST\",status=\"201\""
    ));
    assert!(!metrics.contains(&format!("route=\"/api/events/{}/holds\"", event.id)));
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_keeps_the_callers() {
    let app = spawn_app().await;
    let client = app.buyer();
    let response = client
        .http
        .get(format!("{}/api/events", app.base))
        .send()
        .await
        .unwrap();
    let id = response.headers()["x-request-id"].to_str().unwrap();
    assert_eq!(id.len(), 36, "a fresh uuid: {id}");
    let response = client
        .http
        .get(format!("{}/api/events", app.base))
        .header("x-request-id", "trace-me-123")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "trace-me-123");
}

#[tokio::test]
async fn with_the_database_down_requests_get_a_quick_503_and_health_still_answers() {
    // Nothing listens on port 1: the database is "down".
    let url = "host=127.0.0.1 port=1 user=seatmap dbname=seatmap connect_timeout=2";
    let config = Config::for_tests(DatabaseSource::Url(Secret::new(url)));
    let pg_config: tokio_postgres::Config = url.parse().unwrap();
    let pool = db::build_pool(pg_config.clone(), &config.db).unwrap();
    let live = LiveFeed::start(pg_config, &config.db, config.live.poll_every).unwrap();
    let links = seatmap::domain::signed_link::OrderLinks {
        key: seatmap::domain::signed_link::LinkKey::new(vec![7; 32]),
        public_url: "http://127.0.0.1".into(),
    };
    let app = build_router(AppState::new(pool, config, live, links));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let limits = seatmap::config::ServerLimits::default();
    tokio::spawn(seatmap::server::serve(
        listener,
        app,
        limits,
        std::future::pending(),
    ));

    let client = Api::new(&base);
    for path in ["/api/events", "/api/events/1/seats", "/readyz"] {
        let started = Instant::now();
        let response = client
            .http
            .get(format!("{base}{path}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        // A bound on hanging, not a speed claim: the pool's wait is 2 s.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{path} took {:?}",
            started.elapsed()
        );
        if path != "/readyz" {
            assert_eq!(response.headers()["retry-after"], "1");
            let body: serde_json::Value = response.json().await.unwrap();
            assert_eq!(body["error"], "unavailable");
        }
    }
    let page = client.http.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        page.text().await.unwrap().contains("reach its database"),
        "a page, not a JSON error, saying what is wrong"
    );
    let health = client
        .http
        .get(format!("{base}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
}

/// A panic in a handler is a 500 with the generic message and the
/// request's id, never a dropped connection, and the server goes on.
/// (The panic is made by breaking what a row mapping relies on: a column
/// the schema says is NOT NULL, made NULL.)
#[tokio::test]
async fn a_panic_is_answered_500_with_its_request_id_and_the_server_goes_on() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    app.sql()
        .await
        .batch_execute(&format!(
            "ALTER TABLE events ALTER COLUMN name DROP NOT NULL;
             UPDATE events SET name = NULL WHERE id = {}",
            event.id
        ))
        .await
        .unwrap();
    let client = app.buyer();
    for path in ["/api/events".to_string(), format!("/events/{}", event.id)] {
        let response = client
            .http
            .get(format!("{}{path}", app.base))
            .header("x-request-id", "panic-trace-1")
            .send()
            .await
            .unwrap_or_else(|err| panic!("{path}: the connection was dropped: {err}"));
        assert_eq!(
            response.status(),
            StatusCode::INTERNAL_SERVER_ERROR,
            "{path}"
        );
        assert_eq!(
            response.headers()["x-request-id"],
            "panic-trace-1",
            "{path}"
        );
        let body = response.text().await.unwrap();
        assert!(
            body.contains("Something went wrong on our side"),
            "{path}: {body}"
        );
        assert!(!body.contains("panicked"), "{path}: no detail shown");
    }
    let health = client
        .http
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK, "the server goes on");
}

/// A database error as logs write it (`for_log`, which every log line of
/// a failed request, worker and live stream uses) leaves out the row it
/// quotes: PostgreSQL's DETAIL for a CHECK violation holds the whole
/// failing row (here a webhook secret).
#[tokio::test]
async fn database_errors_are_logged_without_the_rows_they_quote() {
    let app = spawn_app().await;
    let secret = "whsec_0123456789abcdef0123456789abcdef";
    let err = app
        .sql()
        .await
        .execute(
            "INSERT INTO webhook_endpoints (url, secret, event_types) VALUES ('http://', $1, '{order.created}')",
            &[&secret],
        )
        .await
        .expect_err("the URL CHECK refuses it");
    assert!(
        format!("{err:?}").contains(secret),
        "the DETAIL quotes the row"
    );
    let error = seatmap::error::AppError::Database(err);
    let logged = error.for_log();
    assert!(!logged.contains(secret), "{logged}");
    assert!(
        logged.contains("23514") && logged.contains("webhook_endpoints_url_check"),
        "{logged}"
    );
}

/// The API document and the routes come from one list: every documented
/// operation answers at its path and method (with ids that parse, what it
/// says is about the thing named, never "no such page" nor 405).
#[tokio::test]
async fn every_documented_operation_is_routed() {
    let app = crate::support::spawn_app().await;
    let client = crate::support::http_client();
    let document: serde_json::Value = client
        .get(format!("{}/api/openapi.json", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let paths = document["paths"].as_object().unwrap();
    assert!(!paths.is_empty());
    for (path, item) in paths {
        let concrete = path
            .split('/')
            .map(|part| match part {
                "{hold_id}" | "{order_id}" | "{entry_id}" => "7b0f4c1e-4a8e-4f5e-9f0e-2d6f1c0a9b3d",
                part if part.starts_with('{') => "1",
                part => part,
            })
            .collect::<Vec<_>>()
            .join("/");
        for method in item.as_object().unwrap().keys() {
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let response = client
                .request(method.clone(), format!("{}{concrete}", app.base))
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .await
                .unwrap();
            let status = response.status();
            let body = response.text().await.unwrap();
            assert_ne!(
                status,
                reqwest::StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}"
            );
            assert!(
                !body.contains("Page not found."),
                "{method} {path} is documented but not routed: {status} {body}"
            );
        }
    }
}
