//! General admission: counted stock with a guarded relative update, lazy
//! return of lapsed tickets, and mixed carts that never deadlock.

use futures::future::join_all;
use rand::Rng;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{spawn_app, spawn_app_with};

#[tokio::test]
async fn ga_tickets_are_held_listed_bought_and_refused_like_seats() {
    let app = spawn_app().await;
    let (event, areas) = app.create_ga_event(4, &[("Floor", 5)]).await;
    let floor = areas[0];
    let buyer = app.buyer();

    let (status, body) = buyer.hold_ga(event.id, floor, 3).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["ga"], json!([{ "area": floor, "count": 3 }]));
    assert_eq!(body["seat_ids"], json!([]));
    // A second request adds to the same line of the same hold.
    let (status, again) = buyer.hold_ga(event.id, floor, 1).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_eq!(again["hold_id"], body["hold_id"]);
    assert_eq!(again["ga"], json!([{ "area": floor, "count": 4 }]));

    let listing = buyer.seats(event.id).await;
    assert_eq!(listing["ga_areas"][0]["available"], 1);
    assert_eq!(listing["ga_areas"][0]["mine"], 4);
    assert_eq!(
        listing["hold"]["ga"],
        json!([{ "area": floor, "count": 4 }])
    );
    assert_eq!(listing["event"]["ga_available"], 1);

    let other = app.buyer();
    let (status, refused) = other.hold_ga(event.id, floor, 2).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "not_enough_capacity");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("Only 1 place is left in Floor"),
        "{refused}"
    );
    for count in [0, -1, 11, 1_000_000_000_000] {
        let (status, body) = other.hold_ga(event.id, floor, count).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{count}: {body}");
    }
    let (status, _) = other.hold_ga(event.id, floor + 999, 1).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = other
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({ "ga": { "area": "floor", "count": 1 } }),
        )
        .await;
    assert!(status.is_client_error(), "{status}");
    assert_eq!(
        app.count("SELECT count(*) FROM holds WHERE state = 'OPEN'")
            .await,
        1,
        "refused requests opened no hold"
    );

    // A mixed cart: a seat and the last ticket, bought in one order.
    let (status, mixed) = other
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({ "seat_ids": [event.seat_ids[0]], "ga": { "area": floor, "count": 1 } }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{mixed}");
    let (status, order) = other
        .purchase(&mixed["hold_id"], "Grace Hopper", "grace@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(app.ga_counters(floor).await, (4, 1));
    let total: i64 = app
        .count(&format!(
            "SELECT sum(quantity * price_cents)::bigint FROM ga_tickets WHERE order_id = '{}'",
            order["order_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(total, 2000, "the GA line is priced from its tier");

    // Releasing gives the tickets back at once.
    let (status, _) = buyer
        .delete(&format!(
            "/api/holds/{}",
            crate::support::id_segment(&body["hold_id"])
        ))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(app.ga_counters(floor).await, (0, 1));
    app.no_breaches().await;
}

#[tokio::test]
async fn five_hundred_buyers_never_get_more_than_the_area_holds_and_lapsed_tickets_come_back() {
    let app = spawn_app_with(|config| {
        config.db.pool_size = 16;
    })
    .await;
    let (event, areas) = app.create_ga_event(2, &[("Floor", 100)]).await;
    let floor = areas[0];

    let buyers: Vec<_> = (0..500)
        .map(|i| {
            let buyer = app.buyer();
            let count = 1 + (i % 4) as i64;
            let event_id = event.id;
            tokio::spawn(async move {
                let (status, body) = buyer.hold_ga(event_id, floor, count).await;
                (status, body, count)
            })
        })
        .collect();
    let mut granted = 0;
    let mut refused = 0;
    for buyer in buyers {
        let (status, body, count) = buyer.await.unwrap();
        match status {
            StatusCode::CREATED => {
                assert_eq!(body["ga"][0]["count"], count, "{body}");
                granted += count;
            }
            StatusCode::CONFLICT => {
                assert_eq!(body["error"], "not_enough_capacity", "{body}");
                refused += 1;
            }
            other => panic!("unexpected {other}: {body}"),
        }
    }
    println!("granted {granted} tickets, refused {refused} buyers");
    assert!(granted <= 100, "sold {granted} of 100");
    // A quarter of the buyers want 1, and most of them come after the area
    // is nearly full, so it fills exactly.
    assert_eq!(granted, 100);
    assert_eq!(app.ga_counters(floor).await, (granted as i32, 0));
    app.no_breaches().await;

    // Every hold lapses; the map counts them as free at once, and the next
    // claim on the area returns them to the counter in its own transaction.
    app.lapse_every_hold(event.id).await;
    let listing = app.buyer().seats(event.id).await;
    assert_eq!(listing["ga_areas"][0]["available"], 100);
    assert_eq!(
        app.ga_counters(floor).await.0,
        granted as i32,
        "not yet returned"
    );
    let late = app.buyer();
    let (status, body) = late.hold_ga(event.id, floor, 4).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(app.ga_counters(floor).await, (4, 0));
    assert_eq!(
        app.count("SELECT count(*) FROM ga_tickets").await,
        1,
        "only the new hold's tickets are left"
    );
    app.no_breaches().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mixed_carts_purchases_and_lapsed_returns_take_locks_in_one_order_and_never_deadlock() {
    let app = spawn_app().await;
    let (event, areas) = app
        .create_ga_event(120, &[("Floor", 200), ("Balcony", 200)])
        .await;
    let (floor, balcony) = (areas[0], areas[1]);
    // 60 buyers each build a hold of a seat and a ticket in both areas,
    // half of them taking the areas the other way round.
    let buyers: Vec<_> = (0..60).map(|_| app.buyer()).collect();
    let mut holds = Vec::new();
    for (i, buyer) in buyers.iter().enumerate() {
        let order = if i % 2 == 0 {
            [floor, balcony]
        } else {
            [balcony, floor]
        };
        for area in order {
            let (status, body) = buyer.hold_ga(event.id, area, 1).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        }
        let (status, body) = buyer.hold(event.id, &[event.seat_ids[i]]).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        holds.push(body["hold_id"].clone());
    }
    // A third of them lapse: the next claims on each area give their
    // tickets back, inside the claims' own transactions.
    for hold in &holds[40..] {
        app.lapse_hold(hold).await;
    }

    // All at once, well past the pool's 20 connections: 40 purchases (GA
    // areas by id, then seats) and 120 new carts (an area and two seats
    // listed in either order, some of them the lapsed holds' seats).
    let payers = join_all(
        buyers[..40]
            .iter()
            .zip(&holds)
            .map(|(buyer, hold)| buyer.purchase(hold, "Payer", "payer@example.com")),
    );
    let carts: Vec<_> = (0..120)
        .map(|i| {
            let mut rng = rand::rng();
            let mut seats = vec![
                event.seat_ids[40 + rng.random_range(0..80)],
                event.seat_ids[40 + rng.random_range(0..80)],
            ];
            if i % 2 == 1 {
                seats.reverse();
            }
            seats.dedup();
            let area = if rng.random_bool(0.5) { floor } else { balcony };
            (
                app.buyer(),
                json!({ "seat_ids": seats, "ga": { "area": area, "count": 2 } }),
            )
        })
        .collect();
    let holds_path = format!("/api/events/{}/holds", event.id);
    let claims = join_all(
        carts
            .iter()
            .map(|(buyer, cart)| buyer.post(&holds_path, cart.clone())),
    );
    let (paid, claimed) = tokio::join!(payers, claims);

    let mut held = 0;
    for (status, body) in &claimed {
        match *status {
            StatusCode::CREATED => held += 1,
            StatusCode::CONFLICT => assert_eq!(body["error"], "seats_unavailable", "{body}"),
            other => panic!("a cart got {other}: {body}"),
        }
    }
    app.no_breaches().await;
    assert_eq!(
        app.ga_counters(floor).await.0 + app.ga_counters(balcony).await.0,
        2 * held,
        "the lapsed holds' tickets went back; only the new carts' are held"
    );
    let deadlocks = app.settled_deadlocks().await;
    println!("{held} of 120 carts held, 40 purchases, {deadlocks} deadlocks");
    for (status, body) in &paid {
        assert_eq!(
            *status,
            StatusCode::CREATED,
            "a live hold's purchase ({deadlocks} deadlocks): {body}"
        );
    }
    assert!(held > 0, "no cart got anything");
    assert_eq!(
        deadlocks, 0,
        "PostgreSQL detected deadlocks (the app retried them)"
    );
}

#[tokio::test]
async fn the_map_shows_ga_areas_with_what_is_left_and_holds_them_without_javascript() {
    let app = spawn_app().await;
    let (event, areas) = app.create_ga_event(2, &[("Standing", 3)]).await;
    let buyer = app.buyer();
    let token = crate::pages::csrf_from(&buyer, &format!("/events/{}", event.id)).await;
    let (_, html) = crate::pages::page(&buyer, &format!("/events/{}", event.id)).await;
    assert!(html.contains("Standing"), "{html}");
    assert!(html.contains("3 left"));

    let response = buyer
        .http
        .post(format!("{}/events/{}/ga", buyer.base, event.id))
        .form(&[
            ("csrf", token.as_str()),
            ("area", &areas[0].to_string()),
            ("count", "2"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (_, html) = crate::pages::page(&buyer, &format!("/events/{}", event.id)).await;
    assert!(
        html.contains("Holding 2 general-admission tickets."),
        "{html}"
    );
    assert!(html.contains("1 left"));
    assert!(html.contains("Standing × 2"));

    // Junk and too many get a notice, never a 500.
    for (area, count) in [("x", "1"), (areas[0].to_string().as_str(), "5")] {
        let response = buyer
            .http
            .post(format!("{}/events/{}/ga", buyer.base, event.id))
            .form(&[("csrf", token.as_str()), ("area", area), ("count", count)])
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_redirection() || response.status().is_client_error(),
            "{}",
            response.status()
        );
    }
    let (_, html) = crate::pages::page(&buyer, &format!("/events/{}", event.id)).await;
    assert!(html.contains("Only 1 place is left in Standing"), "{html}");

    // Releasing from the panel.
    let response = buyer
        .http
        .post(format!("{}/events/{}/ga", buyer.base, event.id))
        .form(&[("csrf", token.as_str()), ("release", &areas[0].to_string())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (_, html) = crate::pages::page(&buyer, &format!("/events/{}", event.id)).await;
    assert!(html.contains("3 left"), "{html}");
    assert_eq!(app.ga_counters(areas[0]).await, (0, 0));
}
