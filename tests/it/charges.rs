//! Booking fees and tax (issue 47): each ticket charged the event's fee and
//! taxed on its own, the order's receipt the sum of its tickets, refunds
//! paying back what was paid; hidden types, "needs another type", paused
//! codes, and wrong codes counted against the hold request limits.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::api_keys::make_staff_key;
use crate::price_types::put_types;
use crate::promo_codes::{make_code, staff_call};
use crate::support::{Api, TestApp, id_segment, spawn_app, spawn_app_with};
use seatmap::domain::charges::Tax;
use seatmap::domain::role::Role;

/// Staff change the event (its payment, fee and tax) with a manager's key.
pub(crate) async fn set_event(
    app: &TestApp,
    key: &str,
    event_id: i64,
    body: Value,
) -> (StatusCode, Value) {
    staff_call(
        app,
        key,
        Method::PATCH,
        &format!("/api/staff/events/{event_id}"),
        Some(body),
    )
    .await
}

/// Buys the hold with `extra` fields beside the buyer (types, a code).
pub(crate) async fn buy(buyer: &Api, hold: &Value, extra: Value) -> (StatusCode, Value) {
    let mut body = json!({"name": "Ada", "email": "ada@example.com"});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    buyer
        .post(
            &format!("/api/holds/{}/purchase", id_segment(&hold["hold_id"])),
            body,
        )
        .await
}

pub(crate) async fn order_of(buyer: &Api, bought: &Value) -> Value {
    let (status, order) = buyer
        .get(&format!("/api/orders/{}", id_segment(&bought["order_id"])))
        .await;
    assert_eq!(status, StatusCode::OK, "{order}");
    order
}

/// The tax the app shows before a purchase, as the test computes it.
fn tax(rate_hundredths: i32, included: bool, cents: i64) -> i64 {
    Tax {
        rate_hundredths,
        included,
    }
    .on(cents)
}

#[tokio::test]
async fn fees_and_tax_make_a_receipt_that_adds_up_included_or_added() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 6).await;
    let (status, set) = set_event(
        &app,
        &key,
        event.id,
        json!({"booking_fee_cents": 150, "tax": {"rate_percent": "19", "included": true}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{set}");
    assert_eq!(set["booking_fee_cents"], 150);
    assert_eq!(set["tax"], json!({"rate_percent": "19", "included": true}));
    assert_eq!(set["fees_refundable"], true);
    assert_eq!(set["payment"], "none", "payment is left as it was");
    let (status, made) = make_code(
        &app,
        &key,
        event.id,
        json!({"code": "TENOFF", "percent_off": 10}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");

    // Two €45 seats, 10 % off each, €1.50 fee each, 19 % VAT included.
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    let (status, bought) = buy(&buyer, &hold, json!({"promo_code": "tenoff"})).await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    let per_ticket_tax = tax(1900, true, 4050) + tax(1900, true, 150);
    assert_eq!(order["subtotal_cents"], 9000, "{order}");
    assert_eq!(order["discount_cents"], 900);
    assert_eq!(order["fees_cents"], 300);
    assert_eq!(order["tax_cents"], 2 * per_ticket_tax);
    assert_eq!(
        order["total_cents"],
        9000 - 900 + 300,
        "included tax adds nothing"
    );
    assert_eq!(
        order["tax"],
        json!({"rate_percent": "19", "included": true})
    );
    assert_eq!(order["promo_code"], "TENOFF");
    assert_eq!(order["tickets"][0]["price_cents"], 4050);
    assert_eq!(order["tickets"][0]["discount_cents"], 450);
    assert_eq!(order["tickets"][0]["fee_cents"], 150);
    assert_eq!(order["tickets"][0]["tax_cents"], per_ticket_tax);
    let page = buyer
        .http
        .get(format!(
            "{}/orders/{}",
            app.base,
            id_segment(&bought["order_id"])
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for shown in [
        "Discount TENOFF",
        "Booking fees",
        "Including VAT 19 %",
        "€84",
    ] {
        assert!(page.contains(shown), "the receipt lacks {shown:?}");
    }

    // US style: 8.5 % added on top of the price and of the fee.
    let (status, set) = set_event(
        &app,
        &key,
        event.id,
        json!({"tax": {"rate_percent": 8.5, "included": false}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{set}");
    assert_eq!(set["booking_fee_cents"], 150, "the fee stays as it was");
    let (_, hold) = buyer.hold(event.id, &[s[2]]).await;
    let (status, bought) = buy(&buyer, &hold, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    let added = tax(850, false, 4500) + tax(850, false, 150);
    assert_eq!(order["tax_cents"], added, "{order}");
    assert_eq!(order["total_cents"], 4500 + 150 + added);

    // No tax line, no fee: the order is its tickets.
    let (status, set) = set_event(
        &app,
        &key,
        event.id,
        json!({"tax": null, "booking_fee_cents": 0}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{set}");
    assert_eq!(set["tax"], Value::Null);
    let (_, hold) = buyer.hold(event.id, &[s[3]]).await;
    let (_, bought) = buy(&buyer, &hold, json!({})).await;
    let order = order_of(&buyer, &bought).await;
    assert_eq!(
        (order["tax_cents"].clone(), order["total_cents"].clone()),
        (json!(0), json!(4500))
    );
    // The database holds every order to its sum, whatever the code does.
    let refused = app
        .sql()
        .await
        .execute(
            "UPDATE orders SET total_cents = total_cents + 1 WHERE event_id = $1",
            &[&event.id],
        )
        .await;
    let refused = refused.unwrap_err();
    assert_eq!(
        refused.as_db_error().and_then(|error| error.constraint()),
        Some("order_total_adds_up"),
        "{refused:?}"
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn a_refund_pays_back_price_tax_and_fee_and_keeps_the_fee_when_told() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 4).await;
    let (status, _) = set_event(
        &app,
        &key,
        event.id,
        json!({"booking_fee_cents": 150, "tax": {"rate_percent": "10", "included": false}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let buyer = app.buyer();
    let s = &event.seat_ids;
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    let (_, bought) = buy(&buyer, &hold, json!({})).await;
    let order = order_of(&buyer, &bought).await;
    let refund = |order_id: &Value, body: Value| {
        let path = format!(
            "/api/staff/events/{}/orders/{}/refund",
            event.id,
            id_segment(order_id)
        );
        let (app, key) = (&app, &key);
        async move { staff_call(app, key, Method::POST, &path, Some(body)).await }
    };
    // One ticket: €45 + 10 % tax + the €1.50 fee and its tax.
    let ticket_id = app
        .sql()
        .await
        .query_one(
            "SELECT min(id) FROM tickets WHERE order_id = $1::text::uuid",
            &[&bought["order_id"].as_str().unwrap()],
        )
        .await
        .unwrap()
        .get::<_, i64>(0);
    let (status, refunded) = refund(&bought["order_id"], json!({"ticket_ids": [ticket_id]})).await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(refunded["amount_cents"], 4500 + 450 + 150 + 15);
    let after = order_of(&buyer, &bought).await;
    assert_eq!(after["refunded_cents"], 5115);
    assert_eq!(
        after["amount_cents"],
        order["total_cents"].as_i64().unwrap() - 5115
    );

    // Fees kept from now on: the order sold before still gets its fee back,
    // one sold after doesn't.
    let (status, set) = set_event(&app, &key, event.id, json!({"fees_refundable": false})).await;
    assert_eq!(status, StatusCode::OK, "{set}");
    assert_eq!(set["fees_refundable"], false);
    let (status, refunded) = refund(&bought["order_id"], json!({})).await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(
        refunded["amount_cents"], 5115,
        "sold while fees were refundable"
    );
    let (_, hold) = buyer.hold(event.id, &[s[2]]).await;
    let (_, later) = buy(&buyer, &hold, json!({})).await;
    let (status, refunded) = refund(&later["order_id"], json!({})).await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(refunded["amount_cents"], 4500 + 450, "the fee is kept");
    app.no_breaches().await;
}

#[tokio::test]
async fn charges_are_checked_and_change_with_payment_in_one_transaction() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 2).await;
    for (body, error) in [
        (
            json!({"tax": {"rate_percent": "19.555", "included": true}}),
            "invalid_charges",
        ),
        (
            json!({"tax": {"rate_percent": "0", "included": true}}),
            "invalid_charges",
        ),
        (
            json!({"tax": {"rate_percent": "100", "included": false}}),
            "invalid_charges",
        ),
        (
            json!({"tax": {"rate_percent": "19%", "included": true}}),
            "invalid_charges",
        ),
        (json!({"booking_fee_cents": -1}), "invalid_charges"),
        (json!({"booking_fee_cents": 100_000_001}), "invalid_charges"),
    ] {
        let (status, refused) = set_event(&app, &key, event.id, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(refused["error"], error, "{body}");
    }
    for body in [
        json!({"tax": {"rate_percent": "19"}}),
        json!({"tax": "19"}),
        json!({"booking_fee_cents": "lots"}),
        json!({"fees_refundable": "yes"}),
    ] {
        let (status, refused) = set_event(&app, &key, event.id, body.clone()).await;
        assert!(status.is_client_error(), "{body}: {status} {refused}");
    }
    // Payment and a fee at once: both happen.
    let (status, set) = set_event(
        &app,
        &key,
        event.id,
        json!({"payment": "box_office", "booking_fee_cents": 100}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{set}");
    assert_eq!(
        (set["payment"].clone(), set["booking_fee_cents"].clone()),
        (json!("box_office"), json!(100))
    );
    // A reservation waits for its money: the payment can't change under it,
    // and a fee asked with that change is refused with it, in one
    // transaction.
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &event.seat_ids[0..1]).await;
    let (status, reserved) = buy(&buyer, &hold, json!({})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{reserved}");
    let (status, refused) = set_event(
        &app,
        &key,
        event.id,
        json!({"payment": "none", "booking_fee_cents": 300}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "orders_awaiting_payment");
    let (_, now) = set_event(&app, &key, event.id, json!({})).await;
    assert_eq!(
        (now["payment"].clone(), now["booking_fee_cents"].clone()),
        (json!("box_office"), json!(100)),
        "neither changed"
    );
}

/// The tax PostgreSQL stores (`ticket_tax_cents`) and the tax the hold
/// panel shows before a purchase (`Tax::on`) are the same on every amount
/// and rate tried, exact halves included.
#[tokio::test]
async fn the_stored_tax_is_the_tax_shown_before_the_purchase() {
    let app = spawn_app().await;
    let mut amounts: Vec<i64> = vec![0, 1, 50, 100, 119, 150, 5500, 10_750, 100_000_000];
    let mut seed: u64 = 0x5eed_cafe;
    for _ in 0..3_000 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        amounts.push(((seed >> 33) % 2_000_000) as i64);
    }
    let rates: Vec<i32> = vec![1, 5, 50, 550, 700, 750, 825, 850, 1900, 2000, 2500, 9999];
    let client = app.sql().await;
    for included in [true, false] {
        for &rate in &rates {
            let stored: Vec<i32> = client
                .query_one(
                    "SELECT array_agg(ticket_tax_cents(a, $2::integer / 100.0, $3) ORDER BY n)
                       FROM unnest($1::bigint[]) WITH ORDINALITY AS x(a, n)",
                    &[&amounts, &rate, &included],
                )
                .await
                .unwrap()
                .get(0);
            for (amount, stored) in amounts.iter().zip(stored) {
                assert_eq!(
                    i64::from(stored),
                    tax(rate, included, *amount),
                    "amount {amount}, rate {rate}/100 %, included {included}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_hidden_type_needs_its_code_and_a_child_ticket_needs_an_adult_one() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 6).await;
    let (status, body) = put_types(&app, &key, event.id, json!({"price_types": [
            {"code": "adult", "label": {"en": "Adult"}, "prices": {"std": 4500}},
            {"code": "child", "label": {"en": "Child"}, "prices": {"std": 2000}, "requires": "adult"},
            {"code": "members", "label": {"en": "Members"}, "prices": {"std": 3000}, "visibility": "code"},
        ]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["price_types"][2]["visibility"], "code");
    assert_eq!(body["price_types"][1]["requires"], "adult");
    let code = |body: Value| {
        let (app, key) = (&app, &key);
        let path = format!("/api/staff/events/{}/promo-codes", event.id);
        async move { staff_call(app, key, Method::POST, &path, Some(body)).await }
    };
    let (status, made) =
        code(json!({"code": "FRIENDS", "percent_off": 5, "unlocks": "adult"})).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "only a hidden type is unlocked: {made}"
    );
    let (status, made) =
        code(json!({"code": "MEMBERS", "amount_off_cents": 100, "unlocks": "members"})).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(made["unlocks"], "members");

    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    let as_types = |a: &str, b: &str| json!({s[0].to_string(): a, s[1].to_string(): b});
    // The panel doesn't offer the hidden type.
    let page = buyer.get_text(&format!("/events/{}", event.id)).await;
    assert!(
        page.contains("value=\"adult\"") && !page.contains("value=\"members\""),
        "{page}"
    );
    let (status, refused) = buy(
        &buyer,
        &hold,
        json!({"price_types": as_types("members", "adult")}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"], "unknown_price_type");
    let (status, refused) = buy(
        &buyer,
        &hold,
        json!({"price_types": as_types("child", "child")}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"], "price_type_rule");
    assert!(
        refused["message"].as_str().unwrap().contains("adult"),
        "{refused}"
    );
    let (status, bought) = buy(
        &buyer,
        &hold,
        json!({"price_types": as_types("members", "child"), "promo_code": "members"}),
    )
    .await;
    // A child ticket beside a members one still has no adult: refused.
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bought}");
    let (status, bought) = buy(
        &buyer,
        &hold,
        json!({"price_types": as_types("members", "adult"), "promo_code": "members"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    let sold: Vec<(&str, i64)> = order["tickets"]
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
    assert_eq!(sold, [("members", 2900), ("adult", 4400)]);
    app.no_breaches().await;
}

#[tokio::test]
async fn a_paused_code_is_refused_until_it_is_resumed() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 2).await;
    let codes = format!("/api/staff/events/{}/promo-codes", event.id);
    let (status, _) = staff_call(
        &app,
        &key,
        Method::POST,
        &codes,
        Some(json!({"code": "Pause-Me", "percent_off": 50})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, paused) = staff_call(
        &app,
        &key,
        Method::PATCH,
        &format!("{codes}/pause-me"),
        Some(json!({"paused": true})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{paused}");
    assert_eq!(paused["paused"], true);
    let (status, missing) = staff_call(
        &app,
        &key,
        Method::PATCH,
        &format!("{codes}/NOSUCH"),
        Some(json!({"paused": true})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    let (status, refused) = buy(&buyer, &hold, json!({"promo_code": "PAUSE-ME"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["error"], "promo_code_expired");
    let (status, _) = staff_call(
        &app,
        &key,
        Method::PATCH,
        &format!("{codes}/Pause-Me"),
        Some(json!({"paused": false})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, bought) = buy(&buyer, &hold, json!({"promo_code": "PAUSE-ME"})).await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let (_, listed) = staff_call(&app, &key, Method::GET, &codes, None).await;
    assert_eq!(listed["promo_codes"][0]["uses"], 1);
    assert_eq!(listed["promo_codes"][0]["paused"], false);
}

/// Guessing codes costs hold requests: with 5 a minute, the fifth guess
/// after the hold is refused 429 before the code is looked up (a right
/// code then is refused too), and the hold is still there to buy.
#[tokio::test]
async fn wrong_codes_count_against_the_hold_request_limit() {
    let app = spawn_app_with(|config| config.limits.hold_requests_per_session = 5).await;
    let event = app.create_event(1, 2).await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let (status, _) = make_code(
        &app,
        &key,
        event.id,
        json!({"code": "REAL", "percent_off": 10}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(status, StatusCode::CREATED);
    for guess in ["AAAA", "BBBB", "CCCC", "DDDD"] {
        let (status, refused) = buy(&buyer, &hold, json!({"promo_code": guess})).await;
        assert_eq!(refused["error"], "promo_code_unknown", "{status} {refused}");
    }
    let (status, limited) = buy(&buyer, &hold, json!({"promo_code": "REAL"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{limited}");
    let (status, bought) = buy(&buyer, &hold, json!({})).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "without a code the hold buys: {bought}"
    );
}

/// Guessing spread over many sessions and addresses meets the event's own
/// budget of code tries: each caller is far under its own limits, and the
/// event's tries a minute stop them together. Another event is untouched.
#[tokio::test]
async fn code_guesses_from_many_addresses_meet_the_events_own_budget() {
    let app = spawn_app_with(|config| config.limits.code_tries_per_event = 5).await;
    let (event, other) = (app.create_event(1, 8).await, app.create_event(1, 2).await);
    let buyers: Vec<Api> = (0..6)
        .map(|i| Api::from_address(&app.base, &format!("127.0.0.{}", i + 2)))
        .collect();
    let mut answers = Vec::new();
    for (buyer, seat) in buyers.iter().zip(&event.seat_ids) {
        let (status, hold) = buyer.hold(event.id, &[*seat]).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        let (status, refused) = buy(buyer, &hold, json!({"promo_code": "GUESS1"})).await;
        answers.push((status, refused["error"].as_str().unwrap_or("").to_string()));
    }
    let unknown = (
        StatusCode::UNPROCESSABLE_ENTITY,
        "promo_code_unknown".to_string(),
    );
    let limited = (StatusCode::TOO_MANY_REQUESTS, "rate_limited".to_string());
    assert_eq!(answers[..5], vec![unknown.clone(); 5][..], "{answers:?}");
    assert_eq!(
        answers[5], limited,
        "the sixth try on the event, from a sixth address"
    );
    // The event's budget is its own.
    let elsewhere = Api::from_address(&app.base, "127.0.0.20");
    let (_, hold) = elsewhere.hold(other.id, &[other.seat_ids[0]]).await;
    let (status, refused) = buy(&elsewhere, &hold, json!({"promo_code": "GUESS1"})).await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (unknown.0, Some("promo_code_unknown"))
    );
}

/// A code applied in the hold panel (a form, no JavaScript): the panel
/// shows its discount and the hidden type it unlocks, the purchase uses it
/// without naming it, a wrong code is refused there and the hold stays.
#[tokio::test]
async fn a_code_applied_in_the_panel_shows_its_discount_and_the_purchase_uses_it() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 4).await;
    let (status, _) = put_types(&app, &key, event.id, json!({"price_types": [
            {"code": "adult", "label": {"en": "Adult"}, "prices": {"std": 5000}},
            {"code": "members", "label": {"en": "Members"}, "prices": {"std": 3000}, "visibility": "code"},
        ]})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = make_code(
        &app,
        &key,
        event.id,
        json!({"code": "CLUB", "percent_off": 10, "unlocks": "members"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = set_event(&app, &key, event.id, json!({"booking_fee_cents": 100})).await;
    assert_eq!(status, StatusCode::OK);
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    let map = format!("/events/{}", event.id);
    let before = buyer.get_text(&map).await;
    assert!(before.contains("Buy for €51"), "€50 and the €1 fee");
    assert!(
        !before.contains("Members ·"),
        "the hidden type is not offered yet"
    );

    let apply = |code: &'static str| {
        let (buyer, path) = (&buyer, format!("{map}/hold/code"));
        async move {
            crate::pages::post_form(buyer, &path, &[("promo_code", code.to_string())], true).await
        }
    };
    let refused = apply("NOPE").await;
    assert_eq!(
        refused.status(),
        StatusCode::OK,
        "the panel comes back with the refusal"
    );
    let html = refused.text().await.unwrap();
    // The refusal's own words (the page escapes its apostrophe).
    let unknown = seatmap::words::refusal_notice(seatmap::error::AppError::Invalid(
        seatmap::error::Invalid::PromoCodeUnknown,
    ))
    .unwrap()
    .replace('\'', "&#39;");
    assert!(html.contains(&unknown), "{unknown} in {html}");
    assert!(!html.contains("applied."), "nothing is applied: {html}");
    let applied = apply("club").await.text().await.unwrap();
    assert!(applied.contains("Code CLUB applied."), "{applied}");
    assert!(applied.contains("Discount CLUB"), "{applied}");
    // 10 % off €50 is €5: €45 and the €1 fee.
    assert!(applied.contains("Buy for €46"), "{applied}");
    assert!(
        applied.contains("Members · €30"),
        "the code unlocks its type"
    );

    // The purchase names no code: the hold's is used, and counted.
    let (status, bought) = buy(
        &buyer,
        &hold,
        json!({"price_types": {event.seat_ids[0].to_string(): "members"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    assert_eq!(order["promo_code"], "CLUB");
    assert_eq!(order["total_cents"], 2700 + 100, "{order}");
    let (_, listed) = staff_call(
        &app,
        &key,
        Method::GET,
        &format!("/api/staff/events/{}/promo-codes", event.id),
        None,
    )
    .await;
    assert_eq!(listed["promo_codes"][0]["uses"], 1);
}

/// The staff console's offer page (forms, no JavaScript): a manager sets
/// the fee and tax, the types and a code, pauses the code, and the page
/// reads it all back; a buyer is then charged so.
#[tokio::test]
async fn a_manager_sets_the_whole_offer_on_the_console_page() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let manager = crate::staff::staff(&app, "manager").await;
    let act = |path: &'static str, fields: Vec<(&'static str, String)>| {
        let (manager, event_id) = (&manager, event.id);
        async move {
            let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let path = format!("/staff/events/{event_id}/offer{path}");
            let response = crate::staff::console_action(manager, event_id, &path, &fields).await;
            assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
            manager
                .get_text(&format!("/staff/events/{event_id}/offer"))
                .await
        }
    };
    let page = act(
        "/charges",
        vec![
            ("fee", "1.50".into()),
            ("tax_rate", "7".into()),
            ("tax", "added".into()),
        ],
    )
    .await;
    assert!(page.contains("Booking fee and tax saved"), "{page}");
    assert!(
        page.contains("value=\"1.50\"") && page.contains("value=\"7\""),
        "{page}"
    );
    let refused = act("/charges", vec![("fee", "lots".into())]).await;
    assert!(refused.contains("booking fee is an amount"), "{refused}");

    let page = act(
        "/types",
        vec![
            ("code_0", "adult".into()),
            ("label_0", "Adult".into()),
            ("price_0_std", "50".into()),
            ("code_1", "child".into()),
            ("label_1", "Child".into()),
            ("price_1_std", "20.00".into()),
            ("requires_1", "adult".into()),
            ("quota_1", "10".into()),
        ],
    )
    .await;
    assert!(page.contains("2 price type(s) saved."), "{page}");
    assert!(
        page.contains("value=\"child\"") && page.contains("value=\"20.00\""),
        "{page}"
    );
    let page = act(
        "/codes",
        vec![
            ("code", "HALF".into()),
            ("kind", "percent".into()),
            ("value", "50".into()),
            ("max_uses", "3".into()),
        ],
    )
    .await;
    assert!(
        page.contains("Code HALF made.") && page.contains("50 % off"),
        "{page}"
    );
    let page = act("/codes/HALF/pause", vec![("paused", "true".into())]).await;
    assert!(page.contains("Code HALF paused"), "{page}");

    // A buyer pays it all: €50 adult + €20 child, the €1.50 fee each, 7 % on top.
    let buyer = app.buyer();
    let s = &event.seat_ids;
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    let (status, refused) = buy(&buyer, &hold, json!({"promo_code": "half"})).await;
    assert_eq!(
        refused["error"], "promo_code_expired",
        "paused: {status} {refused}"
    );
    let (status, bought) = buy(
        &buyer,
        &hold,
        json!({"price_types": {s[1].to_string(): "child"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    let tax = tax(700, false, 5000) + tax(700, false, 2000) + 2 * tax(700, false, 150);
    assert_eq!(order["total_cents"], 7000 + 300 + tax, "{order}");
    // The box office's order page shows the same receipt.
    let staff_page = manager
        .get_text(&format!(
            "/staff/events/{}/orders/{}",
            event.id,
            id_segment(&bought["order_id"])
        ))
        .await;
    for shown in ["Booking fees", "Tax 7 %", "€78.12"] {
        assert!(staff_page.contains(shown), "{shown:?} in {staff_page}");
    }
}

/// A code applied to a hold and then paused by staff is dropped, not held
/// against the buyer: the purchase goes through without it.
#[tokio::test]
async fn a_code_paused_after_it_was_applied_does_not_strand_the_hold() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 2).await;
    let codes = format!("/api/staff/events/{}/promo-codes", event.id);
    let (status, _) = staff_call(
        &app,
        &key,
        Method::POST,
        &codes,
        Some(json!({"code": "SOON", "percent_off": 10})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    let path = format!("/events/{}/hold/code", event.id);
    let applied =
        crate::pages::post_form(&buyer, &path, &[("promo_code", "SOON".into())], true).await;
    assert!(applied.text().await.unwrap().contains("Code SOON applied."));
    let (status, _) = staff_call(
        &app,
        &key,
        Method::PATCH,
        &format!("{codes}/SOON"),
        Some(json!({"paused": true})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, bought) = buy(&buyer, &hold, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    assert_eq!(
        (order["promo_code"].clone(), order["total_cents"].clone()),
        (Value::Null, json!(4500))
    );
}

/// At the counter: the API's walk-up sale names a type per seat and a
/// code, and is charged as a purchase is (types, quota, the code's use,
/// the fee); the form's review offers each seat's types and shows the
/// code's discount before selling. A comp takes no code.
#[tokio::test]
async fn a_walk_up_sale_takes_types_a_code_and_the_fee() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 6).await;
    let (status, _) = put_types(
        &app,
        &key,
        event.id,
        json!({"price_types": [
            {"code": "adult", "label": {"en": "Adult"}, "prices": {"std": 5000}},
            {"code": "child", "label": {"en": "Child"}, "prices": {"std": 2000}, "quota": 1},
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = make_code(
        &app,
        &key,
        event.id,
        json!({"code": "DESK", "percent_off": 10, "max_uses": 5}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = set_event(&app, &key, event.id, json!({"booking_fee_cents": 100})).await;
    assert_eq!(status, StatusCode::OK);
    let s = &event.seat_ids;
    let sell = |body: Value| {
        let (app, key, path) = (&app, &key, format!("/api/staff/events/{}/sales", event.id));
        async move { staff_call(app, key, Method::POST, &path, Some(body)).await }
    };
    let (status, sold) = sell(json!({
        "seat_ids": [s[0], s[1]], "name": "Walk Up", "tender": "cash",
        "price_types": {s[1].to_string(): "child"}, "promo_code": "desk"
    }))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{sold}");
    let order_id = sold["order_id"].as_str().unwrap().to_string();
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT o.subtotal_cents, o.discount_cents, o.fees_cents, o.total_cents, p.code, p.uses
               FROM orders o JOIN promo_codes p ON p.id = o.promo_code_id
              WHERE o.id = $1::text::uuid",
            &[&order_id],
        )
        .await
        .unwrap();
    let got: (i64, i64, i64, i64, String, i32) = (
        row.get(0),
        row.get(1),
        row.get(2),
        row.get(3),
        row.get(4),
        row.get(5),
    );
    assert_eq!(got, (7000, 700, 200, 7000 - 700 + 200, "DESK".into(), 1));
    // The child quota (1) is spent; a comp takes no code.
    let (status, refused) = sell(json!({
        "seat_ids": [s[2]], "name": "Walk Up", "tender": "card", "price_types": {s[2].to_string(): "child"}
    }))
    .await;
    assert_eq!(
        (status, refused["error"].clone()),
        (StatusCode::CONFLICT, json!("price_type_sold_out"))
    );
    let (status, refused) = sell(json!({
        "seat_ids": [s[2]], "name": "Guest", "tender": "comp", "comp_reason": "press", "promo_code": "DESK"
    }))
    .await;
    assert_eq!(
        (status, refused["error"].clone()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            json!("promo_code_not_applicable")
        )
    );
    assert_eq!(
        app.count("SELECT count(*) FROM orders").await,
        1,
        "the refusals sold nothing"
    );

    // The form: the review offers the types and shows the discount.
    let clerk = crate::staff::staff(&app, "clerk").await;
    let path = format!("/staff/events/{}/walk-up", event.id);
    let review = crate::staff::console_action(
        &clerk,
        event.id,
        &path,
        &[
            ("step", "review"),
            ("seats", "A3, A4"),
            ("name", "Sam Walker"),
            ("tender", "cash"),
            ("promo_code", "desk"),
            (&format!("type_{}", s[3]), "adult"),
        ],
    )
    .await;
    assert_eq!(review.status(), StatusCode::OK);
    let page = review.text().await.unwrap();
    let review = page
        .split("id=\"review-heading\"")
        .nth(1)
        .expect("a review");
    assert!(
        page.contains(&format!("name=\"type_{}\"", s[2])),
        "a select per seat: {page}"
    );
    assert!(review.contains("Discount DESK"), "{review}");
    // €50 + €50, 10 % off, €1 fee each: €92.
    assert!(review.contains("€92"), "{review}");
    // "Sell and print" sends the selects as the review showed them, and sells.
    let token = page
        .split("name=\"reviewed\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the review's token")
        .replace("&#x3D;", "=")
        .replace("&#61;", "=");
    let (a3, a4) = (format!("type_{}", s[2]), format!("type_{}", s[3]));
    let sold = crate::staff::console_action(
        &clerk,
        event.id,
        &path,
        &[
            ("step", "sell"),
            ("seats", "A3, A4"),
            ("name", "Sam Walker"),
            ("tender", "cash"),
            ("promo_code", "desk"),
            (&a3, "adult"),
            (&a4, "adult"),
            ("reviewed", &token),
        ],
    )
    .await;
    assert_eq!(
        sold.status(),
        StatusCode::SEE_OTHER,
        "{}",
        sold.text().await.unwrap()
    );
    let total = app
        .count("SELECT total_cents FROM orders WHERE buyer_name = 'Sam Walker'")
        .await;
    assert_eq!(total, 9200, "the sale charged what its review said");
}

#[tokio::test]
async fn tier_prices_stop_where_price_types_do_and_a_report_of_the_dearest_sale_adds_up() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 10).await;
    let path = format!("/api/staff/events/{}/tiers/std/price", event.id);
    let price = |cents: i64| {
        staff_call(
            &app,
            &key,
            Method::PUT,
            &path,
            Some(json!({ "price_cents": cents })),
        )
    };
    // Past the cap of every amount (100,000,000 minor units): refused, as
    // a price type's price is, and the tier keeps its price.
    for over in [100_000_001_i64, 2_147_483_647] {
        let (status, body) = price(over).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{over}: {body}");
        assert_eq!(body["error"], "invalid_price", "{body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("at most 1,000,000"),
            "the refusal says the limit: {body}"
        );
    }
    let (status, body) = price(100_000_000).await;
    assert_eq!(status, StatusCode::OK, "the cap itself is a price: {body}");

    // Ten tickets at it with 99.99 % tax added: the report still adds up.
    let (status, set) = set_event(
        &app,
        &key,
        event.id,
        json!({"tax": {"rate_percent": "99.99", "included": false}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{set}");
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &event.seat_ids).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let (status, bought) = buy(&buyer, &hold, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{bought}");
    let order = order_of(&buyer, &bought).await;
    let per_ticket = 100_000_000 + tax(9999, false, 100_000_000);
    assert_eq!(order["total_cents"], 10 * per_ticket, "{order}");

    let clerk = crate::staff::staff(&app, "clerk").await;
    let report = clerk
        .http
        .get(format!("{}/staff/events/{}/report", app.base, event.id))
        .send()
        .await
        .unwrap();
    assert_eq!(report.status(), StatusCode::OK);
    let html = report.text().await.unwrap();
    assert!(
        html.contains("10,000,000"),
        "the report shows the gross of ten tickets at a million: {html}"
    );
}
