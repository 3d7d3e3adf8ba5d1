//! Versioned venues (issue 29): the layout contract (ETag, If-Match, 412,
//! 428, 422 with places), two managers saving at once, moving an event to
//! a new version (on sale too since issue 48: refused only where a sold,
//! held or once-ordered seat would go or change tier; raced against a
//! buyer's claim in both orders), and repricing a tier on sale.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use reqwest::header::{ETAG, IF_MATCH};
use serde_json::{Value, json};

use crate::staff::staff;
use crate::support::{Api, TestApp, spawn_app};
use seatmap::domain::venue::from_json;

/// A small hall: rows A and B of four seats, one tier.
fn small_hall(name: &str) -> Value {
    let row = |label: &str, y: f64| {
        json!({"label": label, "seats": (1..=4).map(|n| json!({
            "label": n.to_string(), "tier": "std", "x": f64::from(n) * 30.0, "y": y,
        })).collect::<Vec<_>>()})
    };
    json!({
        "name": name,
        "tiers": [{"code": "std", "name": "Standard"}],
        "sections": [{"name": "Stalls", "position": {"x": 100, "y": 200},
                      "rows": [row("A", 0.0), row("B", 30.0)]}],
    })
}

async fn put_layout(
    client: &Api,
    venue_id: i64,
    if_match: Option<&str>,
    layout: &Value,
) -> (StatusCode, Option<String>, Value) {
    let mut request = client
        .http
        .put(format!(
            "{}/api/staff/venues/{venue_id}/layout",
            client.base
        ))
        .json(layout);
    if let Some(tag) = if_match {
        request = request.header(IF_MATCH, tag);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let tag = response
        .headers()
        .get(ETAG)
        .map(|t| t.to_str().unwrap().to_string());
    (status, tag, response.json().await.unwrap_or(Value::Null))
}

async fn get_layout(client: &Api, venue_id: i64) -> (StatusCode, Option<String>, String) {
    let response = client
        .http
        .get(format!(
            "{}/api/staff/venues/{venue_id}/layout",
            client.base
        ))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let tag = response
        .headers()
        .get(ETAG)
        .map(|t| t.to_str().unwrap().to_string());
    (status, tag, response.text().await.unwrap())
}

async fn create_venue(client: &Api, layout: &Value) -> i64 {
    let (status, body) = client.post("/api/staff/venues", layout.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["version"], 1);
    body["id"].as_i64().unwrap()
}

#[tokio::test]
async fn the_layout_contract_versions_refuses_stale_and_blind_writes_and_points_at_problems() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;

    let (status, _) = app
        .buyer()
        .post("/api/staff/venues", small_hall("Anon Hall"))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let venue_id = create_venue(&manager, &small_hall("Contract Hall")).await;
    let (status, tag, text) = get_layout(&manager, venue_id).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(tag.as_deref(), Some("\"v1\""));
    assert_eq!(
        from_json(&text).unwrap(),
        from_json(&small_hall("Contract Hall").to_string()).unwrap()
    );

    let mut renamed = small_hall("Contract Hall");
    renamed["sections"][0]["name"] = json!("Orchestra");
    let (status, _, body) = put_layout(&manager, venue_id, None, &renamed).await;
    assert_eq!(status, StatusCode::PRECONDITION_REQUIRED, "{body}");
    assert_eq!(body["error"], "precondition_required");

    let (status, tag, body) = put_layout(&manager, venue_id, Some("\"v1\""), &renamed).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (body["version"].as_i64(), tag.as_deref()),
        (Some(2), Some("\"v2\""))
    );

    // A save over version 1 now is stale: refused, and version 2 stays.
    let (status, _, body) = put_layout(
        &manager,
        venue_id,
        Some("\"v1\""),
        &small_hall("Contract Hall"),
    )
    .await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED, "{body}");
    assert_eq!(
        (body["error"].as_str(), body["version"].as_i64()),
        (Some("stale_layout"), Some(2))
    );
    let (_, tag, text) = get_layout(&manager, venue_id).await;
    assert_eq!(tag.as_deref(), Some("\"v2\""));
    assert!(text.contains("Orchestra"), "{text}");

    // Every problem, typed and placed: a duplicate seat, an unpainted
    // seat, two seats in one spot, a companion seat alone.
    let mut broken = small_hall("Contract Hall");
    broken["sections"][0]["rows"][0]["seats"][1]["label"] = json!("1");
    broken["sections"][0]["rows"][1]["seats"][2]["tier"] = json!("gold");
    let (status, _, body) = put_layout(&manager, venue_id, Some("\"v2\""), &broken).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "invalid_layout");
    let problems = body["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["kind"] == "duplicate_label"
            && p["section"] == "Stalls"
            && p["row"] == "A"
            && p["seat"] == "1"
            && p["at"] == "sections[0].rows[0].seats[1]"),
        "{body}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p["kind"] == "unpainted" && p["row"] == "B" && p["seat"] == "3"),
        "{body}"
    );
    let mut crowded = small_hall("Contract Hall");
    crowded["sections"][0]["rows"][1]["seats"][0]["y"] = json!(2.0);
    crowded["sections"][0]["rows"][0]["seats"][3]["flags"] = json!(["companion"]);
    let (status, _, body) = put_layout(&manager, venue_id, Some("\"v2\""), &crowded).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let kinds: Vec<&str> = body["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["overlap", "companion_alone"], "{body}");
    assert_eq!(body["problems"][0]["row"], "B", "{body}");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM venue_versions WHERE venue_id = {venue_id}"
        ))
        .await,
        2
    );
    // If-Match compares strongly: a weak tag or noise matches no version;
    // `*` is whatever is there.
    for tag in ["W/\"v2\"", "v2", "\"v2\", \"v3\"", "\"\""] {
        let (status, _, body) = put_layout(&manager, venue_id, Some(tag), &renamed).await;
        assert_eq!(status, StatusCode::PRECONDITION_FAILED, "{tag}: {body}");
    }
    let (status, tag, _) = put_layout(&manager, venue_id, Some("*"), &renamed).await;
    assert_eq!((status, tag.as_deref()), (StatusCode::OK, Some("\"v3\"")));
    // A save may rename the venue, but not to another venue's name.
    create_venue(&manager, &small_hall("Other Hall")).await;
    let (status, _, body) = put_layout(
        &manager,
        venue_id,
        Some("\"v3\""),
        &small_hall("Other Hall"),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::CONFLICT, Some("venue_exists"))
    );
}

/// A venue stored before the placement checks existed (two seats in one
/// spot here) still opens everywhere: its page, the designer, the API, an
/// event made from it. Only a save or import is held to them.
#[tokio::test]
async fn a_stored_venue_that_breaks_newer_rules_still_opens() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let mut crowded = small_hall("Old Hall");
    crowded["sections"][0]["rows"][1]["seats"][0]["y"] = json!(1.0);
    let lenient = from_json(&crowded.to_string()).expect("the format alone accepts it");
    let venue_id = seatmap::db::venues::import(&app.sql().await, &lenient, None)
        .await
        .unwrap()
        .0;
    for path in [
        format!("/staff/venues/{venue_id}"),
        format!("/staff/venues/{venue_id}/edit"),
    ] {
        let response = manager
            .http
            .get(format!("{}{path}", manager.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
    }
    let (status, tag, _) = get_layout(&manager, venue_id).await;
    assert_eq!((status, tag.as_deref()), (StatusCode::OK, Some("\"v1\"")));
    let (status, _, body) = put_layout(&manager, venue_id, Some("\"v1\""), &crowded).await;
    assert_eq!(
        (status, body["problems"][0]["kind"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("overlap"))
    );
}

#[tokio::test]
async fn the_preview_draws_the_latest_version_with_the_buyers_renderer() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let venue_id = create_venue(&manager, &small_hall("Preview Hall")).await;
    put_layout(
        &manager,
        venue_id,
        Some("\"v1\""),
        &second_version("Preview Hall"),
    )
    .await;
    let page = manager
        .get_text(&format!("/staff/venues/{venue_id}/preview"))
        .await;
    assert!(page.contains("version 2"), "{page}");
    assert_eq!(page.matches("<button id=\"seat-").count(), 8, "{page}");
    assert!(page.contains("Stalls, row C, seat 1"), "{page}");
    let anonymous = app
        .buyer()
        .http
        .get(format!("{}/staff/venues/{venue_id}/preview", app.base))
        .send()
        .await
        .unwrap();
    // Signed out: sent to sign in, the preview not shown.
    assert_eq!(anonymous.status(), StatusCode::SEE_OTHER);
    assert!(
        anonymous.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/staff/login"),
        "{:?}",
        anonymous.headers()
    );
}

#[tokio::test]
async fn two_managers_saving_the_same_version_one_wins_the_other_is_told() {
    let app = crate::support::spawn_app_for_forced_races().await;
    let first = staff(&app, "first").await;
    let second = staff(&app, "second").await;
    let venue_id = create_venue(&first, &small_hall("Busy Hall")).await;
    for round in 1..=5 {
        let seen = format!("\"v{round}\"");
        let mut mine = small_hall("Busy Hall");
        mine["sections"][0]["name"] = json!(format!("First {round}"));
        let mut theirs = small_hall("Busy Hall");
        theirs["sections"][0]["name"] = json!(format!("Second {round}"));
        // Both saves in flight at once: the venue's row is held here until
        // both wait on it, so neither can finish before the other starts.
        let mut holder = app.own_connection().await;
        let held = holder.transaction().await.unwrap();
        held.execute(
            "SELECT 1 FROM venues WHERE id = $1 FOR UPDATE",
            &[&venue_id],
        )
        .await
        .unwrap();
        let (mine_req, theirs_req) = (first.clone(), second.clone());
        let (seen_a, seen_b) = (seen.clone(), seen.clone());
        let a = tokio::spawn(
            async move { put_layout(&mine_req, venue_id, Some(&seen_a), &mine).await },
        );
        let b =
            tokio::spawn(
                async move { put_layout(&theirs_req, venue_id, Some(&seen_b), &theirs).await },
            );
        app.lock_waiters("UPDATE venues", 2).await;
        held.commit().await.unwrap();
        let (a, b) = (a.await.unwrap(), b.await.unwrap());
        let mut statuses = [a.0, b.0];
        statuses.sort();
        assert_eq!(
            statuses,
            [StatusCode::OK, StatusCode::PRECONDITION_FAILED],
            "round {round}: {a:?} {b:?}"
        );
        let winner = if a.0 == StatusCode::OK {
            "First"
        } else {
            "Second"
        };
        let (_, tag, text) = get_layout(&first, venue_id).await;
        assert_eq!(tag, Some(format!("\"v{}\"", round + 1)));
        assert!(text.contains(&format!("{winner} {round}")), "{text}");
    }
}

/// An event on a venue made through the API, and the venue's id.
async fn event_on_new_venue(app: &TestApp, manager: &Api, name: &str) -> (i64, i64) {
    let venue_id = create_venue(manager, &small_hall(name)).await;
    let event_id = event_on(app, venue_id, &format!("{name} night"), ("std", 2_000)).await;
    (venue_id, event_id)
}

/// An event on the venue's latest version, on sale now, its one tier priced.
async fn event_on(app: &TestApp, venue_id: i64, name: &str, (tier, cents): (&str, i32)) -> i64 {
    let plan = seatmap::db::venues::EventPlan {
        venue_id: seatmap::domain::ids::VenueId(venue_id),
        name: name.to_string(),
        starts_at: time::OffsetDateTime::now_utc() + time::Duration::days(10),
        on_sale_at: None,
        prices: BTreeMap::from([(tier.to_string(), cents)]),
        currency: "EUR".into(),
        published: true,
    };
    seatmap::db::venues::create_event(&app.pool, &plan)
        .await
        .unwrap()
        .0
}

/// Version 2 of the small hall: row A numbered the other way (A1 is now
/// its last seat, moved right by 5), B4 is gone, row C (a new tier, VIP)
/// is added behind.
fn second_version(name: &str) -> Value {
    let mut layout = small_hall(name);
    layout["tiers"] = json!([{"code": "std", "name": "Standard"}, {"code": "vip", "name": "VIP"}]);
    layout["sections"][0]["rows"][0]["seats"][0]["x"] = json!(155.0);
    layout["sections"][0]["rows"][0]["seats"]
        .as_array_mut()
        .unwrap()
        .reverse();
    layout["sections"][0]["rows"][1]["seats"]
        .as_array_mut()
        .unwrap()
        .pop();
    layout["sections"][0]["rows"].as_array_mut().unwrap().push(
        json!({"label": "C", "seats": [{"label": "1", "tier": "vip", "x": 30.0, "y": 60.0}]}),
    );
    layout
}

async fn seat_id(app: &TestApp, event_id: i64, row: &str, label: &str) -> Option<i64> {
    app.sql()
        .await
        .query_opt(
            "SELECT id FROM seats WHERE event_id = $1 AND row_label = $2 AND seat_label = $3",
            &[&event_id, &row, &label],
        )
        .await
        .unwrap()
        .map(|r| r.get(0))
}

async fn seat_x(app: &TestApp, seat: i64) -> f32 {
    app.sql()
        .await
        .query_one("SELECT x FROM seats WHERE id = $1", &[&seat])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn an_event_on_sale_moves_while_every_held_seat_keeps_its_place() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let (venue_id, event_id) = event_on_new_venue(&app, &manager, "Moving Hall").await;
    let a1 = seat_id(&app, event_id, "A", "1").await.unwrap();
    let b4 = seat_id(&app, event_id, "B", "4").await.unwrap();
    let x_before = seat_x(&app, a1).await;
    let (status, _, _) = put_layout(
        &manager,
        venue_id,
        Some("\"v1\""),
        &second_version("Moving Hall"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let path = format!("/api/staff/events/{event_id}/venue-version");

    // B4, which version 2 removes, is held: the move is refused, naming
    // it, and the preview said so first.
    let buyer = app.buyer();
    let (status, b4_hold) = buyer.hold(event_id, &[b4]).await;
    assert_eq!(status, StatusCode::CREATED, "{b4_hold}");
    let (status, preview) = manager.get(&format!("{path}?version=2")).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(
        preview["in_use"],
        json!([{"section": "Stalls", "row": "B", "seat": "4", "in_use": "held", "change": "removed"}])
    );
    let (status, body) = manager
        .post(&path, json!({"version": 2, "prices": {"vip": 9000}}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "places_in_use");
    assert_eq!(body["places"], preview["in_use"]);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Stalls B4 (held): removed"),
        "{body}"
    );
    assert_eq!(
        seat_x(&app, a1).await,
        x_before,
        "a refused move changes nothing"
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id}"
        ))
        .await,
        8
    );

    // B4 let go and A1 held instead: A1 keeps its match in version 2, so
    // the move goes ahead under the hold.
    app.lapse_hold(&b4_hold["hold_id"]).await;
    let (status, hold) = buyer.hold(event_id, &[a1]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let (_, preview) = manager.get(&format!("{path}?version=2")).await;
    assert_eq!(
        (
            preview["seats_kept"].as_i64(),
            preview["seats_added"].as_i64(),
            preview["seats_removed"].as_i64(),
            preview["in_use"].as_array().map(Vec::len)
        ),
        (Some(7), Some(1), Some(1), Some(0)),
        "{preview}"
    );
    let (status, body) = manager.post(&path, json!({"version": 2})).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("missing_price")),
        "{body}"
    );
    // A new price for the held seat's tier is refused while it is held:
    // its buyer was shown the old one.
    let (status, body) = manager
        .post(
            &path,
            json!({"version": 2, "prices": {"vip": 9000, "std": 2500}}),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::CONFLICT, Some("tier_has_holds")),
        "{body}"
    );
    let (status, body) = manager
        .post(&path, json!({"version": 3, "prices": {"vip": 9000}}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = manager
        .post(&path, json!({"version": 2, "prices": {"vip": 9000}}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            body["seats_kept"].as_i64(),
            body["seats_added"].as_i64(),
            body["seats_removed"].as_i64()
        ),
        (Some(7), Some(1), Some(1)),
        "{body}"
    );
    assert_eq!(
        seat_id(&app, event_id, "A", "1").await,
        Some(a1),
        "a kept seat keeps its id"
    );
    assert_eq!(seat_x(&app, a1).await, x_before + 125.0);
    assert_eq!(
        app.count(&format!(
            "SELECT position::bigint FROM seats WHERE id = {a1}"
        ))
        .await,
        3,
        "A1 is the last seat of row A now"
    );
    assert_eq!(seat_id(&app, event_id, "B", "4").await, None);
    // A1 is still the buyer's, in its new place.
    let held_by: Option<uuid::Uuid> = app
        .sql()
        .await
        .query_one(
            "SELECT hold_id FROM seats WHERE id = $1 AND status = 'HELD'",
            &[&a1],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        held_by.map(|h| h.to_string()).as_deref(),
        hold["hold_id"].as_str()
    );
    let c1 = seat_id(&app, event_id, "C", "1").await.unwrap();
    let (status, hold) = buyer.hold(event_id, &[c1]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    assert_eq!(
        app.count(&format!(
            "SELECT price_cents::bigint FROM price_tiers WHERE event_id = {event_id} AND code = 'vip'"
        ))
        .await,
        9_000
    );
    assert_eq!(audited(&app, event_id, "move_to_venue_version").await, 1);
    app.no_breaches().await;
}

/// Both orders of a move and a buyer's claim, forced with locks: a claim
/// that commits first makes the move refuse; a claim that comes while the
/// move is under way waits for it and lands on the rebuilt seat (same id,
/// new place), or finds a removed seat gone. Never a hold on a seat that
/// no longer exists.
#[tokio::test]
async fn a_move_racing_a_claim_either_refuses_or_the_claim_lands_on_the_new_seats() {
    let app = crate::support::spawn_app_for_forced_races().await;
    let manager = staff(&app, "manager").await;

    // Claim first: a claim's transaction in flight (the event's key-share
    // lock and its seat held, not yet committed), then the move.
    let (venue_id, event_id) = event_on_new_venue(&app, &manager, "Race Hall One").await;
    put_layout(
        &manager,
        venue_id,
        Some("\"v1\""),
        &second_version("Race Hall One"),
    )
    .await;
    // B4, which version 2 removes.
    let b4 = seat_id(&app, event_id, "B", "4").await.unwrap();
    let mut claimant = app.own_connection().await;
    let claim = claimant.transaction().await.unwrap();
    claim
        .execute(
            "SELECT 1 FROM events WHERE id = $1 FOR KEY SHARE",
            &[&event_id],
        )
        .await
        .unwrap();
    let hold_id = uuid::Uuid::new_v4();
    claim
        .execute(
            "INSERT INTO holds (id, event_id, buyer_id, expires_at) VALUES ($1, $2, $3, now() + interval '10 minutes')",
            &[&hold_id, &event_id, &uuid::Uuid::new_v4()],
        )
        .await
        .unwrap();
    claim
        .execute(
            "UPDATE seats SET status = 'HELD', hold_id = $1, held_until = now() + interval '10 minutes'
              WHERE id = $2 AND status = 'AVAILABLE'",
            &[&hold_id, &b4],
        )
        .await
        .unwrap();
    let mover = manager.clone();
    let path = format!("/api/staff/events/{event_id}/venue-version");
    let move_request = {
        let path = path.clone();
        tokio::spawn(async move {
            mover
                .post(&path, json!({"version": 2, "prices": {"vip": 9000}}))
                .await
        })
    };
    app.lock_waiter("FOR UPDATE").await;
    claim.commit().await.unwrap();
    let (status, body) = move_request.await.unwrap();
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        body["places"],
        json!([{"section": "Stalls", "row": "B", "seat": "4", "in_use": "held", "change": "removed"}])
    );

    // Move first: the move is under way (held up on one seat's lock, the
    // event locked), a buyer's claim on A1 and one on B4 (which version 2
    // removes) wait behind it, then the move commits.
    let (venue_id, event_id) = event_on_new_venue(&app, &manager, "Race Hall Two").await;
    put_layout(
        &manager,
        venue_id,
        Some("\"v1\""),
        &second_version("Race Hall Two"),
    )
    .await;
    let a1 = seat_id(&app, event_id, "A", "1").await.unwrap();
    let b4 = seat_id(&app, event_id, "B", "4").await.unwrap();
    let a3 = seat_id(&app, event_id, "A", "3").await.unwrap();
    let x_before = seat_x(&app, a1).await;
    let mut blocker = app.own_connection().await;
    let block = blocker.transaction().await.unwrap();
    block
        .execute("SELECT 1 FROM seats WHERE id = $1 FOR UPDATE", &[&a3])
        .await
        .unwrap();
    let path = format!("/api/staff/events/{event_id}/venue-version");
    let mover = manager.clone();
    let move_request = tokio::spawn(async move {
        mover
            .post(&path, json!({"version": 2, "prices": {"vip": 9000}}))
            .await
    });
    app.lock_waiter("ORDER BY id FOR UPDATE").await;
    let (first, second) = (app.buyer(), app.buyer());
    let claim_kept = tokio::spawn(async move { first.hold(event_id, &[a1]).await });
    let claim_removed = tokio::spawn(async move { second.hold(event_id, &[b4]).await });
    app.lock_waiters(crate::support::PICK_STATEMENT, 2).await;
    block.commit().await.unwrap();
    let (status, body) = move_request.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, hold) = claim_kept.await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    assert_eq!(
        seat_x(&app, a1).await,
        x_before + 125.0,
        "the seat was rebuilt"
    );
    let holder: Option<uuid::Uuid> = app
        .sql()
        .await
        .query_one("SELECT hold_id FROM seats WHERE id = $1", &[&a1])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        holder.map(|h| h.to_string()),
        hold["hold_id"].as_str().map(str::to_string),
        "the claim that waited holds the rebuilt seat"
    );
    let (status, body) = claim_removed.await.unwrap();
    assert_eq!(status, StatusCode::NOT_FOUND, "B4 is gone: {body}");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id} AND status = 'HELD'"
        ))
        .await,
        1
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn a_tier_repriced_on_sale_changes_unsold_seats_and_sold_ones_keep_their_price() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let (_, event_id) = event_on_new_venue(&app, &manager, "Price Hall").await;
    let a1 = seat_id(&app, event_id, "A", "1").await.unwrap();
    let a2 = seat_id(&app, event_id, "A", "2").await.unwrap();
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event_id, &[a1]).await;
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");

    let path = format!("/api/staff/events/{event_id}/tiers/std/price");
    // A2 held: its buyer was shown 2,000, so no new price yet.
    let (_, held) = buyer.hold(event_id, &[a2]).await;
    let (status, body) = put_json(&manager, &path, json!({"price_cents": 2_500})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        (
            body["error"].as_str(),
            body["message"]
                .as_str()
                .map(|m| m.contains("1 seat or place of this tier is held"))
        ),
        (Some("tier_has_holds"), Some(true)),
        "{body}"
    );
    let (status, _) = buyer
        .delete(&format!("/api/holds/{}", held["hold_id"].as_str().unwrap()))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = put_json(&manager, &path, json!({"price_cents": 2_500})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (body["was_cents"].as_i64(), body["price_cents"].as_i64()),
        (Some(2_000), Some(2_500))
    );
    let (status, _) = put_json(
        &manager,
        &format!("/api/staff/events/{event_id}/tiers/gold/price"),
        json!({"price_cents": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);

    let (_, hold) = buyer.hold(event_id, &[a2]).await;
    let (status, _) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let prices: Vec<(i64, i32)> = app
        .sql()
        .await
        .query(
            "SELECT seat_id, price_cents FROM order_lines WHERE seat_id = ANY($1) ORDER BY seat_id",
            &[&vec![a1, a2]],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(prices, [(a1, 2_000), (a2, 2_500)]);
    assert_eq!(audited(&app, event_id, "set_tier_price").await, 1);
}

#[tokio::test]
async fn a_sold_seat_keeps_its_tier_and_a_seat_ever_sold_stays_on_record() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let (venue_id, event_id) = event_on_new_venue(&app, &manager, "Sold Hall").await;
    // Version 2 drops B4 (as ever) and makes A2 a VIP seat.
    let mut v2 = second_version("Sold Hall");
    v2["sections"][0]["rows"][0]["seats"][2]["tier"] = json!("vip");
    assert_eq!(v2["sections"][0]["rows"][0]["seats"][2]["label"], "2");
    put_layout(&manager, venue_id, Some("\"v1\""), &v2).await;
    let a1 = seat_id(&app, event_id, "A", "1").await.unwrap();
    let a2 = seat_id(&app, event_id, "A", "2").await.unwrap();
    let b4 = seat_id(&app, event_id, "B", "4").await.unwrap();
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event_id, &[a1, a2, b4]).await;
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let path = format!("/api/staff/events/{event_id}/venue-version");
    let body = json!({"version": 2, "prices": {"vip": 9000.0}});
    let (status, refused) = manager.post(&path, body.clone()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(
        refused["places"],
        json!([
            {"section": "Stalls", "row": "A", "seat": "2", "in_use": "sold", "change": "tier_changed"},
            {"section": "Stalls", "row": "B", "seat": "4", "in_use": "sold", "change": "removed"},
        ])
    );
    // Refunded, the order and its tickets still name B4 and A2: B4 can't
    // be removed, but A2 may now change tier.
    let order_id = order["order_id"].as_str().unwrap();
    let (status, refund) = manager
        .post(
            &format!("/api/staff/events/{event_id}/orders/{order_id}/refund"),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{refund}");
    let (status, refused) = manager.post(&path, body).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(
        refused["places"],
        json!([{"section": "Stalls", "row": "B", "seat": "4", "in_use": "sold_before", "change": "removed"}])
    );
    let (status, refused) = manager
        .post(&path, json!({"version": 2, "prices": {"vip": -1}}))
        .await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_price"))
    );
    assert_eq!(
        app.count(&format!(
            "SELECT venue_version::bigint FROM events WHERE id = {event_id}"
        ))
        .await,
        1
    );
    // Version 3 keeps B4 (and A2 as VIP): the move goes ahead.
    let mut v3 = v2.clone();
    v3["sections"][0]["rows"][1]["seats"]
        .as_array_mut()
        .unwrap()
        .push(json!({"label": "4", "tier": "std", "x": 120.0, "y": 30.0}));
    let (status, _, _) = put_layout(&manager, venue_id, Some("\"v2\""), &v3).await;
    assert_eq!(status, StatusCode::OK);
    let (status, moved) = manager
        .post(&path, json!({"version": 3, "prices": {"vip": 9000}}))
        .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(seat_id(&app, event_id, "B", "4").await, Some(b4));
    app.no_breaches().await;
}

#[tokio::test]
async fn a_section_is_added_to_an_event_on_sale_and_nothing_sold_changes() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let (venue_id, event_id) = event_on_new_venue(&app, &manager, "Growing Hall").await;
    let a1 = seat_id(&app, event_id, "A", "1").await.unwrap();
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event_id, &[a1]).await;
    let (status, _) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let mut grown = small_hall("Growing Hall");
    grown["tiers"] =
        json!([{"code": "std", "name": "Standard"}, {"code": "gallery", "name": "Gallery"}]);
    grown["sections"].as_array_mut().unwrap().push(json!({
        "name": "Gallery", "position": {"x": 100, "y": 500},
        "rows": [{"label": "G", "count": 5, "tier": "gallery"}],
    }));
    let (status, _, body) = put_layout(&manager, venue_id, Some("\"v1\""), &grown).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let path = format!("/api/staff/events/{event_id}/sections");
    let (status, body) = manager
        .post(&path, json!({"version": 2, "section": "Gallery"}))
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("missing_price")),
        "{body}"
    );
    let (status, body) = manager
        .post(&path, json!({"version": 2, "section": "Nowhere"}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = manager
        .post(
            &path,
            json!({"version": 2, "section": "Gallery", "prices": {"gallery": 1500}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["seats"], 5);
    let (status, body) = manager
        .post(
            &path,
            json!({"version": 2, "section": "Stalls", "prices": {"gallery": 1500}}),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::CONFLICT, Some("section_exists")),
        "{body}"
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id}"
        ))
        .await,
        13
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {event_id} AND status = 'SOLD'"
        ))
        .await,
        1
    );
    let g3 = seat_id(&app, event_id, "G", "3").await.unwrap();
    let (status, hold) = app.buyer().hold(event_id, &[g3]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    assert_eq!(audited(&app, event_id, "add_section").await, 1);
    app.no_breaches().await;
}

/// A gala: round tables of six, each a section of one row around its
/// table top (as the designer draws them). Best available keeps a party at
/// one table: a table's chairs are one row, numbered round it.
#[tokio::test]
async fn best_available_keeps_a_party_at_one_table() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let table = |name: &str, x: f64| {
        let seats: Vec<Value> = (0..6)
            .map(|i| {
                let a = f64::from(i) / 6.0 * std::f64::consts::TAU - std::f64::consts::FRAC_PI_2;
                json!({"label": (i + 1).to_string(), "tier": "gala", "x": 45.0 * a.cos(), "y": 45.0 * a.sin()})
            })
            .collect();
        json!({"name": name, "position": {"x": x, "y": 300},
               "design": {"kind": "table", "shape": "round", "chairs": 6},
               "outline": [[-25, -25], [25, -25], [25, 25], [-25, 25]],
               "rows": [{"label": name.replace(' ', ""), "seats": seats}]})
    };
    let layout = json!({
        "name": "Gala Room",
        "tiers": [{"code": "gala", "name": "Gala"}],
        "stage": {"outline": [[100, 40], [500, 40], [500, 100], [100, 100]]},
        "sections": [table("Table 1", 150.0), table("Table 2", 300.0), table("Table 3", 450.0)],
    });
    let venue_id = create_venue(&manager, &layout).await;
    let event_id = event_on(&app, venue_id, "Gala night", ("gala", 10_000)).await;
    let mut tables_used = Vec::new();
    for party in [4, 4, 2, 4] {
        let buyer = app.buyer();
        let (status, body) = buyer
            .post(
                &format!("/api/events/{event_id}/holds"),
                json!({"best_available": {"count": party}}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let ids: Vec<i64> = body["hold"]["seat_ids"]
            .as_array()
            .or(body["seat_ids"].as_array())
            .unwrap_or_else(|| panic!("no seat ids in {body}"))
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(ids.len(), party);
        let tables: Vec<String> = app
            .sql()
            .await
            .query(
                "SELECT DISTINCT sec.name FROM seats s JOIN sections sec ON sec.id = s.section_id
                  WHERE s.id = ANY($1)",
                &[&ids],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(tables.len(), 1, "a party of {party} split over {tables:?}");
        tables_used.push(tables[0].clone());
    }
    // Three parties of four need three tables; the two fill a table's gap.
    let mut fours = vec![&tables_used[0], &tables_used[1], &tables_used[3]];
    fours.sort();
    fours.dedup();
    assert_eq!(fours.len(), 3, "{tables_used:?}");
}

/// How many audit entries of `action` the event has.
async fn audited(app: &TestApp, event_id: i64, action: &str) -> i64 {
    app.count(&format!(
        "SELECT count(*) FROM audit_log WHERE event_id = {event_id} AND action = '{action}'"
    ))
    .await
}

/// A PUT of a JSON body, answered as (status, body).
async fn put_json(client: &Api, path: &str, body: Value) -> (StatusCode, Value) {
    let response = client
        .http
        .put(format!("{}{path}", client.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_restricted_views_reason_travels_from_the_layout_to_the_seat_and_the_map() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let mut layout = small_hall("Pillar Hall");
    layout["sections"][0]["rows"][0]["seats"][0]["flags"] = json!(["restricted_view"]);
    layout["sections"][0]["rows"][0]["seats"][0]["view_note"] = json!("Pillar");
    let venue_id = create_venue(&manager, &layout).await;
    let (_, _, stored) = get_layout(&manager, venue_id).await;
    assert!(stored.contains("\"view_note\": \"Pillar\""), "{stored}");
    let event_id = event_on(&app, venue_id, "Pillar night", ("std", 2_000)).await;
    let seats = app.buyer().seats(event_id).await;
    let a1 = seats["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["row"] == "A" && s["number"] == "1")
        .unwrap_or_else(|| panic!("{seats}"))
        .clone();
    assert_eq!(a1["view_note"], "Pillar", "{a1}");
    let page = app.buyer().get_text(&format!("/events/{event_id}")).await;
    assert!(
        page.contains("restricted view (Pillar)"),
        "the seat's name says why"
    );

    // A reason on a seat without a restricted view is refused, saying where.
    layout["name"] = json!("Rail Hall");
    layout["sections"][0]["rows"][0]["seats"][1]["view_note"] = json!("Rail");
    let (status, body) = manager.post("/api/staff/venues", layout).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let problems = body["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{body}");
    assert_eq!(
        problems[0]["message"],
        "a view_note is for a seat marked restricted_view"
    );
    assert_eq!(
        (problems[0]["row"].clone(), problems[0]["seat"].clone()),
        (json!("A"), json!("2")),
        "{body}"
    );
}

/// Hostile traffic, round three: two sections added at once that both
/// bring the same new tier. Forced: the first holds its new tier row
/// uncommitted (held up writing its audit line) while the second inserts
/// the same tier. Both are added, the tier once; never a 500.
#[tokio::test]
async fn two_sections_added_at_once_with_the_same_new_tier_both_land() {
    let app = crate::support::spawn_app_for_forced_races().await;
    let manager = staff(&app, "manager").await;
    let (venue_id, event_id) = event_on_new_venue(&app, &manager, "Box Hall").await;
    let mut boxes = small_hall("Box Hall");
    boxes["tiers"] = json!([{"code": "std", "name": "Standard"}, {"code": "box", "name": "Box"}]);
    for (name, x) in [("Box L", 0), ("Box R", 400)] {
        boxes["sections"].as_array_mut().unwrap().push(json!({
            "name": name, "position": {"x": x, "y": 0},
            "rows": [{"label": "A", "count": 2, "tier": "box"}]}));
    }
    let (status, _, body) = put_layout(&manager, venue_id, Some("\"v1\""), &boxes).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE audit_log IN EXCLUSIVE MODE")
        .await
        .unwrap();
    let add = |section: &'static str| {
        let manager = manager.clone();
        tokio::spawn(async move {
            manager
                .post(
                    &format!("/api/staff/events/{event_id}/sections"),
                    json!({"version": 2, "section": section, "prices": {"box": 5000}}),
                )
                .await
        })
    };
    let first = add("Box L");
    app.lock_waiter("INSERT INTO audit_log").await;
    let second = add("Box R");
    // The second waits on the first's uncommitted tier row.
    app.lock_waiter("INSERT INTO price_tiers").await;
    lock.commit().await.unwrap();
    for (section, answer) in [("Box L", first), ("Box R", second)] {
        let (status, body) = answer.await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{section}: {body}");
    }
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM price_tiers WHERE event_id = {event_id} AND code = 'box'"
        ))
        .await,
        1
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats s JOIN sections sec ON sec.id = s.section_id
              WHERE s.event_id = {event_id} AND sec.name IN ('Box L', 'Box R')"
        ))
        .await,
        4
    );
}

/// Hostile traffic, round three: a section's `design` is the designer's
/// typed note (rows or a table), checked as such: markup in a field, a
/// field it doesn't have, or a number out of range is refused, naming the
/// design; the designer's own notes are kept.
#[tokio::test]
async fn a_sections_design_is_checked_as_the_typed_note_it_is() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let with_design = |name: &str, design: Value| {
        let mut layout = small_hall(name);
        layout["sections"][0]["design"] = design;
        layout
    };
    for (i, bad) in [
        json!({"kind": "rows", "rows": "1\"><img src=x onerror=alert(1)>"}),
        json!({"kind": "rows", "numbering": "<script>alert(1)</script>"}),
        json!({"kind": "rows", "rows": 3, "onclick": "x"}),
        json!({"kind": "rows", "rows": 100000}),
        json!({"kind": "table", "shape": "round\"><b>", "chairs": 6}),
        json!({"kind": "<svg onload=alert(1)>"}),
    ]
    .into_iter()
    .enumerate()
    {
        let (status, body) = manager
            .post(
                "/api/staff/venues",
                with_design(&format!("Design Hall {i}"), bad.clone()),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert!(
            body["problems"].to_string().contains("design"),
            "{bad}: {body}"
        );
    }
    let rows = json!({"kind": "rows", "rows": 2, "seats": 4, "counts": [4, 4], "curve": 0,
                      "seat_spacing": 30, "row_spacing": 30, "stagger": 0.5, "skew": 0,
                      "numbering": "odd_even", "start": 1, "row_labels": "letters_no_io",
                      "first_row": 1, "aisles": [2]});
    for (name, design) in [
        ("Rows Hall", rows),
        (
            "Table Hall",
            json!({"kind": "table", "shape": "round", "chairs": 6}),
        ),
    ] {
        let (status, body) = manager
            .post("/api/staff/venues", with_design(name, design.clone()))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{design}: {body}");
        let (_, _, stored) = get_layout(&manager, body["id"].as_i64().unwrap()).await;
        let stored: Value = serde_json::from_str(&stored).unwrap();
        assert_eq!(stored["sections"][0]["design"], design);
    }
}

#[tokio::test]
async fn the_venue_page_lists_its_events_and_a_move_is_previewed_then_confirmed_in_the_browser() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let (venue_id, event_id) = event_on_new_venue(&app, &manager, "Form Hall").await;
    let venue_page = format!("/staff/venues/{venue_id}");
    let page = manager.get_text(&venue_page).await;
    assert!(page.contains("Form Hall night"), "{page}");
    assert!(page.contains("Up to date"), "{page}");
    put_layout(
        &manager,
        venue_id,
        Some("\"v1\""),
        &second_version("Form Hall"),
    )
    .await;
    let move_page = format!("/staff/events/{event_id}/move?version=2");
    let page = manager.get_text(&venue_page).await;
    assert!(page.contains(&move_page.replace('&', "&amp;")), "{page}");
    assert!(page.contains("Move to version 2"), "{page}");

    // B4 held: the preview says why it can't move, and offers no button.
    let b4 = seat_id(&app, event_id, "B", "4").await.unwrap();
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event_id, &[b4]).await;
    let page = manager.get_text(&move_page).await;
    assert!(page.contains("Can't move yet: 1 in use"), "{page}");
    assert!(page.contains("Stalls B4 (held): removed"), "{page}");
    assert!(!page.contains(">Move to version 2</button>"), "{page}");

    // Free again: 7 kept, 1 added, 1 removed, and the new VIP tier's price
    // asked for; confirming moves it.
    app.lapse_hold(&hold["hold_id"]).await;
    let page = manager.get_text(&move_page).await;
    for part in [
        "7 seats kept",
        "1 seat added",
        "1 seat removed",
        "name=\"price.vip\"",
    ] {
        assert!(page.contains(part), "{part}: {page}");
    }
    let token = crate::pages::csrf_from(&manager, &move_page).await;
    let response = crate::staff::post_form(
        &manager,
        &format!("/staff/events/{event_id}/move"),
        &[("csrf", &token), ("version", "2"), ("price.vip", "90")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        response.headers()["location"],
        format!("/staff/events/{event_id}").as_str()
    );
    let console = manager.get_text(&format!("/staff/events/{event_id}")).await;
    assert!(
        console.contains("Moved to version 2: 7 seats kept, 1 seat added, 1 seat removed."),
        "{console}"
    );
    assert_eq!(
        app.count(&format!(
            "SELECT price_cents::bigint FROM price_tiers WHERE event_id = {event_id} AND code = 'vip'"
        ))
        .await,
        9_000
    );
    assert!(manager.get_text(&venue_page).await.contains("Up to date"));
}
