//! Turning a hold into an order.

use reqwest::StatusCode;

use crate::support::{ids, spawn_app, statuses};

#[tokio::test]
async fn buying_a_live_hold_sells_exactly_its_seats() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[2], s[3]]).await;

    let (status, order) = buyer
        .purchase(&hold["hold_id"], " Ada Lovelace ", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(ids(&order["seat_ids"]), vec![s[2], s[3]]);
    assert!(order["order_id"].is_string());

    let seats = app.buyer().seats(event.id).await;
    let status_of = statuses(&seats);
    assert_eq!(status_of[&s[2]], "sold");
    assert_eq!(status_of[&s[3]], "sold");
    assert_eq!(status_of[&s[0]], "available");
    assert!(
        buyer.seats(event.id).await["hold"].is_null(),
        "a bought hold is no longer live"
    );

    let client = app.sql().await;
    let row = client
        .query_one(
            "SELECT o.buyer_name, o.buyer_email, count(l.*), sum(l.price_cents)
               FROM orders o JOIN order_lines l ON l.order_id = o.id
              WHERE o.id::text = $1 GROUP BY o.id",
            &[&order["order_id"].as_str().unwrap()],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "Ada Lovelace");
    assert_eq!(row.get::<_, String>(1), "ada@example.com");
    assert_eq!(row.get::<_, i64>(2), 2);
    assert_eq!(row.get::<_, i64>(3), 9000);

    // Buying twice is refused and writes nothing more.
    let (status, body) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let orders: i64 = app.count("SELECT count(*) FROM orders").await;
    assert_eq!(orders, 1);
    // And sold seats can't be held again.
    assert_eq!(
        app.buyer().hold(event.id, &[s[2]]).await.0,
        StatusCode::CONFLICT
    );
}

#[tokio::test]
async fn an_expired_hold_gets_410_and_writes_no_order_even_after_another_buyer_took_it() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let late = app.buyer();
    let next = app.buyer();
    let (_, hold) = late.hold(event.id, &[s[0], s[1]]).await;
    app.lapse_hold(&hold["hold_id"]).await;

    // Nobody has touched the seats yet: still too late.
    let (status, body) = late
        .purchase(&hold["hold_id"], "Late", "late@example.com")
        .await;
    assert_eq!(status, StatusCode::GONE, "{body}");
    assert_eq!(body["error"], "hold_expired");

    // Another buyer claims one of them; the late purchase still fails.
    assert_eq!(next.hold(event.id, &[s[1]]).await.0, StatusCode::CREATED);
    let (status, _) = late
        .purchase(&hold["hold_id"], "Late", "late@example.com")
        .await;
    assert_eq!(status, StatusCode::GONE);

    let orders: i64 = app.count("SELECT count(*) FROM orders").await;
    let lines: i64 = app.count("SELECT count(*) FROM order_lines").await;
    let sold: i64 = app
        .count("SELECT count(*) FROM seats WHERE status = 'SOLD'")
        .await;
    assert_eq!((orders, lines, sold), (0, 0, 0));
    assert_eq!(statuses(&next.seats(event.id).await)[&s[1]], "mine");
}

#[tokio::test]
async fn a_released_hold_cannot_be_bought() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    let hold_id = hold["hold_id"].as_str().unwrap();
    assert_eq!(
        buyer.delete(&format!("/api/holds/{hold_id}")).await.0,
        StatusCode::NO_CONTENT
    );
    let (status, body) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "hold_released");
}
