//! `seatmap venue check`: the whole file is checked, every problem named.

fn check(file: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
        .args(["venue", "check"])
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn a_good_layout_is_summarised_and_a_bad_one_gets_every_problem_with_its_line() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("static/layouts");
    let good = check(&examples.join("concert-hall-2000.json"));
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    let summary = String::from_utf8_lossy(&good.stdout);
    assert!(
        summary.contains("1500 seats in 4 sections, 500 general-admission places in 1 areas"),
        "{summary}"
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "section,row,seat,x,y,tier,flags\nA,1,1,0,0,std,\nA,1,1,30,0,std,\nA,1,2,-100001,0,std,\n",
    )
    .unwrap();
    let refused = check(&bad);
    assert!(!refused.status.success());
    let problems = String::from_utf8_lossy(&refused.stderr);
    assert!(problems.contains("2 problems"), "{problems}");
    assert!(
        problems.contains("line 3: duplicate seat A 1 1 (first on line 2)"),
        "{problems}"
    );
    assert!(
        problems.contains("line 4: bad coordinate (-100001, 0)"),
        "{problems}"
    );
}

// ---- importing, creating events, the on-sale window, closing sales -------

use reqwest::StatusCode;
use reqwest::header::LOCATION;
use serde_json::json;

use crate::pages::{csrf_from, page};
use crate::staff::{console_action, staff};
use crate::support::{Api, TestApp, spawn_app};

fn layouts() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("static/layouts")
}

fn import_cli(app: &TestApp, file: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
        .args(["venue", "import"])
        .arg(file)
        .env("DATABASE_URL", app.db.conninfo())
        .output()
        .unwrap()
}

/// The venue's stored layout, as the canonical JSON text.
async fn stored_layout(app: &TestApp, name: &str) -> String {
    app.sql()
        .await
        .query_one("SELECT layout::text FROM venues WHERE name = $1", &[&name])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn cli_import_round_trips_and_a_bad_or_repeated_file_writes_nothing() {
    let app = spawn_app().await;
    let file = layouts().join("theatre-300.json");
    let imported = import_cli(&app, &file);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let said = String::from_utf8_lossy(&imported.stdout);
    assert!(said.contains("300 seats"), "{said}");

    // What was stored reads back to exactly what the file describes.
    let original =
        seatmap::domain::venue::from_json(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let stored = stored_layout(&app, &original.name).await;
    assert_eq!(
        seatmap::domain::venue::from_json(&stored).unwrap(),
        original
    );

    let again = import_cli(&app, &file);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"name": "Bad Hall", "tiers": [{"code": "a", "name": "A"}],
            "sections": [{"name": "S", "rows": [{"label": "1", "seats": [
              {"label": "1", "tier": "a"}, {"label": "1", "tier": "b"}]}]}]}"#,
    )
    .unwrap();
    let refused = import_cli(&app, &bad);
    assert!(!refused.status.success());
    let problems = String::from_utf8_lossy(&refused.stderr);
    assert!(
        problems.contains("sections[0].rows[0].seats[1]: duplicate seat S 1 1"),
        "{problems}"
    );
    assert!(
        problems.contains("sections[0].rows[0].seats[1]: unknown tier \"b\""),
        "{problems}"
    );
    assert_eq!(app.count("SELECT count(*) FROM venues").await, 1);
}

pub async fn upload(client: &Api, file_name: &str, bytes: Vec<u8>) -> reqwest::Response {
    let token = csrf_from(client, "/staff/venues").await;
    let form = reqwest::multipart::Form::new().text("csrf", token).part(
        "layout",
        reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_string()),
    );
    client
        .http
        .post(format!("{}/staff/venues", client.base))
        .multipart(form)
        .send()
        .await
        .unwrap()
}

async fn create_event_form(
    client: &Api,
    venue_path: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let token = csrf_from(client, venue_path).await;
    let mut all = vec![("csrf", token.as_str())];
    all.extend_from_slice(fields);
    client
        .http
        .post(format!("{}{venue_path}/events", client.base))
        .form(&all)
        .send()
        .await
        .unwrap()
}

fn location(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(LOCATION)
        .and_then(|l| l.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn staff_upload_names_every_problem_writes_nothing_then_builds_the_arena_event() {
    let app = spawn_app().await;
    let clerk = staff(&app, "clerk").await;

    // Anonymous uploads are refused; a forged token too.
    let anonymous = app.buyer();
    let response = anonymous
        .http
        .post(format!("{}/staff/venues", app.base))
        .multipart(reqwest::multipart::Form::new().text("csrf", "x"))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_redirection() || response.status() == StatusCode::UNAUTHORIZED);
    let forged = clerk
        .http
        .post(format!("{}/staff/venues", app.base))
        .multipart(reqwest::multipart::Form::new().text("csrf", "forged").part(
            "layout",
            reqwest::multipart::Part::bytes(b"{}".to_vec()).file_name("a.json"),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);

    let bad_csv = "section,row,seat,x,y,tier,flags\n\
                   Floor,A,1,0,0,std,\n\
                   Floor,A,1,30,0,std,\n\
                   Floor,A,2,30,1e9,std,\n\
                   Floor,A,3,60,0,std,jetpack\n";
    let refused = upload(&clerk, "bad-grid.csv", bad_csv.as_bytes().to_vec()).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = refused.text().await.unwrap();
    for problem in [
        "bad-grid.csv was not imported",
        "line 3: duplicate seat Floor A 1 (first on line 2)",
        "line 4: bad coordinate (30, 1e9)",
        "line 5: unknown flag &#34;jetpack&#34;",
    ] {
        assert!(html.contains(problem), "missing {problem:?} in {html}");
    }
    assert_eq!(app.count("SELECT count(*) FROM venues").await, 0);

    let arena = std::fs::read(layouts().join("arena-20000.json")).unwrap();
    let imported = upload(&clerk, "arena-20000.json", arena.clone()).await;
    assert_eq!(imported.status(), StatusCode::SEE_OTHER);
    let venue_path = location(&imported);
    assert!(venue_path.starts_with("/staff/venues/"), "{venue_path}");
    let (_, venue_page) = page(&clerk, &venue_path).await;
    assert!(
        venue_page.contains("Imported Arena 20000: 20000 seats"),
        "{venue_page}"
    );
    // The same venue again is refused, and says why.
    let again = upload(&clerk, "arena-20000.json", arena).await;
    assert_eq!(location(&again), "/staff/venues");
    let (_, venues_page) = page(&clerk, "/staff/venues").await;
    assert!(
        venues_page.contains("A venue named &#34;Arena 20000&#34; already exists."),
        "{venues_page}"
    );
    assert_eq!(app.count("SELECT count(*) FROM venues").await, 1);

    // Every tier needs a price; a bad one is named.
    let codes: Vec<String> = app
        .sql()
        .await
        .query(
            "SELECT jsonb_array_elements(layout->'tiers')->>'code' FROM venues",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let price_fields: Vec<(String, &str)> = codes
        .iter()
        .map(|c| (format!("price.{c}"), "35.50"))
        .collect();
    let mut fields: Vec<(&str, &str)> = vec![
        ("name", "Arena Night"),
        ("starts_at", "2099-06-01T20:00"),
        ("on_sale_at", ""),
        ("currency", "dollars"),
    ];
    let missing = create_event_form(&clerk, &venue_path, &fields).await;
    assert_eq!(location(&missing), venue_path);
    let (_, html) = page(&clerk, &venue_path).await;
    assert!(
        html.contains("&#34;dollars&#34; is not a currency"),
        "{html}"
    );
    fields[3].1 = "usd";
    let missing = create_event_form(&clerk, &venue_path, &fields).await;
    assert_eq!(location(&missing), venue_path);
    let (_, html) = page(&clerk, &venue_path).await;
    assert!(html.contains("Give a price for the"), "{html}");

    fields.extend(price_fields.iter().map(|(k, v)| (k.as_str(), *v)));
    let started = std::time::Instant::now();
    let created = create_event_form(&clerk, &venue_path, &fields).await;
    let took = started.elapsed();
    assert_eq!(created.status(), StatusCode::SEE_OTHER);
    let console = location(&created);
    let event_id: i64 = console.rsplit('/').next().unwrap().parse().unwrap();
    println!("created the 20,000-seat event over HTTP in {took:?}");
    publish(&clerk, event_id).await;
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id}"
        ))
        .await,
        20_000
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM price_tiers WHERE event_id = {event_id} AND price_cents = 3550"
        ))
        .await,
        codes.len() as i64
    );
    let buyer = app.buyer();
    // A big venue opens on its overview, priced in the event's currency,
    // with times in the venue's zone (the arena's is New York's).
    let (_, overview) = page(&buyer, &format!("/events/{event_id}")).await;
    assert!(overview.contains("from $35.50"), "{overview}");
    // Typed as 20:00, it is 20:00 at the arena.
    assert!(overview.contains("Mon 1 Jun 2099, 20:00 EDT"), "{overview}");
    assert!(!overview.contains("€"), "no euro anywhere: {overview}");
    let listing = buyer.seats(event_id).await;
    assert_eq!(listing["event"]["sale"], "on_sale");
    assert_eq!(listing["event"]["venue"], "Arena 20000");
    let (status, body) = buyer
        .hold(event_id, &[listing["seats"][0]["id"].as_i64().unwrap()])
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

/// An event of `venue` on sale from `on_sale_at` (empty: at once).
async fn event_from_small_venue(app: &TestApp, clerk: &Api, on_sale_at: &str) -> i64 {
    let json = std::fs::read(layouts().join("concert-hall-2000.json")).unwrap();
    let venue_id = match app
        .sql()
        .await
        .query_opt("SELECT id FROM venues", &[])
        .await
        .unwrap()
    {
        Some(row) => row.get::<_, i64>(0),
        None => {
            let imported = upload(clerk, "hall.json", json).await;
            assert_eq!(imported.status(), StatusCode::SEE_OTHER);
            location(&imported)
                .rsplit('/')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        }
    };
    let codes: Vec<String> = app
        .sql()
        .await
        .query(
            "SELECT jsonb_array_elements(layout->'tiers')->>'code' FROM venues WHERE id = $1",
            &[&venue_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let prices: Vec<(String, &str)> = codes.iter().map(|c| (format!("price.{c}"), "20")).collect();
    let mut fields = vec![
        ("name", "Hall Night"),
        ("starts_at", "2099-06-01T20:00"),
        ("on_sale_at", on_sale_at),
    ];
    fields.extend(prices.iter().map(|(k, v)| (k.as_str(), *v)));
    let created = create_event_form(clerk, &format!("/staff/venues/{venue_id}"), &fields).await;
    assert_eq!(created.status(), StatusCode::SEE_OTHER);
    let event_id = location(&created)
        .rsplit('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    publish(clerk, event_id).await;
    event_id
}

/// Publishes the event the form made as a draft.
async fn publish(clerk: &Api, event_id: i64) {
    let (status, body) = clerk
        .patch(
            &format!("/api/staff/events/{event_id}"),
            json!({"published": true}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn before_sales_open_and_after_the_start_nothing_can_be_held() {
    let app = spawn_app().await;
    let clerk = staff(&app, "clerk").await;
    let event_id = event_from_small_venue(&app, &clerk, "2099-05-01T10:00").await;
    let buyer = app.buyer();
    let listing = buyer.seats(event_id).await;
    assert_eq!(listing["event"]["sale"], "not_yet");
    assert_eq!(listing["ga_areas"][0]["capacity"], 500);
    let seat = listing["seats"][0]["id"].as_i64().unwrap();
    let (status, body) = buyer.hold(event_id, &[seat]).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "not_on_sale_yet");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("On sale at Fri 1 May 2099, 10:00 CEST"),
        "{body}"
    );
    // The page says it in the venue's zone (the hall is in Berlin).
    let (_, html) = page(&buyer, &format!("/events/{event_id}")).await;
    assert!(
        html.contains("On sale at Fri 1 May 2099, 10:00 CEST."),
        "{html}"
    );
    assert!(
        !html.contains("Find seats"),
        "no best-available form before sales open"
    );
    // A seat button posted anyway is refused with the reason. This
    // buyer's first request: the reason is the answer itself (409), with
    // no session saved to carry a notice.
    let token = csrf_from(&buyer, &format!("/events/{event_id}")).await;
    let post_seat = || {
        buyer
            .http
            .post(format!("{}/events/{event_id}/seats", app.base))
            .form(&[("csrf", token.as_str()), ("hold", &seat.to_string())])
            .send()
    };
    let response = post_seat().await.unwrap();
    assert_eq!(response.status(), StatusCode::CONFLICT);
    let refusal = response.text().await.unwrap();
    assert!(
        refusal.contains("On sale at Fri 1 May 2099, 10:00 CEST."),
        "{refusal}"
    );
    assert!(buyer.session_cookie().is_none(), "no session for a refusal");
    // A buyer with a session gets the notice on the map, after a redirect.
    let other_event = app.create_event(1, 2).await;
    let (status, _) = buyer.hold(other_event.id, &other_event.seat_ids[..1]).await;
    assert_eq!(status, StatusCode::CREATED);
    let response = post_seat().await.unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (_, html) = page(&buyer, &format!("/events/{event_id}")).await;
    assert_eq!(
        html.matches("On sale at Fri 1 May 2099, 10:00 CEST.")
            .count(),
        2,
        "the banner and the notice: {html}"
    );

    // Sales open; a buyer holds; then the show starts.
    app.sql()
        .await
        .execute(
            "UPDATE events SET on_sale_at = now() - interval '1 minute' WHERE id = $1",
            &[&event_id],
        )
        .await
        .unwrap();
    let (status, hold) = buyer.hold(event_id, &[seat]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    app.sql()
        .await
        .execute(
            "UPDATE events SET on_sale_at = NULL, starts_at = now() - interval '1 second' WHERE id = $1",
            &[&event_id],
        )
        .await
        .unwrap();
    let area = listing["ga_areas"][0]["id"].as_i64().unwrap();
    let (status, body) = app
        .buyer()
        .post(
            &format!("/api/events/{event_id}/holds"),
            json!({ "ga": { "area": area, "count": 1 } }),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "event_started");
    let (status, body) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "event_started");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
}

#[tokio::test]
async fn closing_releases_every_hold_and_cancelling_keeps_and_flags_orders() {
    let app = spawn_app().await;
    let clerk = staff(&app, "clerk").await;
    let event_id = event_from_small_venue(&app, &clerk, "").await;
    let listing = app.buyer().seats(event_id).await;
    let seat = |i: usize| listing["seats"][i]["id"].as_i64().unwrap();
    let area = listing["ga_areas"][0]["id"].as_i64().unwrap();

    let bought = app.buyer();
    let (_, hold) = bought
        .post(
            &format!("/api/events/{event_id}/holds"),
            json!({ "seat_ids": [seat(0)], "ga": { "area": area, "count": 2 } }),
        )
        .await;
    let (status, order) = bought
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let holding = app.buyer();
    let (status, held) = holding
        .post(
            &format!("/api/events/{event_id}/holds"),
            json!({ "seat_ids": [seat(1), seat(2)], "ga": { "area": area, "count": 3 } }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{held}");

    let (_, console) = page(&clerk, &format!("/staff/events/{event_id}")).await;
    assert!(
        console.contains("<li>Floor × 3</li>"),
        "staff see GA holds: {console}"
    );
    let closed = console_action(
        &clerk,
        event_id,
        &format!("/staff/events/{event_id}/close-sales"),
        &[("confirm", "yes")],
    )
    .await;
    assert_eq!(closed.status(), StatusCode::SEE_OTHER);
    let (_, console) = page(&clerk, &format!("/staff/events/{event_id}")).await;
    assert!(
        console
            .contains("Sales closed. Released 1 hold (2 seats and 3 general-admission tickets)."),
        "{console}"
    );
    let statuses = crate::support::statuses(&app.buyer().seats(event_id).await);
    assert_eq!(statuses[&seat(1)], "available");
    assert_eq!(statuses[&seat(0)], "sold");
    let (status, body) = app.buyer().hold(event_id, &[seat(3)]).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "sales_closed");
    let (status, body) = holding
        .purchase(&held["hold_id"], "Bo", "bo@example.com")
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");

    let cancelled = console_action(
        &clerk,
        event_id,
        &format!("/staff/events/{event_id}/cancel"),
        &[("confirm", "yes")],
    )
    .await;
    assert_eq!(cancelled.status(), StatusCode::SEE_OTHER);
    let (_, console) = page(&clerk, &format!("/staff/events/{event_id}")).await;
    assert!(
        console.contains("Event cancelled. 1 order kept and flagged for refund."),
        "{console}"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM orders WHERE event_cancelled")
            .await,
        1
    );
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'SOLD'")
            .await,
        1,
        "the sold seat stays sold"
    );
    assert_eq!(
        app.count("SELECT sold::bigint FROM ga_areas").await,
        2,
        "the sold GA tickets stay sold"
    );
    let (_, html) = page(&app.buyer(), &format!("/events/{event_id}")).await;
    assert!(html.contains("This event is cancelled."), "{html}");
    let order_path = format!("/orders/{}", order["order_id"].as_str().unwrap());
    let (status, receipt) = page(&bought, &order_path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        receipt.contains("This event has been cancelled."),
        "{receipt}"
    );
    assert!(
        receipt.matches("Floor (general admission)").count() == 2,
        "the two GA tickets are on the order: {receipt}"
    );
    assert!(
        // No SMTP here: the page says the mail is queued, not that it went.
        receipt.contains("queued to be e-mailed to ada@example.com")
            && !receipt.contains("were e-mailed")
            && !receipt.contains("A copy goes to"),
        "{receipt}"
    );
    let audit = app
        .count("SELECT count(*) FROM audit_log WHERE action IN ('close_sales', 'cancel_event')")
        .await;
    assert_eq!(audit, 2);
    let breaches = seatmap::db::invariants::check(&app.sql().await, 10)
        .await
        .unwrap();
    assert!(breaches.is_empty(), "{breaches:#?}");
}
