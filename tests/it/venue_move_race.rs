//! Moving an event on sale to newer venue versions while 50 buyers claim
//! and buy seats in it (issue 48): every move that keeps the seats in use
//! goes ahead, no sold or held seat is lost, moved to another seat or
//! given to someone else, and no seat is sold twice.

use std::collections::{BTreeMap, HashMap};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::staff::staff;
use crate::support::{Api, spawn_app};

const ROWS: usize = 10;
const PER_ROW: usize = 20;
const BUYERS: usize = 50;

/// A seat as the race left it: row, label, status, its hold, its order.
type SeatNow = (
    String,
    String,
    String,
    Option<uuid::Uuid>,
    Option<uuid::Uuid>,
);

/// The hall's rows of seats, shifted right by `dx`, and any extra rows
/// (a wheelchair row in later versions).
fn hall(dx: f64, extra_rows: &[(&str, usize)]) -> Value {
    let row = |label: String, y: f64, count: usize, flags: bool| {
        let flags: &[&str] = if flags { &["wheelchair"] } else { &[] };
        json!({"label": label, "seats": (1..=count).map(|n| json!({
            "label": n.to_string(), "tier": "std", "x": dx + n as f64 * 30.0, "y": y,
            "flags": flags,
        })).collect::<Vec<_>>()})
    };
    let mut rows: Vec<Value> = (0..ROWS)
        .map(|r| {
            row(
                ((b'A' + r as u8) as char).to_string(),
                r as f64 * 30.0,
                PER_ROW,
                false,
            )
        })
        .collect();
    for (i, (label, count)) in extra_rows.iter().enumerate() {
        rows.push(row(
            label.to_string(),
            (ROWS + i) as f64 * 30.0 + 20.0,
            *count,
            true,
        ));
    }
    json!({
        "name": "Race Arena",
        "tiers": [{"code": "std", "name": "Standard"}],
        "sections": [{"name": "Floor", "position": {"x": 100, "y": 200}, "rows": rows}],
    })
}

/// The hall made through the API, an event on sale from it, and a
/// manager: the app, the manager, the venue's id and the event's.
async fn hall_on_sale() -> (crate::support::TestApp, Api, i64, i64) {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let (status, venue) = manager.post("/api/staff/venues", hall(0.0, &[])).await;
    assert_eq!(status, StatusCode::CREATED, "{venue}");
    let venue_id = venue["id"].as_i64().unwrap();
    let plan = seatmap::db::venues::EventPlan {
        venue_id: seatmap::domain::ids::VenueId(venue_id),
        name: "Race Night".into(),
        starts_at: time::OffsetDateTime::now_utc() + time::Duration::days(10),
        on_sale_at: None,
        prices: BTreeMap::from([("std".to_string(), 2_000)]),
        currency: "EUR".into(),
        published: true,
    };
    let event_id = seatmap::db::venues::create_event(&app.pool, &plan)
        .await
        .unwrap()
        .0;
    (app, manager, venue_id, event_id)
}

/// A move, retried while the database is busy (503): the test is about
/// what a move that runs does, not about winning a lock quickly.
async fn move_to(manager: &Api, event_id: i64, version: i32) -> Value {
    let path = format!("/api/staff/events/{event_id}/venue-version");
    for _ in 0..20 {
        let (status, body) = manager.post(&path, json!({"version": version})).await;
        match status {
            StatusCode::OK => return body,
            StatusCode::SERVICE_UNAVAILABLE => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await
            }
            other => panic!("move to version {version}: {other} {body}"),
        }
    }
    panic!("the move to version {version} never got its locks");
}

#[tokio::test]
async fn moving_an_event_on_sale_raced_against_fifty_buyers_loses_and_moves_nothing_sold_or_held() {
    let (app, manager, venue_id, event_id) = hall_on_sale().await;
    // Version 2 moves every seat and adds a wheelchair row; version 3
    // moves them back and adds another.
    for (version, layout) in [
        (2, hall(15.0, &[("W", 4)])),
        (3, hall(0.0, &[("W", 4), ("X", 6)])),
    ] {
        let response = manager
            .http
            .put(format!(
                "{}/api/staff/venues/{venue_id}/layout",
                manager.base
            ))
            .header("If-Match", format!("\"v{}\"", version - 1))
            .json(&layout)
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert_eq!(status, StatusCode::OK, "{}", response.text().await.unwrap());
    }
    let seats: Vec<(i64, String, String)> = app
        .sql()
        .await
        .query(
            "SELECT id, row_label, seat_label FROM seats WHERE event_id = $1 ORDER BY id",
            &[&event_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(seats.len(), ROWS * PER_ROW);

    // Fifty buyers, each after two seats (some wanted twice), half of
    // them buying what they get; the moves start among them.
    let mut buyers = Vec::new();
    for i in 0..BUYERS {
        let buyer = app.buyer();
        let pair = [
            seats[(i * 7) % seats.len()].0,
            seats[(i * 7 + 3) % seats.len()].0,
        ];
        buyers.push(tokio::spawn(async move {
            let (status, hold) = buyer.hold(event_id, &pair).await;
            if status != StatusCode::CREATED {
                assert_eq!(status, StatusCode::CONFLICT, "{hold}");
                return None;
            }
            let bought = if i % 2 == 0 {
                let (status, order) = buyer
                    .purchase(&hold["hold_id"], "Racer", "racer@example.com")
                    .await;
                assert_eq!(status, StatusCode::CREATED, "{order}");
                order["order_id"].as_str().map(str::to_string)
            } else {
                None
            };
            Some((pair, hold["hold_id"].as_str().unwrap().to_string(), bought))
        }));
    }
    let mover = manager.clone();
    let moves = tokio::spawn(async move {
        let second = move_to(&mover, event_id, 2).await;
        let third = move_to(&mover, event_id, 3).await;
        (second, third)
    });
    let mut outcomes = Vec::new();
    for buyer in buyers {
        if let Some(outcome) = buyer.await.unwrap() {
            outcomes.push(outcome);
        }
    }
    let (second, third) = moves.await.unwrap();
    assert_eq!(second["seats_added"], 4, "{second}");
    assert_eq!(third["seats_added"], 6, "{third}");
    assert_eq!(third["seats_removed"], 0, "{third}");
    assert!(!outcomes.is_empty(), "some buyers got seats");

    // Every seat of version 1 is still there, under its id and labels.
    let now: HashMap<i64, SeatNow> = app
        .sql()
        .await
        .query(
            "SELECT id, row_label, seat_label, status, hold_id, order_id FROM seats WHERE event_id = $1",
            &[&event_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))))
        .collect();
    assert_eq!(now.len(), ROWS * PER_ROW + 4 + 6);
    for (id, row, label) in &seats {
        let (row_now, label_now, ..) = &now[id];
        assert_eq!(
            (row_now, label_now),
            (row, label),
            "seat {id} kept its place"
        );
    }
    // Each buyer's seats are still theirs: held under their hold, or sold
    // on their order.
    for (pair, hold_id, order_id) in &outcomes {
        for seat in pair {
            let (_, _, status, held_by, sold_on) = &now[seat];
            match order_id {
                Some(order) => {
                    assert_eq!(status, "SOLD", "seat {seat}");
                    assert_eq!(sold_on.map(|o| o.to_string()).as_ref(), Some(order));
                }
                None => {
                    assert_eq!(status, "HELD", "seat {seat}");
                    assert_eq!(held_by.map(|h| h.to_string()).as_ref(), Some(hold_id));
                }
            }
        }
    }
    let sold = outcomes.iter().filter(|o| o.2.is_some()).count() as i64 * 2;
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id} AND status = 'SOLD'"
        ))
        .await,
        sold
    );
    // The new seats came in available.
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id}
                AND row_label IN ('W', 'X') AND status = 'AVAILABLE'"
        ))
        .await,
        10
    );
    app.no_breaches().await;
}

/// A version that removes the back row, moved to while 50 buyers (half of
/// them after seats of that row) claim and buy, all let go at once: either
/// the move lands first and claims on the removed row find nothing, or a
/// claim lands first and the move is refused naming what it would take;
/// whichever, every seat a buyer got is still theirs.
#[tokio::test]
async fn a_move_that_removes_seats_races_fifty_buyers_and_takes_none_of_theirs() {
    let (app, manager, venue_id, event_id) = hall_on_sale().await;
    let mut v2 = hall(0.0, &[]);
    v2["sections"][0]["rows"].as_array_mut().unwrap().pop();
    let response = manager
        .http
        .put(format!(
            "{}/api/staff/venues/{venue_id}/layout",
            manager.base
        ))
        .header("If-Match", "\"v1\"")
        .json(&v2)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let seats: Vec<(i64, String)> = app
        .sql()
        .await
        .query(
            "SELECT id, row_label FROM seats WHERE event_id = $1 ORDER BY row_index, position",
            &[&event_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let back_row: Vec<i64> = seats
        .iter()
        .filter(|(_, row)| row == "J")
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(back_row.len(), PER_ROW);

    let start = std::sync::Arc::new(tokio::sync::Barrier::new(BUYERS + 1));
    let mut buyers = Vec::new();
    for i in 0..BUYERS {
        let buyer = app.buyer();
        let pair = if i % 2 == 0 {
            [back_row[i % PER_ROW], back_row[(i + 1) % PER_ROW]]
        } else {
            [seats[i * 3].0, seats[i * 3 + 1].0]
        };
        let start = start.clone();
        buyers.push(tokio::spawn(async move {
            start.wait().await;
            // Spread over the move's run: the other rows' claims from the
            // start (before the move, waiting for it, or after), the back
            // row's a little later, so the move usually gets there first
            // and they find their seats gone (a claim there first makes the
            // move refuse instead: that order is forced in venue_versions).
            let back = if i % 2 == 0 { 300 } else { 0 };
            tokio::time::sleep(std::time::Duration::from_millis(back + i as u64 * 3)).await;
            let (status, hold) = buyer.hold(event_id, &pair).await;
            if status != StatusCode::CREATED {
                // Taken by another buyer, or gone with the move.
                assert!(
                    status == StatusCode::CONFLICT || status == StatusCode::NOT_FOUND,
                    "{status} {hold}"
                );
                return None;
            }
            let bought = if i % 4 < 2 {
                let (status, order) = buyer
                    .purchase(&hold["hold_id"], "Racer", "racer@example.com")
                    .await;
                assert_eq!(status, StatusCode::CREATED, "{order}");
                order["order_id"].as_str().map(str::to_string)
            } else {
                None
            };
            Some((pair, hold["hold_id"].as_str().unwrap().to_string(), bought))
        }));
    }
    let mover = manager.clone();
    let mover_start = start.clone();
    let moved = tokio::spawn(async move {
        mover_start.wait().await;
        let path = format!("/api/staff/events/{event_id}/venue-version");
        loop {
            let (status, body) = mover.post(&path, json!({"version": 2})).await;
            if status != StatusCode::SERVICE_UNAVAILABLE {
                return (status, body);
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    });
    let mut outcomes = Vec::new();
    for buyer in buyers {
        if let Some(outcome) = buyer.await.unwrap() {
            outcomes.push(outcome);
        }
    }
    let (status, body) = moved.await.unwrap();
    let back_row_left = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id} AND row_label = 'J'"
        ))
        .await;
    match status {
        StatusCode::OK => assert_eq!(back_row_left, 0, "{body}"),
        StatusCode::CONFLICT => {
            assert_eq!(body["error"], "places_in_use", "{body}");
            assert!(!body["places"].as_array().unwrap().is_empty(), "{body}");
            assert_eq!(back_row_left, PER_ROW as i64);
        }
        other => panic!("the move answered {other}: {body}"),
    }
    println!("move: {status}; {} buyers got seats", outcomes.len());
    for (pair, hold_id, order_id) in &outcomes {
        for seat in pair {
            let row = app
                .sql()
                .await
                .query_opt(
                    "SELECT status, hold_id::text, order_id::text FROM seats WHERE id = $1",
                    &[seat],
                )
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("seat {seat}, which a buyer got, is gone"));
            let (status, held_by, sold_on): (String, Option<String>, Option<String>) =
                (row.get(0), row.get(1), row.get(2));
            match order_id {
                Some(order) => {
                    assert_eq!((status.as_str(), sold_on.as_ref()), ("SOLD", Some(order)))
                }
                None => assert_eq!((status.as_str(), held_by.as_ref()), ("HELD", Some(hold_id))),
            }
        }
    }
    app.no_breaches().await;
}
