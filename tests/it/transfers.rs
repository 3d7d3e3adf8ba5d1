//! Passing a ticket on: the new code works and the old one stops, at the
//! door online and offline; a transfer and a scan of the old code never
//! both win; two transfers at once make one new code; the event's rules
//! hold; the new holder and the sender are mailed.

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::after_sale::buy;
use crate::staff::{staff, staff_as};
use crate::support::{Api, TestApp, id_segment, spawn_app, spawn_app_with};
use seatmap::domain::role::Role;

fn codes(order: &Value) -> Vec<String> {
    order["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["code"].as_str().unwrap().to_string())
        .collect()
}

async fn transfer(holder: &Api, code: &str, name: &str, email: &str) -> (StatusCode, Value) {
    holder
        .post(
            &format!("/api/tickets/{code}/transfer"),
            json!({ "name": name, "email": email }),
        )
        .await
}

async fn scan(door: &Api, event_id: i64, code: &str) -> Value {
    let (status, body) = door
        .post(
            &format!("/api/staff/events/{event_id}/admissions"),
            json!({ "code": code, "gate": "Gate A" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn ticket_id_of(app: &TestApp, code: &str) -> i64 {
    app.sql()
        .await
        .query_one("SELECT id FROM tickets WHERE code = $1", &[&code])
        .await
        .unwrap()
        .get(0)
}

async fn staff_transfer(
    clerk: &Api,
    event_id: i64,
    ticket_id: i64,
    body: Value,
) -> (StatusCode, Value) {
    clerk
        .post(
            &format!("/api/staff/events/{event_id}/tickets/{ticket_id}/transfer"),
            body,
        )
        .await
}

/// Hold requests aren't what these tests count: every transfer is one.
async fn roomy_app() -> TestApp {
    spawn_app_with(|config| {
        config.limits.hold_requests_per_session = 100_000;
        config.limits.hold_requests_per_ip = 100_000;
        config.db.pool_size = 40;
        config.db.lock_timeout = std::time::Duration::from_secs(60);
        config.db.statement_timeout = std::time::Duration::from_secs(90);
    })
    .await
}

#[tokio::test]
async fn a_passed_on_ticket_gets_a_new_code_the_old_one_stops_and_the_buyer_no_longer_sees_it() {
    let app = spawn_app().await;
    let event = app.create_event(1, 3).await;
    let door = staff_as(&app, "door", Role::Door).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..2], None).await;
    let old = codes(&order)[0].clone();

    let (status, sent) = transfer(&buyer, &old, "Grace Hopper", "grace@example.com").await;
    assert_eq!(status, StatusCode::CREATED, "{sent}");
    let new = sent["code"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    assert_eq!(new.len(), 32);
    assert_eq!(sent["url"], format!("/tickets/{new}"));

    // The door: the old code is "transferred", the new one admits once.
    let refused = scan(&door, event.id, &old).await;
    assert_eq!(refused["result"], "transferred", "{refused}");
    assert_eq!(refused["message"], "Transferred");
    assert_eq!(scan(&door, event.id, &new).await["result"], "admitted");
    assert_eq!(
        scan(&door, event.id, &new).await["result"],
        "already_admitted"
    );

    // The buyer's order shows the ticket as passed on, without its code.
    let order_id = id_segment(&order["order_id"]);
    let (_, mine) = buyer.get(&format!("/api/orders/{order_id}")).await;
    let passed: Vec<&Value> = mine["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "transferred" || t["transferred_to"].is_string())
        .collect();
    assert_eq!(passed.len(), 1, "{mine}");
    assert!(passed[0]["code"].is_null(), "{mine}");
    assert_eq!(passed[0]["transferred_to"], "Grace Hopper");
    let page = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert!(
        !page.contains(&new),
        "the order page shows the new code: {}",
        &page[page.find(&new).unwrap().saturating_sub(300)..][..400]
    );
    assert!(!page.contains(&old), "the order page shows the old code");
    assert!(page.contains("Grace Hopper"));
    // The old code's page says where it went (410), the new one's is the ticket.
    let response = reqwest::get(format!("{}/tickets/{old}", app.base))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::GONE);
    assert!(response.text().await.unwrap().contains("Grace Hopper"));
    let holder_page = buyer.get_text(&format!("/tickets/{new}")).await;
    assert!(
        holder_page.contains("Grace Hopper"),
        "the ticket names its holder"
    );

    // Both are mailed: the ticket to Grace, the receipt to the buyer.
    let mail: Vec<(String, String)> = app
        .sql()
        .await
        .query(
            "SELECT kind, recipient FROM outbox WHERE ticket_transfer_id IS NOT NULL ORDER BY kind",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        mail,
        [
            (
                "ticket_transferred".to_string(),
                "grace@example.com".to_string()
            ),
            (
                "transfer_receipt".to_string(),
                "ada@example.com".to_string()
            ),
        ]
    );
    // The code given away is no code any more, anywhere.
    let (status, again) = transfer(&buyer, &old, "Mallory", "m@example.com").await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["error"], "ticket_transferred");
    app.no_breaches().await;
}

/// The race the door can't be fooled by: a transfer and 20 scans of the
/// old code at once, on 30 tickets, with each order forced (the ticket's
/// row held until every request waits on it, the first comer queued
/// first). A ticket is admitted once and not passed on, or passed on and
/// never admitted by its old code; the new code admits exactly once.
#[tokio::test]
async fn a_transfer_and_twenty_scans_of_the_old_code_never_both_win() {
    const TICKETS: usize = 30;
    const SCANS: usize = 20;
    let app = roomy_app().await;
    let event = app.create_event(6, 10).await;
    let door = staff_as(&app, "door", Role::Door).await;
    // Staff set the close (just before the start): the doors opening with
    // a first admission (the event's day or not) then closes nothing.
    let until: time::OffsetDateTime = app
        .sql()
        .await
        .query_one(
            "SELECT starts_at - interval '1 minute' FROM events WHERE id = $1",
            &[&event.id],
        )
        .await
        .unwrap()
        .get(0);
    let until = until
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let manager = staff(&app, "manager").await;
    let (status, body) = manager
        .patch(
            &format!("/api/staff/events/{}", event.id),
            json!({ "transfers_until": until }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Past the start is no close: refused, saying why.
    let (status, body) = manager
        .patch(
            &format!("/api/staff/events/{}", event.id),
            json!({ "transfers_until": "2099-01-01T00:00:00Z" }),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_time")),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains("start"),
        "{body}"
    );
    let mut tickets: Vec<(Api, String)> = Vec::new();
    for seats in event.seat_ids.chunks(10) {
        let (buyer, order) = buy(&app, event.id, seats, None).await;
        tickets.extend(codes(&order).into_iter().map(|code| (buyer.clone(), code)));
    }
    const ADMIT: &str = "UPDATE tickets SET admitted_at";
    const TRANSFER: &str = "transfer_count = t.transfer_count + 1";
    for (round, (holder, code)) in tickets.iter().take(2 * TICKETS).enumerate() {
        let scan_first = round < TICKETS;
        let mut locker = app.own_connection().await;
        let lock = locker.transaction().await.unwrap();
        lock.execute("SELECT 1 FROM tickets WHERE code = $1 FOR UPDATE", &[code])
            .await
            .unwrap();
        let send_scans = || {
            (0..SCANS)
                .map(|_| {
                    let (door, code) = (door.clone(), code.clone());
                    tokio::spawn(async move { scan(&door, event.id, &code).await })
                })
                .collect::<Vec<_>>()
        };
        let send_transfer = || {
            let (holder, code) = (holder.clone(), code.clone());
            tokio::spawn(
                async move { transfer(&holder, &code, "Friend", "friend@example.com").await },
            )
        };
        let (scans, sent) = if scan_first {
            let scans = send_scans();
            app.lock_waiters(ADMIT, SCANS as i64).await;
            let sent = send_transfer();
            app.lock_waiter(TRANSFER).await;
            (scans, sent)
        } else {
            let sent = send_transfer();
            app.lock_waiter(TRANSFER).await;
            let scans = send_scans();
            app.lock_waiters(ADMIT, SCANS as i64).await;
            (scans, sent)
        };
        lock.rollback().await.unwrap();
        let results: Vec<String> = join_all(scans)
            .await
            .into_iter()
            .map(|r| r.unwrap()["result"].as_str().unwrap().to_string())
            .collect();
        let (status, body) = sent.await.unwrap();
        let admitted = results.iter().filter(|r| *r == "admitted").count();
        if scan_first {
            assert_eq!(admitted, 1, "round {round}: {results:?}");
            assert!(
                results
                    .iter()
                    .all(|r| r == "admitted" || r == "already_admitted")
            );
            assert_eq!(status, StatusCode::CONFLICT, "round {round}: {body}");
            assert_eq!(body["error"], "ticket_used");
        } else {
            assert_eq!(status, StatusCode::CREATED, "round {round}: {body}");
            assert!(
                results.iter().all(|r| r == "transferred"),
                "round {round}: the old code got in: {results:?}"
            );
            let new = body["code"].as_str().unwrap();
            let twice = [
                scan(&door, event.id, new).await,
                scan(&door, event.id, new).await,
            ];
            assert_eq!(twice[0]["result"], "admitted");
            assert_eq!(twice[1]["result"], "already_admitted");
        }
    }
    // Never both, by the database's own record.
    assert_eq!(
        app.count(
            "SELECT count(*) FROM tickets t JOIN ticket_transfers x ON x.ticket_id = t.id
              WHERE t.admitted_at < x.transferred_at"
        )
        .await,
        0
    );
    assert_eq!(
        app.count("SELECT count(*) FROM ticket_transfers").await,
        TICKETS as i64
    );
    assert_eq!(
        app.count("SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL")
            .await,
        2 * TICKETS as i64
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn ten_transfers_of_one_ticket_at_once_make_exactly_one_new_code() {
    let app = roomy_app().await;
    let event = app.create_event(1, 2).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let code = codes(&order)[0].clone();
    let sent = join_all((0..10).map(|i| {
        let (buyer, code) = (buyer.clone(), code.clone());
        tokio::spawn(async move {
            transfer(
                &buyer,
                &code,
                &format!("Friend {i}"),
                &format!("f{i}@example.com"),
            )
            .await
        })
    }))
    .await;
    let (won, lost): (Vec<_>, Vec<_>) = sent
        .into_iter()
        .map(|r| r.unwrap())
        .partition(|(status, _)| *status == StatusCode::CREATED);
    assert_eq!(won.len(), 1, "{lost:?}");
    for (status, body) in &lost {
        assert_eq!(*status, StatusCode::CONFLICT, "{body}");
        assert_eq!(body["error"], "ticket_transferred");
    }
    let current: String = app
        .sql()
        .await
        .query_one("SELECT code FROM tickets", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(won[0].1["code"], current.as_str());
    assert_eq!(app.count("SELECT count(*) FROM ticket_transfers").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'ticket_transferred'")
            .await,
        1
    );
}

#[tokio::test]
async fn the_events_rules_say_whether_until_when_and_how_often_and_staff_may_override() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let manager = staff(&app, "manager").await;
    let clerk = staff_as(&app, "clerk", Role::BoxOffice).await;
    let door = staff_as(&app, "door", Role::Door).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..4], None).await;
    let codes = codes(&order);
    let rules = |body: Value| {
        let manager = manager.clone();
        async move {
            let (status, json) = manager
                .patch(&format!("/api/staff/events/{}", event.id), body)
                .await;
            assert_eq!(status, StatusCode::OK, "{json}");
            json
        }
    };
    // The defaults: allowed, until the start, three times.
    let settings = rules(json!({})).await;
    assert_eq!(settings["transfers_allowed"], true);
    assert!(settings["transfers_until"].is_null());
    assert_eq!(settings["transfers_per_ticket"], 3);

    // Once per ticket: the friend can't pass it on again.
    rules(json!({ "transfers_per_ticket": 1 })).await;
    let (_, first) = transfer(&buyer, &codes[0], "Friend", "f@example.com").await;
    let friends = first["code"].as_str().unwrap();
    let (status, body) = transfer(&buyer, friends, "Other", "o@example.com").await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("transfer_limit_reached"))
    );

    // Closed: a time in the past.
    rules(json!({ "transfers_per_ticket": 3, "transfers_until": "2020-01-01T10:00:00Z" })).await;
    let (status, body) = transfer(&buyer, &codes[1], "Friend", "f@example.com").await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("transfers_closed"))
    );

    // Not at all.
    rules(json!({ "transfers_until": null, "transfers_allowed": false })).await;
    let (status, body) = transfer(&buyer, &codes[1], "Friend", "f@example.com").await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("transfers_not_allowed"))
    );

    // Staff at the counter may still, audited.
    let ticket_id = ticket_id_of(&app, &codes[1]).await;
    let (status, body) = staff_transfer(
        &clerk,
        event.id,
        ticket_id,
        json!({ "name": "Walk-in Friend", "email": "walkin@example.com", "lang": "de" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'ticket_transferred'")
            .await,
        1
    );
    assert_eq!(
        app.count(
            "SELECT count(*) FROM ticket_transfers WHERE to_lang = 'de' AND by_staff_id IS NOT NULL"
        )
        .await,
        1
    );
    // But never an admitted ticket: 409 ticket_used, for staff too.
    assert_eq!(scan(&door, event.id, &codes[2]).await["result"], "admitted");
    rules(json!({ "transfers_allowed": true })).await;
    let (status, body) = transfer(&buyer, &codes[2], "Friend", "f@example.com").await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("ticket_used"))
    );
    let admitted_id = ticket_id_of(&app, &codes[2]).await;
    let (status, body) = staff_transfer(
        &clerk,
        event.id,
        admitted_id,
        json!({ "name": "X", "email": "x@example.com" }),
    )
    .await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::CONFLICT, json!("ticket_used"))
    );
    // Bad input is a 4xx that says which.
    for (body, error) in [
        (
            json!({ "name": "", "email": "f@example.com" }),
            "invalid_name",
        ),
        (json!({ "name": "F", "email": "not mail" }), "invalid_email"),
        (
            json!({ "name": "F", "email": "f@example.com", "lang": "xx" }),
            "invalid_input",
        ),
    ] {
        let (status, answer) = buyer
            .post(&format!("/api/tickets/{}/transfer", codes[3]), body)
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(answer["error"], error);
    }
    let (status, _) = manager
        .patch(
            &format!("/api/staff/events/{}", event.id),
            json!({ "transfers_per_ticket": 21 }),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

/// Wrong codes cost what a wrong guess at anything does: each try counts
/// as a hold request, and past the limit the caller gets 429, whatever
/// the code.
#[tokio::test]
async fn guessing_codes_through_transfers_is_limited_like_holds() {
    let app = spawn_app_with(|config| {
        config.limits.hold_requests_per_session = 5;
        config.limits.hold_requests_per_ip = 5;
        config.limits.clock = crate::support::frozen_limits_clock();
    })
    .await;
    let guesser = app.buyer();
    let mut statuses = Vec::new();
    for i in 0..8 {
        let code = format!("{:A>32}", i);
        let (status, _) = transfer(&guesser, &code, "X", "x@example.com").await;
        statuses.push(status);
    }
    assert!(
        statuses[..5].iter().all(|s| *s == StatusCode::NOT_FOUND),
        "{statuses:?}"
    );
    assert!(
        statuses[5..]
            .iter()
            .all(|s| *s == StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
}

/// A device whose list was fetched before a transfer still admits the old
/// code offline; its batch is answered "transferred", recorded as a
/// conflict both gates see, and the next list knows the old code.
#[tokio::test]
async fn an_offline_door_that_let_an_old_code_in_is_told_and_both_gates_see_it() {
    use crate::door_offline::hash_for;
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let gate_a = staff_as(&app, "gate-a", Role::Door).await;
    let gate_b = staff_as(&app, "gate-b", Role::Door).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let old = codes(&order)[0].clone();
    let list_path = format!("/api/staff/events/{}/door-list", event.id);
    let (_, before) = gate_a.get(&list_path).await;
    let key = before["key"].as_str().unwrap().to_string();
    let old_hash = hash_for(&key, &old);
    assert!(
        before["tickets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["hash"] == old_hash.as_str())
    );

    let (_, sent) = transfer(&buyer, &old, "Friend", "friend@example.com").await;
    let new = sent["code"].as_str().unwrap().to_string();

    let (_, device) = gate_a.post("/api/staff/door-devices", json!({})).await;
    let device = device["device"].as_str().unwrap();
    let at = crate::support::rfc3339(time::OffsetDateTime::now_utc() - time::Duration::minutes(1));
    let (status, synced) = gate_a
        .post(
            &format!("/api/staff/events/{}/admissions/batch", event.id),
            json!({ "device": device, "scans": [{ "hash": old_hash, "gate": "Gate A", "scanned_at": at }] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{synced}");
    assert_eq!(synced["results"][0]["result"], "transferred", "{synced}");
    let message = synced["results"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.starts_with("Passed-on code let in"), "{message}");
    for gate in [&gate_a, &gate_b] {
        let (_, list) = gate.get(&list_path).await;
        assert_eq!(list["conflicts"][0]["kind"], "transferred", "{list}");
        assert_eq!(list["conflicts"][0]["message"], message.as_str());
        let listed = |hash: String| {
            list["tickets"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["hash"] == hash.as_str())
                .map(|t| t["state"].clone())
        };
        assert_eq!(listed(hash_for(&key, &old)), Some(json!("transferred")));
        assert_eq!(listed(hash_for(&key, &new)), Some(json!("valid")));
    }
    // The old code admitted nothing on the server: the new one still can.
    assert_eq!(scan(&gate_b, event.id, &new).await["result"], "admitted");
    let door_page = gate_b
        .get_text(&format!("/staff/events/{}/door", event.id))
        .await;
    assert!(
        door_page.contains("Passed-on code let in"),
        "the door page shows it"
    );
    let manager = staff(&app, "manager").await;
    let report = manager
        .get_text(&format!("/staff/events/{}/report", event.id))
        .await;
    assert!(
        report.contains("Passed-on code let in"),
        "the report shows it"
    );
}

/// The mails: the new holder gets the ticket in the language chosen for
/// them, with the new code and not the old; the sender gets a receipt
/// with neither code.
#[tokio::test]
async fn the_new_holder_is_mailed_the_ticket_in_their_language_and_the_sender_a_receipt() {
    let sink = crate::mail::SmtpSink::start("transfer").await;
    let app = crate::mail::app_mailing_to(&sink).await;
    let event = app.create_event(1, 2).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let old = codes(&order)[0].clone();
    crate::mail::wait_for_mail_to(&sink, "ada@example.com").await;
    let (status, sent) = buyer
        .post(
            &format!("/api/tickets/{old}/transfer"),
            json!({ "name": "Jürgen", "email": "juergen@example.com", "lang": "de" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{sent}");
    let new = sent["code"].as_str().unwrap();
    let grouped = |code: &str| {
        code.as_bytes()
            .chunks(4)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let to_friend = crate::mail::wait_for_mail_to(&sink, "juergen@example.com").await;
    assert!(to_friend.contains(&grouped(new)), "{to_friend}");
    assert!(
        to_friend.contains(&format!("/tickets/{new}.pdf")),
        "{to_friend}"
    );
    assert!(!to_friend.contains(&grouped(&old)) && !to_friend.contains(&old));
    assert!(
        to_friend.contains("Hallo Jürgen"),
        "not in German: {to_friend}"
    );
    // The buyer's receipt (the second mail to them) names the friend, no code.
    let receipt = crate::mail::wait_for_mail_where(&sink, "the receipt", |m| {
        m.contains("juergen@example.com") && m.contains("To: ada@example.com")
    })
    .await;
    assert!(
        !receipt.contains(new) && !receipt.contains(&grouped(new)),
        "{receipt}"
    );
}

/// The settings page sets the rules as the API does: unticked, no
/// transfers; a count out of range is refused and nothing changes.
#[tokio::test]
async fn the_settings_page_sets_the_transfer_rules() {
    use crate::pages::csrf_from;
    use crate::staff::post_form;
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let manager = staff(&app, "manager").await;
    let settings = format!("/staff/events/{}/settings", event.id);
    let page = manager.get_text(&settings).await;
    assert!(page.contains("Passing tickets on"), "{page}");
    let token = csrf_from(&manager, &settings).await;
    let response = post_form(
        &manager,
        &format!("{settings}/transfers"),
        &[("csrf", &token), ("until", ""), ("per_ticket", "1")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (_, json) = manager
        .patch(&format!("/api/staff/events/{}", event.id), json!({}))
        .await;
    assert_eq!(json["transfers_allowed"], false, "{json}");
    assert_eq!(json["transfers_per_ticket"], 1);
    let response = post_form(
        &manager,
        &format!("{settings}/transfers"),
        &[
            ("csrf", &token),
            ("allowed", "on"),
            ("until", ""),
            ("per_ticket", "99"),
        ],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let page = manager.get_text(&settings).await;
    assert!(page.contains("0 to 20 times"), "{page}");
    let (_, json) = manager
        .patch(&format!("/api/staff/events/{}", event.id), json!({}))
        .await;
    assert_eq!(
        json["transfers_allowed"], false,
        "a refused form changed nothing"
    );
}

/// Passed along a chain (buyer → B → C), the buyer's order names only
/// the person they sent it to; no page, file or mail of the order carries
/// the code, and the confirmation sent again lists it as sent on.
#[tokio::test]
async fn nothing_of_the_buyers_order_gives_away_a_passed_on_code_or_who_has_it_now() {
    let sink = crate::mail::SmtpSink::start("chain").await;
    let app = crate::mail::app_mailing_to(&sink).await;
    let event = app.create_event(1, 3).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..2], None).await;
    let order_id = id_segment(&order["order_id"]);
    let first = codes(&order)[0].clone();
    crate::mail::wait_for_mail_to(&sink, "ada@example.com").await;
    let (_, to_b) = transfer(&buyer, &first, "Bea Friend", "bea@example.com").await;
    let b_code = to_b["code"].as_str().unwrap().to_string();
    let bea = app.buyer();
    let (status, to_c) = transfer(&bea, &b_code, "Cal Stranger", "cal@example.com").await;
    assert_eq!(status, StatusCode::CREATED, "{to_c}");
    let c_code = to_c["code"].as_str().unwrap().to_string();

    let (_, json) = buyer.get(&format!("/api/orders/{order_id}")).await;
    let text = json.to_string();
    assert!(text.contains("Bea Friend"), "{text}");
    assert!(!text.contains("Cal") && !text.contains(&c_code) && !text.contains(&b_code));
    let page = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert!(page.contains("Bea Friend") && !page.contains("Cal Stranger"));
    assert!(!page.contains(&c_code) && !page.contains(&b_code));
    assert!(
        page.contains("1 valid ticket"),
        "only the ticket still held counts"
    );
    // The order's PDF holds the other ticket only.
    let pdf = buyer
        .raw_get(&format!("/orders/{order_id}/tickets.pdf"))
        .await
        .bytes()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("o.pdf"), &pdf).unwrap();
    let words = std::process::Command::new("pdftotext")
        .args([dir.path().join("o.pdf").to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext is needed (Debian package poppler-utils)");
    let words = String::from_utf8_lossy(&words.stdout).replace(' ', "");
    assert!(
        !words.contains(&c_code) && !words.contains(&first),
        "{words}"
    );
    assert!(words.contains(&codes(&order)[1]), "{words}");
    // The confirmation sent again from the Mail page: the held ticket's
    // code, the passed-on one as sent to Bea, no other code.
    let clerk = staff_as(&app, "clerk", Role::BoxOffice).await;
    let mail_page = format!("/staff/events/{}/mail", event.id);
    let id: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT id FROM outbox WHERE kind = 'order_confirmation' AND sent_at IS NOT NULL",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let token = crate::pages::csrf_from(&clerk, &mail_page).await;
    let response = crate::staff::post_form(
        &clerk,
        &format!("{mail_page}/{id}/retry"),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let again = crate::mail::wait_for_mail_where(&sink, "the confirmation sent again", |m| {
        m.contains("To: ada@example.com")
            && m.contains("Bea Friend")
            && m.contains(&format!("Order {order_id}"))
    })
    .await;
    let compact = again.replace(' ', "");
    assert!(!compact.contains(&c_code) && !compact.contains(&b_code) && !compact.contains(&first));
    assert!(!again.contains("Cal Stranger"), "{again}");
    assert!(compact.contains(&codes(&order)[1]), "{again}");
}

/// The default close is when the doors open: the event's start, or its
/// first admission on the event's own day if that comes first. A scan
/// days early (a door account trying its phone) closes nothing.
#[tokio::test]
async fn passing_on_closes_when_the_doors_open() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let door = staff_as(&app, "door", Role::Door).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..3], None).await;
    let codes = codes(&order);
    // A week before the start.
    assert_eq!(scan(&door, event.id, &codes[0]).await["result"], "admitted");
    let (status, body) = transfer(&buyer, &codes[1], "Friend", "f@example.com").await;
    assert!(
        status.is_success(),
        "an early scan opened the doors: {body}"
    );

    // The event's day: in an hour, in a zone where it is about noon now
    // (so the hour can't cross the venue's midnight).
    let utc_hour = i32::from(time::OffsetDateTime::now_utc().hour());
    let zone = format!("Etc/GMT{:+}", utc_hour - 12);
    app.sql()
        .await
        .execute(
            "UPDATE events SET starts_at = now() + interval '1 hour', time_zone = $2
              WHERE id = $1",
            &[&event.id, &zone],
        )
        .await
        .unwrap();
    let (_, order) = buy(&app, event.id, &event.seat_ids[3..], None).await;
    let later = self::codes(&order);
    assert_eq!(scan(&door, event.id, &later[0]).await["result"], "admitted");
    let (status, body) = transfer(&buyer, &codes[2], "Friend", "f@example.com").await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "transfers_closed");
}

/// A code passed on, or a refunded ticket, has no file: a 409 that says
/// why, never a 500.
#[tokio::test]
async fn files_of_a_passed_on_code_or_a_refunded_ticket_are_refused_with_why() {
    let app = spawn_app().await;
    let event = app.create_event(1, 3).await;
    let manager = staff(&app, "manager").await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..2], None).await;
    let codes = codes(&order);
    transfer(&buyer, &codes[0], "Friend", "f@example.com").await;
    let ticket_id = ticket_id_of(&app, &codes[1]).await;
    let order_id = id_segment(&order["order_id"]);
    let (status, refunded) = manager
        .post(
            &format!("/api/staff/events/{}/orders/{order_id}/refund", event.id),
            json!({ "ticket_ids": [ticket_id] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    for (code, error) in [
        (&codes[0], "ticket_transferred"),
        (&codes[1], "ticket_refunded"),
    ] {
        for path in [
            format!("/tickets/{code}.pdf"),
            format!("/tickets/{code}/google-wallet"),
        ] {
            let response = buyer.raw_get(&path).await;
            let status = response.status();
            let body: Value = response.json().await.unwrap();
            if path.ends_with("google-wallet") {
                // Without wallet keys that is the first thing said.
                assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
                assert_eq!(body["error"], "wallet_not_configured");
            } else {
                assert_eq!(status, StatusCode::CONFLICT, "{path}: {body}");
                assert_eq!(body["error"], error, "{path}");
            }
        }
    }
    for weird in [
        "/tickets/.pdf",
        "/tickets/x.pkpass",
        "/tickets/%00.pdf",
        "/orders/nope/tickets.pdf",
    ] {
        let status = buyer.raw_get(weird).await.status();
        assert!(status.is_client_error(), "{weird}: {status}");
    }
}
