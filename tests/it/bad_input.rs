//! Bad input gets the documented 4xx, never a 500, and disturbs nobody.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestApp, ids, spawn_app_with};

/// A bystander's hold that every bad request must leave exactly as it was.
async fn bystander_hold(
    app: &TestApp,
    event_id: i64,
    seats: &[i64],
) -> (crate::support::Api, Value) {
    let bystander = app.buyer();
    let (status, hold) = bystander.hold(event_id, seats).await;
    assert_eq!(status, StatusCode::CREATED);
    (bystander, hold)
}

#[tokio::test]
async fn bad_hold_requests_get_documented_errors_and_leave_other_holds_intact() {
    let app = spawn_app_with(|c| c.max_seats_per_hold = 4).await;
    let event = app.create_event(1, 8).await;
    let other_event = app.create_event(1, 3).await;
    let s = &event.seat_ids;
    let (bystander, before) = bystander_hold(&app, event.id, &[s[0], s[1]]).await;
    let caller = app.buyer();
    let path = format!("/api/events/{}/holds", event.id);

    let cases: Vec<(&str, String, StatusCode, &str)> = vec![
        (
            "malformed JSON",
            "{\"seat_ids\": [1,".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "not JSON at all",
            "seat_ids=1".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "ids as strings",
            json!({"seat_ids": ["a"]}).to_string(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "ids not a list",
            json!({"seat_ids": 5}).to_string(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "fractional id",
            json!({"seat_ids": [1.5]}).to_string(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "missing field",
            json!({}).to_string(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "null body",
            "null".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "huge id",
            "{\"seat_ids\": [99999999999999999999999]}".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "negative id",
            json!({"seat_ids": [-7]}).to_string(),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            "largest i64",
            json!({"seat_ids": [i64::MAX]}).to_string(),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            "empty list",
            json!({"seat_ids": []}).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "no_seats",
        ),
        (
            "duplicates",
            json!({"seat_ids": [s[3], s[3]]}).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "duplicate_seats",
        ),
        (
            "over the limit",
            json!({"seat_ids": [s[2], s[3], s[4], s[5], s[6]]}).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "hold_limit",
        ),
        (
            "seat of another event",
            json!({"seat_ids": [s[3], other_event.seat_ids[0]]}).to_string(),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            "seat held by another",
            json!({"seat_ids": [s[0]]}).to_string(),
            StatusCode::CONFLICT,
            "seats_unavailable",
        ),
    ];
    for (what, body, expected, code) in &cases {
        let (status, answer) = caller.post_raw(&path, body).await;
        assert_eq!(status, *expected, "{what}: {answer}");
        assert_eq!(answer["error"], *code, "{what}: {answer}");
        assert!(
            answer["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{what}"
        );
    }

    for (what, event_path) in [
        ("unknown event", "/api/events/999999/holds"),
        ("negative event id", "/api/events/-1/holds"),
        ("huge event id", "/api/events/99999999999999999999999/holds"),
        ("non-numeric event id", "/api/events/abc/holds"),
    ] {
        let (status, answer) = caller.post(event_path, json!({"seat_ids": [s[3]]})).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{what}: {answer}");
        assert_eq!(answer["error"], "not_found");
    }

    // Nothing above took a seat or disturbed the bystander.
    let seats = bystander.seats(event.id).await;
    assert_eq!(seats["hold"]["hold_id"], before["hold_id"]);
    assert_eq!(seats["hold"]["expires_at"], before["expires_at"]);
    assert_eq!(ids(&seats["hold"]["seat_ids"]), vec![s[0], s[1]]);
    let held: i64 = app
        .count("SELECT count(*) FROM seats WHERE status <> 'AVAILABLE'")
        .await;
    assert_eq!(held, 2);
}

#[tokio::test]
async fn bad_purchase_and_release_requests_get_documented_errors() {
    let app = spawn_app_with(|_| {}).await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0]]).await;
    let hold_id = hold["hold_id"].as_str().unwrap().to_string();
    let purchase = format!("/api/holds/{hold_id}/purchase");

    for (what, body, expected, code) in [
        (
            "invalid email",
            json!({"name": "Ada", "email": "not-an-email"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_email",
        ),
        (
            "email without domain dot",
            json!({"name": "Ada", "email": "ada@localhost"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_email",
        ),
        (
            "blank name",
            json!({"name": "   ", "email": "ada@example.com"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_name",
        ),
        (
            "missing fields",
            json!({}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_name",
        ),
        (
            "wrong types",
            json!({"name": 5, "email": ["x"]}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
    ] {
        let (status, answer) = buyer.post(&purchase, body).await;
        assert_eq!(status, expected, "{what}: {answer}");
        assert_eq!(answer["error"], code, "{what}");
    }
    let (status, _) = buyer.post_raw(&purchase, "{oops").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    for path in [
        "/api/holds/not-a-uuid/purchase".to_string(),
        format!("/api/holds/{}/purchase", uuid::Uuid::new_v4()),
    ] {
        let (status, answer) = buyer
            .post(&path, json!({"name": "Ada", "email": "ada@example.com"}))
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {answer}");
    }
    for path in [
        format!("/api/holds/{hold_id}/seats/-1"),
        format!("/api/holds/{hold_id}/seats/99999999999999999999999"),
        format!("/api/holds/{hold_id}/seats/abc"),
        "/api/holds/nope".to_string(),
        "/api/holds/nope/seats/1".to_string(),
    ] {
        let (status, answer) = buyer.delete(&path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {answer}");
    }

    // The hold is untouched and still buys.
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
}

/// Found by Schemathesis: a hold request for an event that doesn't exist
/// was a 404 on a fresh connection and a 500 on the next request to reuse
/// it. The new hold's insert failed on its foreign key and aborted the
/// transaction, and the statement sent beside it, asking why the event
/// wasn't found, failed with "current transaction is aborted". One
/// connection, so every request after the first reuses it.
#[tokio::test]
async fn a_hold_for_an_event_that_does_not_exist_is_a_404_every_time() {
    let app = crate::support::spawn_app_with(|config| config.db.pool_size = 1).await;
    let event = app.create_event(1, 2).await;
    let missing = event.id + 1000;
    for body in [
        json!({ "best_available": { "count": 1 } }),
        json!({ "seat_ids": [event.seat_ids[0]] }),
        json!({ "best_available": { "count": 1 } }),
        json!({ "ga": { "area": 1, "count": 1 } }),
    ] {
        for _ in 0..2 {
            let (status, answer) = app
                .buyer()
                .post(&format!("/api/events/{missing}/holds"), body.clone())
                .await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{body}: {answer}");
        }
    }
    // The connection is clean afterwards: a real hold works.
    let (status, _) = app.buyer().hold(event.id, &[event.seat_ids[1]]).await;
    assert_eq!(status, StatusCode::CREATED);
}
