//! Who gets a seat when many ask at once, and what the database shows after.

use std::collections::{HashMap, HashSet};

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Api, ids, spawn_app, spawn_app_with, statuses};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_sessions_race_for_one_seat_and_exactly_one_wins() {
    let app = spawn_app().await;
    let event = app.create_event(2, 10).await;
    let seat = event.seat_ids[4];
    let buyers: Vec<Api> = (0..200).map(|_| app.buyer()).collect();

    let wanted = [seat];
    let answers = join_all(buyers.iter().map(|b| b.hold(event.id, &wanted))).await;

    let winners: Vec<usize> = answers
        .iter()
        .enumerate()
        .filter(|(_, (status, _))| *status == StatusCode::CREATED)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one 201");
    for (i, (status, body)) in answers.iter().enumerate() {
        if i != winners[0] {
            assert_eq!(*status, StatusCode::CONFLICT, "{body}");
            assert_eq!(body["error"], "seats_unavailable");
            assert_eq!(ids(&body["seat_ids"]), vec![seat]);
        }
    }
    let winner_hold = answers[winners[0]].1["hold_id"]
        .as_str()
        .unwrap()
        .to_string();

    let client = app.sql().await;
    let rows = client
        .query(
            "SELECT status, hold_id::text FROM seats WHERE id = $1",
            &[&seat],
        )
        .await
        .unwrap();
    assert_eq!(rows[0].get::<_, String>(0), "HELD");
    assert_eq!(
        rows[0].get::<_, Option<String>>(1),
        Some(winner_hold.clone())
    );
    // Losers' transactions rolled back whole: no stray holds were left behind.
    let holds = app.count("SELECT count(*) FROM holds").await;
    assert_eq!(holds, 1);
    // The winner sees the seat as theirs; a loser sees it as held.
    assert_eq!(
        statuses(&buyers[winners[0]].seats(event.id).await)[&seat],
        "mine"
    );
    let loser = if winners[0] == 0 { 1 } else { 0 };
    assert_eq!(
        statuses(&buyers[loser].seats(event.id).await)[&seat],
        "held"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn overlapping_multi_seat_claims_are_all_or_nothing_and_never_share_a_seat() {
    let app = spawn_app_with(|c| {
        c.db.lock_timeout = std::time::Duration::from_secs(15);
        c.db.statement_timeout = std::time::Duration::from_secs(15);
    })
    .await;
    let event = app.create_event(1, 12).await;
    let s = &event.seat_ids;
    // The test holds a seat in the middle, so the claims pile up part-way
    // through taking their locks, each holding some seats and waiting for
    // more: the moment a lock order that is not fixed would deadlock.
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute("SELECT 1 FROM seats WHERE id = $1 FOR UPDATE", &[&s[6]])
        .await
        .unwrap();
    // Sixty buyers ask for overlapping triples (in both orders, to invite
    // deadlocks if claims did not lock in a fixed order).
    let requests: Vec<Vec<i64>> = (0..60)
        .map(|i| {
            let start = i % 10;
            let mut triple = vec![s[start], s[start + 1], s[start + 2]];
            if i % 2 == 1 {
                triple.reverse();
            }
            triple
        })
        .collect();
    let buyers: Vec<Api> = requests.iter().map(|_| app.buyer()).collect();
    let claims = join_all(
        buyers
            .iter()
            .zip(&requests)
            .map(|(buyer, seats)| buyer.hold(event.id, seats)),
    );
    let release = async {
        // A bound, not a claim about speed: claims that deadlock are
        // retried and may never all be waiting at once.
        let piled_up = app
            .lock_waiters_within(
                crate::support::PICK_STATEMENT,
                10,
                std::time::Duration::from_secs(5),
            )
            .await;
        lock.rollback().await.unwrap();
        piled_up.err()
    };
    let (answers, fewer_waited) = tokio::join!(claims, release);

    let mut granted: HashMap<i64, usize> = HashMap::new();
    let mut unavailable = 0;
    for (i, (status, body)) in answers.iter().enumerate() {
        match *status {
            StatusCode::CREATED => {
                let mut held = ids(&body["seat_ids"]);
                held.sort_unstable();
                let mut asked = requests[i].clone();
                asked.sort_unstable();
                assert_eq!(held, asked, "a success holds exactly what was asked");
                for seat in held {
                    assert!(
                        granted.insert(seat, i).is_none(),
                        "seat {seat} granted twice"
                    );
                }
            }
            StatusCode::CONFLICT => {
                let unavailable: HashSet<i64> = ids(&body["seat_ids"]).into_iter().collect();
                assert!(!unavailable.is_empty());
                assert!(unavailable.iter().all(|id| requests[i].contains(id)));
            }
            StatusCode::SERVICE_UNAVAILABLE => unavailable += 1,
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert!(!granted.is_empty(), "someone must win");

    // The database agrees: each granted seat is held by its winner's hold,
    // and no other seat is held at all (losers left nothing behind).
    let holders = app.holders(event.id).await;
    assert_eq!(holders.len(), granted.len());
    for (seat, hold) in holders {
        assert_eq!(answers[granted[&seat]].1["hold_id"].as_str().unwrap(), hold);
    } // Retries would hide a deadlock from the answers; PostgreSQL counts them.
    let deadlocks = app.settled_deadlocks().await;
    assert_eq!(
        (deadlocks, unavailable, fewer_waited),
        (0, 0, None),
        "overlapping claims deadlocked (retried, and 503 once retries ran out); \
         (deadlocks, 503s, how many waited if not 10)"
    );
}

#[tokio::test]
async fn one_hold_per_session_whose_expiry_is_fixed_by_the_first_seat() {
    let app = spawn_app().await;
    let event = app.create_event(1, 10).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let rival = app.buyer();

    let (status, first) = buyer.hold(event.id, &[s[0]]).await;
    assert_eq!(status, StatusCode::CREATED);
    // Three minutes left, not the ten a fresh hold gets: adding seats
    // must leave it there, not start the clock again.
    let three_minutes: time::OffsetDateTime = app
        .sql()
        .await
        .query_one(
            "SELECT date_trunc('second', now()) + interval '3 minutes'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    app.expire_hold_at(&first["hold_id"], three_minutes).await;
    let first = json!({ "hold_id": first["hold_id"], "expires_at": three_minutes.format(&time::format_description::well_known::Rfc3339).unwrap() });
    let (status, second) = buyer.hold(event.id, &[s[1], s[2]]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        second["hold_id"], first["hold_id"],
        "one hold per session per event"
    );
    assert_eq!(
        second["expires_at"], first["expires_at"],
        "adding seats does not extend it"
    );
    assert_eq!(ids(&second["seat_ids"]), vec![s[0], s[1], s[2]]);

    // A failed action leaves the hold (and its expiry) as it was.
    let (status, _) = rival.hold(event.id, &[s[5]]).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = buyer.hold(event.id, &[s[3], s[5]]).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let seats = buyer.seats(event.id).await;
    assert_eq!(seats["hold"]["expires_at"], first["expires_at"]);
    assert_eq!(ids(&seats["hold"]["seat_ids"]), vec![s[0], s[1], s[2]]);
    assert_eq!(
        statuses(&seats)[&s[3]],
        "available",
        "all or nothing: s3 not taken"
    );
    assert_eq!(statuses(&seats)[&s[5]], "held");

    // Asking again for a seat already held is harmless.
    let (status, again) = buyer.hold(event.id, &[s[0]]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(ids(&again["seat_ids"]), vec![s[0], s[1], s[2]]);
}

#[tokio::test]
async fn the_hold_limit_counts_seats_already_held() {
    let app = spawn_app_with(|c| c.max_seats_per_hold = 3).await;
    let event = app.create_event(1, 10).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    assert_eq!(
        buyer.hold(event.id, &[s[0], s[1]]).await.0,
        StatusCode::CREATED
    );
    let (status, body) = buyer.hold(event.id, &[s[2], s[3]]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "hold_limit");
    let seats = buyer.seats(event.id).await;
    assert_eq!(ids(&seats["hold"]["seat_ids"]), vec![s[0], s[1]]);
    assert_eq!(statuses(&seats)[&s[2]], "available");
    assert_eq!(buyer.hold(event.id, &[s[2]]).await.0, StatusCode::CREATED);
}

#[tokio::test]
async fn an_expired_hold_is_claimable_and_reads_as_available_without_any_sweeper() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let first = app.buyer();
    let second = app.buyer();
    let (status, held) = first.hold(event.id, &[s[0], s[1]]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(second.hold(event.id, &[s[1]]).await.0, StatusCode::CONFLICT);

    app.lapse_hold(&held["hold_id"]).await;
    let seats = second.seats(event.id).await;
    assert_eq!(statuses(&seats)[&s[0]], "available");
    assert_eq!(statuses(&seats)[&s[1]], "available");
    let (_, events) = second.get("/api/events").await;
    assert_eq!(events[0]["seats_available"], 6);

    let (status, body) = second.hold(event.id, &[s[1]]).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // The first buyer's next pick opens a fresh hold.
    let (status, fresh) = first.hold(event.id, &[s[3]]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(ids(&fresh["seat_ids"]), vec![s[3]]);
}

#[tokio::test]
async fn releasing_seats_puts_them_back_on_sale() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let other = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1], s[2]]).await;
    let hold_id = hold["hold_id"].as_str().unwrap();

    let (status, _) = buyer
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[1]))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(other.hold(event.id, &[s[1]]).await.0, StatusCode::CREATED);
    // Releasing a seat that is not in the hold is a 404 and changes nothing.
    let (status, _) = buyer
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[1]))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(statuses(&other.seats(event.id).await)[&s[1]], "mine");

    let (status, _) = buyer.delete(&format!("/api/holds/{hold_id}")).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let seats = buyer.seats(event.id).await;
    assert!(seats["hold"].is_null());
    assert_eq!(statuses(&seats)[&s[0]], "available");
    assert_eq!(statuses(&seats)[&s[2]], "available");
    assert_eq!(statuses(&seats)[&s[1]], "held");
}

#[tokio::test]
async fn a_session_cannot_release_or_buy_another_sessions_hold() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let owner = app.buyer();
    let intruder = app.buyer();
    let (_, hold) = owner.hold(event.id, &[s[0], s[1]]).await;
    let hold_id = hold["hold_id"].as_str().unwrap();

    let (status, body) = intruder.delete(&format!("/api/holds/{hold_id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, _) = intruder
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[0]))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = intruder
        .purchase(&hold["hold_id"], "Mallory", "mallory@example.com")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let seats = owner.seats(event.id).await;
    assert_eq!(ids(&seats["hold"]["seat_ids"]), vec![s[0], s[1]]);
    let orders: i64 = app.count("SELECT count(*) FROM orders").await;
    assert_eq!(orders, 0);
}

/// The pick's one statement (migration V29), tested as a query: it holds
/// all or nothing, answers a taken seat as a row with nothing held (and
/// no hold left behind) while still counting the request, refuses a
/// seat of another event and a spent limit with its SQLSTATE, and takes
/// back a seat whose hold lapsed.
#[tokio::test]
async fn the_pick_statement_holds_all_or_nothing_refuses_by_sqlstate_and_counts_every_request() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let other = app.create_event(1, 1).await;
    let s = &event.seat_ids;
    let db = app.sql().await;
    let statement = db
        .prepare(
            "SELECT outcome, refused, reclaimed, hold_id, id FROM claim_seats_for_buyer(
                 $1, $2, $3, $4, 600, NULL, NULL, 0, 0, $5, $6, NULL, 8)",
        )
        .await
        .unwrap();
    // Each buyer may make 3 requests a minute; `hold` is the id of the
    // hold the pick opens, if it opens one.
    let pick_with = |buyer: uuid::Uuid, seats: Vec<i64>, hold: uuid::Uuid| {
        let (db, statement, event_id) = (&db, &statement, event.id);
        async move {
            let keys = vec![format!("hold:buyer:{buyer}")];
            db.query(
                statement,
                &[&event_id, &buyer, &seats, &hold, &keys, &vec![3i32]],
            )
            .await
        }
    };
    let pick = |buyer: uuid::Uuid, seats: Vec<i64>| pick_with(buyer, seats, uuid::Uuid::new_v4());
    let sqlstate =
        |err: tokio_postgres::Error| err.as_db_error().unwrap().code().code().to_string();
    let hits = |buyer: uuid::Uuid| {
        let db = &db;
        async move {
            db.query_opt(
                "SELECT hits FROM rate_limits WHERE key = $1",
                &[&format!("hold:buyer:{buyer}")],
            )
            .await
            .unwrap()
            .map_or(0, |row| row.get::<_, i32>(0))
        }
    };
    let is_free = |seat: i64| {
        let db = &db;
        async move {
            db.query_one(
                "SELECT status = 'AVAILABLE' FROM seats WHERE id = $1",
                &[&seat],
            )
            .await
            .unwrap()
            .get::<_, bool>(0)
        }
    };
    let (ada, grace) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());

    let ada_hold = uuid::Uuid::new_v4();
    let held = pick_with(ada, vec![s[0], s[1]], ada_hold).await.unwrap();
    assert_eq!(held.len(), 2, "one row per seat the hold has");
    assert!(held.iter().all(|row| row.get::<_, &str>(0) == "held"));
    assert!(
        held.iter()
            .all(|row| row.get::<_, uuid::Uuid>(3) == ada_hold)
    );

    let taken = pick(grace, vec![s[1], s[2]]).await.unwrap();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].get::<_, &str>(0), "taken");
    assert_eq!(taken[0].get::<_, Vec<i64>>(1), vec![s[1]]);
    let graces_holds: i64 = db
        .query_one("SELECT count(*) FROM holds WHERE buyer_id = $1", &[&grace])
        .await
        .unwrap()
        .get(0);
    assert_eq!(graces_holds, 0, "a refused pick leaves no hold behind");
    assert!(
        is_free(s[2]).await,
        "all or nothing: the free seat asked for with it stays free"
    );
    assert_eq!(hits(grace).await, 1, "the refusal counted");

    let unknown = pick(grace, vec![other.seat_ids[0]]).await.unwrap_err();
    let unknown = unknown.as_db_error().expect("a database error");
    assert_eq!(unknown.code().code(), "SM4SE");
    assert_eq!(
        unknown.detail(),
        Some(other.seat_ids[0].to_string().as_str())
    );
    assert_eq!(hits(grace).await, 1, "a raised refusal writes nothing");
    assert_eq!(
        sqlstate(pick(grace, Vec::new()).await.unwrap_err()),
        "22023"
    );

    // Ada's hold lapses: Grace takes its seat back (lazy expiry), counted.
    app.lapse_hold(&serde_json::Value::String(ada_hold.to_string()))
        .await;
    let reclaimed = pick(grace, vec![s[1]]).await.unwrap();
    assert_eq!(reclaimed.len(), 1);
    assert_eq!(reclaimed[0].get::<_, &str>(0), "held");
    assert_eq!(
        reclaimed[0].get::<_, i32>(2),
        1,
        "taken back from a lapsed hold"
    );
    assert_eq!(hits(grace).await, 2);

    // Grace's third request spends her limit of 3; the fourth is refused
    // before it takes any lock.
    pick(grace, vec![s[3]]).await.unwrap();
    assert_eq!(
        sqlstate(pick(grace, vec![s[2]]).await.unwrap_err()),
        "SM429"
    );
    assert!(is_free(s[2]).await);
}
