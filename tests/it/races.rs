//! Races over HTTP for what docs/design.md says the code survives: each test
//! sets up the interleaving it names (holding a lock the app must wait on,
//! or moving the database's idea of an expiry) instead of hoping the
//! scheduler finds it, and fails if the guarantee breaks.
//!
//! Two herds from before the forced versions stay as load tests, named
//! `load_…`: many at once, whatever order the scheduler finds. They check
//! the same outcome under load; the forced tests beside them
//! (`staff_release_and_purchase_each_win_…`, `a_revive_and_a_buyer_each_win_…`)
//! are what decide each interleaving.

use std::time::Duration;

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::staff::{console_action, staff};
use crate::support::{Api, TestApp, id_segment, ids, spawn_app_with};

/// Lock waits in these tests are deliberate and must not time out.
fn patient(config: &mut seatmap::config::Config) {
    config.db.lock_timeout = Duration::from_secs(15);
    config.db.statement_timeout = Duration::from_secs(15);
}

/// The statement a purchase waits in while the test holds the hold's lock.
const PURCHASE_LOCKS_THE_HOLD: &str = "FROM holds WHERE id = $1 AND buyer_id = $2 FOR UPDATE";
/// The statement a purchase waits in while the test holds a SHARE lock
/// on `orders`: its first write, after every check and count.
const PURCHASE_WRITES_THE_ORDER: &str = "INSERT INTO orders";

/// The late buyer's purchase, sent now and answered whenever it can be.
fn purchase_in_background(late: Api, hold: &Value) -> tokio::task::JoinHandle<(StatusCode, Value)> {
    let hold_id = hold["hold_id"].clone();
    tokio::spawn(async move { late.purchase(&hold_id, "Late", "late@example.com").await })
}

fn one_ms_after(at: OffsetDateTime) -> OffsetDateTime {
    at + time::Duration::milliseconds(1)
}

/// A buyer holding seats `seats` and `tickets` GA tickets in `area`.
async fn holding(
    app: &TestApp,
    event_id: i64,
    seats: &[i64],
    area: i64,
    tickets: i64,
) -> (Api, Value) {
    let buyer = app.buyer();
    let (status, body) = buyer.hold(event_id, seats).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = buyer.hold_ga(event_id, area, tickets).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    (buyer, body)
}

/// Nothing of the hold was sold: no order, no sold seat, no sold ticket.
async fn nothing_sold(app: &TestApp) {
    let orders = app.count("SELECT count(*) FROM orders").await;
    let sold_seats = app
        .count("SELECT count(*) FROM seats WHERE status = 'SOLD'")
        .await;
    let sold_tickets = app
        .count("SELECT coalesce(sum(sold), 0)::bigint FROM ga_areas")
        .await;
    assert_eq!(
        (orders, sold_seats, sold_tickets),
        (0, 0, 0),
        "a refused purchase wrote an order, sold a seat or sold a ticket"
    );
}

#[tokio::test]
async fn a_purchase_whose_hold_lapses_while_it_waits_and_loses_seats_to_a_claim_is_refused_whole() {
    let app = spawn_app_with(patient).await;
    let (event, areas) = app.create_ga_event(4, &[("Floor", 3)]).await;
    let s = &event.seat_ids;
    let (late, hold) = holding(&app, event.id, &[s[0], s[1]], areas[0], 2).await;
    let hold_id: uuid::Uuid = id_segment(&hold["hold_id"]).parse().unwrap();

    // The test holds the hold's row lock, so the purchase starts and waits.
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute("SELECT 1 FROM holds WHERE id = $1 FOR UPDATE", &[&hold_id])
        .await
        .unwrap();
    let purchase = purchase_in_background(late, &hold);
    let waiter = app.lock_waiter(PURCHASE_LOCKS_THE_HOLD).await;
    // While it waits, the hold runs out 1 ms after the purchase began (so
    // it began live), and another buyer takes a seat and the tickets.
    let lapsed_at = one_ms_after(waiter.xact_start);
    lock.execute(
        "UPDATE holds SET expires_at = $2 WHERE id = $1",
        &[&hold_id, &lapsed_at],
    )
    .await
    .unwrap();
    app.expire_held_places_at(&app.own_connection().await, hold_id, lapsed_at)
        .await;
    let rival = app.buyer();
    let (status, body) = rival
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({ "seat_ids": [s[1]], "ga": { "area": areas[0], "count": 2 } }),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "the rival takes the lapsed places: {body}"
    );
    lock.commit().await.unwrap();

    let (status, body) = purchase.await.unwrap();
    assert_eq!(
        status,
        StatusCode::GONE,
        "the purchase must not sell what is left of the hold: {body}"
    );
    assert_eq!(body["error"], "hold_expired");
    nothing_sold(&app).await;
    let rival_seats = rival.seats(event.id).await;
    assert_eq!(ids(&rival_seats["hold"]["seat_ids"]), vec![s[1]]);
    app.no_breaches().await;
}

/// The other window: the purchase has counted what it will sell, judged
/// the hold live, and is about to sell when a claim takes a lapsed place.
async fn claim_between_count_and_sale(rival_takes_seat: bool, rival_takes_tickets: bool) {
    let app = spawn_app_with(patient).await;
    // An endpoint that wants the sale: the rolled-back purchase must leave
    // neither its mail nor its webhook delivery behind.
    seatmap::db::webhooks::create(
        &app.sql().await,
        "https://93.184.216.34/hook",
        &seatmap::domain::webhook::new_secret(),
        &["order.created".to_string()],
        None,
    )
    .await
    .unwrap();
    let (event, areas) = app.create_ga_event(4, &[("Floor", 3)]).await;
    let s = &event.seat_ids;
    let (late, hold) = holding(&app, event.id, &[s[0], s[1]], areas[0], 2).await;
    let hold_id: uuid::Uuid = id_segment(&hold["hold_id"]).parse().unwrap();

    // A SHARE lock on orders makes the purchase wait at its first write,
    // after its checks and counts and before it sells anything. Claims
    // never write orders, so the rival is not held up.
    let mut blocker = app.own_connection().await;
    let block = blocker.transaction().await.unwrap();
    block
        .batch_execute("LOCK TABLE orders IN SHARE MODE")
        .await
        .unwrap();
    let purchase = purchase_in_background(late, &hold);
    let waiter = app.lock_waiter(PURCHASE_WRITES_THE_ORDER).await;
    // The hold's places run out 1 ms after the purchase began; the hold row
    // itself is locked by the purchase, and it has already judged it live.
    app.expire_held_places_at(
        &app.own_connection().await,
        hold_id,
        one_ms_after(waiter.xact_start),
    )
    .await;
    let mut cart = json!({});
    if rival_takes_seat {
        cart["seat_ids"] = json!([s[1]]);
    }
    if rival_takes_tickets {
        cart["ga"] = json!({ "area": areas[0], "count": 2 });
    }
    let rival = app.buyer();
    let (status, body) = rival
        .post(&format!("/api/events/{}/holds", event.id), cart)
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "the rival takes the lapsed places: {body}"
    );
    block.rollback().await.unwrap();

    let (status, body) = purchase.await.unwrap();
    assert_eq!(
        status,
        StatusCode::GONE,
        "rival took seat: {rival_takes_seat}, tickets: {rival_takes_tickets}; \
         the purchase must roll back whole: {body}"
    );
    assert_eq!(body["error"], "hold_expired");
    nothing_sold(&app).await;
    assert_eq!(
        app.count("SELECT count(*) FROM outbox").await,
        0,
        "a rolled-back purchase leaves no mail or webhook row"
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn a_seat_taken_between_the_purchases_count_and_its_sale_rolls_the_purchase_back_whole() {
    claim_between_count_and_sale(true, false).await;
}

#[tokio::test]
async fn tickets_taken_between_the_purchases_count_and_their_sale_roll_the_purchase_back_whole() {
    claim_between_count_and_sale(false, true).await;
}

/// A load test (the forced versions: `staff_release_and_purchase_each_win_…`).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn load_staff_releasing_holds_as_their_buyers_pay_never_both_succeed() {
    let app = spawn_app_with(patient).await;
    let event = app.create_event(3, 20).await;
    let clerk = staff(&app, "clerk").await;
    let mut pairs = Vec::new();
    for pair in event.seat_ids.chunks(2) {
        let buyer = app.buyer();
        let (status, hold) = buyer.hold(event.id, pair).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        pairs.push((buyer, hold, pair.to_vec()));
    }
    let outcomes = join_all(pairs.iter().map(|(buyer, hold, _)| async {
        let release_path = format!("/api/staff/holds/{}/release", id_segment(&hold["hold_id"]));
        tokio::join!(
            buyer.purchase(&hold["hold_id"], "Payer", "payer@example.com"),
            clerk.post(&release_path, json!({})),
        )
    }))
    .await;

    let (mut bought, mut released) = (0, 0);
    let client = app.sql().await;
    for ((purchase, release), (_, hold, seats)) in outcomes.iter().zip(&pairs) {
        let sold_to: Vec<Option<String>> = client
            .query(
                "SELECT o.hold_id::text FROM seats s LEFT JOIN orders o ON o.id = s.order_id
                  WHERE s.id = ANY($1) ORDER BY s.id",
                &[seats],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        match (purchase.0, release.0) {
            (StatusCode::CREATED, StatusCode::CONFLICT) => {
                bought += 1;
                assert_eq!(ids(&purchase.1["seat_ids"]), *seats);
                assert!(
                    sold_to
                        .iter()
                        .all(|h| h.as_deref() == hold["hold_id"].as_str()),
                    "bought, so both seats are on its order: {sold_to:?}"
                );
            }
            (StatusCode::CONFLICT, StatusCode::NO_CONTENT) => {
                released += 1;
                assert_eq!(purchase.1["error"], "hold_released", "{}", purchase.1);
                assert!(sold_to.iter().all(Option::is_none), "released, so unsold");
            }
            other => panic!(
                "purchase {} {} and release {} {}: exactly one may win ({other:?})",
                purchase.0, purchase.1, release.0, release.1
            ),
        }
    }
    println!("{bought} bought, {released} released first");
    let available = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'AVAILABLE'",
            event.id
        ))
        .await;
    assert_eq!(
        available,
        2 * released,
        "every released seat is back on sale"
    );
    app.no_breaches().await;
}

/// Claims and purchases in flight while staff end the sale: whatever
/// answered 201 before the end was released by it (or sold), and nothing
/// is held afterwards.
async fn end_sales_amid_traffic(cancel: bool) {
    let app = spawn_app_with(|c| {
        patient(c);
        c.max_seats_per_hold = 100;
    })
    .await;
    let (event, areas) = app.create_ga_event(320, &[("Floor", 400)]).await;
    let clerk = staff(&app, "clerk").await;
    let console = format!("/staff/events/{}", event.id);
    // 20 buyers already holding a seat each, who will pay during the end.
    let mut payers = Vec::new();
    for seat in &event.seat_ids[..20] {
        let buyer = app.buyer();
        let (status, hold) = buyer.hold(event.id, &[*seat]).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        payers.push((buyer, hold));
    }
    // 30 buyers claiming seat after seat of their own (every other claim
    // with a GA ticket) until they are refused: traffic that is still
    // flowing whenever the end lands.
    let answered = std::sync::atomic::AtomicUsize::new(0);
    let floor = areas[0];
    let claimers: Vec<(Api, &[i64])> = event.seat_ids[20..]
        .chunks(10)
        .map(|seats| (app.buyer(), seats))
        .collect();
    let claims = join_all(claimers.iter().map(|(buyer, seats)| {
        let answered = &answered;
        async move {
            let mut answers = Vec::new();
            for (i, seat) in seats.iter().enumerate() {
                let cart = if i % 2 == 0 {
                    json!({ "seat_ids": [seat] })
                } else {
                    json!({ "seat_ids": [seat], "ga": { "area": floor, "count": 1 } })
                };
                let answer = buyer
                    .post(&format!("/api/events/{}/holds", event.id), cart)
                    .await;
                answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let refused = answer.0 != StatusCode::CREATED;
                answers.push(answer);
                if refused {
                    break;
                }
            }
            answers
        }
    }));
    // The payers pay one by one as the claims go on, before and after the end.
    let purchases = join_all(payers.iter().enumerate().map(|(i, (buyer, hold))| {
        let answered = &answered;
        async move {
            while answered.load(std::sync::atomic::Ordering::SeqCst) < 20 + 4 * i {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            buyer
                .purchase(&hold["hold_id"], "Payer", "payer@example.com")
                .await
        }
    }));
    let end = async {
        // Once some claims are through, with the rest still coming.
        while answered.load(std::sync::atomic::Ordering::SeqCst) < 30 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let path = if cancel { "cancel" } else { "close-sales" };
        let response = console_action(
            &clerk,
            event.id,
            &format!("{console}/{path}"),
            &[("confirm", "yes")],
        )
        .await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
    };
    let (claims, purchases, ()) = tokio::join!(claims, purchases, end);
    let claims: Vec<_> = claims.into_iter().flatten().collect();

    let closed_code = if cancel {
        "event_cancelled"
    } else {
        "sales_closed"
    };
    let mut tally = std::collections::BTreeMap::new();
    for (status, body) in &claims {
        match *status {
            StatusCode::CREATED => {}
            StatusCode::CONFLICT => assert_eq!(body["error"], closed_code, "{body}"),
            other => panic!("a claim got {other}: {body}"),
        }
        *tally.entry(format!("claim {status}")).or_insert(0) += 1;
    }
    let mut bought = 0;
    for (status, body) in &purchases {
        match *status {
            StatusCode::CREATED => bought += 1,
            StatusCode::CONFLICT => assert!(
                body["error"] == closed_code || body["error"] == "hold_released",
                "{body}"
            ),
            other => panic!("a purchase got {other}: {body}"),
        }
        *tally.entry(format!("purchase {status}")).or_insert(0) += 1;
    }
    println!("{}: {tally:?}", if cancel { "cancel" } else { "close" });
    assert!(
        tally.get("claim 201 Created").is_some_and(|n| *n > 0)
            && tally.keys().any(|k| k.starts_with("claim 409")),
        "the end must land amid the claims (some before, some after) for this test to mean anything: {tally:?}"
    );
    let held_seats = app
        .count("SELECT count(*) FROM seats WHERE status = 'HELD'")
        .await;
    let held_tickets = app
        .count("SELECT coalesce(sum(held), 0)::bigint FROM ga_areas")
        .await;
    let open_holds = app
        .count("SELECT count(*) FROM holds WHERE state = 'OPEN'")
        .await;
    assert_eq!(
        (held_seats, held_tickets, open_holds),
        (0, 0, 0),
        "a hold slipped in after the end"
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, bought);
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'SOLD'")
            .await,
        bought,
        "every paid seat stays sold"
    );
    if cancel {
        assert_eq!(
            app.count("SELECT count(*) FROM orders WHERE NOT event_cancelled")
                .await,
            0,
            "every order is flagged for a refund"
        );
    }
    app.no_breaches().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn closing_sales_amid_claims_and_purchases_lets_no_hold_slip_in_after_it() {
    end_sales_amid_traffic(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cancelling_amid_claims_and_purchases_lets_no_hold_slip_in_and_flags_every_order() {
    end_sales_amid_traffic(true).await;
}

/// A load test (the forced versions: `a_revive_and_a_buyer_each_win_…`).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn load_reviving_a_lapsed_hold_as_another_buyer_takes_its_seats_gives_them_to_exactly_one() {
    let app = spawn_app_with(patient).await;
    let event = app.create_event(2, 20).await;
    let clerk = staff(&app, "clerk").await;
    let mut lapsed = Vec::new();
    for pair in event.seat_ids.chunks(2) {
        let (status, hold) = app.buyer().hold(event.id, pair).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        app.lapse_hold(&hold["hold_id"]).await;
        lapsed.push((id_segment(&hold["hold_id"]), pair.to_vec(), app.buyer()));
    }
    let outcomes = join_all(lapsed.iter().map(|(hold_id, seats, taker)| {
        let revive = format!("/staff/events/{}/holds/{hold_id}/revive", event.id);
        let clerk = &clerk;
        async move {
            let (revived, taken) = tokio::join!(
                console_action(clerk, event.id, &revive, &[]),
                taker.hold(event.id, seats),
            );
            let status = revived.status();
            assert_eq!(
                status,
                StatusCode::SEE_OTHER,
                "{}",
                revived.text().await.unwrap()
            );
            taken
        }
    }))
    .await;

    let client = app.sql().await;
    let (mut to_taker, mut to_revived) = (0, 0);
    for ((status, body), (old_hold, seats, _)) in outcomes.iter().zip(&lapsed) {
        let owners: Vec<(String, bool)> = client
            .query(
                "SELECT s.hold_id::text, EXISTS (SELECT 1 FROM audit_log a
                                                 WHERE a.action = 'revive_hold' AND a.hold_id = s.hold_id)
                   FROM seats s WHERE s.id = ANY($1) AND s.status = 'HELD' ORDER BY s.id",
                &[seats],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        assert_eq!(owners.len(), 2, "both seats are held by someone");
        assert_eq!(
            owners[0].0, owners[1].0,
            "one hold has both seats: {owners:?}"
        );
        assert_ne!(
            &owners[0].0, old_hold,
            "the lapsed hold itself holds nothing"
        );
        match *status {
            StatusCode::CREATED => {
                to_taker += 1;
                assert_eq!(body["hold_id"].as_str(), Some(owners[0].0.as_str()));
                assert!(!owners[0].1, "taken by the buyer, yet recorded as revived");
            }
            StatusCode::CONFLICT => {
                to_revived += 1;
                assert!(owners[0].1, "the buyer was refused, so staff revived them");
            }
            other => panic!("the buyer got {other}: {body}"),
        }
    }
    println!("{to_taker} taken by the buyer, {to_revived} revived first");
    app.no_breaches().await;
}

#[tokio::test]
async fn a_pick_waiting_on_a_locked_seat_answers_503_at_the_lock_timeout_and_holds_nothing() {
    let app = spawn_app_with(|c| c.db.lock_timeout = Duration::from_millis(300)).await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute("SELECT 1 FROM seats WHERE id = $1 FOR UPDATE", &[&s[1]])
        .await
        .unwrap();

    let buyer = app.buyer();
    let response = buyer
        .http
        .post(format!("{}/api/events/{}/holds", app.base, event.id))
        .json(&json!({ "seat_ids": [s[0], s[1]] }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()["retry-after"], "1");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "unavailable", "{body}");
    // It answered while the lock was still held: it gave up waiting.
    assert_eq!(app.count("SELECT count(*) FROM holds").await, 0);
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status <> 'AVAILABLE'")
            .await,
        0,
        "all or nothing: the free seat was not kept either"
    );
    lock.rollback().await.unwrap();
    assert_eq!(
        buyer.hold(event.id, &[s[0], s[1]]).await.0,
        StatusCode::CREATED
    );
}

/// A trigger in the test's database that fails the first `fail_first`
/// seat claims with a deadlock or serialization failure (alternately),
/// counting every attempt in a sequence that rollbacks don't undo.
async fn inject_claim_failures(app: &TestApp, fail_first: i64) {
    app.own_connection()
        .await
        .batch_execute(&format!(
            "CREATE SEQUENCE claim_attempts;
             CREATE FUNCTION fail_claims() RETURNS trigger LANGUAGE plpgsql AS $$
             DECLARE attempt bigint := nextval('claim_attempts');
             BEGIN
                 IF attempt <= {fail_first} THEN
                     RAISE EXCEPTION 'injected failure %', attempt
                         USING ERRCODE = CASE WHEN attempt % 2 = 1 THEN '40P01' ELSE '40001' END;
                 END IF;
                 RETURN NEW;
             END $$;
             CREATE TRIGGER fail_claims BEFORE UPDATE ON seats
                 FOR EACH ROW WHEN (NEW.status = 'HELD') EXECUTE FUNCTION fail_claims();"
        ))
        .await
        .expect("installing the fault trigger");
}

async fn claim_attempts(app: &TestApp) -> i64 {
    app.count("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM claim_attempts")
        .await
}

async fn retries_so_far(client: &Api) -> f64 {
    client
        .get_text("/metrics")
        .await
        .lines()
        .find_map(|line| line.strip_prefix("seatmap_db_transaction_retries_total "))
        .map_or(0.0, |value| value.trim().parse().expect("a counter value"))
}

#[tokio::test]
async fn deadlocks_and_serialization_failures_are_retried_up_to_four_times_then_answered_503() {
    let app = spawn_app_with(|_| {}).await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    inject_claim_failures(&app, 3).await;

    let retries_before = retries_so_far(&buyer).await;
    let (status, body) = buyer.hold(event.id, &[s[0]]).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "the fourth attempt succeeds: {body}"
    );
    assert_eq!(
        claim_attempts(&app).await,
        4,
        "three failures, then success"
    );
    // The counter is the process's (tests share it): at least our three.
    let retries = retries_so_far(&buyer).await - retries_before;
    assert!(retries >= 3.0, "retries counted: {retries}");

    // Every attempt fails: the fourth failure is answered, not retried.
    app.sql()
        .await
        .batch_execute("SELECT setval('claim_attempts', 1, false)")
        .await
        .unwrap();
    app.sql()
        .await
        .batch_execute(
            "CREATE OR REPLACE FUNCTION fail_claims() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 PERFORM nextval('claim_attempts');
                 RAISE EXCEPTION 'injected failure' USING ERRCODE = '40P01';
             END $$;",
        )
        .await
        .unwrap();
    let other = app.buyer();
    let response = other
        .http
        .post(format!("{}/api/events/{}/holds", app.base, event.id))
        .json(&json!({ "seat_ids": [s[1]] }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()["retry-after"], "1");
    assert_eq!(
        claim_attempts(&app).await,
        i64::from(seatmap::db::MAX_ATTEMPTS),
        "bounded: exactly MAX_ATTEMPTS tries in all"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM holds").await,
        1,
        "only the first buyer's hold exists"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sessions_hold_limit_is_one_count_across_instances_even_all_at_once() {
    let app = spawn_app_with(|c| {
        c.limits.clock = crate::support::frozen_limits_clock();
        c.limits.hold_requests_per_session = 4;
    })
    .await;
    let second = app.second_instance().await;
    let event = app.create_event(1, 12).await;
    let buyer = app.buyer();
    // A first request opens the session (its id is then the counter's key).
    assert_eq!(
        buyer.hold(event.id, &[event.seat_ids[0]]).await.0,
        StatusCode::CREATED
    );
    let elsewhere = buyer.on(&second);
    let answers = join_all((1..9).map(|i| {
        let client = if i % 2 == 0 { &buyer } else { &elsewhere };
        let seat = event.seat_ids[i];
        async move { client.hold(event.id, &[seat]).await }
    }))
    .await;
    let created = answers
        .iter()
        .filter(|(status, _)| *status == StatusCode::CREATED)
        .count();
    let limited = answers
        .iter()
        .filter(|(status, body)| {
            *status == StatusCode::TOO_MANY_REQUESTS && body["error"] == "rate_limited"
        })
        .count();
    assert_eq!(
        (created, limited),
        (3, 5),
        "4 a minute in all, whichever instance counts them: {answers:?}"
    );
}

#[tokio::test]
async fn a_buyers_hold_survives_their_session_id_being_rotated() {
    let app = spawn_app_with(|_| {}).await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let (status, held) = buyer.hold(event.id, &[event.seat_ids[1]]).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");
    let before = buyer.session_cookie().expect("a session");
    // Signing in (say, a box-office clerk buying for themselves) rotates
    // the session id and keeps the session's data.
    crate::staff::create_staff(&app, "clerk").await;
    let response = crate::staff::sign_in_attempt(&buyer, "clerk", crate::staff::PASSWORD).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let after = buyer.session_cookie().expect("a session");
    assert_ne!(before, after, "the id was rotated");

    let seats = buyer.seats(event.id).await;
    assert_eq!(seats["hold"]["hold_id"], held["hold_id"], "{seats}");
    assert_eq!(crate::support::statuses(&seats)[&event.seat_ids[1]], "mine");
    let (status, order) = buyer
        .purchase(&held["hold_id"], "Clerk", "clerk@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
}

/// Staff's release and the buyer's purchase of one hold, made to reach
/// the hold's row lock in the order given: the test holds that lock, sends
/// the first, waits until it waits, sends the second, waits until it waits
/// too, and lets go. PostgreSQL then grants the lock in arrival order.
async fn release_and_purchase(purchase_first: bool) -> (StatusCode, Value, StatusCode, Value) {
    let app = spawn_app_with(patient).await;
    let event = app.create_event(1, 4).await;
    let clerk = staff(&app, "clerk").await;
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &event.seat_ids[..2]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let hold_id = id_segment(&hold["hold_id"]);
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute(
        "SELECT 1 FROM holds WHERE id = $1::text::uuid FOR UPDATE",
        &[&hold_id],
    )
    .await
    .unwrap();
    let release_path = format!("/api/staff/holds/{hold_id}/release");
    let send_purchase = || purchase_in_background(buyer.clone(), &hold);
    let send_release = || {
        let clerk = clerk.clone();
        let path = release_path.clone();
        tokio::spawn(async move { clerk.post(&path, json!({})).await })
    };
    const RELEASE_LOCKS_THE_HOLD: &str = "FROM holds WHERE id = $1 FOR UPDATE";
    let (purchase, release) = if purchase_first {
        let purchase = send_purchase();
        app.lock_waiter(PURCHASE_LOCKS_THE_HOLD).await;
        let release = send_release();
        app.lock_waiter(RELEASE_LOCKS_THE_HOLD).await;
        (purchase, release)
    } else {
        let release = send_release();
        app.lock_waiter(RELEASE_LOCKS_THE_HOLD).await;
        let purchase = send_purchase();
        app.lock_waiter(PURCHASE_LOCKS_THE_HOLD).await;
        (purchase, release)
    };
    lock.rollback().await.unwrap();
    let (purchased, bought) = purchase.await.unwrap();
    let (released, answer) = release.await.unwrap();
    let sold = app
        .count("SELECT count(*) FROM seats WHERE status = 'SOLD'")
        .await;
    let free = app
        .count("SELECT count(*) FROM seats WHERE status = 'AVAILABLE'")
        .await;
    if purchase_first {
        assert_eq!((sold, free), (2, 2), "bought: both seats sold");
    } else {
        assert_eq!((sold, free), (0, 4), "released: both seats back on sale");
    }
    app.no_breaches().await;
    (purchased, bought, released, answer)
}

/// Both orders, forced: the purchase that locks the hold first is bought
/// and staff are told it was; the release that locks it first frees the
/// seats and the buyer is told it was released.
#[tokio::test]
async fn staff_release_and_purchase_each_win_when_they_lock_the_hold_first() {
    let (purchased, bought, released, answer) = release_and_purchase(true).await;
    assert_eq!(purchased, StatusCode::CREATED, "{bought}");
    assert_eq!(released, StatusCode::CONFLICT, "{answer}");
    assert_eq!(answer["error"], "already_purchased");

    let (purchased, bought, released, answer) = release_and_purchase(false).await;
    assert_eq!(released, StatusCode::NO_CONTENT, "{answer}");
    assert_eq!(purchased, StatusCode::CONFLICT, "{bought}");
    assert_eq!(bought["error"], "hold_released");
}

/// Staff reviving a lapsed hold and another buyer claiming its seats,
/// made to reach the seats' row locks in the order given (the test holds
/// both seats' locks; each claim waits in its UPDATE, first come first
/// served). The revive that comes first gets both seats back for the old
/// buyer; the buyer who comes first gets them, and the revive is refused
/// and revives nothing.
async fn revive_and_take(revive_first: bool) {
    let app = spawn_app_with(patient).await;
    let event = app.create_event(1, 4).await;
    let clerk = staff(&app, "clerk").await;
    let seats = event.seat_ids[..2].to_vec();
    let (status, old) = app.buyer().hold(event.id, &seats).await;
    assert_eq!(status, StatusCode::CREATED, "{old}");
    app.lapse_hold(&old["hold_id"]).await;
    let old_hold = id_segment(&old["hold_id"]);
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute(
        "SELECT 1 FROM seats WHERE id = ANY($1) ORDER BY id FOR UPDATE",
        &[&seats],
    )
    .await
    .unwrap();
    let revive_path = format!("/staff/events/{}/holds/{old_hold}/revive", event.id);
    let send_revive = || {
        let clerk = clerk.clone();
        let path = revive_path.clone();
        tokio::spawn(async move {
            let response = console_action(&clerk, event.id, &path, &[]).await;
            assert_eq!(response.status(), StatusCode::SEE_OTHER);
        })
    };
    let taker = app.buyer();
    let send_take = || {
        let taker = taker.clone();
        let seats = seats.clone();
        tokio::spawn(async move { taker.hold(event.id, &seats).await })
    };
    // The revive's claim, and the buyer's pick (one statement).
    const CLAIM: &str = "UPDATE seats||claim_seats_within_share";
    let (revived, taken) = if revive_first {
        let revived = send_revive();
        app.lock_waiters(CLAIM, 1).await;
        let taken = send_take();
        app.lock_waiters(CLAIM, 2).await;
        (revived, taken)
    } else {
        let taken = send_take();
        app.lock_waiters(CLAIM, 1).await;
        let revived = send_revive();
        app.lock_waiters(CLAIM, 2).await;
        (revived, taken)
    };
    lock.rollback().await.unwrap();
    revived.await.unwrap();
    let (status, body) = taken.await.unwrap();
    let holders = app.holders(event.id).await;
    let owner = holders.get(&seats[0]).cloned();
    assert_eq!(
        owner,
        holders.get(&seats[1]).cloned(),
        "one hold has both seats"
    );
    let revived_hold = app
        .sql()
        .await
        .query_opt(
            "SELECT hold_id::text FROM audit_log WHERE action = 'revive_hold'",
            &[],
        )
        .await
        .unwrap()
        .map(|row| row.get::<_, String>(0));
    if revive_first {
        assert_eq!(
            status,
            StatusCode::CONFLICT,
            "the buyer came second: {body}"
        );
        assert!(revived_hold.is_some(), "the revive is in the audit log");
        assert_eq!(owner, revived_hold, "the revived hold has both seats");
    } else {
        assert_eq!(status, StatusCode::CREATED, "the buyer came first: {body}");
        assert_eq!(
            owner.as_deref(),
            body["hold_id"].as_str(),
            "the buyer's hold has both"
        );
        assert_eq!(revived_hold, None, "the refused revive revived nothing");
    }
    assert_ne!(
        owner.as_deref(),
        Some(old_hold.as_str()),
        "the lapsed hold holds nothing"
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn a_revive_and_a_buyer_each_win_the_seats_when_they_come_first() {
    revive_and_take(true).await;
    revive_and_take(false).await;
}
