//! The database itself refuses states the code must never produce.

use tokio_postgres::error::SqlState;

use crate::support::spawn_app;

#[tokio::test]
async fn constraints_refuse_impossible_seat_states_and_double_sales() {
    let app = spawn_app().await;
    let event = app.create_event(1, 3).await;
    let seat = event.seat_ids[0];
    let client = app.sql().await;

    let refused = |sql: &'static str| {
        let client = &client;
        async move {
            let err = client.execute(sql, &[&seat]).await.expect_err(sql);
            err.code().cloned()
        }
    };
    assert_eq!(
        refused("UPDATE seats SET status = 'HELD' WHERE id = $1").await,
        Some(SqlState::CHECK_VIOLATION),
        "HELD needs a hold and an expiry"
    );
    assert_eq!(
        refused("UPDATE seats SET status = 'SOLD' WHERE id = $1").await,
        Some(SqlState::CHECK_VIOLATION),
        "SOLD needs an order"
    );
    assert_eq!(
        refused("UPDATE seats SET status = 'GONE' WHERE id = $1").await,
        Some(SqlState::CHECK_VIOLATION)
    );
    assert_eq!(
        refused("UPDATE seats SET hold_id = gen_random_uuid(), held_until = now() WHERE id = $1")
            .await,
        Some(SqlState::CHECK_VIOLATION),
        "an AVAILABLE seat carries no hold"
    );

    // A seat can be on only one order line, ever.
    client
        .batch_execute(&format!(
            "INSERT INTO orders (id, event_id, buyer_id, buyer_name, buyer_email)
             VALUES ('00000000-0000-0000-0000-000000000001', {e}, gen_random_uuid(), 'A', 'a@example.com'),
                    ('00000000-0000-0000-0000-000000000002', {e}, gen_random_uuid(), 'B', 'b@example.com');
             INSERT INTO order_lines (order_id, seat_id, price_cents)
             VALUES ('00000000-0000-0000-0000-000000000001', {seat}, 100);",
            e = event.id
        ))
        .await
        .unwrap();
    let err = client
        .execute(
            "INSERT INTO order_lines (order_id, seat_id, price_cents)
             VALUES ('00000000-0000-0000-0000-000000000002', $1, 100)",
            &[&seat],
        )
        .await
        .expect_err("second sale of one seat");
    assert_eq!(err.code(), Some(&SqlState::UNIQUE_VIOLATION));

    // One open hold per buyer per event.
    let err = client
        .batch_execute(&format!(
            "INSERT INTO holds (id, event_id, buyer_id, expires_at) VALUES
               (gen_random_uuid(), {e}, '00000000-0000-0000-0000-0000000000aa', now() + interval '1 minute'),
               (gen_random_uuid(), {e}, '00000000-0000-0000-0000-0000000000aa', now() + interval '1 minute')",
            e = event.id
        ))
        .await
        .expect_err("two open holds");
    assert_eq!(err.code(), Some(&SqlState::UNIQUE_VIOLATION));
}

#[tokio::test]
async fn the_demo_seeds_once_with_enough_seats_sections_and_tiers() {
    let app = spawn_app().await;
    let first = seatmap::db::demo::seed_demo(&app.pool).await.unwrap();
    let second = seatmap::db::demo::seed_demo(&app.pool).await.unwrap();
    assert_eq!(first, second, "seeding is idempotent");
    let client = app.sql().await;
    let row = client
        .query_one(
            "SELECT count(*), count(DISTINCT section_id), count(DISTINCT tier_id)
               FROM seats WHERE event_id = $1",
            &[&first],
        )
        .await
        .unwrap();
    assert!(row.get::<_, i64>(0) >= 1000);
    assert!(row.get::<_, i64>(1) >= 3);
    assert!(row.get::<_, i64>(2) >= 2);
    let events: i64 = app.count("SELECT count(*) FROM events").await;
    assert_eq!(events, 1);
}
