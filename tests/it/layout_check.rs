//! The layout check (`POST /api/staff/layouts/check`): the designer's one
//! judge of a layout. It answers what saving would: no problems for a
//! layout a save takes, and for one a save refuses, the very problems of
//! that save's 422, placed by section, row and seat. It stores nothing,
//! and only those who may save a layout may ask.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::staff::{staff, staff_as};
use crate::support::{Api, TestApp, spawn_app};
use seatmap::domain::role::Role;

const CHECK: &str = "/api/staff/layouts/check";

/// Two sections of two seats each: the Stalls at (100, 100), the Circle
/// where asked, its seats of the tier asked.
fn hall(name: &str, circle_at: (f64, f64), circle_tier: &str) -> Value {
    let seats = |tier: &str| {
        json!([
            {"label": "1", "tier": tier, "x": 0.0, "y": 0.0, "flags": []},
            {"label": "2", "tier": tier, "x": 30.0, "y": 0.0, "flags": []},
        ])
    };
    json!({
        "name": name,
        "time_zone": "Europe/London",
        "tiers": [{"code": "std", "name": "Standard"}],
        "sections": [
            {"name": "Stalls", "position": {"x": 100.0, "y": 100.0}, "rotation": 0,
             "rows": [{"label": "A", "seats": seats("std")}]},
            {"name": "Circle", "position": {"x": circle_at.0, "y": circle_at.1}, "rotation": 0,
             "rows": [{"label": "A", "seats": seats(circle_tier)}]},
        ],
        "ga_areas": [],
        "labels": [],
    })
}

async fn venue_count(app: &TestApp) -> i64 {
    app.count("SELECT count(*) FROM venues").await
}

/// The problems a check gives, after asserting it answered 200.
async fn checked(client: &Api, layout: &Value) -> Vec<Value> {
    let (status, body) = client.post(CHECK, layout.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("an answer with problems: {body}"))
        .clone()
}

#[tokio::test]
async fn a_layout_a_save_takes_has_no_problems_and_the_check_stores_nothing() {
    let app = spawn_app().await;
    let manager = staff(&app, "planner").await;
    let layout = hall("Checked Hall", (100.0, 300.0), "std");
    let before = venue_count(&app).await;
    assert_eq!(checked(&manager, &layout).await, Vec::<Value>::new());
    assert_eq!(venue_count(&app).await, before, "a check stored a venue");
    // And saving agrees.
    let (status, body) = manager.post("/api/staff/venues", layout).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // The 20,000-seat arena, 2 MB of JSON, is judged too.
    let arena: Value = serde_json::from_str(seatmap::domain::venue::examples::ARENA).unwrap();
    assert_eq!(checked(&manager, &arena).await, Vec::<Value>::new());
}

#[tokio::test]
async fn overlapping_or_unpainted_seats_are_the_problems_a_save_is_refused_for_placed_by_name() {
    let app = spawn_app().await;
    let manager = staff(&app, "planner").await;
    let before = venue_count(&app).await;
    // The Circle drawn on top of the Stalls: each of its seats overlaps
    // one of the Stalls'.
    let overlapping = hall("Overlapping Hall", (100.0, 100.0), "std");
    // The Circle's seats of a tier the layout doesn't have.
    let unpainted = hall("Unpainted Hall", (100.0, 300.0), "gold");
    for (layout, kind) in [(overlapping, "overlap"), (unpainted, "unpainted")] {
        let problems = checked(&manager, &layout).await;
        let places: Vec<(String, String, String)> = problems
            .iter()
            .map(|p| {
                assert_eq!(p["kind"], kind, "{p}");
                assert!(p["at"].is_string(), "{p}");
                assert!(!p["message"].as_str().unwrap_or("").is_empty(), "{p}");
                let name = |field: &str| p[field].as_str().unwrap_or("").to_string();
                (name("section"), name("row"), name("seat"))
            })
            .collect();
        assert_eq!(
            places,
            [("Circle", "A", "1"), ("Circle", "A", "2")].map(|(s, r, p)| (
                s.to_string(),
                r.to_string(),
                p.to_string()
            )),
            "{kind}: {problems:?}"
        );
        // The very problems a save is refused for, in the same shape.
        let (status, refused) = manager.post("/api/staff/venues", layout).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
        assert_eq!(refused["problems"], Value::Array(problems), "{kind}");
    }
    assert_eq!(venue_count(&app).await, before);
}

#[tokio::test]
async fn only_those_who_may_save_a_layout_may_ask_for_its_check() {
    let app = spawn_app().await;
    let layout = hall("Private Hall", (100.0, 300.0), "std");
    let (status, body) = app.buyer().post(CHECK, layout.clone()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["error"], "unauthorized");
    for role in [Role::Door, Role::BoxOffice] {
        let client = staff_as(&app, &format!("as-{}", role.as_str()), role).await;
        let (status, body) = client.post(CHECK, layout.clone()).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{role:?}: {body}");
        assert_eq!(body["error"], "forbidden");
        assert_eq!(body["needs"], Role::Manager.as_str());
    }
    for role in [Role::Manager, Role::Admin] {
        let client = staff_as(&app, &format!("as-{}", role.as_str()), role).await;
        assert_eq!(
            checked(&client, &layout).await,
            Vec::<Value>::new(),
            "{role:?}"
        );
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_or_too_big_is_refused() {
    let app = spawn_app().await;
    let manager = staff(&app, "planner").await;
    let (status, body) = manager.post_raw(CHECK, "{\"name\": \"Half").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"], "bad_request");
    let as_text = manager
        .http
        .post(format!("{}{CHECK}", manager.base))
        .header("content-type", "text/plain")
        .body(hall("Text Hall", (100.0, 300.0), "std").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(as_text.status(), StatusCode::BAD_REQUEST);
    // Past the largest layout a save takes (16 MiB), as a save would be.
    let huge = format!("\"{}\"", "x".repeat(16 * 1024 * 1024));
    for path in [CHECK, "/api/staff/venues"] {
        let (status, body) = manager.post_raw(path, &huge).await;
        assert!(status.is_client_error(), "{path}: {status} {body}");
        assert_ne!(status, StatusCode::OK, "{path}");
    }
}
