//! Taking the money (issue 30), against the Stripe stand-in
//! (`crates/stripe-standin`): a checkout waits for its payment with its
//! seats held; the webhook sells them once however often it comes; bad
//! signatures write nothing; a payment after the deadline re-claims free
//! seats or is refunded, never selling a seat twice (raced in both orders,
//! and 200 times at once); a box-office reservation lapsing as staff take
//! the money; refunds through the provider.

use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use stripe_standin::StandIn;

use crate::staff::staff;
use crate::support::{Api, TestApp, id_segment, spawn_app, spawn_app_with};
use seatmap::config::{Secret, StripeSettings};

pub(crate) const SECRET: &str = "whsec_seatmap_tests";

/// An app taking payment through a fresh stand-in, with `window` to pay.
/// `worker_idle`: the payment worker's poll, long to keep it from
/// expiring sessions mid-test, short to watch it work.
pub(crate) async fn paying_app(window: Duration, worker_idle: Duration) -> (TestApp, StandIn) {
    paying_app_with(window, worker_idle, |_| {}).await
}

/// [`paying_app`], with the configuration adjusted further.
pub(crate) async fn paying_app_with(
    window: Duration,
    worker_idle: Duration,
    adjust: impl FnOnce(&mut seatmap::config::Config),
) -> (TestApp, StandIn) {
    let standin = StandIn::start(SECRET)
        .await
        .expect("starting the Stripe stand-in");
    let api_url = standin.base_url.clone();
    let app = spawn_app_with(|config| {
        config.payments.stripe = Some(StripeSettings {
            secret_key: Secret::new("sk_test_seatmap"),
            webhook_secret: Secret::new(SECRET),
            api_url,
        });
        config.payments.window = window;
        config.payments.poll_every = worker_idle;
        config.payments.first_retry = Duration::from_millis(50);
        adjust(config);
    })
    .await;
    standin.set_webhook_url(&format!("{}/payments/stripe/webhook", app.base));
    (app, standin)
}

pub(crate) async fn set_payment(app: &TestApp, event_id: i64, mode: &str) {
    app.sql()
        .await
        .execute(
            "UPDATE events SET payment = $2 WHERE id = $1",
            &[&event_id, &mode],
        )
        .await
        .expect("setting the event's payment");
}

/// Holds `seats` for a new buyer and checks out: the 202's body.
async fn checkout(app: &TestApp, event_id: i64, seats: &[i64]) -> (Api, Value) {
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event_id, seats).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{order}");
    (buyer, order)
}

/// The order's session id, from the payment URL the stand-in made.
pub(crate) fn session_of(order: &Value) -> String {
    order["payment_url"]
        .as_str()
        .and_then(|url| url.rsplit('/').next())
        .unwrap_or_else(|| panic!("no payment_url in {order}"))
        .to_string()
}

pub(crate) async fn order_status(buyer: &Api, order: &Value) -> Value {
    let (status, body) = buyer
        .get(&format!("/api/orders/{}", id_segment(&order["order_id"])))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

pub(crate) async fn stored_status(app: &TestApp, order: &Value) -> String {
    let id: uuid::Uuid = id_segment(&order["order_id"]).parse().unwrap();
    app.sql()
        .await
        .query_one("SELECT status FROM orders WHERE id = $1", &[&id])
        .await
        .unwrap()
        .get(0)
}

/// Runs every due provider call (refunds, expiries) now.
pub(crate) async fn drain_provider_calls(app: &TestApp) -> usize {
    let settings = app.config.payments.clone();
    let stripe = seatmap::stripe::Stripe::new(settings.stripe.as_ref().unwrap()).unwrap();
    let worker =
        seatmap::payments::Worker::new(app.pool.clone(), std::sync::Arc::new(stripe), &settings);
    seatmap::payments::drain(&worker)
        .await
        .expect("running provider calls")
}

/// Makes the one due provider call (if any); true if one was due.
async fn one_provider_call(app: &TestApp) -> bool {
    let settings = app.config.payments.clone();
    let stripe = seatmap::stripe::Stripe::new(settings.stripe.as_ref().unwrap()).unwrap();
    let worker =
        seatmap::payments::Worker::new(app.pool.clone(), std::sync::Arc::new(stripe), &settings);
    worker.work_one().await.expect("a provider call")
}

/// Moves the order's deadline (and its seats') to `secs` from now: the
/// test's clock.
pub(crate) async fn deadline_in(app: &TestApp, order: &Value, secs: f64) {
    let id: uuid::Uuid = id_segment(&order["order_id"]).parse().unwrap();
    let client = app.own_connection().await;
    client
        .execute(
            "UPDATE orders SET pay_by = now() + make_interval(secs => $2) WHERE id = $1",
            &[&id, &secs],
        )
        .await
        .unwrap();
    client
        .execute(
            "UPDATE seats s SET held_until = o.pay_by FROM orders o
              WHERE o.id = $1 AND s.hold_id = o.hold_id AND s.status = 'HELD'",
            &[&id],
        )
        .await
        .unwrap();
    client
        .execute(
            "UPDATE ga_tickets g SET held_until = o.pay_by FROM orders o
              WHERE o.id = $1 AND g.hold_id = o.hold_id AND g.order_id IS NULL",
            &[&id],
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn an_online_checkout_holds_the_seats_until_stripe_confirms_the_payment() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(60)).await;
    let event = app.create_event(2, 4).await;
    set_payment(&app, event.id, "online").await;
    let seats = &event.seat_ids[0..2];
    let (buyer, order) = checkout(&app, event.id, seats).await;
    assert_eq!(order["status"], "pending_payment");
    assert_eq!(order["payment"], "online");
    assert!(
        order["payment_url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/c/pay/cs_test_", standin.base_url)),
        "{order}"
    );
    assert!(
        order["pay_by"].is_string() && order["amount_cents"].as_i64().unwrap() > 0,
        "{order}"
    );
    // Held by the order, no ticket yet; the hold can't be bought or grown.
    let read = order_status(&buyer, &order).await;
    assert_eq!(read["status"], "pending_payment");
    assert_eq!(read["tickets"].as_array().unwrap().len(), 0);
    let held = app.holders(event.id).await;
    assert!(seats.iter().all(|seat| held.contains_key(seat)), "{held:?}");
    // The checked-out hold can't be bought again: it waits for the payment.
    let (_, seats_now) = buyer.get(&format!("/api/events/{}/seats", event.id)).await;
    assert!(
        seats_now["hold"].is_null(),
        "no open hold now: {}",
        seats_now["hold"]
    );
    let hold_id: String = app
        .sql()
        .await
        .query_one("SELECT hold_id::text FROM orders", &[])
        .await
        .unwrap()
        .get(0);
    let (status, again) = buyer
        .purchase(&json!(hold_id), "Ada", "ada@example.com")
        .await;
    assert_eq!(
        (status, again["error"].clone()),
        (StatusCode::CONFLICT, json!("awaiting_payment")),
        "{again}"
    );
    // One session made, for the order.
    assert_eq!(standin.calls(), vec!["/v1/checkout/sessions"]);

    let session = session_of(&order);
    let (body, signature) = standin.complete(&session).expect("paying the session");
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    let read = order_status(&buyer, &order).await;
    assert_eq!(read["status"], "paid", "{read}");
    assert_eq!(read["tickets"].as_array().unwrap().len(), 2, "{read}");
    let sold = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE status = 'SOLD' AND id IN ({}, {})",
            seats[0], seats[1]
        ))
        .await;
    assert_eq!(sold, 2);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'order_confirmation'")
            .await,
        1
    );
    // The expiry call queued for the deadline is not needed any more.
    assert_eq!(
        app.count("SELECT count(*) FROM payment_jobs WHERE kind = 'expire' AND done_at IS NULL")
            .await,
        0
    );
    app.no_breaches().await;
}

/// Five deliveries of one event, forced to overlap: the test holds the
/// order's row (FOR NO KEY UPDATE, which the event record's foreign key
/// doesn't wait on but the settlement's lock does), so the first delivery
/// waits inside its transaction with its event id recorded (uncommitted)
/// and the other four wait on that record; then the order is let go. One
/// sale, one set of tickets.
#[tokio::test]
async fn the_same_webhook_delivered_five_times_at_once_sells_once() {
    let (app, standin) = paying_app_with(Duration::from_secs(900), Duration::from_secs(60), |c| {
        c.db.lock_timeout = Duration::from_secs(60);
        c.db.statement_timeout = Duration::from_secs(90);
    })
    .await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..3]).await;
    let (body, signature) = standin.complete(&session_of(&order)).unwrap();
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute(
        "SELECT 1 FROM orders WHERE id = $1::text::uuid FOR NO KEY UPDATE",
        &[&id_segment(&order["order_id"])],
    )
    .await
    .unwrap();
    let deliveries = tokio::spawn({
        let standin = standin.clone();
        async move {
            futures::future::join_all((0..5).map(|_| standin.deliver(&body, &signature))).await
        }
    });
    // One delivery inside, on the order's lock; four on its event's record
    // (both statements name the orders).
    app.lock_waiters("orders", 5).await;
    lock.commit().await.unwrap();
    for status in deliveries.await.unwrap() {
        assert_eq!(status.unwrap(), 200);
    }
    let read = order_status(&buyer, &order).await;
    assert_eq!(read["status"], "paid");
    assert_eq!(
        app.count("SELECT count(*) FROM tickets").await,
        3,
        "one set of tickets"
    );
    assert_eq!(app.count("SELECT count(*) FROM order_lines").await, 3);
    assert_eq!(app.count("SELECT count(*) FROM stripe_events").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'order_confirmation'")
            .await,
        1,
        "one confirmation"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'payment_refunded_unfulfilled'")
            .await,
        0
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn a_bad_or_stale_signature_is_refused_and_writes_nothing() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(60)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let (body, good) = standin.complete(&session_of(&order)).unwrap();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let stale = now - 301;
    let cases = [
        (
            "another secret",
            format!(
                "t={now},v1={}",
                stripe_standin::sign("whsec_other", now, body.as_bytes())
            ),
        ),
        (
            "six minutes old",
            format!(
                "t={stale},v1={}",
                stripe_standin::sign(SECRET, stale, body.as_bytes())
            ),
        ),
        ("no v1", format!("t={now}")),
        ("garbage", "nonsense".to_string()),
    ];
    let url = format!("{}/payments/stripe/webhook", app.base);
    let http = crate::support::http_client();
    for (what, header) in &cases {
        let response = http
            .post(&url)
            .header("Stripe-Signature", header)
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{what}");
    }
    // The right signature over a changed body.
    let tampered = body.replace("\"paid\"", "\"unpaid\"");
    let response = http
        .post(&url)
        .header("Stripe-Signature", &good)
        .body(tampered)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST, "tampered body");
    let response = http.post(&url).body(body.clone()).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST, "no header");

    assert_eq!(
        app.count("SELECT count(*) FROM stripe_events").await,
        0,
        "nothing written"
    );
    assert_eq!(
        order_status(&buyer, &order).await["status"],
        "pending_payment"
    );
    assert_eq!(app.count("SELECT count(*) FROM tickets").await, 0);
    // The genuine one still goes through.
    assert_eq!(standin.deliver(&body, &good).await.unwrap(), 200);
    assert_eq!(order_status(&buyer, &order).await["status"], "paid");
}

/// What a rival did to the first seat of an order, by the order's number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Rival {
    /// Holds it (every even order): the payment must be refunded.
    Keeps,
    /// Took it and released it: AVAILABLE again, re-claimed by the payment.
    Released,
    /// Took it and let its own hold lapse: free again the same way.
    Lapsed,
    /// Nobody touched it: still the order's, lapsed.
    None,
}

fn rival_of(i: usize) -> Rival {
    match i % 8 {
        0 | 2 | 4 | 6 => Rival::Keeps,
        1 => Rival::Released,
        5 => Rival::Lapsed,
        _ => Rival::None,
    }
}

/// The paid-late race: 200 orders pass their deadline; rivals take the
/// first seat of every even order (and of some odd ones, which they then
/// release or let lapse); then each order's payment arrives (Stripe took
/// the money before our expiry call reached it). No seat is sold twice;
/// each order is paid with its seats, or refunded in full; the money taken
/// is the money for seats sold plus the money refunded, to the cent.
#[tokio::test]
async fn two_hundred_payments_after_the_deadline_sell_free_seats_and_refund_the_rest() {
    const ORDERS: usize = 200;
    let (app, standin) = paying_app(Duration::from_secs(5), Duration::from_secs(600)).await;
    let event = app.create_event(20, 20).await;
    set_payment(&app, event.id, "online").await;
    let started = Instant::now();
    let mut orders: Vec<(Api, Value)> = Vec::new();
    // Half the orders at another price, so an amount mixed up between
    // orders shows in the money's sum.
    for half in [0..ORDERS / 2, ORDERS / 2..ORDERS] {
        let some: Vec<(Api, Value)> = futures::stream::iter(half)
            .map(|i| {
                let app = &app;
                let seats = [event.seat_ids[2 * i], event.seat_ids[2 * i + 1]];
                async move { checkout(app, event.id, &seats).await }
            })
            .buffered(8)
            .collect()
            .await;
        orders.extend(some);
        app.sql()
            .await
            .execute(
                "UPDATE price_tiers SET price_cents = price_cents + 1234 WHERE event_id = $1",
                &[&event.id],
            )
            .await
            .unwrap();
    }
    let checked_out = started.elapsed();
    // Every deadline passes.
    let sql = app.sql().await;
    while sql
        .query_one("SELECT count(*) FROM orders WHERE pay_by > now()", &[])
        .await
        .unwrap()
        .get::<_, i64>(0)
        > 0
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Rivals claim the first seat of the orders that have one.
    let rivals: Vec<(usize, i64, String)> =
        futures::stream::iter((0..ORDERS).filter(|i| rival_of(*i) != Rival::None))
            .map(|i| {
                let app = &app;
                let seat = event.seat_ids[2 * i];
                async move {
                    let rival = app.buyer();
                    let (status, hold) = rival.hold(event.id, &[seat]).await;
                    assert_eq!(
                        status,
                        StatusCode::CREATED,
                        "rival on a lapsed seat: {hold}"
                    );
                    match rival_of(i) {
                        Rival::Released => {
                            let (status, _) = rival
                                .delete(&format!("/api/holds/{}", id_segment(&hold["hold_id"])))
                                .await;
                            assert_eq!(status, StatusCode::NO_CONTENT);
                        }
                        Rival::Lapsed => app.lapse_hold(&hold["hold_id"]).await,
                        _ => {}
                    }
                    (i, seat, id_segment(&hold["hold_id"]))
                }
            })
            .buffer_unordered(8)
            .collect()
            .await;
    // Then every payment arrives, 16 at a time.
    let settle_started = Instant::now();
    let events: Vec<(String, String)> = orders
        .iter()
        .map(|(_, order)| standin.complete(&session_of(order)).unwrap())
        .collect();
    let answers: Vec<u16> = futures::stream::iter(events.iter())
        .map(|(body, signature)| async { standin.deliver(body, signature).await.unwrap() })
        .buffer_unordered(16)
        .collect()
        .await;
    let settled = settle_started.elapsed();
    assert!(answers.iter().all(|status| *status == 200), "{answers:?}");

    let mut paid = 0;
    let mut unfulfilled = 0;
    for (i, (_, order)) in orders.iter().enumerate() {
        let status = stored_status(&app, order).await;
        if rival_of(i) == Rival::Keeps {
            assert_eq!(
                status, "refunded_unfulfilled",
                "order {i} lost a seat to a rival"
            );
            unfulfilled += 1;
        } else {
            assert_eq!(
                status,
                "paid",
                "order {i}'s seats were free again ({:?})",
                rival_of(i)
            );
            paid += 1;
        }
    }
    // Every rival that kept its seat holds it still, by its own hold; no
    // seat is on two orders, and every seat sold is a paid order's.
    let held = app.holders(event.id).await;
    let kept: Vec<&(usize, i64, String)> = rivals
        .iter()
        .filter(|(i, _, _)| rival_of(*i) == Rival::Keeps)
        .collect();
    for (i, seat, hold) in &kept {
        assert_eq!(
            held.get(seat),
            Some(hold),
            "the rival of order {i} lost seat {seat}"
        );
    }
    assert_eq!(
        app.count(
            "SELECT count(*) FROM (SELECT seat_id FROM tickets WHERE seat_id IS NOT NULL
                AND voided_at IS NULL GROUP BY seat_id HAVING count(*) > 1) twice"
        )
        .await,
        0
    );
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'SOLD'")
            .await,
        2 * paid
    );
    assert_eq!(
        app.count(
            "SELECT count(*) FROM order_lines l JOIN orders o ON o.id = l.order_id
              WHERE o.status <> 'paid'"
        )
        .await,
        0,
        "no line on an order that was not paid"
    );
    // The unfulfilled orders' other seats went back on sale.
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'AVAILABLE'")
            .await,
        400 - 2 * paid - kept.len() as i64
    );
    // Refunds go out through the provider, each for the whole amount paid,
    // and each buyer is told by e-mail.
    let calls = drain_provider_calls(&app).await;
    let refunds = standin.refunds();
    assert_eq!(
        refunds.len() as i64,
        unfulfilled,
        "one refund per unfulfilled order ({calls} calls)"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'payment_refunded'")
            .await,
        unfulfilled
    );
    let captures = standin.captures();
    let taken: i64 = captures.iter().map(|c| c.amount).sum();
    let refunded: i64 = refunds.iter().map(|r| r.amount).sum();
    // Every order line is a seat sold (the check above: none on an order
    // not paid), so their sum is the money for seats sold.
    let sold_for: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT coalesce(sum(price_cents), 0)::bigint FROM order_lines",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        taken,
        sold_for + refunded,
        "money taken = seats sold + refunded, to the cent"
    );
    for refund in &refunds {
        let capture = captures
            .iter()
            .find(|c| c.payment_intent == refund.payment_intent)
            .unwrap();
        assert_eq!(refund.amount, capture.amount, "refunded in full");
    }
    app.no_breaches().await;
    println!(
        "paid-late race: {ORDERS} orders checked out in {checked_out:.2?}; {} rival claims \
         ({} kept, the rest released or lapsed); {ORDERS} payments settled in {settled:.2?}: \
         {paid} paid late with their seats, {unfulfilled} refunded in full; \
         taken {taken}, sold {sold_for}, refunded {refunded}",
        rivals.len(),
        kept.len()
    );
}

/// A rival claims the lapsed seat of an order while its payment arrives.
/// Which one locks the seat first wins; the other is refused (the rival)
/// or refunded (the payment). Forced both ways with a lock of the test's.
#[tokio::test]
async fn a_payment_racing_a_rival_at_the_deadline_is_decided_by_the_seat_lock_both_ways() {
    for payment_first in [true, false] {
        // The blocked transactions wait through the test's sleep and polls:
        // a lock timeout longer than those, on a loaded machine.
        let (app, standin) = paying_app_with(
            Duration::from_secs(900),
            Duration::from_secs(600),
            |config| {
                config.db.lock_timeout = Duration::from_secs(15);
                config.db.statement_timeout = Duration::from_secs(30);
            },
        )
        .await;
        let event = app.create_event(1, 4).await;
        set_payment(&app, event.id, "online").await;
        let seat = event.seat_ids[0];
        let (buyer, order) = checkout(&app, event.id, &[seat]).await;
        let (body, signature) = standin.complete(&session_of(&order)).unwrap();
        // Three seconds, not one: on a loaded machine the first request
        // may take a second to reach its transaction (seen failing once).
        deadline_in(&app, &order, 3.0).await;
        let order_id: uuid::Uuid = id_segment(&order["order_id"]).parse().unwrap();
        let pay_by: time::OffsetDateTime = app
            .sql()
            .await
            .query_one("SELECT pay_by FROM orders WHERE id = $1", &[&order_id])
            .await
            .unwrap()
            .get(0);

        let mut gate = app.own_connection().await;
        let tx = gate.transaction().await.unwrap();
        tx.execute("SELECT 1 FROM seats WHERE id = $1 FOR UPDATE", &[&seat])
            .await
            .unwrap();
        // The order row in a transaction of its own: the payment waits
        // there, before it asks for the seat, and is let go only once the
        // rival has had the seat. (Both let go by one commit, the payment
        // could reach the seat between the commit and the rival's waking,
        // on a loaded machine, and take it first: seen twice.)
        let mut order_gate = app.own_connection().await;
        let order_tx = order_gate.transaction().await.unwrap();
        if !payment_first {
            order_tx
                .execute(
                    "SELECT 1 FROM orders WHERE id = $1 FOR UPDATE",
                    &[&order_id],
                )
                .await
                .unwrap();
        }
        let payment = {
            let standin = standin.clone();
            tokio::spawn(async move { standin.deliver(&body, &signature).await.unwrap() })
        };
        if payment_first {
            app.lock_waiter("FOR UPDATE OF s").await;
        } else {
            // Recording the event checks its order exists: a key-share
            // lock on the order row, which waits for the test's.
            app.lock_waiter("INSERT INTO stripe_events").await;
        }
        // Past the deadline by the database's clock, which judges it.
        app.wait_for_database_time(pay_by + time::Duration::milliseconds(200))
            .await;
        let rival = app.buyer();
        let claim = {
            let rival = rival.clone();
            tokio::spawn(async move { rival.hold(event.id, &[seat]).await })
        };
        app.lock_waiter(crate::support::PICK_STATEMENT).await;
        tx.commit().await.unwrap();
        let (claim_status, claim_body) = claim.await.unwrap();
        order_tx.commit().await.unwrap();
        assert_eq!(payment.await.unwrap(), 200);
        let status = order_status(&buyer, &order).await;
        if payment_first {
            assert_eq!(status["status"], "paid", "{status}");
            assert_eq!(claim_status, StatusCode::CONFLICT, "{claim_body}");
        } else {
            assert_eq!(claim_status, StatusCode::CREATED, "{claim_body}");
            assert_eq!(status["status"], "refunded_unfulfilled", "{status}");
            drain_provider_calls(&app).await;
            assert_eq!(standin.refunds().len(), 1);
            assert_eq!(standin.refunds()[0].amount, standin.captures()[0].amount);
        }
        assert_eq!(
            app.count("SELECT count(*) FROM tickets").await,
            if payment_first { 1 } else { 0 }
        );
        app.no_breaches().await;
    }
}

async fn box_office_reservation(app: &TestApp, seat: i64) -> (i64, Value) {
    let event_id: i64 = app
        .sql()
        .await
        .query_one("SELECT event_id FROM seats WHERE id = $1", &[&seat])
        .await
        .unwrap()
        .get(0);
    set_payment(app, event_id, "box_office").await;
    let (_, order) = checkout(app, event_id, &[seat]).await;
    assert_eq!(order["payment"], "box_office");
    (event_id, order)
}

/// Staff take the money for a box-office reservation just as its
/// deadline passes and a rival claims its seat: forced both ways, one wins.
#[tokio::test]
async fn a_box_office_reservation_lapsing_as_staff_take_the_money_has_one_winner_both_ways() {
    for staff_first in [true, false] {
        let app = spawn_app_with(|config| {
            config.db.lock_timeout = Duration::from_secs(15);
            config.db.statement_timeout = Duration::from_secs(30);
        })
        .await;
        let event = app.create_event(1, 4).await;
        let seat = event.seat_ids[0];
        let (event_id, order) = box_office_reservation(&app, seat).await;
        let clerk = staff(&app, "clerk").await;
        // Staff's transaction starts before the deadline (checked below, by
        // the database's clock); the rival's after it.
        deadline_in(&app, &order, 3.0).await;
        let order_id: uuid::Uuid = id_segment(&order["order_id"]).parse().unwrap();
        let mut gate = app.own_connection().await;
        let tx = gate.transaction().await.unwrap();
        tx.execute("SELECT 1 FROM seats WHERE id = $1 FOR UPDATE", &[&seat])
            .await
            .unwrap();
        // The order row in a transaction of its own, let go only after the
        // rival has had the seat (see the payment's race above).
        let mut order_gate = app.own_connection().await;
        let order_tx = order_gate.transaction().await.unwrap();
        if !staff_first {
            order_tx
                .execute(
                    "SELECT 1 FROM orders WHERE id = $1 FOR UPDATE",
                    &[&order_id],
                )
                .await
                .unwrap();
        }
        let paying = {
            let clerk = clerk.clone();
            let path = format!("/api/staff/events/{event_id}/orders/{order_id}/payment");
            tokio::spawn(async move { clerk.post(&path, json!({"tender": "cash"})).await })
        };
        let waiter = if staff_first {
            app.lock_waiter("FOR UPDATE OF s").await
        } else {
            app.lock_waiter("FROM orders o WHERE o.id").await
        };
        // The staff's transaction began before the order's deadline, by
        // the database's own clock: the race is the one named.
        let pay_by: time::OffsetDateTime = app
            .sql()
            .await
            .query_one("SELECT pay_by FROM orders WHERE id = $1", &[&order_id])
            .await
            .unwrap()
            .get(0);
        assert!(
            waiter.xact_start < pay_by,
            "the staff's transaction began after the deadline: the machine was too slow for the race"
        );
        // Past the deadline by the database's clock, which judges it.
        app.wait_for_database_time(pay_by + time::Duration::milliseconds(200))
            .await;
        let rival = app.buyer();
        let claim = {
            let rival = rival.clone();
            tokio::spawn(async move { rival.hold(event_id, &[seat]).await })
        };
        app.lock_waiter(crate::support::PICK_STATEMENT).await;
        tx.commit().await.unwrap();
        let (claim_status, claim_body) = claim.await.unwrap();
        order_tx.commit().await.unwrap();
        let (paid_status, paid_body) = paying.await.unwrap();
        if staff_first {
            assert_eq!(paid_status, StatusCode::OK, "{paid_body}");
            assert_eq!(paid_body["tickets"], 1);
            assert_eq!(claim_status, StatusCode::CONFLICT, "{claim_body}");
        } else {
            assert_eq!(claim_status, StatusCode::CREATED, "{claim_body}");
            assert_eq!(paid_status, StatusCode::CONFLICT, "{paid_body}");
            assert_eq!(paid_body["error"], "payment_deadline_passed");
        }
        assert_eq!(
            app.count("SELECT count(*) FROM tickets").await,
            i64::from(staff_first)
        );
        app.no_breaches().await;
    }
}

#[tokio::test]
async fn a_box_office_reservation_is_paid_at_the_counter_and_refused_once_lapsed() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let clerk = staff(&app, "clerk").await;
    let (event_id, order) = box_office_reservation(&app, event.seat_ids[0]).await;
    let path = |order: &Value| {
        format!(
            "/api/staff/events/{event_id}/orders/{}/payment",
            id_segment(&order["order_id"])
        )
    };
    // A comp or an unknown tender is not a payment.
    for tender in ["comp", "cheque"] {
        let (status, body) = clerk.post(&path(&order), json!({"tender": tender})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
    let (status, body) = clerk.post(&path(&order), json!({"tender": "card"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = clerk.post(&path(&order), json!({"tender": "card"})).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("not_awaiting_payment"))
    );
    // Another reservation lapses: refused although nobody took its seat.
    let (_, second) = box_office_reservation(&app, event.seat_ids[1]).await;
    deadline_in(&app, &second, -1.0).await;
    let (status, body) = clerk.post(&path(&second), json!({"tender": "cash"})).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("payment_deadline_passed")),
        "{body}"
    );
    assert_eq!(stored_status(&app, &second).await, "pending_payment");
    let (status, staff_view) = clerk
        .get(&format!(
            "/api/staff/events/{event_id}/orders/{}",
            id_segment(&second["order_id"])
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        staff_view["status"], "lapsed",
        "read lazily, as a hold lapses"
    );
    let audited = app
        .count("SELECT count(*) FROM audit_log WHERE action = 'box_office_payment'")
        .await;
    assert_eq!(audited, 1);
}

#[tokio::test]
async fn staff_choose_how_an_event_is_paid_for_and_cannot_change_it_under_waiting_orders() {
    let plain = spawn_app().await;
    let event = plain.create_event(1, 4).await;
    let clerk = staff(&plain, "clerk").await;
    let patch = |client: &Api, event_id: i64, body: Value| {
        let client = client.clone();
        async move {
            let response = client
                .http
                .patch(format!("{}/api/staff/events/{event_id}", client.base))
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = response.status();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    // No Stripe here: online is refused, saying what to set.
    let (status, body) = patch(&clerk, event.id, json!({"payment": "online"})).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("payment_unavailable")),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("SEATMAP_STRIPE_SECRET_KEY")
    );
    for bad in [
        json!({"payment": "cheque"}),
        json!({"payment": "box_office", "box_office_window_secs": 5}),
    ] {
        let (status, body) = patch(&clerk, event.id, bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
    let (status, body) = patch(
        &clerk,
        event.id,
        json!({"payment": "box_office", "box_office_window_secs": 3600}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut settings = body.clone();
    for detail in ["name", "starts_at", "on_sale_at"] {
        assert!(
            settings.as_object_mut().unwrap().remove(detail).is_some(),
            "{body}"
        );
    }
    assert_eq!(
        settings,
        json!({"event_id": event.id, "published": true, "payment": "box_office", "box_office_window_secs": 3600,
               "booking_fee_cents": 0, "tax": null, "fees_refundable": true,
               "transfers_allowed": true, "transfers_until": null, "transfers_per_ticket": 3})
    );
    // A reservation waits: the mode can't change under it.
    let (_, order) = checkout(&plain, event.id, &event.seat_ids[0..1]).await;
    let pay_by = time::OffsetDateTime::parse(
        order["pay_by"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let in_an_hour = time::OffsetDateTime::now_utc() + Duration::from_secs(3600);
    assert!(
        (pay_by - in_an_hour).abs() < time::Duration::seconds(30),
        "{pay_by}"
    );
    let (status, body) = patch(&clerk, event.id, json!({"payment": "none"})).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("orders_awaiting_payment")),
        "{body}"
    );
    // A free event's purchase is unchanged: 201, paid, with tickets.
    let other = plain.create_event(1, 2).await;
    let buyer = plain.buyer();
    let (_, hold) = buyer.hold(other.id, &other.seat_ids[0..1]).await;
    let (status, bought) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(bought["status"], "paid");
    assert_eq!(bought["tickets"].as_array().unwrap().len(), 1);
    assert_eq!(order_status(&buyer, &bought).await["status"], "paid");
}

#[tokio::test]
async fn staff_refunds_of_an_online_order_go_back_through_stripe_retried_until_accepted() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (_, order) = checkout(&app, event.id, &event.seat_ids[0..2]).await;
    let (body, signature) = standin.complete(&session_of(&order)).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    let clerk = staff(&app, "clerk").await;
    let order_path = format!(
        "/api/staff/events/{}/orders/{}",
        event.id,
        id_segment(&order["order_id"])
    );
    let (_, staff_view) = clerk.get(&order_path).await;
    let ticket = staff_view["tickets"][0]["id"].clone();
    let price = staff_view["tickets"][0]["price_cents"].as_i64().unwrap();
    let (status, refunded) = clerk
        .post(
            &format!("{order_path}/refund"),
            json!({"ticket_ids": [ticket]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(refunded["provider_refund"], true);
    // Stripe fails once: the refund is shown refused with its message, then retried.
    standin.fail_next(1, 500);
    assert!(one_provider_call(&app).await, "the refund was due");
    let (_, staff_view) = clerk.get(&order_path).await;
    let refund = &staff_view["provider_refunds"][0];
    assert_eq!(refund["state"], "refused", "{staff_view}");
    assert!(
        refund["error"].as_str().unwrap().contains("told to fail"),
        "{refund}"
    );
    assert!(standin.refunds().is_empty());
    app.sql()
        .await
        .execute("UPDATE payment_jobs SET next_attempt_at = now()", &[])
        .await
        .unwrap();
    drain_provider_calls(&app).await;
    let (_, staff_view) = clerk.get(&order_path).await;
    let refund = &staff_view["provider_refunds"][0];
    assert_eq!(refund["state"], "sent", "{staff_view}");
    assert_eq!(refund["attempts"], 2);
    assert_eq!(standin.refunds().len(), 1);
    assert_eq!(standin.refunds()[0].amount, price);
    assert!(
        refund["provider_ref"]
            .as_str()
            .unwrap()
            .starts_with("re_test_")
    );
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'refund_tickets'")
            .await,
        1
    );
}

#[tokio::test]
async fn a_lapsed_order_s_session_is_expired_at_stripe_and_its_seats_go_back_on_sale() {
    let (app, standin) = paying_app(Duration::from_secs(3), Duration::from_millis(50)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..2]).await;
    let session = session_of(&order);
    // The worker expires the session once the deadline passes; Stripe then
    // says so by webhook, and the order lets its seats go.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if stored_status(&app, &order).await == "lapsed" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the order never lapsed; calls {:?}",
            standin.calls()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(standin.session_status(&session).unwrap().0, "expired");
    assert!(standin.calls().iter().any(|c| c.ends_with("/expire")));
    assert_eq!(order_status(&buyer, &order).await["status"], "lapsed");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE status = 'AVAILABLE' AND id IN ({}, {})",
            event.seat_ids[0], event.seat_ids[1]
        ))
        .await,
        2
    );
    // A paid page can no longer be reached: the stand-in refuses.
    assert!(standin.complete(&session).is_err());
}

#[tokio::test]
async fn the_buyer_pays_through_the_pages_and_the_order_page_follows_the_payment() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &event.seat_ids[0..1]).await;
    assert!(hold["hold_id"].is_string());
    let csrf = crate::pages::csrf_from(&buyer, &format!("/events/{}", event.id)).await;
    let response = buyer
        .http
        .post(format!("{}/events/{}/purchase", app.base, event.id))
        .form(&[
            ("csrf", csrf.as_str()),
            ("name", "Ada"),
            ("email", "ada@example.com"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let to = response.headers()["location"].to_str().unwrap().to_string();
    assert!(
        to.starts_with(&format!("{}/c/pay/", standin.base_url)),
        "{to}"
    );
    let session = to.rsplit('/').next().unwrap().to_string();
    let order_id: String = app
        .sql()
        .await
        .query_one("SELECT id::text FROM orders", &[])
        .await
        .unwrap()
        .get(0);
    let order_page = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert!(
        order_page.contains("payment--pending") && order_page.contains("Pay "),
        "{order_page}"
    );
    let waiting = buyer
        .get_text(&format!("/orders/{order_id}?payment=returned"))
        .await;
    assert!(
        waiting.contains("Waiting for the payment to be confirmed"),
        "{waiting}"
    );
    let fragment = buyer
        .http
        .get(format!("{}/orders/{order_id}/payment", app.base))
        .send()
        .await
        .unwrap();
    assert!(fragment.headers().get("hx-refresh").is_none());
    let (body, signature) = standin.complete(&session).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    let fragment = buyer
        .http
        .get(format!("{}/orders/{order_id}/payment", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        fragment.headers()["hx-refresh"],
        "true",
        "the page reloads once paid"
    );
    let paid = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert!(
        paid.contains("Payment received") && paid.contains("Your tickets"),
        "{paid}"
    );
    // Someone else's browser can't see it, or pay for it.
    let stranger = app.buyer();
    let (status, _) = stranger.get(&format!("/api/orders/{order_id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// A Stripe event for `session`, signed with the tests' secret now.
fn signed_event(kind: &str, session: Value) -> (String, String) {
    let body = json!({
        "id": format!("evt_test_{}", uuid::Uuid::new_v4().simple()),
        "object": "event",
        "type": kind,
        "data": { "object": session },
    })
    .to_string();
    let signature = stripe_standin::signature_header(SECRET, body.as_bytes());
    (body, signature)
}

#[tokio::test]
async fn an_unpaid_or_unknown_session_sells_nothing_and_a_second_payment_is_refunded() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let order_id = id_segment(&order["order_id"]);
    // Completed but not paid (a delayed payment method): nothing moves.
    let (body, signature) = signed_event(
        "checkout.session.completed",
        json!({"id": session_of(&order), "client_reference_id": order_id,
               "payment_status": "unpaid", "amount_total": 4500}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(
        order_status(&buyer, &order).await["status"],
        "pending_payment"
    );
    // Paid, for an order that isn't ours: kept once, nothing sold.
    let (body, signature) = signed_event(
        "checkout.session.completed",
        json!({"id": "cs_test_elsewhere", "client_reference_id": uuid::Uuid::new_v4().to_string(),
               "payment_status": "paid", "amount_total": 4500, "payment_intent": "pi_test_elsewhere"}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(app.count("SELECT count(*) FROM tickets").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM stripe_events").await, 2);
    // The order is paid; then a second session for it is paid too (made
    // at the stand-in by hand: seatmap makes one per order): that money
    // goes back, the order keeps its one set of tickets.
    let (body, signature) = standin.complete(&session_of(&order)).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    let second: Value = crate::support::http_client()
        .post(format!("{}/v1/checkout/sessions", standin.base_url))
        .bearer_auth("sk_test_seatmap")
        .form(&[
            ("mode", "payment"),
            ("client_reference_id", order_id.as_str()),
            ("success_url", "http://example.invalid/"),
            ("line_items[0][quantity]", "1"),
            ("line_items[0][price_data][currency]", "eur"),
            ("line_items[0][price_data][unit_amount]", "4500"),
            ("line_items[0][price_data][product_data][name]", "again"),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (body, signature) = standin.complete(second["id"].as_str().unwrap()).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(order_status(&buyer, &order).await["status"], "paid");
    assert_eq!(app.count("SELECT count(*) FROM tickets").await, 1);
    drain_provider_calls(&app).await;
    let captures = standin.captures();
    let refunds = standin.refunds();
    assert_eq!((captures.len(), refunds.len()), (2, 1));
    assert_eq!(
        refunds[0].payment_intent, captures[1].payment_intent,
        "the second payment went back"
    );
    assert_eq!(refunds[0].amount, captures[1].amount);
}

#[tokio::test]
async fn a_late_payment_with_general_admission_places_sells_whole_or_gives_everything_back() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let (event, areas) = app.create_ga_event(4, &[("Floor", 3)]).await;
    set_payment(&app, event.id, "online").await;
    let floor = areas[0];
    // Two orders of a seat and two Floor places each, both late.
    let mut orders = Vec::new();
    for seat in [event.seat_ids[0], event.seat_ids[1]] {
        let buyer = app.buyer();
        let (status, hold) = buyer.hold(event.id, &[seat]).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        let (status, hold) = buyer
            .hold_ga(event.id, floor, if orders.is_empty() { 2 } else { 1 })
            .await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        let (status, order) = buyer
            .purchase(&hold["hold_id"], "Ada", "ada@example.com")
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{order}");
        deadline_in(&app, &order, -1.0).await;
        orders.push((buyer, order));
    }
    // A rival takes the second order's seat: that order can't be whole.
    let (status, _) = app.buyer().hold(event.id, &[event.seat_ids[1]]).await;
    assert_eq!(status, StatusCode::CREATED);
    for (_, order) in &orders {
        let (body, signature) = standin.complete(&session_of(order)).unwrap();
        assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    }
    assert_eq!(
        order_status(&orders[0].0, &orders[0].1).await["status"],
        "paid"
    );
    assert_eq!(
        order_status(&orders[0].0, &orders[0].1).await["tickets"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        order_status(&orders[1].0, &orders[1].1).await["status"],
        "refunded_unfulfilled"
    );
    // The refunded order's Floor place went back: sold 2 (the first
    // order's), held 0, and the counters agree with the tickets.
    assert_eq!(app.ga_counters(floor).await, (0, 2));
    app.no_breaches().await;
}

#[tokio::test]
async fn closing_sales_leaves_reservations_to_be_paid_at_the_door() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let (event_id, order) = box_office_reservation(&app, event.seat_ids[0]).await;
    let other = app.buyer();
    assert_eq!(
        other.hold(event_id, &[event.seat_ids[1]]).await.0,
        StatusCode::CREATED
    );
    let clerk = staff(&app, "clerk").await;
    let response = crate::staff::console_action(
        &clerk,
        event_id,
        &format!("/staff/events/{event_id}/close-sales"),
        &[("confirm", "yes")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let held = app.holders(event_id).await;
    assert!(
        held.contains_key(&event.seat_ids[0]),
        "the reservation keeps its seat: {held:?}"
    );
    assert!(
        !held.contains_key(&event.seat_ids[1]),
        "a plain hold is released"
    );
    let (status, body) = clerk
        .post(
            &format!(
                "/api/staff/events/{event_id}/orders/{}/payment",
                id_segment(&order["order_id"])
            ),
            json!({"tender": "cash"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.no_breaches().await;
}

#[tokio::test]
async fn checked_out_holds_count_against_the_cap_on_open_holds_per_address() {
    let app = spawn_app_with(|config| config.limits.max_holds_per_ip = 2).await;
    let event = app.create_event(1, 6).await;
    set_payment(&app, event.id, "box_office").await;
    for seat in &event.seat_ids[0..2] {
        checkout(&app, event.id, &[*seat]).await;
    }
    let (status, body) = app.buyer().hold(event.id, &[event.seat_ids[2]]).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::TOO_MANY_REQUESTS, json!("too_many_holds")),
        "{body}"
    );
}

#[tokio::test]
async fn pay_long_after_stripe_failed_at_checkout_still_opens_a_session() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    standin.fail_next(1, 503);
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let order_id = id_segment(&order["order_id"]);
    assert!(
        order["payment_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/orders/{order_id}")),
        "{order}"
    );
    // An hour later (the order's clock), with 15 minutes still to pay.
    app.sql()
        .await
        .execute(
            "UPDATE orders SET created_at = now() - interval '1 hour' WHERE id::text = $1",
            &[&order_id],
        )
        .await
        .unwrap();
    let csrf = crate::pages::csrf_from(&buyer, &format!("/orders/{order_id}")).await;
    let response = buyer
        .http
        .post(format!("{}/orders/{order_id}/pay", app.base))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let to = response.headers()["location"].to_str().unwrap().to_string();
    assert!(
        to.starts_with(&format!("{}/c/pay/cs_test_", standin.base_url)),
        "{to}"
    );
}

#[tokio::test]
async fn a_payment_of_another_amount_than_the_order_asked_is_refunded_and_sells_nothing() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let asked = order["amount_cents"].as_i64().unwrap();
    // A session completed for 1 cent less (tampered with, or a discount
    // configured at Stripe that seatmap doesn't know).
    let (body, signature) = signed_event(
        "checkout.session.completed",
        json!({"id": session_of(&order), "client_reference_id": id_segment(&order["order_id"]),
               "payment_status": "paid", "amount_total": asked - 1,
               "payment_intent": "pi_test_short"}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(
        order_status(&buyer, &order).await["status"],
        "refunded_unfulfilled"
    );
    assert_eq!(app.count("SELECT count(*) FROM tickets").await, 0);
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'AVAILABLE'")
            .await,
        4,
        "its seat went back on sale"
    );
    let refund: (i64, String) = {
        let row = app
            .sql()
            .await
            .query_one(
                "SELECT j.amount_cents, coalesce(j.payment_intent, o.stripe_payment_intent)
                   FROM payment_jobs j JOIN orders o ON o.id = j.order_id WHERE j.kind = 'refund'",
                &[],
            )
            .await
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(
        refund,
        (asked - 1, "pi_test_short".to_string()),
        "what was taken goes back"
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn a_session_stripe_ends_before_the_deadline_is_forgotten_and_pay_makes_another() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    // While it waits, the order's seats are held by a paying hold: the
    // invariants know that state.
    app.no_breaches().await;
    let first = session_of(&order);
    let order_id = id_segment(&order["order_id"]);
    let (body, signature) = signed_event(
        "checkout.session.expired",
        json!({"id": first, "client_reference_id": order_id, "payment_status": "unpaid"}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    // Within its deadline: still the buyer's seats, no session kept.
    assert_eq!(
        order_status(&buyer, &order).await["status"],
        "pending_payment"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM orders WHERE stripe_session_id IS NULL")
            .await,
        1
    );
    assert!(app.holders(event.id).await.contains_key(&event.seat_ids[0]));
    let csrf = crate::pages::csrf_from(&buyer, &format!("/orders/{order_id}")).await;
    let response = buyer
        .http
        .post(format!("{}/orders/{order_id}/pay", app.base))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let to = response.headers()["location"].to_str().unwrap().to_string();
    assert!(
        to.starts_with(&format!("{}/c/pay/cs_test_", standin.base_url)),
        "{to}"
    );
    assert!(
        !to.ends_with(&first),
        "a new session, not the ended one: {to}"
    );
}

#[tokio::test]
async fn odd_requests_about_payment_get_a_clear_answer_never_a_500() {
    let (app, _standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    let clerk = staff(&app, "clerk").await;
    // A walk-up sale has no reservation to pay: 409, not 500.
    let (status, sale) = clerk
        .post(
            &format!("/api/staff/events/{}/sales", event.id),
            json!({"seat_ids": [event.seat_ids[3]], "tender": "cash", "name": "Walk Up"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{sale}");
    let (status, body) = clerk
        .post(
            &format!(
                "/api/staff/events/{}/orders/{}/payment",
                event.id,
                id_segment(&sale["order_id"])
            ),
            json!({"tender": "card"}),
        )
        .await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("not_awaiting_payment")),
        "{body}"
    );
    // The buyer's own order, with a signature that isn't hex in the query
    // (a newline once reached a redirect's header): no 500.
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let order_id = id_segment(&order["order_id"]);
    let csrf = crate::pages::csrf_from(&buyer, &format!("/orders/{order_id}")).await;
    for sig in ["%0Aevil", "zz", ""] {
        let response = buyer
            .http
            .post(format!(
                "{}/orders/{order_id}/pay?until=1&sig={sig}",
                app.base
            ))
            .form(&[("csrf", csrf.as_str())])
            .send()
            .await
            .unwrap();
        assert!(
            response.status().as_u16() < 500,
            "sig {sig:?}: {}",
            response.status()
        );
    }
}

/// Hostile traffic, round three: a signed `checkout.session.completed`
/// naming our order but another session (another app on the account, or a
/// forgery with our secret) in another currency settles nothing: it is
/// recorded and its money goes back, and the order's own session still
/// pays. The order's own session paid in another currency is refunded.
#[tokio::test]
async fn a_payment_through_another_session_or_currency_is_recorded_and_refunded_never_settled() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let order_id = id_segment(&order["order_id"]);
    let asked = order["amount_cents"].as_i64().unwrap();
    let (body, signature) = signed_event(
        "checkout.session.completed",
        json!({"id": "cs_other_app", "client_reference_id": order_id,
               "payment_status": "paid", "amount_total": asked, "currency": "jpy",
               "payment_intent": "pi_other_app"}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(
        order_status(&buyer, &order).await["status"],
        "pending_payment",
        "another session's payment settles nothing"
    );
    assert_eq!(app.count("SELECT count(*) FROM tickets").await, 0);
    let refunded: Vec<(i64, String)> = app
        .sql()
        .await
        .query(
            "SELECT amount_cents, payment_intent FROM payment_jobs WHERE kind = 'refund'",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(refunded, [(asked, "pi_other_app".to_string())]);
    assert_eq!(
        app.count("SELECT count(*) FROM stripe_events WHERE outcome = 'refunded_foreign_session'")
            .await,
        1,
        "the event is recorded for what it was"
    );
    // The order's own session, paid in yen: refunded, not settled.
    let (body, signature) = signed_event(
        "checkout.session.completed",
        json!({"id": session_of(&order), "client_reference_id": order_id,
               "payment_status": "paid", "amount_total": asked, "currency": "jpy",
               "payment_intent": "pi_test_yen"}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(
        order_status(&buyer, &order).await["status"],
        "refunded_unfulfilled"
    );
    assert_eq!(app.count("SELECT count(*) FROM tickets").await, 0);
    app.no_breaches().await;
}

/// A foreign session's payment that names no payment intent is recorded,
/// and refunds nothing: a refund without one would fall back to the
/// order's own payment and pay back money that bought its seats.
#[tokio::test]
async fn a_foreign_payment_without_its_own_intent_refunds_nothing_of_the_orders() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let (body, signature) = standin.complete(&session_of(&order)).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(order_status(&buyer, &order).await["status"], "paid");
    let (body, signature) = signed_event(
        "checkout.session.completed",
        json!({"id": "cs_other_app", "client_reference_id": id_segment(&order["order_id"]),
               "payment_status": "paid", "amount_total": order["amount_cents"],
               "currency": "eur", "payment_intent": null}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(
        app.count("SELECT count(*) FROM payment_jobs WHERE kind = 'refund'")
            .await,
        0
    );
    assert_eq!(
        app.count("SELECT count(*) FROM stripe_events WHERE outcome = 'refunded_foreign_session'")
            .await,
        1
    );
    assert_eq!(order_status(&buyer, &order).await["status"], "paid");
}

/// The order's own session, in its currency and amount, still settles
/// after another session's payment was turned away.
#[tokio::test]
async fn the_orders_own_session_pays_after_a_foreign_one_was_turned_away() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let (body, signature) = signed_event(
        "checkout.session.completed",
        json!({"id": "cs_other_app", "client_reference_id": id_segment(&order["order_id"]),
               "payment_status": "paid", "amount_total": order["amount_cents"], "currency": "eur",
               "payment_intent": "pi_other_app"}),
    );
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    let (body, signature) = standin.complete(&session_of(&order)).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(order_status(&buyer, &order).await["status"], "paid");
    assert_eq!(app.count("SELECT count(*) FROM tickets").await, 1);
}

/// The Checkout Session create whose answer is lost (the session made at
/// Stripe, the connection dropped), then "Pay" retried, and five more
/// "Pay"s at once: every one lands on the one session, made once, each
/// call under the same `Idempotency-Key`.
#[tokio::test]
async fn a_session_create_retried_after_a_lost_answer_or_at_once_is_one_session_at_stripe() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    standin.lose_next_answers(1, 500);
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let order_id = id_segment(&order["order_id"]);
    assert!(
        order["payment_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/orders/{order_id}")),
        "the answer was lost, so the order's own page: {order}"
    );
    assert_eq!(
        standin.session_ids().len(),
        1,
        "the work was done at Stripe"
    );
    let csrf = crate::pages::csrf_from(&buyer, &format!("/orders/{order_id}")).await;
    let pay = || {
        let buyer = buyer.clone();
        let csrf = csrf.clone();
        let order_id = order_id.clone();
        async move {
            let response = buyer
                .http
                .post(format!("{}/orders/{order_id}/pay", buyer.base))
                .form(&[("csrf", csrf.as_str())])
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::SEE_OTHER);
            response.headers()["location"].to_str().unwrap().to_string()
        }
    };
    let first = pay().await;
    let again = futures::future::join_all((0..5).map(|_| pay())).await;
    let session = standin.session_ids().pop().unwrap();
    assert!(first.ends_with(&format!("/c/pay/{session}")), "{first}");
    assert!(again.iter().all(|to| *to == first), "{again:?}");
    assert_eq!(standin.session_ids().len(), 1, "one session at Stripe");
    let creates: Vec<Option<String>> = standin
        .calls_with_keys()
        .into_iter()
        .filter(|(path, _)| path == "/v1/checkout/sessions")
        .map(|(_, key)| key)
        .collect();
    assert!(creates.len() >= 2, "{creates:?}");
    assert!(creates[0].is_some(), "an Idempotency-Key is sent");
    assert!(
        creates.iter().all(|key| *key == creates[0]),
        "every create of the order's session under one key: {creates:?}"
    );
}

/// A refund whose answer is lost is retried under its key and pays back
/// once, and the job ends sent.
#[tokio::test]
async fn a_refund_retried_after_a_lost_answer_pays_back_once() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (_, order) = checkout(&app, event.id, &event.seat_ids[0..2]).await;
    let (body, signature) = standin.complete(&session_of(&order)).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    let clerk = staff(&app, "clerk").await;
    let order_path = format!(
        "/api/staff/events/{}/orders/{}",
        event.id,
        id_segment(&order["order_id"])
    );
    let (status, _) = clerk.post(&format!("{order_path}/refund"), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    standin.lose_next_answers(1, 500);
    assert!(one_provider_call(&app).await, "the refund was due");
    assert_eq!(
        standin.refunds().len(),
        1,
        "paid back at Stripe, answer lost"
    );
    app.sql()
        .await
        .execute("UPDATE payment_jobs SET next_attempt_at = now()", &[])
        .await
        .unwrap();
    drain_provider_calls(&app).await;
    let (_, staff_view) = clerk.get(&order_path).await;
    assert_eq!(
        staff_view["provider_refunds"][0]["state"], "sent",
        "{staff_view}"
    );
    assert_eq!(standin.refunds().len(), 1, "paid back once");
    let keys: Vec<Option<String>> = standin
        .calls_with_keys()
        .into_iter()
        .filter(|(path, _)| path == "/v1/refunds")
        .map(|(_, key)| key)
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys[0].is_some() && keys[0] == keys[1], "{keys:?}");
}

/// A payment that arrives after staff cancelled the event is refunded in
/// full and sells nothing (docs/payments.md); Stripe's delayed-method
/// success, `checkout.session.async_payment_succeeded`, settles an order
/// as a completed session does.
#[tokio::test]
async fn a_payment_after_cancellation_is_refunded_and_an_async_success_settles() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(600)).await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, cancelled) = checkout(&app, event.id, &event.seat_ids[0..1]).await;
    let (late_buyer, delayed) = checkout(&app, event.id, &event.seat_ids[1..2]).await;
    // The delayed method first: completed unpaid, then its success.
    let session = session_of(&delayed);
    let (body, signature) = standin.complete(&session).unwrap();
    let mut event_json: Value = serde_json::from_str(&body).unwrap();
    event_json["type"] = json!("checkout.session.async_payment_succeeded");
    event_json["id"] = json!(format!("evt_async_{}", uuid::Uuid::new_v4().simple()));
    let body = event_json.to_string();
    let signature_async = stripe_standin::signature_header(SECRET, body.as_bytes());
    let _ = signature;
    assert_eq!(standin.deliver(&body, &signature_async).await.unwrap(), 200);
    assert_eq!(order_status(&late_buyer, &delayed).await["status"], "paid");
    // Staff cancel the event; the other order's payment arrives after.
    let clerk = staff(&app, "clerk").await;
    let response = crate::staff::console_action(
        &clerk,
        event.id,
        &format!("/staff/events/{}/cancel", event.id),
        &[("confirm", "yes")],
    )
    .await;
    assert!(response.status().is_redirection(), "{}", response.status());
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM events WHERE id = {} AND cancelled_at IS NOT NULL",
            event.id
        ))
        .await,
        1,
        "the event is cancelled"
    );
    let (body, signature) = standin.complete(&session_of(&cancelled)).unwrap();
    assert_eq!(standin.deliver(&body, &signature).await.unwrap(), 200);
    assert_eq!(
        order_status(&buyer, &cancelled).await["status"],
        "refunded_unfulfilled"
    );
    drain_provider_calls(&app).await;
    let intent = standin
        .captures()
        .into_iter()
        .find(|c| c.session == session_of(&cancelled))
        .unwrap()
        .payment_intent;
    assert!(
        standin.refunds().iter().any(|r| r.payment_intent == intent),
        "the late payment went back"
    );
}

/// A payment settling while staff cancel the event take their locks in
/// opposite orders (the payment: its order, then its seats; the
/// cancellation: the seats, then the orders) and can deadlock
/// (docs/payments.md). Forced: the test holds the order, so the payment
/// waits for it (its statement's snapshot taken before the cancellation)
/// and the cancellation, its seats taken, waits behind; let go, the
/// payment takes the order and may ask for the seats. Whichever way it
/// goes (a deadlock PostgreSQL breaks, the loser retried; or the payment
/// seeing the cancellation and refunding), both are answered, never a
/// 5xx, and the money and the seats agree: paid and flagged for refund
/// with the cancellation, or refunded.
#[tokio::test]
async fn a_payment_settling_while_the_event_is_cancelled_and_the_cancellation_are_both_answered() {
    let (app, standin) = paying_app_with(Duration::from_secs(900), Duration::from_secs(600), |c| {
        c.db.lock_timeout = Duration::from_secs(60);
        c.db.statement_timeout = Duration::from_secs(90);
    })
    .await;
    let event = app.create_event(1, 4).await;
    set_payment(&app, event.id, "online").await;
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[0..2]).await;
    let (body, signature) = standin.complete(&session_of(&order)).unwrap();
    let clerk = staff(&app, "clerk").await;
    let token = crate::pages::csrf_from(&clerk, &format!("/staff/events/{}", event.id)).await;
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute(
        "SELECT 1 FROM orders WHERE id = $1::text::uuid FOR NO KEY UPDATE",
        &[&id_segment(&order["order_id"])],
    )
    .await
    .unwrap();
    let payment = {
        let standin = standin.clone();
        tokio::spawn(async move { standin.deliver(&body, &signature).await.unwrap() })
    };
    app.lock_waiter("FROM orders o WHERE o.id").await;
    let cancelling = {
        let clerk = clerk.clone();
        let path = format!("/staff/events/{}/cancel", event.id);
        tokio::spawn(async move {
            crate::staff::post_form(&clerk, &path, &[("csrf", &token), ("confirm", "yes")])
                .await
                .status()
        })
    };
    app.lock_waiter("UPDATE orders SET event_cancelled").await;
    lock.commit().await.unwrap();
    assert_eq!(payment.await.unwrap(), 200);
    assert_eq!(cancelling.await.unwrap(), StatusCode::SEE_OTHER);
    let status = order_status(&buyer, &order).await["status"].clone();
    let flagged = app
        .count("SELECT count(*) FROM orders WHERE event_cancelled")
        .await;
    assert!(
        status == "refunded_unfulfilled" || (status == "paid" && flagged == 1),
        "{status}, flagged {flagged}"
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM events WHERE id = {} AND cancelled_at IS NOT NULL",
            event.id
        ))
        .await,
        1
    );
    eprintln!(
        "payment {status}; deadlocks broken and retried: {}",
        app.settled_deadlocks().await
    );
    app.no_breaches().await;
}

/// A buyer whose order waits for its payment (left the payment page, or
/// reserved to pay at the box office) still has its seats: the map shows
/// them as theirs, the panel lists them with a way to finish paying, and
/// the order's page lists them without thanking anyone yet.
#[tokio::test]
async fn an_order_waiting_for_payment_is_the_buyers_on_the_map_with_a_way_to_finish_paying() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let clerk = staff(&app, "clerk").await;
    let (status, body) = clerk
        .patch(
            &format!("/api/staff/events/{}", event.id),
            json!({"payment": "box_office", "box_office_window_secs": 3600}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (buyer, order) = checkout(&app, event.id, &event.seat_ids[1..2]).await;
    let order_id = id_segment(&order["order_id"]);

    let page = buyer.get_text(&format!("/events/{}", event.id)).await;
    assert!(page.contains("Your seats wait for your payment:"), "{page}");
    assert!(
        page.contains(&format!("href=\"/orders/{order_id}\"")),
        "{page}"
    );
    assert!(page.contains("Finish paying"), "{page}");
    let seat = format!("id=\"seat-{}\"", event.seat_ids[1]);
    let button = page
        .split("<button ")
        .find(|b| b.contains(&seat))
        .unwrap_or_else(|| panic!("no seat button: {page}"));
    assert!(button.contains("held by you"), "{button}");
    // Anyone else sees it held.
    let other = app.buyer().get_text(&format!("/events/{}", event.id)).await;
    assert!(
        !other.contains("Your seats wait for your payment"),
        "{other}"
    );

    let order_page = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert!(order_page.contains(", row A, seat 2"), "{order_page}");
    assert!(!order_page.contains("Thank you"), "{order_page}");
}
