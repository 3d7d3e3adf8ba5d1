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
async fn composite_keys_and_ga_checks_refuse_cross_event_links_and_overselling() {
    let app = spawn_app().await;
    let (a, a_areas) = app.create_ga_event(2, &[("Floor", 5)]).await;
    let (b, b_areas) = app.create_ga_event(2, &[("Floor", 5)]).await;
    let client = app.sql().await;
    // A hold and an order in each event, to point at.
    client
        .batch_execute(&format!(
            "INSERT INTO holds (id, event_id, buyer_id, expires_at) VALUES
               ('00000000-0000-0000-0000-00000000000a', {a}, gen_random_uuid(), now() + interval '5 minutes'),
               ('00000000-0000-0000-0000-00000000000b', {b}, gen_random_uuid(), now() + interval '5 minutes');
             INSERT INTO orders (id, event_id, buyer_id, buyer_name, buyer_email) VALUES
               ('00000000-0000-0000-0000-0000000000a1', {a}, gen_random_uuid(), 'A', 'a@example.com'),
               ('00000000-0000-0000-0000-0000000000b1', {b}, gen_random_uuid(), 'B', 'b@example.com');",
            a = a.id,
            b = b.id
        ))
        .await
        .unwrap();
    let (seat_a, area_a, area_b) = (a.seat_ids[0], a_areas[0], b_areas[0]);
    let of_b = |table: &str| format!("(SELECT id FROM {table} WHERE event_id = {} LIMIT 1)", b.id);
    let hold_a = "'00000000-0000-0000-0000-00000000000a'";
    let hold_b = "'00000000-0000-0000-0000-00000000000b'";
    let order_a = "'00000000-0000-0000-0000-0000000000a1'";
    let order_b = "'00000000-0000-0000-0000-0000000000b1'";
    let ticket = |area: i64, hold: &str, rest: &str| {
        format!(
            "INSERT INTO ga_tickets (event_id, area_id, hold_id, quantity, held_until, order_id, price_cents)
             VALUES ({}, {area}, {hold}, 1, {rest})",
            a.id
        )
    };
    let cases: Vec<(String, SqlState, &str)> = vec![
        (
            format!(
                "UPDATE seats SET section_id = {}, row_label = 'Z', row_index = 999 WHERE id = {seat_a}",
                of_b("sections")
            ),
            SqlState::FOREIGN_KEY_VIOLATION,
            "a seat's section is of its own event",
        ),
        (
            format!("UPDATE seats SET tier_id = {} WHERE id = {seat_a}", of_b("price_tiers")),
            SqlState::FOREIGN_KEY_VIOLATION,
            "a seat's tier is of its own event",
        ),
        (
            format!(
                "UPDATE seats SET status = 'HELD', hold_id = {hold_b}, held_until = now() + interval '1 minute'
                  WHERE id = {seat_a}"
            ),
            SqlState::FOREIGN_KEY_VIOLATION,
            "a seat's hold is of its own event",
        ),
        (
            format!("UPDATE seats SET status = 'SOLD', order_id = {order_b} WHERE id = {seat_a}"),
            SqlState::FOREIGN_KEY_VIOLATION,
            "a seat's order is of its own event",
        ),
        (
            format!("UPDATE ga_areas SET tier_id = {} WHERE id = {area_a}", of_b("price_tiers")),
            SqlState::FOREIGN_KEY_VIOLATION,
            "an area's tier is of its own event",
        ),
        (
            ticket(area_b, hold_a, "now() + interval '1 minute', NULL, NULL"),
            SqlState::FOREIGN_KEY_VIOLATION,
            "a ticket's area is of its own event",
        ),
        (
            ticket(area_a, hold_b, "now() + interval '1 minute', NULL, NULL"),
            SqlState::FOREIGN_KEY_VIOLATION,
            "a ticket's hold is of its own event",
        ),
        (
            ticket(area_a, hold_a, &format!("NULL, {order_b}, 100")),
            SqlState::FOREIGN_KEY_VIOLATION,
            "a ticket's order is of its own event",
        ),
        (
            format!("UPDATE ga_areas SET held = capacity + 1 WHERE id = {area_a}"),
            SqlState::CHECK_VIOLATION,
            "held + sold never exceeds capacity",
        ),
        (
            format!("UPDATE ga_areas SET held = 3, sold = 3 WHERE id = {area_a}"),
            SqlState::CHECK_VIOLATION,
            "held + sold never exceeds capacity, together",
        ),
        (
            ticket(area_a, hold_a, "NULL, NULL, NULL"),
            SqlState::CHECK_VIOLATION,
            "a ticket is held (with an expiry) or sold (with an order)",
        ),
        (
            ticket(area_a, hold_a, &format!("NULL, {order_a}, NULL")),
            SqlState::CHECK_VIOLATION,
            "a sold ticket has its price",
        ),
        (
            format!("UPDATE holds SET expires_at = created_at WHERE id = {hold_a}"),
            SqlState::CHECK_VIOLATION,
            "a hold expires after it is made",
        ),
        (
            format!("UPDATE holds SET closed_at = now() WHERE id = {hold_a}"),
            SqlState::CHECK_VIOLATION,
            "an open hold is not closed",
        ),
        (
            format!("UPDATE events SET on_sale_at = starts_at WHERE id = {}", a.id),
            SqlState::CHECK_VIOLATION,
            "an event goes on sale before it starts",
        ),
        (
            format!("UPDATE events SET cancelled_at = now() WHERE id = {}", a.id),
            SqlState::CHECK_VIOLATION,
            "a cancelled event has its sales closed",
        ),
        (
            format!("UPDATE orders SET buyer_email = 'nobody' WHERE id = {order_a}"),
            SqlState::CHECK_VIOLATION,
            "an order has an email address",
        ),
    ];
    for (sql, expected, rule) in &cases {
        let err = client
            .batch_execute(sql)
            .await
            .err()
            .unwrap_or_else(|| panic!("not refused: {rule}\n{sql}"));
        assert_eq!(err.code(), Some(expected), "{rule}: {err}\n{sql}");
    }

    // One open line per hold and area: a second claim adds to the first.
    client
        .batch_execute(&ticket(
            area_a,
            hold_a,
            "now() + interval '1 minute', NULL, NULL",
        ))
        .await
        .expect("a first line is fine");
    let err = client
        .batch_execute(&ticket(
            area_a,
            hold_a,
            "now() + interval '1 minute', NULL, NULL",
        ))
        .await
        .expect_err("a second open line for the same hold and area");
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

/// The tickets table refuses a code of the wrong form, a second valid
/// ticket for one seat, and a ticket both admitted and refunded; a
/// refunded seat can be sold again (its old ticket voided).
#[tokio::test]
async fn ticket_constraints_refuse_bad_codes_and_two_live_tickets_for_a_seat() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (_, order) = crate::after_sale::buy(&app, event.id, &event.seat_ids[..1], None).await;
    let order_id = crate::support::id_segment(&order["order_id"]);
    let client = app.sql().await;
    let insert = |code: &str| {
        format!(
            "INSERT INTO tickets (code, event_id, order_id, seat_id, price_cents)
             VALUES ('{code}', {}, '{order_id}', {}, 4500)",
            event.id, event.seat_ids[0]
        )
    };
    let refused = |sql: String| {
        let client = &client;
        async move {
            let err = client.batch_execute(&sql).await.expect_err(&sql);
            let db = err.as_db_error().expect("a database error");
            (
                db.code().clone(),
                db.constraint().unwrap_or_default().to_string(),
            )
        }
    };
    for bad in [
        "short",
        "abcdefghijklmnopqrstuvwxyz234567",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ234561",
    ] {
        let (code, constraint) = refused(insert(bad)).await;
        assert_eq!(code, SqlState::CHECK_VIOLATION, "{bad}");
        assert_eq!(constraint, "tickets_code_check", "{bad}");
    }
    let (code, constraint) = refused(insert("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")).await;
    assert_eq!(
        code,
        SqlState::UNIQUE_VIOLATION,
        "a second live ticket for the seat"
    );
    assert_eq!(constraint, "tickets_one_live_per_seat");
    let (code, constraint) = refused(format!(
        "UPDATE tickets SET admitted_at = now(), admitted_gate = 'A',
                            voided_at = now(), void_reason = 'refunded'
          WHERE order_id = '{order_id}'"
    ))
    .await;
    assert_eq!(code, SqlState::CHECK_VIOLATION);
    assert_eq!(constraint, "ticket_admitted_or_voided");
    // Once the first is voided, a new ticket for the seat is allowed.
    client
        .batch_execute(&format!(
            "UPDATE tickets SET voided_at = now(), void_reason = 'refunded' WHERE order_id = '{order_id}'"
        ))
        .await
        .unwrap();
    client
        .batch_execute(&insert("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"))
        .await
        .expect("the seat's one live ticket");
}
