//! After the sale: tickets and their codes, the door that admits each
//! once, refunds and reseats at the box office (with their races), walk-up
//! sales with a tender, and the reports and door list.

use std::collections::HashSet;

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::staff::staff;
use crate::support::{Api, TestApp, id_segment, spawn_app};

/// Buys `seats` (and `ga` places in `area`) as a new buyer; returns the
/// buyer and the purchase's answer (order id and tickets).
pub async fn buy(
    app: &TestApp,
    event_id: i64,
    seats: &[i64],
    ga: Option<(i64, i64)>,
) -> (Api, Value) {
    let buyer = app.buyer();
    let mut hold_id = Value::Null;
    if !seats.is_empty() {
        let (status, hold) = buyer.hold(event_id, seats).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        hold_id = hold["hold_id"].clone();
    }
    if let Some((area, count)) = ga {
        let (status, hold) = buyer.hold_ga(event_id, area, count).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        hold_id = hold["hold_id"].clone();
    }
    let (status, order) = buyer
        .purchase(&hold_id, "Ada Lovelace", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    (buyer, order)
}

fn codes(order: &Value) -> Vec<String> {
    order["tickets"]
        .as_array()
        .expect("tickets")
        .iter()
        .map(|t| t["code"].as_str().expect("code").to_string())
        .collect()
}

/// The order's tickets as staff see them (with ids).
async fn staff_tickets(clerk: &Api, event_id: i64, order: &Value) -> Vec<Value> {
    let (status, body) = clerk
        .get(&format!(
            "/api/staff/events/{event_id}/orders/{}",
            id_segment(&order["order_id"])
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["tickets"].as_array().expect("tickets").clone()
}

async fn admit(clerk: &Api, event_id: i64, code: &str, gate: &str) -> Value {
    let (status, body) = clerk
        .post(
            &format!("/api/staff/events/{event_id}/admissions"),
            json!({ "code": code, "gate": gate }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

#[tokio::test]
async fn a_purchase_issues_one_unguessable_ticket_per_seat_and_ga_place() {
    let app = spawn_app().await;
    let (event, areas) = app.create_ga_event(4, &[("Floor", 10)]).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..2], Some((areas[0], 3))).await;

    let codes = codes(&order);
    assert_eq!(codes.len(), 5, "2 seats and 3 GA places: {order}");
    assert_eq!(codes.iter().collect::<HashSet<_>>().len(), 5);
    for code in &codes {
        assert_eq!(code.len(), 32, "{code}");
        assert!(
            code.bytes()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
        );
        // Never derived from an id: no order or seat id appears in it.
        assert!(!code.contains(&event.seat_ids[0].to_string()));
    }
    let in_db = app
        .count(&format!(
            "SELECT count(*) FROM tickets WHERE order_id = '{}' AND voided_at IS NULL",
            id_segment(&order["order_id"])
        ))
        .await;
    assert_eq!(in_db, 5);

    // The buyer's JSON and pages list them; the ticket page draws the QR.
    let (status, mine) = buyer
        .get(&format!("/api/orders/{}", id_segment(&order["order_id"])))
        .await;
    assert_eq!(status, StatusCode::OK, "{mine}");
    assert_eq!(mine["tickets"].as_array().unwrap().len(), 5);
    assert!(
        mine["tickets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "valid")
    );
    let page = buyer.get_text(&format!("/tickets/{}", codes[0])).await;
    assert!(
        page.contains("<svg role=\"img\" aria-label=\"QR code\""),
        "{page}"
    );
    assert!(page.contains("Stalls, row A, seat"), "{page}");
    assert!(page.contains("GA Night"));
    let order_page = buyer
        .get_text(&format!("/orders/{}", id_segment(&order["order_id"])))
        .await;
    assert_eq!(order_page.matches("<svg role=\"img\"").count(), 5);
    assert!(
        order_page.contains("queued to be e-mailed to ada@example.com"),
        "{order_page}"
    );
    let mine_page = buyer.get_text("/my/orders").await;
    assert!(mine_page.contains(&id_segment(&order["order_id"])));

    // Someone else: no order, no "my orders"; an unknown or malformed code is a 404.
    let stranger = app.buyer();
    let (status, _) = stranger
        .get(&format!("/api/orders/{}", id_segment(&order["order_id"])))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let response = stranger
        .http
        .get(format!(
            "{}/orders/{}",
            stranger.base,
            id_segment(&order["order_id"])
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(
        !stranger
            .get_text("/my/orders")
            .await
            .contains(&id_segment(&order["order_id"]))
    );
    for bad in ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "nope", "%00"] {
        let response = stranger
            .http
            .get(format!("{}/tickets/{bad}", stranger.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{bad}");
    }

    // The order's confirmation is in the outbox, written with the order.
    let queued = app
        .count(&format!(
            "SELECT count(*) FROM outbox WHERE order_id = '{}' AND recipient = 'ada@example.com'
               AND sent_at IS NULL AND message_id LIKE '<%@seatmap>'",
            id_segment(&order["order_id"])
        ))
        .await;
    assert_eq!(queued, 1);
}

#[tokio::test]
async fn the_signed_link_opens_the_order_without_a_session_until_it_expires() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let order_id: seatmap::domain::ids::OrderId =
        serde_json::from_value(order["order_id"].clone()).unwrap();
    let links = app.state.links.clone();
    let now = time::OffsetDateTime::now_utc();
    let good = links.order_url(order_id, now + time::Duration::days(1));
    let path = good.strip_prefix(&links.public_url).unwrap().to_string();
    let stranger = app.buyer();
    let get = |path: String| {
        let stranger = &stranger;
        async move {
            stranger
                .http
                .get(format!("{}{path}", stranger.base))
                .send()
                .await
                .unwrap()
        }
    };
    let page = get(path.clone()).await;
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.text().await.unwrap().contains("<svg role=\"img\""));
    // Another instance (its own process, the same database) opens it too:
    // the key is shared through the database, not made per process.
    let second = app.second_instance().await;
    let elsewhere = crate::support::http_client()
        .get(format!("{second}{path}"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        elsewhere.status(),
        StatusCode::OK,
        "the link on another instance"
    );

    let expired = links.order_url(order_id, now - time::Duration::seconds(1));
    let expired = expired.strip_prefix(&links.public_url).unwrap().to_string();
    assert_eq!(get(expired).await.status(), StatusCode::NOT_FOUND);
    // Moving the expiry or the order breaks the signature.
    let later = path.replace("until=", "until=9");
    assert_eq!(get(later).await.status(), StatusCode::NOT_FOUND);
    let other = app.create_event(1, 1).await;
    let (_, other_order) = buy(&app, other.id, &other.seat_ids, None).await;
    let swapped = path.replace(
        &id_segment(&order["order_id"]),
        &id_segment(&other_order["order_id"]),
    );
    assert_eq!(get(swapped).await.status(), StatusCode::NOT_FOUND);
    let garbled = format!("{}&sig=zz", path.split("&sig=").next().unwrap());
    assert_eq!(get(garbled).await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn fifty_gates_scanning_one_code_at_once_admit_it_exactly_once() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let code = codes(&order)[0].clone();
    let clerk = staff(&app, "door").await;

    let scans = (0..50).map(|gate| {
        let clerk = clerk.on(&clerk.base);
        let code = code.clone();
        async move { admit(&clerk, event.id, &code, &format!("Gate {gate}")).await }
    });
    let results = join_all(scans).await;
    let admitted: Vec<&Value> = results
        .iter()
        .filter(|r| r["result"] == "admitted")
        .collect();
    assert_eq!(admitted.len(), 1, "{results:?}");
    assert!(
        results
            .iter()
            .filter(|r| r["result"] != "admitted")
            .all(|r| r["result"] == "already_admitted"),
        "{results:?}"
    );
    // Every refusal names the gate that admitted it, as the door shows it.
    let gate = admitted[0]["gate"].as_str().unwrap();
    assert!(
        results
            .iter()
            .filter(|r| r["result"] == "already_admitted")
            .all(|r| r["gate"] == gate && r["message"].as_str().unwrap().contains(gate))
    );
    assert_eq!(
        app.count("SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL")
            .await,
        1
    );
    let again = admit(&clerk, event.id, &code, "Gate B").await;
    assert_eq!(again["result"], "already_admitted");
    assert_eq!(again["admitted"], 1);
    assert_eq!(again["expected"], 1);
}

#[tokio::test]
async fn the_door_refuses_unknown_codes_tickets_of_other_events_and_bad_input() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let other = app.create_event(1, 2).await;
    let (_, order) = buy(&app, other.id, &other.seat_ids[..1], None).await;
    let clerk = staff(&app, "door").await;

    let wrong = admit(&clerk, event.id, &codes(&order)[0], "A").await;
    assert_eq!(wrong["result"], "wrong_event");
    let unknown = admit(&clerk, event.id, &"A".repeat(32), "A").await;
    assert_eq!(unknown["result"], "unknown");
    // The wrong event's scan admitted nothing there either.
    assert_eq!(
        admit(&clerk, other.id, &codes(&order)[0], "A").await["result"],
        "admitted"
    );

    for (body, error) in [
        (json!({ "code": "short" }), "invalid_ticket_code"),
        (
            json!({ "code": "A".repeat(32), "gate": "g".repeat(41) }),
            "invalid_gate",
        ),
    ] {
        let (status, answer) = clerk
            .post(&format!("/api/staff/events/{}/admissions", event.id), body)
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(answer["error"], error);
    }
    let (status, _) = clerk
        .post(
            "/api/staff/events/999999/admissions",
            json!({ "code": "A".repeat(32) }),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Buyers can't use the door.
    let (status, _) = app
        .buyer()
        .post(
            &format!("/api/staff/events/{}/admissions", event.id),
            json!({ "code": codes(&order)[0] }),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_refund_voids_tickets_frees_seats_and_ga_places_in_one_audited_transaction() {
    let app = spawn_app().await;
    let (event, areas) = app.create_ga_event(4, &[("Floor", 10)]).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..2], Some((areas[0], 3))).await;
    let order_id = id_segment(&order["order_id"]);
    let clerk = staff(&app, "clerk").await;
    let tickets = staff_tickets(&clerk, event.id, &order).await;
    let seat_ticket = tickets.iter().find(|t| !t["seat_id"].is_null()).unwrap();
    let ga_ticket = tickets.iter().find(|t| t["seat_id"].is_null()).unwrap();
    assert_eq!(app.ga_counters(areas[0]).await, (0, 3));

    // One seat and one GA place.
    let refund = format!("/api/staff/events/{}/orders/{order_id}/refund", event.id);
    let (status, body) = clerk
        .post(
            &refund,
            json!({ "ticket_ids": [seat_ticket["id"], ga_ticket["id"]] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["tickets"], 2);
    assert_eq!(body["seat_ids"], json!([seat_ticket["seat_id"]]));
    assert_eq!(body["ga_places"], 1);
    assert_eq!(body["amount_cents"], 4500 + 2000);
    let listing = app.buyer().seats(event.id).await;
    let statuses = crate::support::statuses(&listing);
    assert_eq!(
        statuses[&seat_ticket["seat_id"].as_i64().unwrap()],
        "available"
    );
    assert_eq!(app.ga_counters(areas[0]).await, (0, 2));
    // The refunded ticket no longer gets in, and says why.
    let scan = admit(&clerk, event.id, seat_ticket["code"].as_str().unwrap(), "A").await;
    assert_eq!(scan["result"], "refunded");
    // A second refund of it is refused; nothing changes.
    let (status, again) = clerk
        .post(&refund, json!({ "ticket_ids": [seat_ticket["id"]] }))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["error"], "ticket_refunded");

    // An admitted ticket can't be refunded: the whole-order refund is refused.
    let other_seat = tickets
        .iter()
        .find(|t| !t["seat_id"].is_null() && t["id"] != seat_ticket["id"])
        .unwrap();
    assert_eq!(
        admit(&clerk, event.id, other_seat["code"].as_str().unwrap(), "A").await["result"],
        "admitted"
    );
    let (status, refused) = clerk.post(&refund, json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "ticket_admitted");
    assert_eq!(app.ga_counters(areas[0]).await, (0, 2), "all or nothing");

    // Refunding the rest one by one: the GA line empties and is removed.
    let rest: Vec<Value> = tickets
        .iter()
        .filter(|t| t["seat_id"].is_null() && t["id"] != ga_ticket["id"])
        .map(|t| t["id"].clone())
        .collect();
    let (status, body) = clerk.post(&refund, json!({ "ticket_ids": rest })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(app.ga_counters(areas[0]).await, (0, 0));
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM ga_tickets WHERE order_id = '{order_id}'"
        ))
        .await,
        0
    );
    // The freed seat sells again: the order lines never hold it twice.
    let (_, again) = buy(
        &app,
        event.id,
        &[seat_ticket["seat_id"].as_i64().unwrap()],
        None,
    )
    .await;
    assert_eq!(codes(&again).len(), 1);
    let audited = app
        .count(&format!(
            "SELECT count(*) FROM audit_log WHERE order_id = '{order_id}' AND action = 'refund_tickets'"
        ))
        .await;
    assert_eq!(audited, 2);
    app.no_breaches().await;
}

#[tokio::test]
async fn a_refund_racing_an_admission_of_one_ticket_lets_exactly_one_win() {
    let app = spawn_app().await;
    let event = app.create_event(2, 10).await;
    let clerk = staff(&app, "clerk").await;
    let door = staff(&app, "door").await;
    let mut refunds_won = 0;
    for seat in &event.seat_ids {
        let (_, order) = buy(&app, event.id, &[*seat], None).await;
        let code = codes(&order)[0].clone();
        let refund = format!(
            "/api/staff/events/{}/orders/{}/refund",
            event.id,
            id_segment(&order["order_id"])
        );
        let (refunded, scanned) = tokio::join!(
            clerk.post(&refund, json!({})),
            admit(&door, event.id, &code, "Gate A")
        );
        let refund_won = refunded.0 == StatusCode::OK;
        let admission_won = scanned["result"] == "admitted";
        assert!(refund_won != admission_won, "{refunded:?} / {scanned}");
        if refund_won {
            refunds_won += 1;
            assert_eq!(scanned["result"], "refunded");
        } else {
            assert_eq!(refunded.0, StatusCode::CONFLICT);
            assert_eq!(refunded.1["error"], "ticket_admitted");
        }
        let seat_status =
            crate::support::statuses(&app.buyer().seats(event.id).await)[seat].clone();
        assert_eq!(seat_status, if refund_won { "available" } else { "sold" });
    }
    println!("refund won {refunds_won} of {} races", event.seat_ids.len());
    assert_eq!(
        app.count(
            "SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL AND voided_at IS NOT NULL"
        )
        .await,
        0
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn reseats_onto_one_seat_at_once_leave_exactly_one_winner() {
    let app = spawn_app().await;
    let event = app.create_event(2, 10).await;
    let clerk = staff(&app, "clerk").await;
    let target = *event.seat_ids.last().unwrap();
    let mut tickets = Vec::new();
    for seat in &event.seat_ids[..8] {
        let (_, order) = buy(&app, event.id, &[*seat], None).await;
        tickets.push((
            staff_tickets(&clerk, event.id, &order).await[0].clone(),
            order,
        ));
    }
    let moves = tickets.iter().map(|(ticket, _)| {
        let clerk = clerk.on(&clerk.base);
        let path = format!(
            "/api/staff/events/{}/tickets/{}/reseat",
            event.id, ticket["id"]
        );
        async move { clerk.post(&path, json!({ "seat_id": target })).await }
    });
    let results = join_all(moves).await;
    let winners: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, (status, _))| *status == StatusCode::OK)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    for (i, (status, body)) in results.iter().enumerate() {
        if i != winners[0] {
            assert_eq!(*status, StatusCode::CONFLICT, "{body}");
            assert_eq!(body["error"], "seats_unavailable");
        }
    }
    let (winner, order) = &tickets[winners[0]];
    let statuses = crate::support::statuses(&app.buyer().seats(event.id).await);
    assert_eq!(statuses[&target], "sold");
    assert_eq!(statuses[&winner["seat_id"].as_i64().unwrap()], "available");
    // The winner's ticket kept its code and moved; the losers' did not move.
    let now = staff_tickets(&clerk, event.id, order).await;
    assert_eq!(now[0]["code"], winner["code"]);
    assert_eq!(now[0]["seat_id"], target);
    for (i, (ticket, order)) in tickets.iter().enumerate() {
        if i != winners[0] {
            assert_eq!(
                staff_tickets(&clerk, event.id, order).await[0]["seat_id"],
                ticket["seat_id"]
            );
        }
    }
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'reseat'")
            .await,
        1
    );
    // A sold seat, a refunded ticket and an unknown ticket are refused.
    let (loser, _) = &tickets[(winners[0] + 1) % tickets.len()];
    let path = format!(
        "/api/staff/events/{}/tickets/{}/reseat",
        event.id, loser["id"]
    );
    let (status, body) = clerk.post(&path, json!({ "seat_id": target })).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("seats_unavailable"))
    );
    let (status, _) = clerk
        .post(
            &format!("/api/staff/events/{}/tickets/999999/reseat", event.id),
            json!({ "seat_id": event.seat_ids[9] }),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    app.no_breaches().await;
}

#[tokio::test]
async fn a_walk_up_sale_of_seats_and_ga_places_records_its_tender() {
    let app = spawn_app().await;
    let (event, areas) = app.create_ga_event(6, &[("Floor", 10)]).await;
    let clerk = staff(&app, "clerk").await;
    let sales = format!("/api/staff/events/{}/sales", event.id);

    // A comp needs its reason; a tender must be named; nothing is no sale.
    for (body, error) in [
        (
            json!({ "seat_ids": [event.seat_ids[0]], "name": "Sam", "tender": "comp" }),
            "invalid_tender",
        ),
        (
            json!({ "seat_ids": [event.seat_ids[0]], "name": "Sam" }),
            "invalid_tender",
        ),
        (json!({ "name": "Sam", "tender": "cash" }), "no_seats"),
    ] {
        let (status, answer) = clerk.post(&sales, body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(answer["error"], error);
    }
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);

    let (status, cash) = clerk
        .post(
            &sales,
            json!({ "seat_ids": [event.seat_ids[0], event.seat_ids[1]],
                    "ga": [{ "area_id": areas[0], "quantity": 2 }],
                    "name": "Sam Walk-up", "tender": "cash" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{cash}");
    assert_eq!(cash["tickets"].as_array().unwrap().len(), 4);
    assert_eq!(app.ga_counters(areas[0]).await, (0, 2));
    let (status, comp) = clerk
        .post(
            &sales,
            json!({ "seat_ids": [event.seat_ids[2]], "name": "Critic", "email": "critic@example.com",
                    "tender": "comp", "comp_reason": "press night" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{comp}");
    let comp_order = id_segment(&comp["order_id"]);
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM orders WHERE id = '{comp_order}' AND tender = 'comp'
               AND comp_reason = 'press night'"
        ))
        .await,
        1
    );
    assert_eq!(
        app.count(&format!(
            "SELECT sum(price_cents) FROM tickets WHERE order_id = '{comp_order}'"
        ))
        .await,
        0
    );
    // With an e-mail, the walk-up's tickets are mailed too.
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM outbox WHERE order_id = '{comp_order}'"
        ))
        .await,
        1
    );
    // A seat already sold fails the whole sale: no GA place is taken.
    let (status, refused) = clerk
        .post(
            &sales,
            json!({ "seat_ids": [event.seat_ids[0]], "ga": [{ "area_id": areas[0], "quantity": 1 }],
                    "name": "Late", "tender": "card" }),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(app.ga_counters(areas[0]).await, (0, 2));

    // The report splits takings by tender and counts the door.
    let report = clerk
        .get_text(&format!("/staff/events/{}/report", event.id))
        .await;
    assert!(
        report.contains("<th scope=\"row\">cash</th><td>4</td><td>€130</td>"),
        "{report}"
    );
    assert!(
        report.contains("<th scope=\"row\">comp</th><td>1</td><td>€0</td>"),
        "{report}"
    );
    assert!(
        report.contains("<strong>0</strong> admitted of <strong>5</strong>"),
        "{report}"
    );
    let list = clerk
        .get_text(&format!("/staff/events/{}/door-list.csv", event.id))
        .await;
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 6, "{list}");
    assert!(lines[0].starts_with("place,tier,buyer,email,order,code ends,admitted,gate"));
    assert!(lines.iter().any(|l| l.contains("Critic")));
    // No full code leaves in the list.
    for ticket in cash["tickets"].as_array().unwrap() {
        assert!(!list.contains(ticket["code"].as_str().unwrap()));
    }
    // The orders export has the walk-up made without an e-mail (it once
    // panicked on its empty address, and stayed broken for the event).
    let response = clerk
        .http
        .get(format!("{}/staff/events/{}/orders.csv", app.base, event.id))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let orders = response.text().await.unwrap();
    assert!(
        orders.lines().any(|l| l.contains("Sam Walk-up")),
        "{orders}"
    );
    assert!(
        orders.lines().any(|l| l.contains("critic@example.com")),
        "{orders}"
    );
    app.no_breaches().await;
}

/// Seat names typed at the box office follow the text rules of every other
/// field: a NUL (or any control, bidi or invisible character) is refused
/// as naming no seat, and nothing is sold. The NUL is what shows the rule
/// works before PostgreSQL: without it, PostgreSQL refused the NUL (a 422
/// error page, not this notice); the others would miss in the lookup.
#[tokio::test]
async fn seat_names_with_control_characters_are_refused_by_the_rules() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let clerk = staff(&app, "clerk").await;
    let e = event.id;
    let walk_up = format!("/staff/events/{e}/walk-up");
    let ticket_id = order_ticket(&app, &order).await;
    let reseat = format!(
        "/staff/events/{e}/orders/{}/tickets/{ticket_id}/reseat",
        id_segment(&order["order_id"])
    );
    for bad in ["A\u{0}2", "A2\u{7}", "\u{202E}2A", "A2, B\u{0}1"] {
        let csrf = crate::pages::csrf_from(&clerk, &walk_up).await;
        let response = clerk
            .http
            .post(format!("{}{walk_up}", app.base))
            .form(&[
                ("csrf", csrf.as_str()),
                ("seats", bad),
                ("name", "Sam"),
                ("tender", "cash"),
            ])
            .send()
            .await
            .unwrap();
        // Refused in place, with what was typed kept.
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{bad:?}"
        );
        let page = response.text().await.unwrap();
        assert!(
            page.contains("names no seat of this event"),
            "{bad:?}: {page}"
        );
        assert!(page.contains("value=\"Sam\""), "the name is kept: {page}");
        let console = format!(
            "/staff/events/{e}/orders/{}",
            id_segment(&order["order_id"])
        );
        let csrf = crate::pages::csrf_from(&clerk, &console).await;
        let response = clerk
            .http
            .post(format!("{}{reseat}", app.base))
            .form(&[("csrf", csrf.as_str()), ("seat", bad)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{bad:?}");
        let page = clerk.get_text(&console).await;
        assert!(
            page.contains("names no seat of this event"),
            "{bad:?}: {page}"
        );
    }
    assert_eq!(
        app.count("SELECT count(*) FROM orders").await,
        1,
        "nothing sold"
    );
    app.no_breaches().await;
}

/// A ticket id of the order.
async fn order_ticket(app: &TestApp, order: &Value) -> i64 {
    app.sql()
        .await
        .query_one(
            "SELECT id FROM tickets WHERE order_id = $1::text::uuid",
            &[&id_segment(&order["order_id"])],
        )
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn every_after_sale_staff_route_refuses_buyers_and_bad_input() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let order_id = id_segment(&order["order_id"]);
    let e = event.id;
    for client in [app.buyer(), buyer] {
        for page in [
            format!("/staff/events/{e}/door"),
            format!("/staff/events/{e}/door/counts"),
            format!("/staff/events/{e}/orders/{order_id}"),
            format!("/staff/events/{e}/walk-up"),
            format!("/staff/events/{e}/mail"),
            format!("/staff/events/{e}/door-list.csv"),
        ] {
            let response = client
                .http
                .get(format!("{}{page}", app.base))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::SEE_OTHER, "{page}");
        }
        let (status, _) = client
            .get(&format!("/api/staff/events/{e}/orders/{order_id}"))
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        for (path, body) in [
            (
                format!("/api/staff/events/{e}/orders/{order_id}/refund"),
                json!({}),
            ),
            (
                format!("/api/staff/events/{e}/tickets/1/reseat"),
                json!({ "seat_id": event.seat_ids[1] }),
            ),
            (
                format!("/api/staff/events/{e}/sales"),
                json!({ "seat_ids": [event.seat_ids[1]], "name": "X", "tender": "cash" }),
            ),
        ] {
            let (status, _) = client.post(&path, body).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        }
    }
    assert_eq!(
        app.count("SELECT count(*) FROM tickets WHERE voided_at IS NOT NULL")
            .await,
        0
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 1);

    // Staff get 4xx, never 500, for whatever they send.
    let clerk = staff(&app, "clerk").await;
    let other = app.create_event(1, 1).await;
    for (path, body, want) in [
        (
            format!("/api/staff/events/{e}/orders/{order_id}/refund"),
            json!({ "ticket_ids": [] }),
            StatusCode::BAD_REQUEST,
        ),
        (
            format!("/api/staff/events/{e}/orders/{order_id}/refund"),
            json!({ "ticket_ids": [999999] }),
            StatusCode::NOT_FOUND,
        ),
        (
            format!("/api/staff/events/{e}/orders/{order_id}/refund"),
            json!({ "ticket_ids": "all" }),
            StatusCode::BAD_REQUEST,
        ),
        (
            format!("/api/staff/events/{}/orders/{order_id}/refund", other.id),
            json!({}),
            StatusCode::NOT_FOUND,
        ),
        (
            format!(
                "/api/staff/events/{e}/orders/{}/refund",
                uuid::Uuid::new_v4()
            ),
            json!({}),
            StatusCode::NOT_FOUND,
        ),
        (
            format!("/api/staff/events/{e}/tickets/1/reseat"),
            json!({ "seat_id": "C12" }),
            StatusCode::BAD_REQUEST,
        ),
        (
            format!("/api/staff/events/{e}/tickets/1/reseat"),
            json!({ "seat_id": other.seat_ids[0] }),
            StatusCode::NOT_FOUND,
        ),
        (
            format!("/api/staff/events/{e}/sales"),
            json!({ "seat_ids": [event.seat_ids[1], event.seat_ids[1]], "name": "X", "tender": "cash" }),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            format!("/api/staff/events/{e}/sales"),
            json!({ "seat_ids": [other.seat_ids[0]], "name": "X", "tender": "cash" }),
            StatusCode::NOT_FOUND,
        ),
        (
            format!("/api/staff/events/{e}/sales"),
            json!({ "ga": [{ "area_id": 1, "quantity": 0 }], "name": "X", "tender": "cash" }),
            StatusCode::BAD_REQUEST,
        ),
        (
            format!("/api/staff/events/{e}/sales"),
            json!({ "seat_ids": [event.seat_ids[1]], "name": "", "tender": "cash" }),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            format!("/api/staff/events/{e}/sales"),
            json!({ "seat_ids": [event.seat_ids[1]], "name": "X", "tender": "comp", "comp_reason": "a\u{0}b" }),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ] {
        let (status, answer) = clerk.post(&path, body.clone()).await;
        assert_eq!(status, want, "{path} {body}: {answer}");
    }
    for page in [
        format!("/staff/events/{e}/orders/{}", uuid::Uuid::new_v4()),
        format!("/staff/events/{}/orders/{order_id}", other.id),
        "/staff/events/999999/door".to_string(),
        format!("/staff/events/{e}/orders/not-a-uuid"),
    ] {
        let response = clerk
            .http
            .get(format!("{}{page}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{page}");
    }
    let response = clerk
        .http
        .get(format!(
            "{}/staff/events/{e}/door?gate={}",
            app.base,
            "g".repeat(41)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    // The walk-up form names a seat that isn't there: told, nothing sold.
    let response = crate::staff::console_action(
        &clerk,
        e,
        &format!("/staff/events/{e}/walk-up"),
        &[
            ("seats", "Z99"),
            ("name", "Walk"),
            ("tender", "cash"),
            ("area_7", "x"),
        ],
    )
    .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 1);
    app.no_breaches().await;
}

/// A refund and an admission of one ticket, made to reach its row in the
/// order given (the test holds the ticket's row lock; each waits in its
/// UPDATE; first come, first served). Both outcomes, forced: the one that
/// comes first wins, and the other is told why it lost.
async fn refund_and_admit(refund_first: bool) {
    let app = crate::support::spawn_app_for_forced_races().await;
    let event = app.create_event(1, 2).await;
    let clerk = staff(&app, "clerk").await;
    let door = staff(&app, "door").await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let code = codes(&order)[0].clone();
    let ticket: i64 = app
        .sql()
        .await
        .query_one("SELECT id FROM tickets WHERE code = $1", &[&code])
        .await
        .unwrap()
        .get(0);
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.execute("SELECT 1 FROM tickets WHERE id = $1 FOR UPDATE", &[&ticket])
        .await
        .unwrap();
    let refund_path = format!(
        "/api/staff/events/{}/orders/{}/refund",
        event.id,
        id_segment(&order["order_id"])
    );
    let send_refund = || {
        let clerk = clerk.clone();
        let path = refund_path.clone();
        tokio::spawn(async move { clerk.post(&path, json!({})).await })
    };
    let send_scan = || {
        let door = door.clone();
        let code = code.clone();
        tokio::spawn(async move { admit(&door, event.id, &code, "Gate A").await })
    };
    const VOID: &str = "UPDATE tickets SET voided_at";
    const ADMIT: &str = "UPDATE tickets SET admitted_at";
    let (refund, scan) = if refund_first {
        let refund = send_refund();
        app.lock_waiter(VOID).await;
        let scan = send_scan();
        app.lock_waiter(ADMIT).await;
        (refund, scan)
    } else {
        let scan = send_scan();
        app.lock_waiter(ADMIT).await;
        let refund = send_refund();
        app.lock_waiter(VOID).await;
        (refund, scan)
    };
    lock.rollback().await.unwrap();
    let (refunded, answer) = refund.await.unwrap();
    let scanned = scan.await.unwrap();
    let seat =
        crate::support::statuses(&app.buyer().seats(event.id).await)[&event.seat_ids[0]].clone();
    if refund_first {
        assert_eq!(refunded, StatusCode::OK, "{answer}");
        assert_eq!(scanned["result"], "refunded", "{scanned}");
        assert_eq!(seat, "available");
    } else {
        assert_eq!(scanned["result"], "admitted", "{scanned}");
        assert_eq!(refunded, StatusCode::CONFLICT, "{answer}");
        assert_eq!(answer["error"], "ticket_admitted");
        assert_eq!(seat, "sold");
    }
    assert_eq!(
        app.count(
            "SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL AND voided_at IS NOT NULL"
        )
        .await,
        0
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn a_refund_and_an_admission_each_win_when_they_reach_the_ticket_first() {
    refund_and_admit(true).await;
    refund_and_admit(false).await;
}

/// A reseat keeps the price paid: moved from a €45 seat to a €99 one, the
/// ticket and the order still say €45 (no difference is settled).
#[tokio::test]
async fn a_reseat_keeps_the_price_paid() {
    use seatmap::domain::layout::{RowSpec, SectionSpec};
    let app = spawn_app().await;
    let event = app
        .create_event_with(vec![SectionSpec {
            name: "Stalls".into(),
            rows: vec![
                RowSpec {
                    label: "A".into(),
                    seats: 2,
                    tier: "std".into(),
                    ..Default::default()
                },
                RowSpec {
                    label: "B".into(),
                    seats: 2,
                    tier: "vip".into(),
                    ..Default::default()
                },
            ],
            curve: None,
            side_blocks: None,
        }])
        .await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let clerk = staff(&app, "clerk").await;
    let ticket = order_ticket(&app, &order).await;
    let vip_seat = event.seat_ids[2];
    let (status, body) = clerk
        .post(
            &format!("/api/staff/events/{}/tickets/{ticket}/reseat", event.id),
            json!({ "seat_id": vip_seat }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT t.seat_id, t.price_cents, l.price_cents AS line_price
               FROM tickets t JOIN order_lines l ON l.order_id = t.order_id AND l.seat_id = t.seat_id
              WHERE t.id = $1",
            &[&ticket],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i64>("seat_id"), vip_seat, "moved");
    assert_eq!(
        row.get::<_, i32>("price_cents"),
        4500,
        "the ticket keeps €45"
    );
    assert_eq!(
        row.get::<_, i32>("line_price"),
        4500,
        "so does the order line"
    );
    let (_, staff_order) = clerk
        .get(&format!(
            "/api/staff/events/{}/orders/{}",
            event.id,
            id_segment(&order["order_id"])
        ))
        .await;
    assert_eq!(
        staff_order["tickets"][0]["price_cents"], 4500,
        "{staff_order}"
    );
    assert_eq!(
        staff_order["tickets"][0]["seat_id"], vip_seat,
        "{staff_order}"
    );
}

#[tokio::test]
async fn a_walk_up_reviews_its_total_resolves_a_repeated_label_by_section_and_keeps_what_was_typed()
{
    let app = spawn_app().await;
    // Two sections with the same rows: "A1" is in both. One name has a space.
    let section = |name: &str| seatmap::domain::layout::SectionSpec {
        name: name.into(),
        rows: vec![seatmap::domain::layout::RowSpec {
            label: "A".into(),
            seats: 3,
            tier: "std".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let event = app
        .create_event_with(vec![section("Stalls"), section("Upper Circle")])
        .await;
    let (stalls, circle) = (&event.seat_ids[..3], &event.seat_ids[3..]);
    let clerk = staff(&app, "clerk").await;
    let e = event.id;
    let path = format!("/staff/events/{e}/walk-up");
    let post = |fields: Vec<(&'static str, String)>| {
        let clerk = &clerk;
        let path = path.clone();
        async move {
            let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            crate::staff::console_action(clerk, e, &path, &fields).await
        }
    };
    let owned = |pairs: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
        pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
    };
    // The review's part of the page (the map above it names every seat).
    let review_of = |page: &str| -> String {
        page.split("id=\"review-heading\"")
            .nth(1)
            .unwrap_or_else(|| panic!("no review: {page}"))
            .to_string()
    };
    // "A1" alone names two seats: the refusal says where, and keeps the form.
    let ambiguous = post(owned(&[
        ("step", "review"),
        ("seats", "A1"),
        ("name", "Sam Walker"),
        ("tender", "card"),
    ]))
    .await;
    assert_eq!(ambiguous.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = ambiguous.text().await.unwrap();
    assert!(
        page.contains("is in 2 sections (Stalls, Upper Circle): write the section first"),
        "{page}"
    );
    assert!(page.contains("value=\"Sam Walker\""), "{page}");
    assert!(page.contains("value=\"card\" checked"), "{page}");
    assert!(
        !page.contains("id=\"review-heading\""),
        "no review of a refused sale"
    );
    // The review names each seat and price, the total and the tender; nothing is sold yet.
    let asked = [
        ("step", "review"),
        ("seats", "Upper Circle A1, Stalls A2, Stalls A2"),
        ("name", "Sam Walker"),
        ("tender", "card"),
    ];
    let reviewed = post(owned(&asked)).await;
    assert_eq!(reviewed.status(), StatusCode::OK);
    let page = reviewed.text().await.unwrap();
    let review = review_of(&page);
    assert!(
        review.contains("<td>Upper Circle, row A, seat 1 · Standard</td><td>€45</td>"),
        "{review}"
    );
    assert!(
        review.contains("<td>Stalls, row A, seat 2 · Standard</td><td>€45</td>"),
        "{review}"
    );
    assert_eq!(
        review.matches("<tr><td>").count(),
        2,
        "a seat named twice is one line: {review}"
    );
    assert!(
        review.contains("<strong>€90</strong>"),
        "the total: {review}"
    );
    assert!(
        review.contains("Paid by: <strong>card terminal</strong>"),
        "{review}"
    );
    let token = review
        .split("name=\"reviewed\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the review's token")
        .replace("&#x3a;", ":")
        .replace("&#x3b;", ";")
        .replace("&#x2c;", ",");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    // Sold with a changed payment, the review no longer holds: refused, nothing sold.
    let mut changed = owned(&asked);
    changed[0].1 = "sell".into();
    changed[3].1 = "cash".into();
    changed.push(("reviewed", token.clone()));
    let refused = post(changed).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused
            .text()
            .await
            .unwrap()
            .contains("changed after the review")
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    // Best available fills the seats and reviews them.
    let suggested = post(owned(&[
        ("step", "suggest"),
        ("count", "2"),
        ("best_section", "Upper Circle"),
    ]))
    .await;
    assert_eq!(suggested.status(), StatusCode::OK);
    let page = suggested.text().await.unwrap();
    assert!(page.contains("value=\"Upper Circle A"), "{page}");
    assert!(review_of(&page).contains("<strong>€90</strong>"), "{page}");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    // Selling what was reviewed sells exactly those seats.
    let mut sell = owned(&asked);
    sell[0].1 = "sell".into();
    sell.push(("reviewed", token));
    let sold = post(sell).await;
    assert_eq!(sold.status(), StatusCode::SEE_OTHER);
    let mut sold_seats: Vec<i64> = app
        .sql()
        .await
        .query("SELECT seat_id FROM order_lines", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    sold_seats.sort_unstable();
    let mut expected = vec![circle[0], stalls[1]];
    expected.sort_unstable();
    assert_eq!(sold_seats, expected);
    app.no_breaches().await;
}
