//! Price types (issue 47): the same seat sold as Adult, Child or Student,
//! each at its own price, with a quota PostgreSQL counts in the purchase's
//! own transaction.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::api_keys::make_staff_key;
use crate::promo_codes::staff_call;
use crate::support::{TestApp, id_segment, spawn_app};
use seatmap::domain::role::Role;

/// Staff call the price-types API with a manager's key.
pub async fn put_types(
    app: &TestApp,
    key: &str,
    event_id: i64,
    body: Value,
) -> (StatusCode, Value) {
    staff_call(
        app,
        key,
        reqwest::Method::PUT,
        &format!("/api/staff/events/{event_id}/price-types"),
        Some(body),
    )
    .await
}

fn offer(student_quota: Option<i64>) -> Value {
    json!({"price_types": [
        {"code": "adult", "label": {"en": "Adult", "de": "Erwachsene"}, "prices": {"std": 5500, "vip": 9900}},
        {"code": "child", "label": {"en": "Child"}, "prices": {"std": 2500}, "max_per_order": 4},
        {"code": "student", "label": {"en": "Student"}, "prices": {"std": 3000}, "quota": student_quota},
    ]})
}

async fn purchase_as(
    buyer: &crate::support::Api,
    hold: &Value,
    types: Value,
) -> (StatusCode, Value) {
    buyer
        .post(
            &format!("/api/holds/{}/purchase", id_segment(&hold["hold_id"])),
            json!({"name": "Ada", "email": "ada@example.com", "price_types": types}),
        )
        .await
}

#[tokio::test]
async fn each_seat_is_sold_at_its_chosen_types_price_and_staff_read_what_each_sold() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 6).await;
    let (status, body) = put_types(&app, &key, event.id, offer(None)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["price_types"][0]["code"], "adult");
    assert_eq!(body["price_types"][0]["label"]["de"], "Erwachsene");

    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    // One child, the other unnamed: the default (adult).
    let (status, order) = purchase_as(&buyer, &hold, json!({ s[0].to_string(): "child" })).await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let lines = app
        .sql()
        .await
        .query(
            "SELECT l.seat_id, l.price_cents, pt.code FROM order_lines l
               JOIN price_types pt ON pt.id = l.price_type_id ORDER BY l.seat_id",
            &[],
        )
        .await
        .unwrap();
    let lines: Vec<(i64, i32, String)> = lines
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        lines,
        [
            (s[0], 2500, "child".to_string()),
            (s[1], 5500, "adult".to_string())
        ]
    );

    let (status, listed) = staff_call(
        &app,
        &key,
        reqwest::Method::GET,
        &format!("/api/staff/events/{}/price-types", event.id),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let sold: Vec<(String, i64)> = listed["price_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["code"].as_str().unwrap().to_string(),
                t["sold"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sold,
        [
            ("adult".to_string(), 1),
            ("child".to_string(), 1),
            ("student".to_string(), 0)
        ]
    );

    // A type with sales can't be removed, only closed.
    let only_adult = json!({"price_types": [
        {"code": "adult", "label": {"en": "Adult"}, "prices": {"std": 5500}},
        {"code": "student", "label": {"en": "Student"}, "prices": {"std": 3000}},
    ]});
    let (status, body) = put_types(&app, &key, event.id, only_adult).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "price_type_in_use");
    assert_eq!(body["price_type"], "child");
    let mut closed = offer(None);
    closed["price_types"][1]["closed"] = json!(true);
    assert_eq!(
        put_types(&app, &key, event.id, closed).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn choices_the_offer_refuses_are_4xx_and_leave_the_hold_as_it_was() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 8).await;
    // An unknown tier, a bad code: refused, nothing stored.
    let mut bad = offer(None);
    bad["price_types"][0]["prices"] = json!({"nope": 1});
    assert_eq!(
        put_types(&app, &key, event.id, bad).await.1["error"],
        "unknown_tier"
    );
    let mut bad = offer(None);
    bad["price_types"][0]["code"] = json!("Adult!");
    assert_eq!(
        put_types(&app, &key, event.id, bad).await.1["error"],
        "invalid_price_type"
    );
    assert_eq!(app.count("SELECT count(*) FROM price_types").await, 0);
    assert_eq!(
        put_types(&app, &key, event.id, offer(None)).await.0,
        StatusCode::OK
    );

    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &s[0..5]).await;
    let five_children: Value = s[0..5]
        .iter()
        .map(|id| (id.to_string(), json!("child")))
        .collect::<serde_json::Map<_, _>>()
        .into();
    let (status, body) = purchase_as(&buyer, &hold, five_children).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "price_type_rule");
    let (status, body) = purchase_as(&buyer, &hold, json!({ s[0].to_string(): "senior" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "unknown_price_type");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    assert_eq!(
        app.count("SELECT sum(sold) FROM price_types").await,
        0,
        "a refused purchase counts nothing"
    );
    // The hold is whole: bought as adults.
    let (status, body) = purchase_as(&buyer, &hold, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

/// 60 buyers, each holding one seat, pay as students at once against a
/// quota of 10: exactly 10 orders carry the type, the other 50 are told
/// it is sold out with their holds intact, and buy as adults.
#[tokio::test]
async fn a_quota_of_ten_raced_by_sixty_buyers_sells_exactly_ten() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(6, 10).await;
    assert_eq!(
        put_types(&app, &key, event.id, offer(Some(10))).await.0,
        StatusCode::OK
    );
    let mut buyers = Vec::new();
    for seat in event.seat_ids.iter().take(60) {
        let buyer = app.buyer();
        let (status, hold) = buyer.hold(event.id, &[*seat]).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        buyers.push((buyer, hold, *seat));
    }
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(buyers.len()));
    let tasks: Vec<_> = buyers
        .iter()
        .map(|(buyer, hold, seat)| {
            let (buyer, hold, seat, barrier) =
                (buyer.clone(), hold.clone(), *seat, barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                purchase_as(&buyer, &hold, json!({ seat.to_string(): "student" })).await
            })
        })
        .collect();
    let mut sold = 0;
    let mut refused = 0;
    for task in tasks {
        let (status, body) = task.await.unwrap();
        match status {
            StatusCode::CREATED => sold += 1,
            StatusCode::CONFLICT => {
                assert_eq!(body["error"], "price_type_sold_out", "{body}");
                assert_eq!(body["price_type"], "student");
                refused += 1;
            }
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!((sold, refused), (10, 50));
    assert_eq!(
        app.count(
            "SELECT count(*) FROM order_lines l JOIN price_types pt ON pt.id = l.price_type_id
              WHERE pt.code = 'student'"
        )
        .await,
        10
    );
    assert_eq!(
        app.count("SELECT sold::bigint FROM price_types WHERE code = 'student'")
            .await,
        10
    );
    // Every refused buyer still holds their seat, and buys it as an adult.
    for (buyer, hold, _) in &buyers {
        let (status, body) = purchase_as(buyer, hold, json!({})).await;
        assert!(
            status == StatusCode::CREATED || body["error"] == "already_purchased",
            "{status}: {body}"
        );
    }
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 60);
    assert_eq!(
        app.count(
            "SELECT count(*) FROM order_lines l JOIN price_types pt ON pt.id = l.price_type_id
              WHERE pt.code = 'adult'"
        )
        .await,
        50
    );
    app.no_breaches().await;
}

/// The type travels with the ticket (the order's JSON, the door's answer),
/// and a refund gives its place back under the quota.
#[tokio::test]
async fn a_ticket_says_its_type_and_a_refund_gives_the_quota_back() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 4).await;
    assert_eq!(
        put_types(&app, &key, event.id, offer(Some(1))).await.0,
        StatusCode::OK
    );
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0]]).await;
    let (status, order) = purchase_as(&buyer, &hold, json!({ s[0].to_string(): "student" })).await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let order_id = id_segment(&order["order_id"]);
    let (status, shown) = buyer.get(&format!("/api/orders/{order_id}")).await;
    assert_eq!(status, StatusCode::OK, "{shown}");
    assert_eq!(shown["tickets"][0]["price_type"], "student");
    assert_eq!(shown["tickets"][0]["price_cents"], 3000);

    // The quota of one is spent: a second student is refused.
    let other = app.buyer();
    let (_, other_hold) = other.hold(event.id, &[s[1]]).await;
    let (status, body) =
        purchase_as(&other, &other_hold, json!({ s[1].to_string(): "student" })).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");

    // Refunded, the place comes back, and the second student gets it.
    let refunded = crate::support::http_client()
        .post(format!(
            "{}/api/staff/events/{}/orders/{order_id}/refund",
            app.base, event.id
        ))
        .bearer_auth(&key)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(refunded.status(), StatusCode::OK);
    assert_eq!(
        app.count("SELECT sold::bigint FROM price_types WHERE code = 'student'")
            .await,
        0
    );
    let (status, body) =
        purchase_as(&other, &other_hold, json!({ s[1].to_string(): "student" })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // The refunded ticket still says what it was.
    let (_, shown) = buyer.get(&format!("/api/orders/{order_id}")).await;
    assert_eq!(shown["tickets"][0]["price_type"], "student");
    app.no_breaches().await;
}

/// On the page: each held seat offers the types its tier has a price in,
/// each option naming its price; the buy form sells the chosen ones.
#[tokio::test]
async fn the_hold_panel_offers_each_seat_its_types_and_the_form_buys_them() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 4).await;
    assert_eq!(
        put_types(&app, &key, event.id, offer(None)).await.0,
        StatusCode::OK
    );
    let s = &event.seat_ids;
    let buyer = app.buyer();
    buyer.hold(event.id, &[s[0], s[1]]).await;
    let map = format!("/events/{}", event.id);
    let (status, html) = crate::pages::page(&buyer, &map).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains(&format!("name=\"type_{}\" form=\"buy-form\"", s[0])),
        "a type select per seat"
    );
    assert!(html.contains("Adult · €55"), "each option names its price");
    assert!(html.contains("Child · €25"));
    // Priced as the default type (adult), not the tier (€45).
    assert!(html.contains("Buy for €110"), "{html}");

    let response = crate::pages::post_form(
        &buyer,
        &format!("{map}/purchase"),
        &[
            ("name", "Grace Hopper".into()),
            ("email", "grace@example.com".into()),
            (&format!("type_{}", s[1]), "child".into()),
        ],
        false,
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert!(
        response.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/orders/")
    );
    let paid: Vec<(i64, i32)> = app
        .sql()
        .await
        .query(
            "SELECT seat_id, price_cents FROM order_lines ORDER BY seat_id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(paid, [(s[0], 5500), (s[1], 2500)]);
}

/// At the counter, an event with types sells each seat as the first open
/// type priced for its tier, counted against that type's quota.
#[tokio::test]
async fn a_walk_up_sale_sells_as_the_default_type_and_counts_its_quota() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 4).await;
    // Adult with a quota: a type without one keeps no count.
    let mut types = offer(None);
    types["price_types"][0]["quota"] = json!(10);
    assert_eq!(
        put_types(&app, &key, event.id, types).await.0,
        StatusCode::OK
    );
    let response = crate::support::http_client()
        .post(format!("{}/api/staff/events/{}/sales", app.base, event.id))
        .bearer_auth(&key)
        .json(&json!({"seat_ids": [event.seat_ids[0], event.seat_ids[1]], "name": "Walk Up", "tender": "cash"}))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let lines: Vec<(i32, String)> = app
        .sql()
        .await
        .query(
            "SELECT l.price_cents, pt.code FROM order_lines l
               JOIN price_types pt ON pt.id = l.price_type_id ORDER BY l.seat_id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        lines,
        [(5500, "adult".to_string()), (5500, "adult".to_string())]
    );
    assert_eq!(
        app.count("SELECT sold::bigint FROM price_types WHERE code = 'adult'")
            .await,
        2
    );
    app.no_breaches().await;
}

/// A type without a quota keeps no count of its own (its row would be a
/// hot spot for every buyer of it): staff read its sales from its tickets,
/// and a quota given later starts from what it has already sold.
#[tokio::test]
async fn a_quota_given_after_sales_counts_them() {
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 4).await;
    assert_eq!(
        put_types(&app, &key, event.id, offer(None)).await.0,
        StatusCode::OK
    );
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    let (status, body) = purchase_as(&buyer, &hold, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, shown) = staff_call(
        &app,
        &key,
        reqwest::Method::GET,
        &format!("/api/staff/events/{}/price-types", event.id),
        None,
    )
    .await;
    assert_eq!(shown["price_types"][0]["sold"], 2, "{shown}");

    let mut types = offer(None);
    types["price_types"][0]["quota"] = json!(1);
    let (status, refused) = put_types(&app, &key, event.id, types.clone()).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "below what it sold: {refused}"
    );
    types["price_types"][0]["quota"] = json!(3);
    assert_eq!(
        put_types(&app, &key, event.id, types).await.0,
        StatusCode::OK
    );
    let other = app.buyer();
    let (_, hold) = other.hold(event.id, &[s[2], s[3]]).await;
    let (status, refused) = purchase_as(&other, &hold, json!({})).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "two more would make 4 of 3: {refused}"
    );
    assert_eq!(refused["price_type"], "adult");
    let one_child = json!({s[3].to_string(): "child"});
    let (status, body) = purchase_as(&other, &hold, one_child).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    app.no_breaches().await;
}
