//! The offer on events that take payment (issue 47): a checkout prices its
//! seats by type and code with the event's fee and tax, counts the quotas
//! and the code's use at once, and asks Stripe (or the box office) for
//! exactly the total its tickets will carry. A waiting order holds its
//! counts until it is paid; lapsed, it gives them back, and a payment that
//! comes later sells only if they can be counted again.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::api_keys::make_staff_key;
use crate::charges::{buy, order_of, set_event};
use crate::payments::{deadline_in, drain_provider_calls, paying_app, session_of, stored_status};
use crate::price_types::put_types;
use crate::promo_codes::{make_code, staff_call};
use crate::staff::staff;
use crate::support::{Api, EventFixture, TestApp, id_segment, spawn_app};
use seatmap::domain::role::Role;

/// An event (one row of 8 "std" seats) selling Adult €55, Child €25 and
/// Student €30 (a quota of `student_quota`), with the code SPRING20 (20 %,
/// `code_uses` uses), paid for as `payment` with `charges` (fee and tax).
async fn offer_event(
    app: &TestApp,
    key: &str,
    payment: &str,
    student_quota: Option<i64>,
    code_uses: Option<i64>,
    charges: Value,
) -> EventFixture {
    let event = app.create_event(1, 8).await;
    let (status, body) = put_types(
        app,
        key,
        event.id,
        json!({"price_types": [
            {"code": "adult", "label": {"en": "Adult", "de": "Erwachsene"}, "prices": {"std": 5500}},
            {"code": "child", "label": {"en": "Child"}, "prices": {"std": 2500}},
            {"code": "student", "label": {"en": "Student"}, "prices": {"std": 3000},
             "quota": student_quota},
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = make_code(
        app,
        key,
        event.id,
        json!({"code": "SPRING20", "percent_off": 20, "max_uses": code_uses}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mut change = charges;
    change["payment"] = json!(payment);
    let (status, body) = set_event(app, key, event.id, change).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    event
}

/// Holds `seats` for `buyer` and buys them with `choices` (price types and
/// a promo code): the hold and the purchase's answer.
async fn hold_and_buy(
    buyer: &Api,
    event_id: i64,
    seats: &[i64],
    choices: Value,
) -> (Value, StatusCode, Value) {
    let (status, hold) = buyer.hold(event_id, seats).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let (status, bought) = buy(buyer, &hold, choices).await;
    (hold, status, bought)
}

fn totals(order: &Value) -> [i64; 5] {
    [
        "subtotal_cents",
        "discount_cents",
        "fees_cents",
        "tax_cents",
        "total_cents",
    ]
    .map(|field| {
        order[field]
            .as_i64()
            .unwrap_or_else(|| panic!("{field} in {order}"))
    })
}

async fn uses_of(app: &TestApp, code: &str) -> i64 {
    app.count(&format!(
        "SELECT uses::bigint FROM promo_codes WHERE code = '{code}'"
    ))
    .await
}

async fn students_counted(app: &TestApp) -> i64 {
    counted(app, "student").await
}

/// Stripe pays the order's session now: the webhook's answer.
pub(crate) async fn pay_at_stripe(standin: &stripe_standin::StandIn, order: &Value) -> u16 {
    let (body, signature) = standin
        .complete(&session_of(order))
        .expect("paying the session");
    standin
        .deliver(&body, &signature)
        .await
        .expect("delivering the webhook")
}

/// Adult and Child, SPRING20, a €1.50 fee and 8.5 % added tax, paid
/// online: Stripe is asked for each ticket after its discount, the fees and
/// the tax, adding up to the order's total; the tickets carry it even after
/// staff change the charges before the payment comes; a refund of one
/// ticket gives back its price, its tax and its fee through Stripe.
#[tokio::test]
async fn an_online_order_asks_stripe_for_its_receipt_and_its_tickets_keep_it() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(60)).await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = offer_event(
        &app,
        &key,
        "online",
        None,
        Some(5),
        json!({"booking_fee_cents": 150, "tax": {"rate_percent": "8.5", "included": false}}),
    )
    .await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, status, order) = hold_and_buy(
        &buyer,
        event.id,
        &s[0..2],
        json!({"price_types": {s[1].to_string(): "child"}, "promo_code": "spring20"}),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{order}");
    // Adult 5500 − 1100 = 4400, Child 2500 − 500 = 2000; fees 2 × 150;
    // tax 8.5 % per ticket, half up: 374 + 170 on the prices, 13 + 13 on
    // the fees. 8000 − 1600 + 300 + 570 = 7270.
    let waiting = order_of(&buyer, &order).await;
    assert_eq!(totals(&waiting), [8000, 1600, 300, 570, 7270], "{waiting}");
    assert_eq!(waiting["amount_cents"], 7270, "{waiting}");
    assert_eq!(uses_of(&app, "SPRING20").await, 1, "counted at checkout");
    let lines = standin
        .session_lines(&session_of(&order))
        .expect("the order's session");
    let named: Vec<(String, i64, i64)> = lines
        .iter()
        .map(|(name, unit, quantity)| {
            let name = name.split_once(": ").map_or(name.as_str(), |(_, n)| n);
            (name.to_string(), *unit, *quantity)
        })
        .collect();
    assert_eq!(
        named,
        vec![
            ("Stalls A1 · Adult".to_string(), 4400, 1),
            ("Stalls A2 · Child".to_string(), 2000, 1),
            ("Booking fees".to_string(), 150, 2),
            ("Tax 8.5 %".to_string(), 570, 1),
        ]
    );

    // Staff change the charges before the money comes: the waiting order
    // keeps those it was asked to pay.
    let (status, body) = set_event(
        &app,
        &key,
        event.id,
        json!({"booking_fee_cents": 999, "tax": null}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(pay_at_stripe(&standin, &order).await, 200);
    let paid = order_of(&buyer, &order).await;
    assert_eq!(paid["status"], "paid", "{paid}");
    assert_eq!(totals(&paid), [8000, 1600, 300, 570, 7270], "{paid}");
    let kinds: Vec<(&str, i64)> = paid["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["price_type"].as_str().unwrap(),
                t["price_cents"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(kinds, vec![("adult", 4400), ("child", 2000)]);
    let captured: Vec<i64> = standin.captures().iter().map(|c| c.amount).collect();
    assert_eq!(captured, vec![7270], "Stripe took the order's total");
    assert_eq!(uses_of(&app, "SPRING20").await, 1, "one use, not two");

    // The child's ticket refunded: 2000 + 170 tax + 150 fee + 13 its tax.
    let child_ticket: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT t.id FROM tickets t JOIN price_types pt ON pt.id = t.price_type_id
              WHERE pt.code = 'child'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let (status, refunded) = staff_call(
        &app,
        &key,
        Method::POST,
        &format!(
            "/api/staff/events/{}/orders/{}/refund",
            event.id,
            id_segment(&order["order_id"])
        ),
        Some(json!({"ticket_ids": [child_ticket]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(refunded["amount_cents"], 2333, "{refunded}");
    drain_provider_calls(&app).await;
    let given_back: Vec<i64> = standin.refunds().iter().map(|r| r.amount).collect();
    assert_eq!(given_back, vec![2333]);
    app.no_breaches().await;
}

/// A box-office reservation asks the counter for the receipt's total, and
/// holds its type's quota: a rival student is refused while it waits, and
/// gets the place once its deadline has passed, however long nobody swept
/// it; the lapsed reservation can't then be paid.
#[tokio::test]
async fn a_reservation_asks_its_total_and_holds_its_quota_until_its_deadline() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = offer_event(
        &app,
        &key,
        "box_office",
        Some(1),
        None,
        json!({"booking_fee_cents": 100, "tax": {"rate_percent": "19", "included": true}}),
    )
    .await;
    let s = &event.seat_ids;
    let clerk = staff(&app, "clerk").await;
    let first = app.buyer();
    // Two students against a quota of one: refused, the hold kept.
    let (hold, status, refused) = hold_and_buy(
        &first,
        event.id,
        &s[0..2],
        json!({"price_types": {s[0].to_string(): "student", s[1].to_string(): "student"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "price_type_sold_out");
    let (status, reserved) = buy(
        &first,
        &hold,
        json!({"price_types": {s[0].to_string(): "student"}}),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{reserved}");
    assert_eq!(reserved["payment"], "box_office");
    // Student 3000 + Adult 5500, fees 2 × 100; VAT 19 % included, per
    // ticket: 479 + 878 on the prices, 16 + 16 on the fees.
    let waiting = order_of(&first, &reserved).await;
    assert_eq!(totals(&waiting), [8500, 0, 200, 1389, 8700], "{waiting}");
    assert_eq!(waiting["amount_cents"], 8700, "the counter asks the total");
    // The buyer's order page shows what will be asked, before any ticket.
    let page = first
        .get_text(&format!("/orders/{}", id_segment(&reserved["order_id"])))
        .await;
    for part in [
        "class=\"receipt\"",
        "Booking fees",
        "Including VAT 19 %",
        "€13.89",
        "€87",
    ] {
        assert!(
            page.contains(part),
            "{part} missing from the reservation's page"
        );
    }
    assert_eq!(students_counted(&app).await, 1);

    let rival = app.buyer();
    let (rival_hold, status, refused) = hold_and_buy(
        &rival,
        event.id,
        &s[2..3],
        json!({"price_types": {s[2].to_string(): "student"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "price_type_sold_out");

    // The reservation's deadline passes; nothing lets it go but the rival.
    deadline_in(&app, &reserved, -1.0).await;
    let student = json!({"price_types": {s[2].to_string(): "student"}});
    let (status, rivals) = buy(&rival, &rival_hold, student).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{rivals}");
    assert_eq!(stored_status(&app, &reserved).await, "lapsed");
    assert_eq!(students_counted(&app).await, 1, "given back, taken again");

    let pay = |order: &Value| {
        format!(
            "/api/staff/events/{}/orders/{}/payment",
            event.id,
            id_segment(&order["order_id"])
        )
    };
    let (status, body) = clerk.post(&pay(&reserved), json!({"tender": "cash"})).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("payment_deadline_passed")),
        "{body}"
    );
    let (status, body) = clerk.post(&pay(&rivals), json!({"tender": "card"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let paid = order_of(&rival, &rivals).await;
    // Student 3000, fee 100; 479 + 16 included.
    assert_eq!(totals(&paid), [3000, 0, 100, 495, 3100], "{paid}");
    assert_eq!(paid["tickets"][0]["price_type"], "student");
    let paid_cents: i64 = app
        .count("SELECT amount_paid_cents FROM orders WHERE status = 'paid'")
        .await;
    assert_eq!(paid_cents, 3100);
    app.no_breaches().await;
}

/// A one-use code taken by an online checkout whose payment never came:
/// the next buyer with the code gets it once the deadline has passed,
/// whether Stripe's expiry reaches the order first or the buyer does; the
/// expiry coming second gives nothing back twice. A payment that arrives
/// after that finds the code used up: it sells nothing and is refunded. One
/// that arrives while the use is still free sells, counting it again.
#[tokio::test]
async fn a_lapsed_online_payment_gives_its_code_back_to_the_next_buyer_once() {
    for expiry_first in [true, false] {
        let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(3600)).await;
        let key = make_staff_key(&app, "manager-key", Role::Manager).await;
        let event = offer_event(&app, &key, "online", None, Some(1), json!({})).await;
        let s = &event.seat_ids;
        let code = json!({"promo_code": "SPRING20"});
        let (_, status, first) = hold_and_buy(&app.buyer(), event.id, &s[0..1], code.clone()).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{first}");
        let next = app.buyer();
        let (next_hold, status, refused) =
            hold_and_buy(&next, event.id, &s[1..2], code.clone()).await;
        assert_eq!(status, StatusCode::CONFLICT, "{refused}");
        assert_eq!(refused["error"], "promo_code_used_up");

        deadline_in(&app, &first, -1.0).await;
        // Its expiry job falls due with it.
        app.sql()
            .await
            .execute(
                "UPDATE payment_jobs SET next_attempt_at = now()
                  WHERE order_id = $1::text::uuid AND kind = 'expire'",
                &[&id_segment(&first["order_id"])],
            )
            .await
            .unwrap();
        if expiry_first {
            // The worker expires the session; Stripe's webhook lets it go.
            drain_provider_calls(&app).await;
            expiry_handled(&app).await;
            assert_eq!(stored_status(&app, &first).await, "lapsed");
            assert_eq!(uses_of(&app, "SPRING20").await, 0, "given back");
        }
        let (status, second) = buy(&next, &next_hold, code.clone()).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{second}");
        assert_eq!(stored_status(&app, &first).await, "lapsed");
        assert_eq!(uses_of(&app, "SPRING20").await, 1);
        if !expiry_first {
            // The buyer let the order go; the expiry comes after, and gives
            // nothing back twice.
            drain_provider_calls(&app).await;
            expiry_handled(&app).await;
            assert_eq!(
                standin
                    .session_status(&session_of(&first))
                    .map(|(status, _)| status),
                Some("expired".to_string()),
                "a lapsed order's session is still expired at Stripe"
            );
        }
        assert_eq!(uses_of(&app, "SPRING20").await, 1);
        app.no_breaches().await;
    }
}

/// Waits (up to 10 s) until the app has recorded Stripe's expiry webhook,
/// which the stand-in sends on its own schedule.
async fn expiry_handled(app: &TestApp) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while app
        .count("SELECT count(*) FROM stripe_events WHERE type = 'checkout.session.expired'")
        .await
        == 0
    {
        assert!(
            std::time::Instant::now() < deadline,
            "Stripe's expiry webhook never reached the app"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The sweep lets a waiting order go while its Stripe session is still
/// open, and its payment then arrives: with the code's last use taken by
/// another buyer it is refunded in full and sells nothing; with the use
/// still free it sells, the use counted again.
#[tokio::test]
async fn a_payment_after_its_order_was_let_go_sells_only_if_its_counts_are_free() {
    for taken in [true, false] {
        let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(3600)).await;
        let key = make_staff_key(&app, "manager-key", Role::Manager).await;
        let event = offer_event(&app, &key, "online", Some(1), Some(1), json!({})).await;
        let s = &event.seat_ids;
        let first_buyer = app.buyer();
        let (_, status, first) = hold_and_buy(
            &first_buyer,
            event.id,
            &s[0..1],
            json!({"promo_code": "SPRING20", "price_types": {s[0].to_string(): "student"}}),
        )
        .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{first}");
        deadline_in(&app, &first, -1.0).await;
        let next = app.buyer();
        if taken {
            let code = json!({"promo_code": "SPRING20"});
            let (_, status, body) = hold_and_buy(&next, event.id, &s[1..2], code).await;
            assert_eq!(
                status,
                StatusCode::ACCEPTED,
                "the use given back to it: {body}"
            );
        } else {
            // Two students against a quota of one: the overdue order is let
            // go for them, and still they can't have both. Nothing is taken.
            let two =
                json!({"price_types": {s[1].to_string(): "student", s[2].to_string(): "student"}});
            let (_, status, body) = hold_and_buy(&next, event.id, &s[1..3], two).await;
            assert_eq!(status, StatusCode::CONFLICT, "{body}");
            assert_eq!(body["error"], "price_type_sold_out");
        }
        assert_eq!(stored_status(&app, &first).await, "lapsed");
        assert_eq!(
            students_counted(&app).await,
            0,
            "the student place given back"
        );

        assert_eq!(pay_at_stripe(&standin, &first).await, 200);
        let order = order_of(&first_buyer, &first).await;
        if taken {
            assert_eq!(stored_status(&app, &first).await, "refunded_unfulfilled");
            assert_eq!(order["tickets"], json!([]), "{order}");
            drain_provider_calls(&app).await;
            let refunds: Vec<i64> = standin.refunds().iter().map(|r| r.amount).collect();
            assert_eq!(refunds, vec![2400], "{order}");
            assert_eq!(uses_of(&app, "SPRING20").await, 1, "the other buyer's use");
            assert_eq!(students_counted(&app).await, 0);
        } else {
            assert_eq!(order["status"], "paid", "{order}");
            assert_eq!(order["tickets"][0]["price_type"], "student");
            assert_eq!(uses_of(&app, "SPRING20").await, 1, "counted again");
            assert_eq!(students_counted(&app).await, 1, "counted again");
        }
        app.no_breaches().await;
    }
}

/// General-admission places take types as seats do: named by count per
/// area, counted against the type's quota (a refusal leaves the hold
/// whole), discounted by the code, charged the fee, and carried to the
/// tickets; a refunded GA ticket gives its type's place back. Bought at
/// once, and reserved at the box office, whose receipt and tickets agree.
#[tokio::test]
async fn general_admission_places_are_sold_as_types_and_counted() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let (event, areas) = app.create_ga_event(2, &[("Floor", 50)]).await;
    let floor = areas[0];
    let (status, body) = put_types(
        &app,
        &key,
        event.id,
        json!({"price_types": [
            {"code": "adult", "label": {"en": "Adult"}, "prices": {"std": 4500, "floor": 2000}},
            {"code": "child", "label": {"en": "Child"}, "prices": {"floor": 1000}, "quota": 3},
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = make_code(
        &app,
        &key,
        event.id,
        json!({"code": "TENOFF", "percent_off": 10}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = set_event(&app, &key, event.id, json!({"booking_fee_cents": 100})).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let buyer = app.buyer();
    let (status, hold) = buyer.hold_ga(event.id, floor, 3).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let kids = |n: i32| json!({"ga_price_types": {floor.to_string(): {"child": n}}, "promo_code": "tenoff"});
    // Malformed counts are refused, and nothing is sold.
    for (odd, status) in [
        (
            json!({"ga_price_types": {floor.to_string(): {"child": 1.5}}}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"ga_price_types": {floor.to_string(): {"child": -1}}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"ga_price_types": {"floor": {"child": 1}}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"ga_price_types": {"999": {"child": 1}}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"ga_price_types": {floor.to_string(): {"child": 2_000_000_000}}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ] {
        let (got, body) = buy(&buyer, &hold, odd.clone()).await;
        assert_eq!(got, status, "{odd}: {body}");
    }
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    // Four children named for three places: refused, the hold whole.
    let (status, refused) = buy(&buyer, &hold, kids(4)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"], "price_type_rule");
    let (status, bought) = buy(&buyer, &hold, kids(2)).await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    // 2 × (1000 − 100) + (2000 − 200), fees 3 × 100.
    assert_eq!(totals(&order), [4000, 400, 300, 0, 3900], "{order}");
    let mut kinds: Vec<(String, i64)> = order["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["price_type"].as_str().unwrap().to_string(),
                t["price_cents"].as_i64().unwrap(),
            )
        })
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        vec![
            ("adult".into(), 1800),
            ("child".into(), 900),
            ("child".into(), 900)
        ]
    );
    assert_eq!(counted(&app, "child").await, 2);

    // One child place left under the quota: two more are refused whole.
    let second = app.buyer();
    let (_, hold2) = second.hold_ga(event.id, floor, 2).await;
    let (status, refused) = buy(
        &second,
        &hold2,
        json!({"ga_price_types": {floor.to_string(): {"child": 2}}}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "price_type_sold_out");
    assert_eq!(counted(&app, "child").await, 2, "nothing counted");

    // A child ticket refunded gives its place back: now both sell.
    let child_ticket: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT t.id FROM tickets t JOIN price_types pt ON pt.id = t.price_type_id
              WHERE pt.code = 'child' ORDER BY t.id LIMIT 1",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let (status, refunded) = staff_call(
        &app,
        &key,
        Method::POST,
        &format!(
            "/api/staff/events/{}/orders/{}/refund",
            event.id,
            id_segment(&bought["order_id"])
        ),
        Some(json!({"ticket_ids": [child_ticket]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(refunded["amount_cents"], 1000, "900 and its fee");
    assert_eq!(counted(&app, "child").await, 1);

    // Reserved at the box office: the receipt asked is what the tickets say.
    let (status, body) = set_event(&app, &key, event.id, json!({"payment": "box_office"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, reserved) = buy(
        &second,
        &hold2,
        json!({"ga_price_types": {floor.to_string(): {"child": 2}}}),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{reserved}");
    let waiting = order_of(&second, &reserved).await;
    assert_eq!(totals(&waiting), [2000, 0, 200, 0, 2200], "{waiting}");
    assert_eq!(counted(&app, "child").await, 3, "counted at checkout");
    let clerk = staff(&app, "clerk").await;
    let (status, body) = clerk
        .post(
            &format!(
                "/api/staff/events/{}/orders/{}/payment",
                event.id,
                id_segment(&reserved["order_id"])
            ),
            json!({"tender": "cash"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let paid = order_of(&second, &reserved).await;
    assert_eq!(totals(&paid), [2000, 0, 200, 0, 2200], "{paid}");
    assert_eq!(paid["tickets"][0]["price_type"], "child");
    assert_eq!(paid["tickets"][1]["price_type"], "child");
    assert_eq!(counted(&app, "child").await, 3, "not counted twice");
    app.no_breaches().await;
}

/// What a type has counted against its quota.
async fn counted(app: &TestApp, code: &str) -> i64 {
    app.count(&format!(
        "SELECT sold::bigint FROM price_types WHERE code = '{code}'"
    ))
    .await
}

/// A code that takes the whole price on an event without a fee leaves
/// nothing to pay: the order is sold at once (201, with its tickets), no
/// Stripe session is made for nothing, and the code's use is counted.
#[tokio::test]
async fn an_order_with_nothing_to_pay_is_sold_at_once_without_stripe() {
    let (app, standin) = paying_app(Duration::from_secs(900), Duration::from_secs(3600)).await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = offer_event(&app, &key, "online", None, None, json!({})).await;
    let (status, body) = make_code(
        &app,
        &key,
        event.id,
        json!({"code": "PRESS", "percent_off": 100, "max_uses": 2}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, status, bought) = hold_and_buy(
        &buyer,
        event.id,
        &s[0..2],
        json!({"promo_code": "press", "price_types": {s[1].to_string(): "child"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    assert_eq!(
        bought["tickets"].as_array().map(Vec::len),
        Some(2),
        "{bought}"
    );
    let order = order_of(&buyer, &bought).await;
    assert_eq!(order["status"], "paid", "{order}");
    assert_eq!(totals(&order), [8000, 8000, 0, 0, 0], "{order}");
    assert!(standin.session_ids().is_empty(), "no session for nothing");
    assert_eq!(uses_of(&app, "PRESS").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'SOLD'")
            .await,
        2
    );
    // With a fee there is something to pay: Stripe is asked for the fees.
    let (status, body) = set_event(&app, &key, event.id, json!({"booking_fee_cents": 150})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, status, pending) = hold_and_buy(
        &app.buyer(),
        event.id,
        &s[2..3],
        json!({"promo_code": "PRESS"}),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{pending}");
    let lines = standin.session_lines(&session_of(&pending)).unwrap();
    let asked: i64 = lines
        .iter()
        .map(|(_, unit, quantity)| unit * quantity)
        .sum();
    assert_eq!(asked, 150);
    app.no_breaches().await;
}

/// A place no type prices (here the floor's tier) sells at its tier's
/// price beside seats sold as types, and the hold panel offers it none.
#[tokio::test]
async fn a_place_no_type_prices_sells_at_its_tiers_price() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let (event, areas) = app.create_ga_event(2, &[("Floor", 50)]).await;
    let (status, body) = put_types(
        &app,
        &key,
        event.id,
        json!({"price_types": [
            {"code": "adult", "label": {"en": "Adult"}, "prices": {"std": 4500}},
            {"code": "child", "label": {"en": "Child"}, "prices": {"std": 2500}},
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let buyer = app.buyer();
    let (status, _) = buyer.hold_ga(event.id, areas[0], 2).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, hold) = buyer.hold(event.id, &event.seat_ids[0..1]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let page = buyer.get_text(&format!("/events/{}", event.id)).await;
    assert!(
        page.contains("name=\"type_"),
        "the seat is offered its types"
    );
    assert!(
        !page.contains("name=\"type_ga_"),
        "the floor is offered none"
    );
    let (status, bought) = buy(
        &buyer,
        &hold,
        json!({"price_types": {event.seat_ids[0].to_string(): "child"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    assert_eq!(totals(&order), [6500, 0, 0, 0, 6500], "{order}");
}

/// Staff lowering a quota are not refused by orders that will never pay:
/// those past their deadline are let go first, and only live ones count.
#[tokio::test]
async fn a_quota_is_judged_by_live_orders_not_abandoned_ones() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = offer_event(&app, &key, "box_office", Some(3), None, json!({})).await;
    let s = &event.seat_ids;
    let two_students =
        json!({"price_types": {s[0].to_string(): "student", s[1].to_string(): "student"}});
    let (_, status, abandoned) = hold_and_buy(&app.buyer(), event.id, &s[0..2], two_students).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{abandoned}");
    let (_, status, live) = hold_and_buy(
        &app.buyer(),
        event.id,
        &s[2..3],
        json!({"price_types": {s[2].to_string(): "student"}}),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{live}");
    assert_eq!(students_counted(&app).await, 3);
    let quota = |n: i64| {
        json!({"price_types": [
            {"code": "adult", "label": {"en": "Adult"}, "prices": {"std": 5500}},
            {"code": "child", "label": {"en": "Child"}, "prices": {"std": 2500}},
            {"code": "student", "label": {"en": "Student"}, "prices": {"std": 3000}, "quota": n},
        ]})
    };
    // While both wait, the quota can't go below what they hold.
    let (status, refused) = put_types(&app, &key, event.id, quota(1)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    deadline_in(&app, &abandoned, -1.0).await;
    let (status, body) = put_types(&app, &key, event.id, quota(1)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(stored_status(&app, &abandoned).await, "lapsed");
    assert_eq!(stored_status(&app, &live).await, "pending_payment");
    assert_eq!(students_counted(&app).await, 1, "the live reservation's");
    app.no_breaches().await;
}
