//! A venue manager's day (issue 48): events made as drafts that buyers
//! can't see until staff publish them; times typed as the venue's
//! wall-clock times; renaming, rescheduling and repricing from the
//! settings page; many seats blocked or released at once for a purpose.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::pages::csrf_from;
use crate::staff::{post_form, staff};
use crate::support::{Api, TestApp, spawn_app};

/// A one-row hall in `zone`, made through the API.
async fn hall_in(manager: &Api, name: &str, zone: &str) -> i64 {
    let seats: Vec<Value> = (1..=4)
        .map(|n| json!({"label": n.to_string(), "tier": "std", "x": f64::from(n) * 30.0, "y": 0.0}))
        .collect();
    let layout = json!({
        "name": name,
        "time_zone": zone,
        "tiers": [{"code": "std", "name": "Standard"}],
        "sections": [{"name": "Stalls", "position": {"x": 100, "y": 200},
                      "rows": [{"label": "A", "seats": seats}]}],
    });
    let (status, body) = manager.post("/api/staff/venues", layout).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["id"].as_i64().unwrap()
}

/// Posts the venue page's create-event form; the event's id, or the
/// notice the venue page shows instead.
async fn create_by_form(
    manager: &Api,
    venue_id: i64,
    fields: &[(&str, &str)],
) -> Result<i64, String> {
    let venue_page = format!("/staff/venues/{venue_id}");
    let token = csrf_from(manager, &venue_page).await;
    let mut all = vec![("csrf", token.as_str()), ("price.std", "25")];
    all.extend_from_slice(fields);
    let response = post_form(manager, &format!("{venue_page}/events"), &all).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let location = response.headers()["location"].to_str().unwrap().to_string();
    match location.strip_prefix("/staff/events/") {
        Some(id) => Ok(id.parse().unwrap()),
        None => {
            assert_eq!(location, venue_page);
            Err(manager.get_text(&venue_page).await)
        }
    }
}

async fn event_row(app: &TestApp, event_id: i64) -> (time::OffsetDateTime, String, bool) {
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT starts_at, currency, published_at IS NOT NULL FROM events WHERE id = $1",
            &[&event_id],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1), row.get(2))
}

#[tokio::test]
async fn times_are_typed_as_the_venues_wall_clock_and_the_currency_follows_its_country() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let berlin = hall_in(&manager, "Kammersaal", "Europe/Berlin").await;
    let page = manager.get_text(&format!("/staff/venues/{berlin}")).await;
    assert!(page.contains("Starts (Europe/Berlin time)"), "{page}");
    assert!(page.contains(r#"name="currency" value="EUR""#), "{page}");

    // 19:30 in Berlin in winter is 18:30 UTC; on sale at 09:00 Berlin.
    let event_id = create_by_form(
        &manager,
        berlin,
        &[
            ("name", "Winterreise"),
            ("starts_at", "2099-12-01T19:30"),
            ("on_sale_at", "2099-11-01T09:00"),
            ("currency", "EUR"),
        ],
    )
    .await
    .unwrap();
    let (starts_at, _, _) = event_row(&app, event_id).await;
    assert_eq!(starts_at, time::macros::datetime!(2099-12-01 18:30 UTC));
    let on_sale: time::OffsetDateTime = app
        .sql()
        .await
        .query_one("SELECT on_sale_at FROM events WHERE id = $1", &[&event_id])
        .await
        .unwrap()
        .get(0);
    assert_eq!(on_sale, time::macros::datetime!(2099-11-01 08:00 UTC));
    // And shown back in Berlin's time, named.
    let console = manager.get_text(&format!("/staff/events/{event_id}")).await;
    assert!(console.contains("19:30 CET"), "{console}");

    // A New York arena sells in dollars unless told otherwise.
    let new_york = hall_in(&manager, "Harbor Arena", "America/New_York").await;
    let page = manager.get_text(&format!("/staff/venues/{new_york}")).await;
    assert!(page.contains(r#"name="currency" value="USD""#), "{page}");
    let event_id = create_by_form(
        &manager,
        new_york,
        &[("name", "Harbor Lights"), ("starts_at", "2099-07-04T20:00")],
    )
    .await
    .unwrap();
    let (starts_at, currency, _) = event_row(&app, event_id).await;
    assert_eq!(currency, "USD");
    assert_eq!(starts_at, time::macros::datetime!(2099-07-05 00:00 UTC));

    // Clocks going forward skip 02:30 on 29 March 2099 in Berlin; going
    // back, 02:30 on 25 October 2099 happens twice. Both are refused,
    // saying so, and nothing is made.
    let before = app.count("SELECT count(*) FROM events").await;
    let skipped = create_by_form(
        &manager,
        berlin,
        &[("name", "Spring"), ("starts_at", "2099-03-29T02:30")],
    )
    .await
    .unwrap_err();
    assert!(
        skipped.contains("2099-03-29 02:30 doesn&#39;t exist in Europe/Berlin"),
        "{skipped}"
    );
    let twice = create_by_form(
        &manager,
        berlin,
        &[("name", "Autumn"), ("starts_at", "2099-10-25T02:30")],
    )
    .await
    .unwrap_err();
    assert!(twice.contains("happens twice in Europe/Berlin"), "{twice}");
    assert_eq!(app.count("SELECT count(*) FROM events").await, before);
}

#[tokio::test]
async fn a_new_event_is_a_draft_buyers_cannot_see_until_staff_publish_it() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let venue = hall_in(&manager, "Studio", "Europe/London").await;
    let event_id = create_by_form(
        &manager,
        venue,
        &[("name", "Premiere"), ("starts_at", "2099-05-01T19:00")],
    )
    .await
    .unwrap();
    assert!(!event_row(&app, event_id).await.2, "made as a draft");
    let seat: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT min(id) FROM seats WHERE event_id = $1",
            &[&event_id],
        )
        .await
        .unwrap()
        .get(0);

    // Buyers: 404 everywhere, and the list leaves it out.
    let buyer = app.buyer();
    let refused_everywhere = |buyer: Api| async move {
        for path in [
            format!("/events/{event_id}"),
            format!("/events/{event_id}/list"),
            format!("/events/{event_id}/live"),
            format!("/events/{event_id}/seat-fragments?ids={seat}"),
        ] {
            let response = buyer
                .http
                .get(format!("{}{path}", buyer.base))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        }
        let (status, body) = buyer.get(&format!("/api/events/{event_id}/seats")).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        let (status, body) = buyer.hold(event_id, &[seat]).await;
        assert_eq!(
            (status, &body["error"]),
            (StatusCode::NOT_FOUND, &json!("not_found"))
        );
        let (status, body) = buyer
            .post(
                &format!("/api/events/{event_id}/waitlist"),
                json!({"email": "fan@example.com", "count": 2}),
            )
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        let (_, list) = buyer.get("/api/events").await;
        assert!(
            !list.as_array().unwrap().iter().any(|e| e["id"] == event_id),
            "{list}"
        );
        let index = buyer.get_text("/").await;
        assert!(!index.contains("Premiere"), "{index}");
    };
    refused_everywhere(buyer.clone()).await;

    // House seats can be set aside before it is published.
    let (status, body) = manager
        .post(
            &format!("/api/staff/events/{event_id}/seats/block"),
            json!({"seat_ids": [seat], "purpose": "house"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = manager
        .post(
            &format!("/api/staff/events/{event_id}/seats/unblock"),
            json!({"seat_ids": [seat]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // Staff: the console says draft and offers publishing; the buyer's
    // page is their preview, saying it is a draft.
    let console = manager.get_text(&format!("/staff/events/{event_id}")).await;
    assert!(console.contains("Sales: Draft"), "{console}");
    assert!(console.contains(&format!("/staff/events/{event_id}/publish")));
    let preview = manager.get_text(&format!("/events/{event_id}")).await;
    assert!(
        preview.contains("only staff see it until it is published"),
        "{preview}"
    );
    assert!(manager.get_text("/staff").await.contains("Draft"));
    // The counter can't sell a draft either: staff are told why.
    let (status, body) = manager
        .post(
            &format!("/api/staff/events/{event_id}/sales"),
            json!({"seat_ids": [seat], "name": "Walk Up", "tender": "cash"}),
        )
        .await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::CONFLICT, &json!("event_not_published")),
        "{body}"
    );

    // Published through the API: buyers see it and can hold.
    let path = format!("/api/staff/events/{event_id}");
    let (status, body) = manager.patch(&path, json!({"published": true})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["published"], true);
    let (status, _) = buyer.get(&format!("/api/events/{event_id}/seats")).await;
    assert_eq!(status, StatusCode::OK);
    let (_, list) = buyer.get("/api/events").await;
    assert!(list.as_array().unwrap().iter().any(|e| e["id"] == event_id));
    let (status, hold) = buyer.hold(event_id, &[seat]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");

    // Taking it back is refused while a buyer holds a seat of it, and
    // the hold is untouched.
    let (status, body) = manager.patch(&path, json!({"published": false})).await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::CONFLICT, &json!("event_has_sales")),
        "{body}"
    );
    assert!(event_row(&app, event_id).await.2);
    let held = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE id = {seat} AND status = 'HELD'"
        ))
        .await;
    assert_eq!(held, 1);

    // Once the hold is let go, it can go back to a draft, and buyers lose
    // it at once (the API's kept seat map too).
    let (status, _) = buyer
        .delete(&format!(
            "/api/holds/{}",
            crate::support::id_segment(&hold["hold_id"])
        ))
        .await;
    assert!(status.is_success(), "{status}");
    let (status, body) = manager.patch(&path, json!({"published": false})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["published"], false);
    refused_everywhere(buyer.clone()).await;

    // Both changes are in the audit log, by name.
    let audited = app
        .count(&format!(
            "SELECT count(*) FROM audit_log WHERE event_id = {event_id}
                AND action IN ('publish', 'unpublish')"
        ))
        .await;
    assert_eq!(audited, 2);

    // The console's button publishes too.
    let token = csrf_from(&manager, &format!("/staff/events/{event_id}")).await;
    let response = post_form(
        &manager,
        &format!("/staff/events/{event_id}/publish"),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert!(event_row(&app, event_id).await.2);
    let (status, _) = buyer.get(&format!("/api/events/{event_id}/seats")).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn publishing_is_a_managers_and_a_bad_body_is_refused() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let clerk = crate::staff::staff_as(&app, "clerk", seatmap::domain::role::Role::BoxOffice).await;
    let path = format!("/api/staff/events/{}", event.id);
    let (status, _) = clerk.patch(&path, json!({"published": false})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let manager = staff(&app, "manager").await;
    let (status, body) = manager.patch(&path, json!({"published": "yes"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = manager
        .patch("/api/staff/events/999999", json!({"published": true}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    // Publishing what is published changes nothing and records nothing.
    let (status, body) = manager.patch(&path, json!({"published": true})).await;
    assert_eq!((status, &body["published"]), (StatusCode::OK, &json!(true)));
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'publish'")
            .await,
        0
    );
}

#[tokio::test]
async fn the_settings_page_and_the_api_rename_reschedule_and_reprice_an_event() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let venue = hall_in(&manager, "Opernhaus", "Europe/Berlin").await;
    let event_id = create_by_form(
        &manager,
        venue,
        &[("name", "Tosca"), ("starts_at", "2099-12-01T19:30")],
    )
    .await
    .unwrap();
    let settings = format!("/staff/events/{event_id}/settings");
    let page = manager.get_text(&settings).await;
    assert!(
        page.contains(r#"value="2099-12-01T19:30""#),
        "shown as typed: {page}"
    );
    assert!(page.contains("Starts (Europe/Berlin time)"), "{page}");
    assert!(page.contains(r#"name="price" value="25.00""#), "{page}");

    // The form: renamed, moved to 20:00 Berlin, on sale from 1 November.
    let token = csrf_from(&manager, &settings).await;
    let response = post_form(
        &manager,
        &settings,
        &[
            ("csrf", &token),
            ("name", "Tosca (new cast)"),
            ("starts_at", "2099-12-01T20:00"),
            ("on_sale_at", "2099-11-01T10:00"),
        ],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (starts_at, _, _) = event_row(&app, event_id).await;
    assert_eq!(starts_at, time::macros::datetime!(2099-12-01 19:00 UTC));
    let page = manager.get_text(&settings).await;
    assert!(page.contains("Saved the name and times."), "{page}");
    assert!(page.contains(r#"value="Tosca (new cast)""#), "{page}");
    assert!(page.contains(r#"value="2099-11-01T10:00""#), "{page}");

    // Sales after the start are refused, and nothing changes.
    let token = csrf_from(&manager, &settings).await;
    post_form(
        &manager,
        &settings,
        &[
            ("csrf", &token),
            ("name", "Tosca"),
            ("starts_at", "2099-12-01T20:00"),
            ("on_sale_at", "2099-12-02T10:00"),
        ],
    )
    .await;
    let page = manager.get_text(&settings).await;
    assert!(
        page.contains("Sales must open before the event starts."),
        "{page}"
    );
    assert!(page.contains(r#"value="Tosca (new cast)""#), "{page}");

    // A tier's price.
    let token = csrf_from(&manager, &settings).await;
    let response = post_form(
        &manager,
        &format!("{settings}/tiers/std"),
        &[("csrf", &token), ("price", "31.50")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        app.count(&format!(
            "SELECT price_cents::bigint FROM price_tiers WHERE event_id = {event_id}"
        ))
        .await,
        3_150
    );

    // The API: times in the venue's zone or with an offset; null on-sale
    // time sells at once; a bad one is refused with its code.
    let path = format!("/api/staff/events/{event_id}");
    let (status, body) = manager
        .patch(
            &path,
            json!({"name": "Tosca", "starts_at": "2099-12-02T18:00:00+01:00", "on_sale_at": null}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["name"], "Tosca");
    assert_eq!(body["starts_at"], "2099-12-02T17:00:00Z");
    assert_eq!(body["on_sale_at"], Value::Null);
    let (status, body) = manager
        .patch(&path, json!({"starts_at": "2099-03-29T02:30"}))
        .await;
    assert_eq!(
        (status, &body["error"]),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!("nonexistent_local_time")
        ),
        "{body}"
    );
    let (status, body) = manager
        .patch(&path, json!({"starts_at": "2001-01-01T10:00"}))
        .await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("starts_in_past")),
        "{body}"
    );
    let (status, body) = manager.patch(&path, json!({"name": "  "})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let audited = app
        .count(&format!(
            "SELECT count(*) FROM audit_log WHERE event_id = {event_id}
                AND action = 'change_event_details'"
        ))
        .await;
    assert_eq!(audited, 2);
}

#[tokio::test]
async fn staff_block_and_release_many_seats_at_once_for_a_named_purpose() {
    let app = spawn_app().await;
    let event = app.create_event(2, 4).await;
    let clerk = crate::staff::staff_as(&app, "clerk", seatmap::domain::role::Role::BoxOffice).await;
    let console = format!("/staff/events/{}", event.id);
    let bulk = format!("{console}/seats/bulk");
    let ids = |seats: &[i64]| {
        seats
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    // Three seats chosen on the map, for the press.
    let token = csrf_from(&clerk, &console).await;
    let chosen = ids(&event.seat_ids[..3]);
    let response = post_form(
        &clerk,
        &bulk,
        &[
            ("csrf", &token),
            ("action", "block"),
            ("seat_ids", &chosen),
            ("purpose", "press"),
        ],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let page = clerk.get_text(&console).await;
    assert!(page.contains("Blocked 3 seats for press."), "{page}");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'BLOCKED' AND blocked_for = 'press'",
            event.id
        ))
        .await,
        3
    );
    let panel = clerk
        .get_text(&format!("{console}?seat={}", event.seat_ids[0]))
        .await;
    assert!(panel.contains("for press"), "{panel}");
    // Buyers can't have them.
    let (status, _) = app.buyer().hold(event.id, &event.seat_ids[..1]).await;
    assert_eq!(status, StatusCode::CONFLICT);

    // A seat a buyer holds can't be blocked: all or nothing.
    let (_, held) = app.buyer().hold(event.id, &event.seat_ids[3..4]).await;
    assert!(held["hold_id"].is_string(), "{held}");
    let token = csrf_from(&clerk, &console).await;
    let chosen = ids(&event.seat_ids[3..6]);
    post_form(
        &clerk,
        &bulk,
        &[
            ("csrf", &token),
            ("action", "block"),
            ("seat_ids", &chosen),
            ("purpose", "house"),
        ],
    )
    .await;
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND blocked_for = 'house'",
            event.id
        ))
        .await,
        0
    );

    // A whole section released (no JavaScript needed): the three go back.
    let section: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT section_id FROM seats WHERE id = $1",
            &[&event.seat_ids[0]],
        )
        .await
        .unwrap()
        .get(0);
    let token = csrf_from(&clerk, &console).await;
    let section_text = section.to_string();
    post_form(
        &clerk,
        &bulk,
        &[
            ("csrf", &token),
            ("action", "release"),
            ("section", &section_text),
        ],
    )
    .await;
    assert!(
        clerk
            .get_text(&console)
            .await
            .contains("Released 3 seats: on sale again.")
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND (status = 'BLOCKED' OR blocked_for IS NOT NULL)",
            event.id
        ))
        .await,
        0
    );

    // The API takes a purpose too; a bad one is refused.
    let path = format!("/api/staff/events/{}/seats/block", event.id);
    let (status, body) = clerk
        .post(
            &path,
            json!({"seat_ids": &event.seat_ids[6..8], "purpose": "sponsor"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = clerk
        .post(
            &path,
            json!({"seat_ids": &event.seat_ids[6..8], "purpose": "x".repeat(41)}),
        )
        .await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("invalid_purpose")),
        "{body}"
    );
    let audited = app
        .count(&format!(
            "SELECT count(*) FROM audit_log WHERE event_id = {} AND action = 'block'
                AND detail IN ('for press', 'for sponsor')",
            event.id
        ))
        .await;
    assert_eq!(audited, 2);
    app.no_breaches().await;
}
