//! Series and seasons: copies of an event; a season's place held and sold
//! in every night or in none; one winner per place whoever races for it
//! (season buyers, single-event buyers, best available herds); a season
//! hold lapsing while a single buyer claims, in both orders; renewals and
//! a night given back to sale.

use std::time::Duration;

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::staff::staff;
use crate::support::{Api, TestApp, id_segment, ids, spawn_app_with};

/// Holds and requests are not what these tests count; lock waits are
/// deliberate and must not time out.
fn roomy(config: &mut seatmap::config::Config) {
    config.limits.hold_requests_per_session = 100_000;
    config.limits.hold_requests_per_ip = 100_000;
    config.limits.max_holds_per_ip = 0;
    config.db.pool_size = 24;
    config.db.pool_wait = Duration::from_secs(60);
    config.db.lock_timeout = Duration::from_secs(30);
    config.db.statement_timeout = Duration::from_secs(60);
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap()
}

/// A season over an event of `rows` × `per_row` seats and `nights - 1`
/// copies of it (published), made by a manager through the API.
pub(crate) struct Season {
    pub(crate) id: i64,
    /// In start order; the first names the places.
    pub(crate) events: Vec<i64>,
    /// The first event's seat ids: the season's places.
    pub(crate) places: Vec<i64>,
    manager: Api,
}

pub(crate) async fn season_of(app: &TestApp, rows: usize, per_row: u32, nights: usize) -> Season {
    let first = app.create_event(rows, per_row).await;
    let manager = staff(app, "manager").await;
    let starts: Vec<String> = (1..nights)
        .map(|n| rfc3339(OffsetDateTime::now_utc() + time::Duration::days(7 + 7 * n as i64)))
        .collect();
    let (status, body) = manager
        .post(
            &format!("/api/staff/events/{}/copies", first.id),
            json!({ "starts_at": starts }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mut events = vec![first.id];
    events.extend(ids(&body["event_ids"]));
    // Copies start as drafts; publishing is tested with the manager's day.
    app.sql()
        .await
        .execute(
            "UPDATE events SET published_at = now() WHERE id = ANY($1)",
            &[&events],
        )
        .await
        .unwrap();
    let (status, body) = manager
        .post(
            "/api/staff/seasons",
            json!({ "name": "Winter Season", "event_ids": events }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    Season {
        id: body["season_id"].as_i64().unwrap(),
        events,
        places: first.seat_ids,
        manager,
    }
}

/// The place's seat in each event, in event order.
async fn seats_of(app: &TestApp, season: &Season, place: i64) -> Vec<i64> {
    app.sql()
        .await
        .query(
            "SELECT seat_id FROM season_places WHERE season_id = $1 AND place_id = $2
              ORDER BY event_id",
            &[&season.id, &place],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// The code of the order's ticket for one night.
async fn night_code(app: &TestApp, order_id: &str, night: i64) -> String {
    app.sql()
        .await
        .query_one(
            "SELECT code FROM tickets WHERE order_id = $1::text::uuid AND event_id = $2",
            &[&order_id, &night],
        )
        .await
        .unwrap()
        .get(0)
}

/// A new buyer holding `place` in every night of the season.
async fn holding(season: &Season, app: &TestApp, place: i64) -> (Api, Value) {
    let buyer = app.buyer();
    let (status, hold) = season_hold(&buyer, season, json!({ "seat_ids": [place] })).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    (buyer, hold)
}

async fn season_hold(buyer: &Api, season: &Season, body: Value) -> (StatusCode, Value) {
    buyer
        .post(&format!("/api/seasons/{}/holds", season.id), body)
        .await
}

/// (status, hold_id) of each seat of the place, in event order.
async fn place_states(app: &TestApp, season: &Season, place: i64) -> Vec<(String, Option<String>)> {
    app.sql()
        .await
        .query(
            "SELECT s.status, h.season_hold_id::text
               FROM season_places p JOIN seats s ON s.id = p.seat_id
               LEFT JOIN holds h ON h.id = s.hold_id
              WHERE p.season_id = $1 AND p.place_id = $2 ORDER BY p.event_id",
            &[&season.id, &place],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

/// No live season hold has a place in only some of its nights, and no
/// season order was sold a place in only some (counted among the tickets
/// issued with it: a night given back later is not a split).
async fn no_split_season(app: &TestApp) {
    let split = app
        .count(
            "SELECT count(*) FROM (
                 SELECT h.season_hold_id AS owner, p.place_id, count(*) AS nights,
                        cardinality(min(sh.event_ids)) AS wanted
                   FROM seats s JOIN holds h ON h.id = s.hold_id
                   JOIN season_holds sh ON sh.id = h.season_hold_id
                   JOIN season_places p ON p.season_id = sh.season_id AND p.seat_id = s.id
                  WHERE s.status = 'HELD' AND s.held_until > now()
                  GROUP BY 1, 2
                 UNION ALL
                 SELECT o.id, p.place_id, count(*), cardinality(min(sh.event_ids))
                   FROM tickets t JOIN orders o ON o.id = t.order_id
                   JOIN season_holds sh ON sh.id = o.season_hold_id
                   JOIN season_places p ON p.season_id = o.season_id AND p.seat_id = t.seat_id
                  WHERE t.issued_at = o.created_at
                  GROUP BY 1, 2
             ) per_place WHERE nights <> wanted",
        )
        .await;
    assert_eq!(
        split, 0,
        "a season holds or sold a place in only some nights"
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn copies_share_the_layout_tiers_and_fees_start_as_drafts_and_list_as_one_series() {
    let app = spawn_app_with(roomy).await;
    let first = app.create_event(3, 4).await;
    let manager = staff(&app, "manager").await;
    app.sql()
        .await
        .execute(
            "UPDATE events SET booking_fee_cents = 150, payment = 'box_office' WHERE id = $1",
            &[&first.id],
        )
        .await
        .unwrap();
    let starts = [
        OffsetDateTime::now_utc() + time::Duration::days(20),
        OffsetDateTime::now_utc() + time::Duration::days(27),
    ];
    let (status, body) = manager
        .post(
            &format!("/api/staff/events/{}/copies", first.id),
            json!({ "starts_at": starts.map(rfc3339) }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let copies = ids(&body["event_ids"]);
    assert_eq!(copies.len(), 2);
    for (copy, start) in copies.iter().zip(starts) {
        let row = app
            .sql()
            .await
            .query_one(
                "SELECT e.starts_at, e.published_at IS NULL, e.booking_fee_cents, e.payment,
                        e.series_id,
                        (SELECT count(*) FROM seats WHERE event_id = e.id),
                        (SELECT string_agg(code || '=' || price_cents, ',' ORDER BY code)
                           FROM price_tiers WHERE event_id = e.id)
                   FROM events e WHERE e.id = $1",
                &[copy],
            )
            .await
            .unwrap();
        assert_eq!(
            row.get::<_, OffsetDateTime>(0).unix_timestamp(),
            start.unix_timestamp()
        );
        assert!(row.get::<_, bool>(1), "a copy starts as a draft");
        assert_eq!(row.get::<_, i32>(2), 150, "the fee is copied");
        assert_eq!(
            row.get::<_, &str>(3),
            "box_office",
            "the payment mode is copied"
        );
        assert_eq!(row.get::<_, Option<i64>>(4), Some(first.id), "one series");
        assert_eq!(row.get::<_, i64>(5), 12, "every seat is copied");
        assert_eq!(row.get::<_, &str>(6), "std=4500,vip=9900");
    }
    // Buyers don't see a draft.
    let (status, _) = app
        .buyer()
        .get(&format!("/api/events/{}/seats", copies[0]))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Refusals: a past time, a time twice, none, and an unknown event.
    for bad in [
        json!({ "starts_at": [rfc3339(OffsetDateTime::now_utc() - time::Duration::days(1))] }),
        json!({ "starts_at": [rfc3339(starts[0]), rfc3339(starts[0])] }),
        json!({ "starts_at": [] }),
    ] {
        let (status, body) = manager
            .post(&format!("/api/staff/events/{}/copies", first.id), bad)
            .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_copies")),
            "{body}"
        );
    }
    let (status, _) = manager
        .post(
            "/api/staff/events/999999/copies",
            json!({ "starts_at": [rfc3339(starts[0])] }),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Published, the buyers' list shows the series under one name with its dates.
    app.sql()
        .await
        .execute("UPDATE events SET published_at = now()", &[])
        .await
        .unwrap();
    let page = app.buyer().get_text("/").await;
    assert_eq!(
        page.matches("data-series=").count(),
        1,
        "one series entry for the three dates: {page}"
    );
}

#[tokio::test]
async fn a_season_needs_events_that_share_a_layout() {
    let app = spawn_app_with(roomy).await;
    let manager = staff(&app, "manager").await;
    let a = app.create_event(2, 3).await;
    let b = app.create_event(2, 3).await;
    let (status, body) = manager
        .post(
            "/api/staff/seasons",
            json!({ "name": "Mixed", "event_ids": [a.id, b.id] }),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("season_events_differ")
        ),
        "two events that are not copies of each other: {body}"
    );
    for bad in [
        json!({ "name": "One", "event_ids": [a.id] }),
        json!({ "name": "Twice", "event_ids": [a.id, a.id] }),
        json!({ "name": "", "event_ids": [a.id, b.id] }),
    ] {
        let (status, body) = manager.post("/api/staff/seasons", bad).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_season")),
            "{body}"
        );
    }
    let (status, _) = manager
        .post(
            "/api/staff/seasons",
            json!({ "name": "Ghost", "event_ids": [a.id, 999_999] }),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let clerk = crate::staff::staff_as(&app, "clerk", seatmap::domain::role::Role::BoxOffice).await;
    let (status, _) = clerk
        .post(
            "/api/staff/seasons",
            json!({ "name": "Not mine", "event_ids": [a.id, b.id] }),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a season is a manager's to make"
    );
}

#[tokio::test]
async fn a_season_place_is_held_and_sold_in_every_night_with_a_ticket_each_that_the_door_admits() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 2, 4, 3).await;
    let place = season.places[1];
    let (buyer, hold) = holding(&season, &app, place).await;
    assert_eq!(ids(&hold["seat_ids"]), vec![place]);
    assert_eq!(ids(&hold["event_ids"]), season.events);
    let hold_id = id_segment(&hold["hold_id"]);
    for (status, by) in place_states(&app, &season, place).await {
        assert_eq!(status, "HELD");
        assert_eq!(by.as_deref(), Some(hold_id.as_str()));
    }
    // The season map says "mine"; another buyer's says "held".
    let (_, map) = buyer
        .get(&format!("/api/seasons/{}/seats", season.id))
        .await;
    let mine = map["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == place)
        .unwrap();
    assert_eq!(mine["status"], "mine", "{mine}");
    let (_, other) = app
        .buyer()
        .get(&format!("/api/seasons/{}/seats", season.id))
        .await;
    let seen = other["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == place)
        .unwrap();
    assert_eq!(seen["status"], "held");
    assert_eq!(
        map["seats"].as_array().unwrap().len(),
        8,
        "one entry per place"
    );

    // A single buyer can't take the place in any night.
    let nights = seats_of(&app, &season, place).await;
    for (event, seat) in season.events.iter().zip(&nights) {
        let (status, _) = app.buyer().hold(*event, &[*seat]).await;
        assert_eq!(status, StatusCode::CONFLICT);
    }
    // Nor can the season buyer buy one night of it alone: those holds are nobody's.
    let night_hold: String = app
        .sql()
        .await
        .query_one(
            "SELECT id::text FROM holds WHERE season_hold_id = $1::text::uuid LIMIT 1",
            &[&hold_id],
        )
        .await
        .unwrap()
        .get(0);
    let (status, _) = buyer
        .purchase(&Value::String(night_hold), "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Ada Lovelace", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let tickets = order["tickets"].as_array().unwrap();
    assert_eq!(tickets.len(), 3, "one ticket per night: {order}");
    for (status, _) in place_states(&app, &season, place).await {
        assert_eq!(status, "SOLD");
    }
    // The season's price, shared over the nights, adds up: 3 × €45.
    let (total, orders, events) = {
        let row = app
            .sql()
            .await
            .query_one(
                "SELECT o.total_cents, (SELECT count(*) FROM orders),
                        (SELECT count(DISTINCT event_id) FROM tickets WHERE order_id = o.id)
                   FROM orders o WHERE o.id = $1::text::uuid",
                &[&order["order_id"].as_str().unwrap()],
            )
            .await
            .unwrap();
        (
            row.get::<_, i64>(0),
            row.get::<_, i64>(1),
            row.get::<_, i64>(2),
        )
    };
    assert_eq!((total, orders, events), (13_500, 1, 3));

    // The door admits each night's code at that night's event only.
    let door = staff(&app, "door").await;
    let codes: Vec<(i64, String)> = app
        .sql()
        .await
        .query(
            "SELECT event_id, code FROM tickets WHERE order_id = $1::text::uuid ORDER BY event_id",
            &[&order["order_id"].as_str().unwrap()],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let scan = |event: i64, code: String| {
        let door = &door;
        async move {
            let (status, body) = door
                .post(
                    &format!("/api/staff/events/{event}/admissions"),
                    json!({ "code": code, "gate": "Main" }),
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            body["result"].as_str().unwrap().to_string()
        }
    };
    assert_eq!(scan(codes[1].0, codes[0].1.clone()).await, "wrong_event");
    for (event, code) in &codes {
        assert_eq!(scan(*event, code.clone()).await, "admitted");
    }
    // Reports: the second night's CSV has the season order, as its share
    // (€45 of €135), marked with the season; its report counts it apart.
    let csv = season
        .manager
        .get_text(&format!("/staff/events/{}/orders.csv", season.events[1]))
        .await;
    let row = csv
        .lines()
        .find(|line| line.contains("Winter Season"))
        .unwrap_or_else(|| panic!("no season row: {csv}"));
    assert!(row.contains(",45.00,"), "{row}");
    let report = season
        .manager
        .get_text(&format!("/staff/events/{}/report", season.events[1]))
        .await;
    assert!(
        report.contains(">season<"),
        "the report shows season sales apart"
    );
    // The buyer's order page lists every night.
    let page = buyer
        .get_text(&format!("/orders/{}", order["order_id"].as_str().unwrap()))
        .await;
    assert_eq!(page.matches("data-night=").count(), 3, "{page}");
    no_split_season(&app).await;
}

#[tokio::test]
async fn a_season_claim_refused_names_the_places_and_nights_taken_and_holds_nothing() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 4, 3).await;
    let (a, b) = (season.places[0], season.places[1]);
    let third_night_of_b = seats_of(&app, &season, b).await[2];
    let (status, _) = app
        .buyer()
        .hold(season.events[2], &[third_night_of_b])
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let buyer = app.buyer();
    let (status, body) = season_hold(&buyer, &season, json!({ "seat_ids": [a, b] })).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "seats_unavailable");
    assert_eq!(
        body["taken"],
        json!([{ "seat_id": b, "event_id": season.events[2] }]),
        "{body}"
    );
    assert_eq!(ids(&body["seat_ids"]), vec![b]);
    for (status, _) in place_states(&app, &season, a).await {
        assert_eq!(status, "AVAILABLE", "the free place was not held either");
    }
    // A place that isn't the season's: 404 naming it.
    let (status, body) =
        season_hold(&buyer, &season, json!({ "seat_ids": [third_night_of_b] })).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    no_split_season(&app).await;
}

#[tokio::test]
async fn forty_season_buyers_and_forty_single_buyers_for_one_place_make_one_winner() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 2, 5, 4).await;
    // Two places side by side: every claim takes two row locks per night,
    // so claims taking them in different orders would deadlock.
    let (place, beside) = (season.places[3], season.places[4]);
    let nights = seats_of(&app, &season, place).await;
    let nights_beside = seats_of(&app, &season, beside).await;
    let season_buyers: Vec<Api> = (0..40).map(|_| app.buyer()).collect();
    let single_buyers: Vec<(Api, i64, [i64; 2])> = (0..40)
        .map(|i| {
            (
                app.buyer(),
                season.events[i % 4],
                [nights_beside[i % 4], nights[i % 4]],
            )
        })
        .collect();
    let season_claims = join_all(
        season_buyers
            .iter()
            .map(|buyer| season_hold(buyer, &season, json!({ "seat_ids": [beside, place] }))),
    );
    let single_claims = join_all(
        single_buyers
            .iter()
            .map(|(buyer, event, seats)| async move { buyer.hold(*event, seats).await }),
    );
    let (season_outcomes, single_outcomes) = tokio::join!(season_claims, single_claims);
    for (status, body) in season_outcomes.iter().chain(single_outcomes.iter()) {
        assert!(
            [StatusCode::CREATED, StatusCode::CONFLICT].contains(status),
            "only a hold or \"taken\": {status} {body}"
        );
    }
    let season_wins = season_outcomes
        .iter()
        .filter(|(status, _)| *status == StatusCode::CREATED)
        .count();
    let single_wins = single_outcomes
        .iter()
        .filter(|(status, _)| *status == StatusCode::CREATED)
        .count();
    // Each night has one winner: the season in all of them, or a single
    // buyer in each (single buyers of different nights don't compete).
    let single_winners_per_night: Vec<usize> = season
        .events
        .iter()
        .map(|event| {
            single_buyers
                .iter()
                .zip(&single_outcomes)
                .filter(|((_, night, _), (status, _))| {
                    night == event && *status == StatusCode::CREATED
                })
                .count()
        })
        .collect();
    match season_wins {
        1 => assert_eq!(single_wins, 0, "a season won, and a single buyer too"),
        0 => assert_eq!(
            single_winners_per_night,
            vec![1; season.events.len()],
            "no season won: one single buyer in each night"
        ),
        many => panic!("{many} season buyers won one place"),
    }
    let states = place_states(&app, &season, place).await;
    if season_wins == 1 {
        assert!(
            states
                .iter()
                .all(|(status, by)| status == "HELD" && by.is_some()),
            "the season holds the place in every night: {states:?}"
        );
        let winner = season_outcomes
            .iter()
            .find(|(status, _)| *status == StatusCode::CREATED)
            .unwrap();
        let hold_id = id_segment(&winner.1["hold_id"]);
        assert!(
            states
                .iter()
                .all(|(_, by)| by.as_deref() == Some(hold_id.as_str()))
        );
    } else {
        assert!(
            states.iter().all(|(_, by)| by.is_none()),
            "no season holds the place anywhere: {states:?}"
        );
        assert_eq!(
            states.iter().filter(|(status, _)| status == "HELD").count(),
            season.events.len(),
            "each night is held by its single buyer"
        );
        let beside_states = place_states(&app, &season, beside).await;
        assert!(
            beside_states
                .iter()
                .all(|(status, by)| status == "HELD" && by.is_none()),
            "the place beside went with it, night by night: {beside_states:?}"
        );
    }
    no_split_season(&app).await;
    // Every claim locks event then seat: no deadlock for a retry to hide.
    assert_eq!(app.settled_deadlocks().await, 0, "deadlocks in the race");
}

#[tokio::test]
async fn two_hundred_season_buyers_best_available_on_a_nearly_full_season_split_nothing() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 10, 10, 3).await;
    // Nearly full: rows 0-6 sold in the first night (so the season can't
    // have them); rows 7-9 are free: 15 pairs for 200 buyers.
    app.sql()
        .await
        .execute(
            "UPDATE seats SET status = 'BLOCKED' WHERE event_id = $1 AND row_index < 7",
            &[&season.events[0]],
        )
        .await
        .unwrap();
    let buyers: Vec<Api> = (0..200).map(|_| app.buyer()).collect();
    let outcomes = join_all(
        buyers
            .iter()
            .map(|buyer| season_hold(buyer, &season, json!({ "best_available": { "count": 2 } }))),
    )
    .await;
    let mut given = std::collections::HashSet::new();
    let mut won = 0;
    for (status, body) in &outcomes {
        assert!(
            !status.is_server_error(),
            "no buyer sees a 5xx: {status} {body}"
        );
        match *status {
            StatusCode::CREATED => {
                won += 1;
                let places = ids(&body["seat_ids"]);
                assert_eq!(places.len(), 2, "{body}");
                for place in places {
                    assert!(given.insert(place), "place {place} given twice");
                }
            }
            StatusCode::CONFLICT => {}
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert!(won >= 12, "most of the 15 free pairs are sold: {won}");
    // Nobody was sent away while two places side by side were free in
    // every night.
    let pairs_left = app
        .count(&format!(
            "SELECT count(*) FROM seats a JOIN seats b
                 ON b.section_id = a.section_id AND b.row_index = a.row_index
                AND b.position = a.position + 1
              WHERE a.event_id = {first}
                AND NOT EXISTS (SELECT 1 FROM season_places p JOIN seats s ON s.id = p.seat_id
                                 WHERE p.season_id = {season} AND p.place_id IN (a.id, b.id)
                                   AND s.status <> 'AVAILABLE')",
            first = season.events[0],
            season = season.id
        ))
        .await;
    assert_eq!(
        pairs_left, 0,
        "a free pair was left while buyers were refused"
    );
    no_split_season(&app).await;
    // Claims lock event then seat, and best available skips locked rows:
    // no deadlock at all, so no retry of one.
    assert_eq!(app.settled_deadlocks().await, 0, "deadlocks in the herd");
}

/// A season hold whose expiry is moved to `at` everywhere it is kept.
async fn expire_season_hold_at(
    client: &impl tokio_postgres::GenericClient,
    hold_id: &str,
    at: OffsetDateTime,
) {
    client
        .execute(
            "WITH moved AS (
                 UPDATE season_holds SET created_at = least(created_at, $2::timestamptz - interval '1 hour'),
                        expires_at = $2
                  WHERE id = $1::text::uuid RETURNING id
             ), nights AS (
                 UPDATE holds SET created_at = least(created_at, $2::timestamptz - interval '1 hour'),
                        expires_at = $2
                  WHERE season_hold_id IN (SELECT id FROM moved) RETURNING id
             )
             UPDATE seats SET held_until = $2 WHERE hold_id IN (SELECT id FROM nights)",
            &[&hold_id, &at],
        )
        .await
        .unwrap();
}

/// The season hold `hold_id` (its buyer `payer`) is being bought: the
/// purchase has counted the hold's seats and read the clock, and waits to
/// write its order (the test holds `orders`). Meanwhile the place's seat
/// in the second night lapses and a single buyer takes it. The purchase
/// must then be refused whole, selling nothing in any night, rather than
/// sell the nights it still has.
async fn a_night_taken_while_paying_refuses_the_whole_purchase(
    app: &TestApp,
    season_id: i64,
    events: &[i64],
    place: i64,
    payer: Api,
    hold_id: &Value,
) {
    let hold = id_segment(hold_id);
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE orders IN SHARE MODE")
        .await
        .unwrap();
    let purchase = {
        let hold_id = hold_id.clone();
        tokio::spawn(async move { payer.purchase(&hold_id, "Late", "late@example.com").await })
    };
    app.lock_waiter("INSERT INTO orders").await;
    let second_night: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT seat_id FROM season_places WHERE season_id = $1 AND place_id = $2 AND event_id = $3",
            &[&season_id, &place, &events[1]],
        )
        .await
        .unwrap()
        .get(0);
    app.sql()
        .await
        .execute(
            "UPDATE seats SET held_until = now() - interval '1 second' WHERE id = $1",
            &[&second_night],
        )
        .await
        .unwrap();
    let (status, body) = app.buyer().hold(events[1], &[second_night]).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "the lapsed night is free: {body}"
    );
    lock.commit().await.unwrap();

    let (status, body) = purchase.await.unwrap();
    assert_eq!(status, StatusCode::GONE, "{body}");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM orders WHERE season_hold_id = '{hold}'"
        ))
        .await,
        0
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM season_places p JOIN seats s ON s.id = p.seat_id
              WHERE p.season_id = {season_id} AND p.place_id = {place} AND s.status = 'SOLD'"
        ))
        .await,
        0,
        "no night was sold"
    );
    // Its other nights lapse as the second did (one expiry for all).
    let a_minute_ago: OffsetDateTime = app
        .sql()
        .await
        .query_one("SELECT now() - interval '1 minute'", &[])
        .await
        .unwrap()
        .get(0);
    expire_season_hold_at(&app.own_connection().await, &hold, a_minute_ago).await;
    no_split_season(app).await;
}

#[tokio::test]
async fn a_night_lapsing_and_taken_while_its_season_is_bought_refuses_the_purchase_whole() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 3, 3).await;
    let place = season.places[0];
    let (buyer, hold) = holding(&season, &app, place).await;
    a_night_taken_while_paying_refuses_the_whole_purchase(
        &app,
        season.id,
        &season.events,
        place,
        buyer,
        &hold["hold_id"],
    )
    .await;
}

#[tokio::test]
async fn a_season_purchase_that_commits_first_wins_over_a_claim_after_its_lapse() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 3, 3).await;
    let place = season.places[0];
    let (buyer, hold) = holding(&season, &app, place).await;
    let hold_id = id_segment(&hold["hold_id"]);
    let soon: OffsetDateTime = app
        .sql()
        .await
        .query_one("SELECT now() + interval '1500 milliseconds'", &[])
        .await
        .unwrap()
        .get(0);
    expire_season_hold_at(&app.own_connection().await, &hold_id, soon).await;

    // The purchase sells, then waits to queue its mail while the test
    // holds the outbox; the hold lapses meanwhile.
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE outbox IN SHARE MODE")
        .await
        .unwrap();
    let purchase = {
        let hold_id = hold["hold_id"].clone();
        tokio::spawn(async move { buyer.purchase(&hold_id, "Early", "early@example.com").await })
    };
    app.lock_waiter("INSERT INTO outbox").await;
    app.wait_for_database_time(soon).await;
    // A single buyer now finds the seat lapsed and waits on its row lock.
    let second_night = seats_of(&app, &season, place).await[1];
    let rival = app.buyer();
    let claim = {
        let event = season.events[1];
        tokio::spawn(async move { rival.hold(event, &[second_night]).await })
    };
    app.lock_waiter("FOR UPDATE").await;
    lock.commit().await.unwrap();

    let (status, body) = purchase.await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = claim.await.unwrap();
    assert_eq!(status, StatusCode::CONFLICT, "the night was sold: {body}");
    for (status, _) in place_states(&app, &season, place).await {
        assert_eq!(status, "SOLD");
    }
    no_split_season(&app).await;
}

#[tokio::test]
async fn a_night_given_back_goes_on_sale_alone_and_credit_is_owed_once_it_sells() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 3, 3).await;
    app.sql()
        .await
        .execute("UPDATE seasons SET release_credit = true", &[])
        .await
        .unwrap();
    let place = season.places[2];
    let buyer = app.buyer();
    let (_, hold) = season_hold(&buyer, &season, json!({ "seat_ids": [place] })).await;
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Sub", "sub@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let order_id = order["order_id"].as_str().unwrap().to_string();
    let second = night_code(&app, &order_id, season.events[1]).await;
    let (status, body) = buyer
        .post(&format!("/api/tickets/{second}/release-to-sale"), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["credit"], true);
    assert_eq!(body["credit_cents"], 4500);
    assert_eq!(body["event_id"], season.events[1]);
    let states: Vec<String> = place_states(&app, &season, place)
        .await
        .into_iter()
        .map(|(status, _)| status)
        .collect();
    assert_eq!(states, ["SOLD", "AVAILABLE", "SOLD"]);
    let (status, body) = buyer
        .post(&format!("/api/tickets/{second}/release-to-sale"), json!({}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");

    // The night sells to someone else: the credit is owed.
    let seat = seats_of(&app, &season, place).await[1];
    let (_, single) = crate::after_sale::buy(&app, season.events[1], &[seat], None).await;
    let owed = app
        .count(
            "SELECT count(*) FROM season_releases r JOIN seats s ON s.id = r.seat_id
              WHERE r.credit AND s.status = 'SOLD' AND s.order_id <> r.order_id",
        )
        .await;
    assert_eq!(owed, 1);
    // A single ticket is no season's night.
    let single_code = single["tickets"][0]["code"].as_str().unwrap().to_string();
    let (status, body) = buyer
        .post(
            &format!("/api/tickets/{single_code}/release-to-sale"),
            json!({}),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::CONFLICT, Some("not_a_season_ticket"))
    );
    // A night passed on to a friend: its old code gives nothing back, and
    // says it was passed on (it was a 404, as if never a ticket).
    let third = night_code(&app, &order_id, season.events[2]).await;
    let (status, body) = buyer
        .post(
            &format!("/api/tickets/{third}/transfer"),
            json!({"name": "Grace Hopper", "email": "grace@example.com"}),
        )
        .await;
    assert!(status.is_success(), "{body}");
    let (status, body) = buyer
        .post(&format!("/api/tickets/{third}/release-to-sale"), json!({}))
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::CONFLICT, Some("ticket_transferred")),
        "{body}"
    );
    no_split_season(&app).await;
}

#[tokio::test]
async fn a_partial_season_holds_the_chosen_nights_only() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 3, 3).await;
    app.sql()
        .await
        .execute("UPDATE seasons SET choose_events = 2", &[])
        .await
        .unwrap();
    let place = season.places[0];
    let buyer = app.buyer();
    let (status, body) = season_hold(&buyer, &season, json!({ "seat_ids": [place] })).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_season")),
        "the nights must be chosen: {body}"
    );
    let chosen = [season.events[0], season.events[2]];
    let (status, hold) = season_hold(
        &buyer,
        &season,
        json!({ "seat_ids": [place], "event_ids": chosen }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let states: Vec<String> = place_states(&app, &season, place)
        .await
        .into_iter()
        .map(|(status, _)| status)
        .collect();
    assert_eq!(states, ["HELD", "AVAILABLE", "HELD"]);
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Part", "part@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(order["tickets"].as_array().unwrap().len(), 2);
    no_split_season(&app).await;
}

/// A subscriber of last season (2 nights, one place bought) and next
/// season (copies of its first event; the season not on sale for 30
/// days): the app, the subscriber, last season, next season's id, and the
/// place bought.
async fn subscriber_and_next_season() -> (TestApp, Api, Season, i64, i64) {
    let app = spawn_app_with(roomy).await;
    let last = season_of(&app, 1, 4, 2).await;
    let buyer = app.buyer();
    let place = last.places[1];
    let (_, hold) = season_hold(&buyer, &last, json!({ "seat_ids": [place] })).await;
    let (status, _) = buyer
        .purchase(&hold["hold_id"], "Sub", "sub@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED);

    // Next year's season: copies of last season's first event.
    let starts: Vec<String> = (0..2)
        .map(|n| rfc3339(OffsetDateTime::now_utc() + time::Duration::days(200 + 7 * n)))
        .collect();
    let (_, body) = last
        .manager
        .post(
            &format!("/api/staff/events/{}/copies", last.events[0]),
            json!({ "starts_at": starts }),
        )
        .await;
    let next_events = ids(&body["event_ids"]);
    app.sql()
        .await
        .execute(
            "UPDATE events SET published_at = now() WHERE id = ANY($1)",
            &[&next_events],
        )
        .await
        .unwrap();
    let (_, body) = last
        .manager
        .post(
            "/api/staff/seasons",
            json!({ "name": "Next", "event_ids": next_events,
                    "on_sale_at": rfc3339(OffsetDateTime::now_utc() + time::Duration::days(30)) }),
        )
        .await;
    let next = body["season_id"].as_i64().unwrap();
    (app, buyer, last, next, place)
}

#[tokio::test]
async fn renewal_holds_each_subscribers_places_until_the_deadline_and_mails_a_link() {
    let (app, buyer, last, next, _) = subscriber_and_next_season().await;
    let until = OffsetDateTime::now_utc() + time::Duration::days(14);
    let (status, body) = last
        .manager
        .post(
            &format!("/api/staff/seasons/{next}/renewals"),
            json!({ "from_season_id": last.id, "until": rfc3339(until) }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body, json!({ "held": 1, "skipped": 0 }));
    let (status, body) = last
        .manager
        .post(
            &format!("/api/staff/seasons/{next}/renewals"),
            json!({ "from_season_id": last.id, "until": rfc3339(until) }),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "renewed once: {body}");

    // The same place is held in every night of the new season, until the deadline.
    let renewal = app
        .sql()
        .await
        .query_one(
            "SELECT sh.id::text, sh.expires_at,
                    (SELECT count(*) FROM seats s JOIN holds h ON h.id = s.hold_id
                      WHERE h.season_hold_id = sh.id)
               FROM season_holds sh WHERE sh.season_id = $1",
            &[&next],
        )
        .await
        .unwrap();
    assert_eq!(renewal.get::<_, i64>(2), 2);
    assert_eq!(
        renewal.get::<_, OffsetDateTime>(1).unix_timestamp(),
        until.unix_timestamp()
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'season_renewal' AND recipient = 'sub@example.com'")
            .await,
        1
    );
    // Staff see it, marked as a renewal.
    let (status, holds) = last
        .manager
        .get(&format!("/api/staff/seasons/{next}/holds"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(holds["holds"][0]["buyer_name"], "Sub");
    // The subscriber renews before the season is on sale (the season isn't yet).
    let (status, order) = buyer
        .purchase(
            &Value::String(renewal.get::<_, String>(0)),
            "Sub",
            "sub@example.com",
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(order["tickets"].as_array().unwrap().len(), 2);
    no_split_season(&app).await;
}

#[tokio::test]
async fn a_renewal_night_lapsing_and_taken_while_its_subscriber_pays_has_one_winner() {
    let (app, buyer, last, next, place) = subscriber_and_next_season().await;
    let until = OffsetDateTime::now_utc() + time::Duration::days(14);
    let (status, body) = last
        .manager
        .post(
            &format!("/api/staff/seasons/{next}/renewals"),
            json!({ "from_season_id": last.id, "until": rfc3339(until) }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let renewal: String = app
        .sql()
        .await
        .query_one(
            "SELECT id::text FROM season_holds WHERE season_id = $1",
            &[&next],
        )
        .await
        .unwrap()
        .get(0);
    let events: Vec<i64> = app
        .sql()
        .await
        .query(
            "SELECT event_id FROM season_events WHERE season_id = $1 ORDER BY position",
            &[&next],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    // The new season's place with the subscriber's seat (same labels).
    let new_place: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT n0.id FROM seats s0 JOIN sections sec0 ON sec0.id = s0.section_id
               JOIN sections nsec ON nsec.event_id = $2 AND nsec.name = sec0.name
               JOIN seats n0 ON n0.section_id = nsec.id AND n0.row_label = s0.row_label
                            AND n0.seat_label = s0.seat_label
              WHERE s0.id = $1",
            &[&place, &events[0]],
        )
        .await
        .unwrap()
        .get(0);
    // A single buyer can't have the night while the renewal holds it; once
    // its deadline passes they can, and the subscriber paying as it lapses
    // is refused whole.
    let seat_of_second: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT seat_id FROM season_places WHERE season_id = $1 AND place_id = $2 AND event_id = $3",
            &[&next, &new_place, &events[1]],
        )
        .await
        .unwrap()
        .get(0);
    let (status, _) = app.buyer().hold(events[1], &[seat_of_second]).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "held for the subscriber until the deadline"
    );
    a_night_taken_while_paying_refuses_the_whole_purchase(
        &app,
        next,
        &events,
        new_place,
        buyer,
        &Value::String(renewal),
    )
    .await;
}

#[tokio::test]
async fn staff_release_a_season_hold_in_every_night_never_one_night_alone() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 3, 3).await;
    let place = season.places[1];
    let (buyer, hold) = holding(&season, &app, place).await;
    let hold_id = id_segment(&hold["hold_id"]);
    let night: String = app
        .sql()
        .await
        .query_one(
            "SELECT id::text FROM holds WHERE season_hold_id = $1::text::uuid AND event_id = $2",
            &[&hold_id, &season.events[1]],
        )
        .await
        .unwrap()
        .get(0);
    let clerk = crate::staff::staff_as(&app, "clerk", seatmap::domain::role::Role::BoxOffice).await;
    // The event console's tools refuse one night of it.
    let (status, body) = clerk
        .post(&format!("/api/staff/holds/{night}/release"), json!({}))
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::CONFLICT, Some("season_night")),
        "{body}"
    );
    for (status, _) in place_states(&app, &season, place).await {
        assert_eq!(status, "HELD", "nothing was released");
    }
    // The Seasons page's release frees every night.
    let (status, body) = clerk
        .post(
            &format!("/api/staff/season-holds/{hold_id}/release"),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    for (status, _) in place_states(&app, &season, place).await {
        assert_eq!(status, "AVAILABLE");
    }
    let (status, _) = buyer
        .purchase(&hold["hold_id"], "Too", "late@example.com")
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a released season hold is not bought"
    );
    no_split_season(&app).await;
}

#[tokio::test]
async fn a_season_order_refunded_from_its_console_is_refunded_in_every_night() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 3, 3).await;
    let place = season.places[0];
    let buyer = app.buyer();
    let (_, hold) = season_hold(&buyer, &season, json!({ "seat_ids": [place] })).await;
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Sub", "sub@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let order_id = order["order_id"].as_str().unwrap();
    let (status, body) = season
        .manager
        .post(
            &format!(
                "/api/staff/events/{}/orders/{order_id}/refund",
                season.events[0]
            ),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["tickets"], 3, "{body}");
    assert_eq!(body["amount_cents"], 13_500);
    for (status, _) in place_states(&app, &season, place).await {
        assert_eq!(status, "AVAILABLE", "every night back on sale");
    }
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM tickets WHERE order_id = '{order_id}' AND voided_at IS NULL"
        ))
        .await,
        0
    );
    no_split_season(&app).await;
}

/// The season's map as nobody's is kept as an event's is: unchanged, it
/// costs the database nothing (a rename made straight in the database
/// doesn't show), and a seat change in any of its nights, which the live
/// feed names, makes it anew. A buyer holding places sees theirs fresh.
#[tokio::test]
async fn a_season_map_is_kept_until_the_feed_names_a_change_in_one_of_its_nights() {
    let app = spawn_app_with(|config| {
        roomy(config);
        config.seat_map_cache = Duration::from_millis(400);
    })
    .await;
    let season = season_of(&app, 1, 4, 3).await;
    let http = crate::support::http_client();
    let url = format!("{}/api/seasons/{}/seats", app.base, season.id);
    let read = || async {
        let response = http.get(&url).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let etag = response.headers()["etag"].to_str().unwrap().to_string();
        (etag, response.json::<Value>().await.unwrap())
    };
    let (etag, first) = read().await;
    let name = first["season"]["name"].as_str().unwrap().to_string();
    app.sql()
        .await
        .execute(
            "UPDATE seasons SET name = 'Renamed Behind The Cache' WHERE id = $1",
            &[&season.id],
        )
        .await
        .unwrap();
    // Well past the age, nothing changed: the same map, by its tag too.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let (kept_etag, kept) = read().await;
    assert_eq!(kept["season"]["name"], name.as_str(), "kept, not made anew");
    assert_eq!(kept_etag, etag);
    let revalidated = http
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(revalidated.status(), StatusCode::NOT_MODIFIED);

    // A single buyer takes the place in the last night alone: the feed
    // names that event, and the season's map is made anew with it taken.
    let place = season.places[0];
    let last_night_seat = *seats_of(&app, &season, place).await.last().unwrap();
    let single = app.buyer();
    let (status, body) = single
        .hold(*season.events.last().unwrap(), &[last_night_seat])
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (_, map) = read().await;
        let seat = map["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == place)
            .unwrap()
            .clone();
        if seat["status"] == "held" {
            assert_eq!(map["season"]["name"], "Renamed Behind The Cache");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the season map was never made anew after a night's seat changed: {seat}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A season holder's own map is fresh: theirs is "mine" at once.
    let (holder, _) = holding(&season, &app, season.places[1]).await;
    let (_, own) = holder
        .get(&format!("/api/seasons/{}/seats", season.id))
        .await;
    let mine = own["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == season.places[1])
        .unwrap();
    assert_eq!(mine["status"], "mine", "{mine}");
}

#[tokio::test]
async fn a_season_hold_is_released_only_under_its_own_season() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 4, 2).await;
    let (buyer, hold) = holding(&season, &app, season.places[0]).await;
    let hold_id = hold["hold_id"].as_str().unwrap();
    let (status, body) = buyer
        .delete(&format!(
            "/api/seasons/{}/holds/{hold_id}",
            season.id + 1000
        ))
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "another season's path: {body}"
    );
    for (state, _) in place_states(&app, &season, season.places[0]).await {
        assert_eq!(state, "HELD", "the hold stays");
    }
    let (status, _) = buyer
        .delete(&format!("/api/seasons/{}/holds/{hold_id}", season.id))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn a_season_purchase_refuses_ticket_types_and_codes_each_by_its_own_name() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 4, 2).await;
    let place = season.places[0];
    let (buyer, hold) = holding(&season, &app, place).await;
    let path = format!("/api/holds/{}/purchase", id_segment(&hold["hold_id"]));
    let buyer_fields = json!({"name": "Ada", "email": "ada@example.com"});
    let with = |extra: Value| {
        let mut body = buyer_fields.clone();
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    let (status, body) = buyer
        .post(
            &path,
            with(json!({"price_types": {place.to_string(): "adult"}})),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("price_type_rule")),
        "types only are no code's refusal: {body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains("season"),
        "{body}"
    );
    let (status, body) = buyer
        .post(&path, with(json!({"promo_code": "SPRING20"})))
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("promo_code_not_applicable")
        ),
        "{body}"
    );
    let (status, body) = buyer.post(&path, buyer_fields.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "the hold was kept: {body}");
}

/// The documented sizes of "add performances" complete: 100 copies of a
/// hall the demo's size, three of an arena, and a season of 100 of those
/// events; past what one request can copy in time, a 422 says how many
/// seats it takes, never a 503 to retry.
#[tokio::test]
async fn copies_of_the_documented_sizes_complete_and_larger_ones_are_refused_saying_why() {
    let app = spawn_app_with(roomy).await;
    let manager = staff(&app, "manager").await;
    let starts = |n: usize| -> Vec<String> {
        (1..=n)
            .map(|i| rfc3339(OffsetDateTime::now_utc() + time::Duration::days(7 + i as i64)))
            .collect()
    };
    let copies = |event_id: i64, n: usize| {
        let manager = &manager;
        let body = json!({ "starts_at": starts(n) });
        async move {
            let started = std::time::Instant::now();
            let (status, body) = manager
                .post(&format!("/api/staff/events/{event_id}/copies"), body)
                .await;
            (status, body, started.elapsed())
        }
    };
    let hall = app.create_event(6, 173).await; // 1,038 seats
    let (status, body, took) = copies(hall.id, 100).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["event_ids"].as_array().unwrap().len(), 100);
    println!("100 copies of 1,038 seats: {took:?}");
    // A season of the documented most events: the hall and 99 copies.
    let mut nights = vec![hall.id];
    nights.extend(ids(&body["event_ids"]).into_iter().take(99));
    app.sql()
        .await
        .execute(
            "UPDATE events SET published_at = now() WHERE id = ANY($1)",
            &[&nights],
        )
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let (status, season) = manager
        .post(
            "/api/staff/seasons",
            json!({ "name": "A Hundred Nights", "event_ids": nights }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{season}");
    println!(
        "a season of 100 events of 1,038 seats: {:?}",
        started.elapsed()
    );
    let places = app
        .count(&format!(
            "SELECT count(*) FROM season_places WHERE season_id = {}",
            season["season_id"]
        ))
        .await;
    assert_eq!(places, 103_800, "every place in every night");
    let arena = app.create_event(20, 1000).await; // 20,000 seats
    let (status, body, took) = copies(arena.id, 3).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    println!("3 copies of 20,000 seats: {took:?}");
    let copied = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE event_id IN ({})",
            ids(&body["event_ids"])
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ))
        .await;
    assert_eq!(copied, 60_000, "every seat of every copy");
    let (status, body, _) = copies(arena.id, 21).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_copies")),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains("420000 seats"),
        "the refusal says why: {body}"
    );
}

/// A season order of many tickets is shown 50 at a time, with links to
/// the rest (the signed link's access kept on them); the PDF has them all.
#[tokio::test]
async fn an_order_of_many_tickets_is_shown_a_page_at_a_time() {
    let app = spawn_app_with(roomy).await;
    let season = season_of(&app, 1, 10, 6).await;
    let buyer = app.buyer();
    let (status, hold) = season_hold(&buyer, &season, json!({ "seat_ids": season.places })).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Sub", "sub@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let order_id = order["order_id"].as_str().unwrap().to_string();
    let tickets_on = |html: &str| html.matches("<li class=\"ticket ").count();
    let first = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert_eq!(tickets_on(&first), 50, "the first 50 of 60");
    assert!(
        first.contains("Tickets 1–50 of 60 are on this page"),
        "{first}"
    );
    let next = format!("/orders/{order_id}?page=2");
    assert!(
        first.contains(&format!("href=\"{next}\" rel=\"next\"")),
        "{first}"
    );
    assert!(
        first.contains(&format!("/orders/{order_id}/tickets.pdf")),
        "the PDF of all"
    );
    let second = buyer.get_text(&next).await;
    assert_eq!(tickets_on(&second), 10);
    assert!(
        second.contains("<ol class=\"ticket-list\" start=\"51\">"),
        "{second}"
    );
    assert!(second.contains("rel=\"prev\""), "{second}");
    assert!(!second.contains("rel=\"next\""), "the last page");
    // Past the last page: the last; not a number: a 400.
    assert_eq!(
        tickets_on(&buyer.get_text(&format!("/orders/{order_id}?page=99")).await),
        10
    );
    let status = buyer
        .raw_get(&format!("/orders/{order_id}?page=x"))
        .await
        .status();
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // In German too.
    let german = buyer
        .http
        .get(format!("{}/orders/{order_id}", app.base))
        .header("accept-language", "de")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        german.contains("Karten 1–50 von 60 stehen auf dieser Seite"),
        "{german}"
    );
}

/// A season goes on sale as it is made: over drafts (copies start as
/// drafts) it would be on sale to nobody, so it is refused, saying to
/// publish first; once they are published it is made.
#[tokio::test]
async fn a_season_over_drafts_is_refused_until_they_are_published() {
    let app = spawn_app_with(roomy).await;
    let first = app.create_event(1, 4).await;
    let manager = staff(&app, "manager").await;
    let starts = vec![rfc3339(
        OffsetDateTime::now_utc() + time::Duration::days(14),
    )];
    let (status, body) = manager
        .post(
            &format!("/api/staff/events/{}/copies", first.id),
            json!({ "starts_at": starts }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let copy = ids(&body["event_ids"])[0];
    // The first published, its copy a draft; then both drafts.
    let make = || {
        manager.post(
            "/api/staff/seasons",
            json!({ "name": "Too Soon", "event_ids": [first.id, copy] }),
        )
    };
    let (status, body) = make().await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_season")),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains("publish"),
        "{body}"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM seasons").await,
        0,
        "nothing made"
    );
    app.sql()
        .await
        .execute(
            "UPDATE events SET published_at = now() WHERE id = $1",
            &[&copy],
        )
        .await
        .unwrap();
    let (status, body) = make().await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}
