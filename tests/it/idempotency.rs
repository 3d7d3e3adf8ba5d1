//! `Idempotency-Key` (issue 53): the same request sent again with its key
//! gets the first answer and runs nothing; another request with the key
//! is refused; concurrent copies buy once.

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, TestApp, id_segment, spawn_app};

async fn keyed(buyer: &Api, path: &str, key: &str, body: &Value) -> (StatusCode, Value, bool) {
    let answer = buyer.post_keyed(path, key, body).await;
    (answer.status, answer.body, answer.replayed)
}

/// A buyer with a session (a hold on an event of its own), as a browser
/// has one from its first claim: a key belongs to its caller's session.
async fn buyer_with_session(app: &TestApp) -> Api {
    let buyer = app.buyer();
    let elsewhere = app.create_event(1, 1).await;
    assert_eq!(
        buyer.hold(elsewhere.id, &elsewhere.seat_ids).await.0,
        StatusCode::CREATED
    );
    buyer
}

#[tokio::test]
async fn a_hold_sent_again_with_its_key_gets_the_first_answer_and_holds_nothing_more() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let buyer = buyer_with_session(&app).await;
    let path = format!("/api/events/{}/holds", event.id);
    let body = json!({"seat_ids": [event.seat_ids[0]]});
    let (status, first, replayed) = keyed(&buyer, &path, "hold-1", &body).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert!(!replayed);
    let (status, again, replayed) = keyed(&buyer, &path, "hold-1", &body).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert!(replayed, "the second answer is the kept one");
    assert_eq!(first, again);
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM holds WHERE event_id = {}",
            event.id
        ))
        .await,
        1
    );
    // The same key with another body: refused, and nothing held.
    let other = json!({"seat_ids": [event.seat_ids[1]]});
    let (status, refused, _) = keyed(&buyer, &path, "hold-1", &other).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["error"], "idempotency_key_reused");
    // …or another path.
    let (status, refused, _) = keyed(
        &buyer,
        &format!("/api/holds/{}/purchase", id_segment(&first["hold_id"])),
        "hold-1",
        &body,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'HELD'",
            event.id
        ))
        .await,
        1
    );
    // A key belongs to its caller: another buyer's same key runs anew.
    let stranger = app.buyer();
    let body = json!({"seat_ids": [event.seat_ids[2]]});
    let (status, theirs, replayed) = keyed(&stranger, &path, "hold-1", &body).await;
    assert_eq!(status, StatusCode::CREATED, "{theirs}");
    assert!(!replayed);
    assert_ne!(theirs["hold_id"], first["hold_id"]);
}

#[tokio::test]
async fn twenty_purchases_at_once_with_one_key_buy_once() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &event.seat_ids[..2]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let path = format!("/api/holds/{}/purchase", id_segment(&hold["hold_id"]));
    let body = json!({"name": "Ada Lovelace", "email": "ada@example.com"});
    let answers: Vec<(StatusCode, Value, bool)> = futures::stream::iter(0..20)
        .map(|_| keyed(&buyer, &path, "buy-once", &body))
        .buffer_unordered(20)
        .collect()
        .await;
    let bought: Vec<&Value> = answers
        .iter()
        .filter(|(status, _, _)| *status == StatusCode::CREATED)
        .map(|(_, body, _)| body)
        .collect();
    assert!(!bought.is_empty(), "{answers:?}");
    // Every 201 is the one purchase; the rest were told to come back.
    assert!(
        bought
            .iter()
            .all(|b| b["order_id"] == bought[0]["order_id"])
    );
    for (status, body, _) in &answers {
        assert!(
            *status == StatusCode::CREATED
                || (*status == StatusCode::CONFLICT && body["error"] == "idempotency_key_in_use"),
            "{status}: {body}"
        );
    }
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM orders WHERE event_id = {}",
            event.id
        ))
        .await,
        1
    );
    // Later, the same request is answered with the order, not a 409
    // "already purchased".
    let (status, again, replayed) = keyed(&buyer, &path, "buy-once", &body).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(replayed);
    assert_eq!(again["order_id"], bought[0]["order_id"]);
    // Without the key, buying again is the usual conflict.
    let (status, plain) = buyer.post(&path, body).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(plain["error"], "already_purchased");
}

#[tokio::test]
async fn a_key_must_be_plain_text_of_a_sensible_length() {
    let app = spawn_app().await;
    let event = app.create_event(1, 3).await;
    let buyer = buyer_with_session(&app).await;
    let path = format!("/api/events/{}/holds", event.id);
    let body = json!({"seat_ids": [event.seat_ids[0]]});
    let (status, refused, _) = keyed(&buyer, &path, &"k".repeat(256), &body).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["error"], "invalid_idempotency_key");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM holds WHERE event_id = {}",
            event.id
        ))
        .await,
        0
    );
    // A failure on our side is not kept: the retry runs. (A 4xx is kept.)
    let (status, _, _) = keyed(&buyer, &path, "k", &json!({"seat_ids": [999_999_999]})).await;
    assert!(status.is_client_error());
    let (_, _, replayed) = keyed(&buyer, &path, "k", &json!({"seat_ids": [999_999_999]})).await;
    assert!(replayed, "a refusal is an answer too");
}

#[tokio::test]
async fn made_up_sessions_keep_no_keys_and_a_real_one_keeps_only_its_newest() {
    let app = spawn_app().await;
    let keys = || async { app.count("SELECT count(*) FROM idempotency_keys").await };
    let missing = format!("/api/holds/{}/purchase", uuid::Uuid::new_v4());
    let body = json!({"name": "Ada", "email": "ada@example.com"});
    // A made-up session cookie is no caller, well formed (a session id
    // the store never made) or not: its keyed 404s keep nothing (they
    // were 200 rows, and a warning each, for 200 requests).
    let made_up: Vec<StatusCode> = futures::stream::iter(0..200)
        .map(|i| {
            let (base, path, body) = (app.base.clone(), missing.clone(), body.clone());
            let cookie = if i % 2 == 0 {
                tower_sessions::session::Id(rand::random::<i128>()).to_string()
            } else {
                format!("made-up-{i}")
            };
            async move {
                crate::support::http_client()
                    .post(format!("{base}{path}"))
                    .header("cookie", format!("seatmap_session={cookie}"))
                    .header("idempotency-key", format!("k{i}"))
                    .json(&body)
                    .send()
                    .await
                    .unwrap()
                    .status()
            }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    assert!(
        made_up.iter().all(|s| *s == StatusCode::NOT_FOUND),
        "{made_up:?}"
    );
    assert_eq!(keys().await, 0, "no made-up caller's key was kept");

    // A real session keeps its newest keys, as many as its allowance.
    let buyer = buyer_with_session(&app).await;
    let allowance = seatmap::web::idempotency::KEYS_PER_SESSION;
    let sent = allowance + 20;
    futures::stream::iter(0..sent)
        .map(|i| {
            let (buyer, path, body) = (&buyer, missing.clone(), body.clone());
            async move {
                let answer = buyer.post_keyed(&path, &format!("key-{i}"), &body).await;
                assert_eq!(answer.status, StatusCode::NOT_FOUND);
            }
        })
        .buffered(8)
        .collect::<Vec<_>>()
        .await;
    let kept = keys().await;
    assert!(
        (allowance..=allowance + 8).contains(&kept),
        "{kept} kept of {sent} keys: the session's allowance is {allowance}"
    );
    // The newest is still answered from what was kept.
    let newest = buyer
        .post_keyed(&missing, &format!("key-{}", sent - 1), &body)
        .await;
    assert!(newest.replayed, "the newest key is kept");
}
