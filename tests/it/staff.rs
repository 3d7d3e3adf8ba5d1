//! The box office: who may use it, what staff can do, what buyers see
//! afterwards, and the audit log beside every change.

use reqwest::StatusCode;
use reqwest::header::LOCATION;
use serde_json::json;

use crate::pages::csrf_from;
use crate::support::{Api, TestApp, ids, spawn_app, spawn_app_with, statuses};
use seatmap::domain::ids::StaffId;
use seatmap::domain::role::Role;

pub const PASSWORD: &str = "a long box-office password";

/// A manager account (every role but admin's rights), as each account was
/// before roles.
pub async fn create_staff(app: &TestApp, name: &str) {
    create_staff_as(app, name, Role::Manager).await;
}

pub async fn create_staff_as(app: &TestApp, name: &str, role: Role) -> StaffId {
    let hash = seatmap::domain::password::hash(PASSWORD).unwrap();
    seatmap::db::staff::create(&app.sql().await, name, &hash, role)
        .await
        .unwrap()
}

pub async fn post_form(client: &Api, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
    client
        .http
        .post(format!("{}{path}", client.base))
        .form(fields)
        .send()
        .await
        .unwrap()
}

pub async fn sign_in_attempt(client: &Api, name: &str, password: &str) -> reqwest::Response {
    let token = csrf_from(client, "/staff/login").await;
    post_form(
        client,
        "/staff/login",
        &[
            ("csrf", &token),
            ("name", name),
            ("password", password),
            ("next", "/staff"),
        ],
    )
    .await
}

/// A client signed in as a new manager account `name`.
pub async fn staff(app: &TestApp, name: &str) -> Api {
    staff_as(app, name, Role::Manager).await
}

/// A client signed in as a new account `name` with this role.
pub async fn staff_as(app: &TestApp, name: &str, role: Role) -> Api {
    create_staff_as(app, name, role).await;
    let client = app.buyer();
    let response = sign_in_attempt(&client, name, PASSWORD).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    client
}

/// Runs `seatmap ARGS` against the app's database, with `stdin` typed in.
pub fn seatmap_command(app: &TestApp, args: &[&str], stdin: &str) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
        .args(args)
        .env("DATABASE_URL", app.db.conninfo())
        .env("RUST_LOG", "error")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Posts a console form, with the token from the console page.
pub async fn console_action(
    client: &Api,
    event_id: i64,
    path: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let token = csrf_from(client, &format!("/staff/events/{event_id}")).await;
    let mut all: Vec<(&str, &str)> = vec![("csrf", token.as_str())];
    all.extend_from_slice(fields);
    post_form(client, path, &all).await
}

async fn console(client: &Api, event_id: i64, query: &str) -> String {
    client
        .http
        .get(format!("{}/staff/events/{event_id}{query}", client.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

async fn audit_actions(app: &TestApp) -> Vec<(String, Vec<i64>, Option<String>)> {
    app.sql()
        .await
        .query(
            "SELECT a.action, a.seat_ids, s.name FROM audit_log a LEFT JOIN staff s ON s.id = a.staff_id
              WHERE a.event_id IS NOT NULL ORDER BY a.id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

#[tokio::test]
async fn staff_pages_and_api_refuse_anonymous_callers_and_buyers() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    let hold_id = hold["hold_id"].as_str().unwrap().to_string();

    for client in [app.buyer(), buyer] {
        for page in ["/staff", &format!("/staff/events/{}", event.id)] {
            let response = client
                .http
                .get(format!("{}{page}", app.base))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::SEE_OTHER, "{page}");
            let location = response.headers()[LOCATION].to_str().unwrap();
            assert!(
                location.starts_with("/staff/login?next=%2Fstaff"),
                "{location}"
            );
        }
        let (status, body) = client
            .post(&format!("/api/staff/holds/{hold_id}/release"), json!({}))
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body["error"], "unauthorized");
        let (status, _) = client
            .post(
                &format!("/api/staff/events/{}/seats/block", event.id),
                json!({"seat_ids": [event.seat_ids[1]]}),
            )
            .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    // Nothing changed.
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'BLOCKED'")
            .await,
        0
    );
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'HELD'")
            .await,
        1
    );

    // Signed in, the same requests work, and unknown things are 404.
    let clerk = staff(&app, "clerk").await;
    let response = clerk
        .http
        .get(format!("{}/staff", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (status, _) = clerk
        .post(
            &format!("/api/staff/holds/{}/release", uuid::Uuid::new_v4()),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = clerk
        .post(
            "/api/staff/events/999999/seats/block",
            json!({"seat_ids": [1]}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = clerk
        .post(
            &format!("/api/staff/events/{}/seats/block", event.id),
            json!({"seat_ids": [987654321]}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn signing_in_rotates_the_session_id_and_signing_out_ends_staff_rights() {
    let app = spawn_app().await;
    create_staff(&app, "ada").await;
    let client = app.buyer();
    let token = csrf_from(&client, "/staff/login").await;
    assert!(
        client.session_cookie().is_none(),
        "looking at the login page writes no session"
    );
    // A session planted before sign-in (here: a buyer's, from a hold).
    let event = app.create_event(1, 2).await;
    let (status, _) = client.hold(event.id, &event.seat_ids[..1]).await;
    assert_eq!(status, StatusCode::CREATED);
    let before = client.session_cookie().expect("the hold started a session");

    let wrong = post_form(
        &client,
        "/staff/login",
        &[
            ("csrf", &token),
            ("name", "ada"),
            ("password", "wrong password!"),
        ],
    )
    .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(
        wrong
            .text()
            .await
            .unwrap()
            .contains("Wrong name or password")
    );
    let unknown = post_form(
        &client,
        "/staff/login",
        &[("csrf", &token), ("name", "nobody"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);

    let response = post_form(
        &client,
        "/staff/login",
        &[
            ("csrf", &token),
            ("name", "ada"),
            ("password", PASSWORD),
            ("next", "https://evil.example/"),
        ],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        response.headers()[LOCATION],
        "/staff",
        "an off-site next is ignored"
    );
    let after = client.session_cookie().expect("still signed in");
    assert_ne!(before, after, "the session id changes at sign-in");

    // The CSRF token changes at sign-in: the one from before is refused.
    let stale = post_form(&client, "/staff/logout", &[("csrf", &token)]).await;
    assert_eq!(stale.status(), StatusCode::FORBIDDEN, "a pre-sign-in token");
    let token = csrf_from(&client, "/staff").await;
    let response = post_form(&client, "/staff/logout", &[("csrf", &token)]).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let response = client
        .http
        .get(format!("{}/staff", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER, "signed out");
    assert!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'sign_in'")
            .await
            == 1
    );
}

#[tokio::test]
async fn failed_sign_ins_are_rate_limited_per_account_and_per_address() {
    let app = spawn_app_with(|c| {
        c.limits.clock = crate::support::frozen_limits_clock();
        c.limits.login_failures_per_account = 3;
        c.limits.login_failures_per_ip = 5;
    })
    .await;
    create_staff(&app, "ada").await;
    create_staff(&app, "bob").await;
    let client = app.buyer();
    for _ in 0..3 {
        assert_eq!(
            sign_in_attempt(&client, "ada", "wrong guess 123")
                .await
                .status(),
            StatusCode::UNAUTHORIZED
        );
    }
    // Locked: even the right password is refused, from a fresh session too.
    let response = sign_in_attempt(&app.buyer(), "ada", PASSWORD).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(response.headers().contains_key("retry-after"));
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("Too many failed sign-ins")
    );
    // Another account from the same address still works...
    assert_eq!(
        sign_in_attempt(&app.buyer(), "bob", PASSWORD)
            .await
            .status(),
        StatusCode::SEE_OTHER
    );
    // ...until the address itself has failed 5 times.
    for _ in 0..2 {
        assert_eq!(
            sign_in_attempt(&client, "carol", "no such account")
                .await
                .status(),
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        sign_in_attempt(&app.buyer(), "bob", PASSWORD)
            .await
            .status(),
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn staff_release_a_buyers_hold_and_the_buyer_is_told_on_their_next_page() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    let hold_id = hold["hold_id"].as_str().unwrap().to_string();
    let clerk = staff(&app, "clerk").await;

    // The console lists the hold with its seats.
    let html = console(&clerk, event.id, "").await;
    assert!(html.contains("Active holds (1)"));
    assert!(html.contains(&hold_id.replace('-', "")[..8]));
    assert!(html.contains("Stalls, row A, seat 2"));

    let (status, _) = clerk
        .post(&format!("/api/staff/holds/{hold_id}/release"), json!({}))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let seats = buyer.seats(event.id).await;
    assert!(seats["hold"].is_null());
    assert_eq!(statuses(&seats)[&s[0]], "available");
    let page = buyer
        .http
        .get(format!("{}/events/{}", app.base, event.id))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("The box office released your hold"));
    assert_eq!(
        audit_actions(&app).await,
        vec![(
            "release_hold".to_string(),
            vec![s[0], s[1]],
            Some("clerk".to_string())
        )]
    );

    // Releasing one seat through the console's form.
    let other = app.buyer();
    let (_, hold) = other.hold(event.id, &[s[3], s[4]]).await;
    let hold_id = hold["hold_id"].as_str().unwrap();
    let response = console_action(
        &clerk,
        event.id,
        &format!(
            "/staff/events/{}/holds/{hold_id}/seats/{}/release",
            event.id, s[3]
        ),
        &[],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        ids(&other.seats(event.id).await["hold"]["seat_ids"]),
        vec![s[4]]
    );

    // A bought hold can't be released.
    let (_, order) = other
        .purchase(&hold["hold_id"], "Olga", "olga@example.com")
        .await;
    assert!(order["order_id"].is_string());
    let (status, body) = clerk
        .post(&format!("/api/staff/holds/{hold_id}/release"), json!({}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
}

#[tokio::test]
async fn blocked_seats_are_never_offered_and_a_held_or_sold_seat_cannot_be_blocked() {
    let app = spawn_app().await;
    let event = app.create_event(2, 6).await;
    let s = &event.seat_ids;
    let clerk = staff(&app, "clerk").await;
    let front_row: Vec<i64> = s[..6].to_vec();

    let (status, body) = clerk
        .post(
            &format!("/api/staff/events/{}/seats/block", event.id),
            json!({"seat_ids": front_row}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "blocked");
    assert_eq!(ids(&body["seat_ids"]), front_row);

    let buyer = app.buyer();
    assert_eq!(statuses(&buyer.seats(event.id).await)[&s[0]], "blocked");
    assert_eq!(buyer.hold(event.id, &[s[2]]).await.0, StatusCode::CONFLICT);
    let (status, body) = buyer
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({"best_available": {"count": 2}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(ids(&body["added"]).iter().all(|id| !front_row.contains(id)));
    let (status, body) = buyer
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({"best_available": {"count": 4, "together": false}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(ids(&body["added"]).iter().all(|id| !front_row.contains(id)));

    // The buyer's held seat can't be blocked: all or nothing, and nothing changes.
    let held = ids(&buyer.seats(event.id).await["hold"]["seat_ids"])[0];
    let (status, body) = clerk
        .post(
            &format!("/api/staff/events/{}/seats/block", event.id),
            json!({"seat_ids": [held, s[1]]}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(ids(&body["seat_ids"]), vec![held]);

    let (status, _) = clerk
        .post(
            &format!("/api/staff/events/{}/seats/unblock", event.id),
            json!({"seat_ids": [s[2]]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(buyer.hold(event.id, &[s[2]]).await.0, StatusCode::CREATED);
    let actions: Vec<String> = audit_actions(&app).await.into_iter().map(|a| a.0).collect();
    assert_eq!(actions, vec!["block", "unblock"]);
}

#[tokio::test]
async fn a_lapsed_hold_is_revived_for_the_same_buyer_with_a_new_expiry() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (_, first) = buyer.hold(event.id, &[s[0], s[1]]).await;
    let hold_id = first["hold_id"].as_str().unwrap().to_string();
    let clerk = staff(&app, "clerk").await;
    app.lapse_hold(&first["hold_id"]).await;

    let html = console(&clerk, event.id, "").await;
    assert!(html.contains("Recently expired holds"));
    assert!(html.contains(&format!("/holds/{hold_id}/revive")));

    let response = console_action(
        &clerk,
        event.id,
        &format!("/staff/events/{}/holds/{hold_id}/revive", event.id),
        &[],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let seats = buyer.seats(event.id).await;
    assert_eq!(
        ids(&seats["hold"]["seat_ids"]),
        vec![s[0], s[1]],
        "the same buyer holds them again"
    );
    let revived_until = time::OffsetDateTime::parse(
        seats["hold"]["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert!(
        revived_until > time::OffsetDateTime::now_utc() + time::Duration::minutes(5),
        "a fresh expiry, a whole hold's time away: {revived_until}"
    );
    assert!(
        audit_actions(&app)
            .await
            .iter()
            .any(|a| a.0 == "revive_hold" && a.1 == vec![s[0], s[1]])
    );

    // Once another buyer has taken the lapsed seats, there is nothing to revive.
    app.lapse_every_hold(event.id).await;
    let lapsed = buyer.seats(event.id).await;
    assert!(lapsed["hold"].is_null());
    let (_, second) = buyer.hold(event.id, &[s[5]]).await; // a new hold of its own
    assert!(second["hold_id"].is_string());
    assert_eq!(
        app.buyer().hold(event.id, &[s[0], s[1]]).await.0,
        StatusCode::CREATED
    );
    let revived = app
        .sql()
        .await
        .query_one(
            "SELECT hold_id::text FROM audit_log WHERE action = 'revive_hold'",
            &[],
        )
        .await
        .unwrap()
        .get::<_, String>(0);
    let response = console_action(
        &clerk,
        event.id,
        &format!("/staff/events/{}/holds/{revived}/revive", event.id),
        &[],
    )
    .await;
    // The console row is stale by now: the action explains, and changes nothing.
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let html = console(&clerk, event.id, "").await;
    assert!(
        html.contains("seats have been taken or released since."),
        "{html}"
    );
    assert!(
        !app.holders(event.id).await.values().any(|h| *h == revived),
        "the revived hold got nothing back"
    );
}

#[tokio::test]
async fn the_box_office_sells_a_blocked_seat_to_a_walk_up_buyer_and_finds_orders() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let clerk = staff(&app, "clerk").await;
    clerk
        .post(
            &format!("/api/staff/events/{}/seats/block", event.id),
            json!({"seat_ids": [s[2]]}),
        )
        .await;

    // The front-of-house map shows the seat and offers the sale.
    let html = console(&clerk, event.id, &format!("?seat={}", s[2])).await;
    assert!(html.contains("Stalls, row A, seat 3</strong>: not for sale"));
    assert!(html.contains("Sell this seat"));

    let path = format!("/staff/events/{}/seats/{}/sell", event.id, s[2]);
    let response = console_action(
        &clerk,
        event.id,
        &path,
        &[("name", "Walk Up"), ("email", ""), ("tender", "cash")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let bad = console_action(
        &clerk,
        event.id,
        &path,
        &[("name", "Again"), ("email", ""), ("tender", "card")],
    )
    .await;
    assert_eq!(bad.status(), StatusCode::SEE_OTHER);
    let html = console(&clerk, event.id, &format!("?seat={}", s[2])).await;
    assert!(
        html.contains("Some of these seats were just taken"),
        "the second sale is refused"
    );
    assert!(
        html.contains("Bought by <strong>Walk Up</strong>"),
        "{html}"
    );
    assert!(html.contains("sold clerk"));

    // An online buyer's order is found by email and by seat.
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &[s[4]]).await;
    buyer
        .purchase(&hold["hold_id"], "Grace", "grace@example.com")
        .await;
    let by_email = console(&clerk, event.id, "?q=GRACE@example").await;
    // Order rows start "<td>NAME</td>"; the audit log says "sold to NAME".
    assert!(by_email.contains("<td>Grace</td>") && !by_email.contains("<td>Walk Up</td>"));
    // "Stalls A3", not "A3": an order id starting "a3" (1 in 256) matched too.
    let by_seat = console(&clerk, event.id, "?q=Stalls%20A3").await;
    assert!(by_seat.contains("<td>Walk Up</td>") && !by_seat.contains("<td>Grace</td>"));
    let nothing = console(&clerk, event.id, "?q=zz9").await;
    assert!(nothing.contains("No orders match"));

    assert_eq!(
        app.count(
            "SELECT count(*) FROM orders WHERE sold_by_staff IS NOT NULL AND buyer_email IS NULL"
        )
        .await,
        1
    );
    let sale = audit_actions(&app)
        .await
        .into_iter()
        .find(|a| a.0 == "box_office_sale")
        .unwrap();
    assert_eq!(sale.1, vec![s[2]]);
    let console_html = console(&clerk, event.id, "").await;
    assert!(
        console_html.contains("box office sale"),
        "the audit log shows it"
    );
}

#[tokio::test]
async fn the_staff_command_creates_an_account_that_can_sign_in() {
    let app = spawn_app().await;
    let run = |args: &[&str], stdin: &str| seatmap_command(&app, args, stdin);
    let added = run(&["staff", "add", "ada"], &format!("{PASSWORD}\n"));
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let again = run(&["staff", "add", "ada"], &format!("{PASSWORD}\n"));
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let short = run(&["staff", "add", "bob"], "short\n");
    assert!(!short.status.success());
    let listed = run(&["staff", "list"], "");
    assert!(String::from_utf8_lossy(&listed.stdout).starts_with("ada\t"));

    let client = app.buyer();
    assert_eq!(
        sign_in_attempt(&client, "ada", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
}

/// The report counts seats by section and tier, with a lapsed hold's seats
/// as free, and what each tier took; the orders' CSV defuses any cell a
/// spreadsheet would run as a formula. Both are for staff only.
#[tokio::test]
async fn the_report_counts_seats_and_takings_and_the_csv_defuses_formulas() {
    let app = spawn_app().await;
    let event = app.create_event(2, 5).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &[s[0], s[1]]).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = buyer
        .purchase(
            &hold["hold_id"],
            "=HYPERLINK(\"http://evil\")",
            "ada@example.com",
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = app.buyer().hold(event.id, &[s[2]]).await;
    assert_eq!(status, StatusCode::CREATED);
    let lapsing = app.buyer();
    let (_, lapsed) = lapsing.hold(event.id, &[s[3]]).await;
    app.lapse_hold(&lapsed["hold_id"]).await;

    let visitor = app.buyer();
    let refused = visitor
        .http
        .get(format!("{}/staff/events/{}/orders.csv", app.base, event.id))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SEE_OTHER, "not for buyers");
    let to = refused.headers()["location"].to_str().unwrap();
    assert!(
        to.starts_with("/staff/login?next="),
        "sent to sign in: {to}"
    );

    let clerk = staff(&app, "clerk").await;
    let page = clerk
        .http
        .get(format!("{}/staff/events/{}/report", app.base, event.id))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    // 10 seats: 2 sold, 1 held, 7 free (the lapsed hold's seat among them).
    assert!(
        html.contains("<td>7</td><td>1</td><td>2</td><td>0</td><td>10</td>"),
        "{html}"
    );
    assert!(
        html.contains("<th scope=\"row\">All tiers</th><td>2</td>"),
        "{html}"
    );

    let csv = clerk
        .http
        .get(format!("{}/staff/events/{}/orders.csv", app.base, event.id))
        .send()
        .await
        .unwrap();
    assert_eq!(csv.status(), StatusCode::OK);
    assert!(
        csv.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let text = csv.text().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "a header and one order: {text}");
    assert!(lines[0].starts_with("order,created,buyer,email,places,total"));
    assert!(
        lines[1].contains("\"'=HYPERLINK(\"\"http://evil\"\")\""),
        "the name is defused and quoted: {}",
        lines[1]
    );
    assert!(lines[1].contains("ada@example.com"));
    assert!(
        lines[1].contains("row A, seat 1; Stalls, row A, seat 2"),
        "{}",
        lines[1]
    );
}

#[tokio::test]
async fn closing_sales_or_cancelling_needs_its_box_ticked_and_says_so_when_it_is_not() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let (status, _) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(status, StatusCode::CREATED);
    let clerk = staff(&app, "clerk").await;
    for (path, fields) in [
        ("close-sales", vec![]),
        ("cancel", vec![]),
        ("close-sales", vec![("confirm", "no")]),
        ("cancel", vec![("confirm", "")]),
    ] {
        let response = console_action(
            &clerk,
            event.id,
            &format!("/staff/events/{}/{path}", event.id),
            &fields,
        )
        .await;
        assert_eq!(
            response.status(),
            StatusCode::SEE_OTHER,
            "{path} {fields:?}"
        );
        let page = console(&clerk, event.id, "").await;
        assert!(
            page.contains("Nothing changed: tick the box that confirms it"),
            "{path} {fields:?}: {page}"
        );
        assert!(page.contains("Sales: On sale"), "{path}: still on sale");
    }
    // The buyer's hold is untouched, and the console offers both changes,
    // each with its box.
    let (status, body) = app.buyer().hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let page = console(&clerk, event.id, "").await;
    assert_eq!(
        page.matches("name=\"confirm\" value=\"yes\" required")
            .count(),
        2
    );
}
