//! Live seat maps: what an open page's event stream carries.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Api, TestApp, ids, spawn_app, spawn_app_with};

/// An open event stream, read as text.
struct Stream {
    response: reqwest::Response,
    seen: String,
}

impl Stream {
    async fn open(client: &Api, path: &str) -> Stream {
        let response = client
            .http
            .get(format!("{}{path}", client.base))
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Stream {
            response,
            seen: String::new(),
        }
    }

    /// Reads until `needle` has arrived (or fails after 10 s) and returns
    /// everything read so far.
    async fn until(&mut self, needle: &str) -> String {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !self.seen.contains(needle) {
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .unwrap_or_else(|_| panic!("no {needle:?} within 10 s; got:\n{}", self.seen))
                .unwrap()
                .expect("stream ended");
            self.seen.push_str(&String::from_utf8_lossy(&chunk));
        }
        self.seen.clone()
    }
}

/// The page's starting cursor, as the page itself carries it.
async fn page_cursor(client: &Api, event_id: i64) -> String {
    let html = client
        .http
        .get(format!("{}/events/{event_id}", client.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let start = html
        .find("/live?since=")
        .expect("the page connects to its live feed")
        + "/live?since=".len();
    html[start..start + html[start..].find('"').unwrap()].to_string()
}

async fn hold(app: &TestApp, client: &Api, event_id: i64, seats: &[i64]) -> serde_json::Value {
    let (status, body) = client.hold(event_id, seats).await;
    assert_eq!(status, StatusCode::CREATED, "{body} on {}", app.base);
    body
}

#[tokio::test]
async fn a_change_made_through_one_instance_reaches_a_page_on_another() {
    let app = spawn_app().await;
    let other_instance = app.second_instance().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let watcher = Api::new(&other_instance);
    let since = page_cursor(&watcher, event.id).await;
    let mut stream = Stream::open(
        &watcher,
        &format!("/events/{}/live?since={since}", event.id),
    )
    .await;

    hold(&app, &app.buyer(), event.id, &[s[2]]).await;
    let seen = stream.until(&format!("id=\"seat-{}\"", s[2])).await;
    assert!(seen.contains("event: update"));
    assert!(
        seen.contains(&format!("id=\"seat-{}\" class=\"seat seat--held", s[2])),
        "{seen}"
    );
    assert!(seen.contains("hx-swap-oob=\"true\""));
    assert!(
        !seen.contains(&format!("id=\"seat-{}\"", s[0])),
        "only changed seats are sent"
    );
}

#[tokio::test]
async fn a_page_sees_its_own_seats_as_its_own_and_others_as_held() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    hold(&app, &buyer, event.id, &[s[0]]).await; // start a session and a hold
    let since = page_cursor(&buyer, event.id).await;
    let mut stream =
        Stream::open(&buyer, &format!("/events/{}/live?since={since}", event.id)).await;

    hold(&app, &buyer, event.id, &[s[1]]).await;
    let seen = stream.until(&format!("id=\"seat-{}\"", s[1])).await;
    assert!(
        seen.contains(&format!("id=\"seat-{}\" class=\"seat seat--mine", s[1])),
        "{seen}"
    );
    // Its seats changed, so the hold panel comes too, out of band.
    assert!(seen.contains("id=\"hold-panel\""));
    assert!(seen.contains("Stalls, row A, seat 2"));

    hold(&app, &app.buyer(), event.id, &[s[4]]).await;
    let seen = stream.until(&format!("id=\"seat-{}\"", s[4])).await;
    assert!(seen.contains(&format!("id=\"seat-{}\" class=\"seat seat--held", s[4])));
}

/// Opens the event's stream with these request headers and reads until
/// the seat `until` has arrived.
async fn stream_until(client: &Api, path: &str, last_event_id: Option<&str>, until: i64) -> String {
    let mut request = client
        .http
        .get(format!("{}{path}", client.base))
        .timeout(Duration::from_secs(60));
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id);
    }
    let mut stream = Stream {
        response: request.send().await.unwrap(),
        seen: String::new(),
    };
    stream.until(&format!("id=\"seat-{until}\"")).await
}

#[tokio::test]
async fn a_reconnecting_page_catches_up_from_its_cursor_in_the_url_or_in_last_event_id() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let viewer = app.buyer();
    let since = page_cursor(&viewer, event.id).await;
    // While the page has no stream open: s3 is held, then s5 is held and
    // let go.
    hold(&app, &app.buyer(), event.id, &[s[3]]).await;
    let other = app.buyer();
    let taken = hold(&app, &other, event.id, &[s[5]]).await;
    other
        .delete(&format!(
            "/api/holds/{}",
            taken["hold_id"].as_str().unwrap()
        ))
        .await;
    // A newer cursor, after those changes and before s1 is held.
    let later = page_cursor(&viewer, event.id).await;
    assert_ne!(later, since, "the cursor moved with the changes");
    hold(&app, &app.buyer(), event.id, &[s[1]]).await;

    // From the page's first cursor, in the URL: everything since, including
    // s3 and s5 (ignoring `since` would start from now, and miss them).
    let live = format!("/events/{}/live", event.id);
    let seen = stream_until(&viewer, &format!("{live}?since={since}"), None, s[1]).await;
    assert!(
        seen.contains(&format!("id=\"seat-{}\" class=\"seat seat--held", s[3])),
        "{seen}"
    );
    assert!(seen.contains(&format!(
        "id=\"seat-{}\" class=\"seat seat--available",
        s[5]
    )));

    // Reconnecting by itself, the browser sends its newer cursor as
    // Last-Event-ID and keeps the page's URL: the header wins, so only
    // what came after it (s1) is sent, not s3 or s5 again.
    let seen = stream_until(
        &viewer,
        &format!("{live}?since={since}"),
        Some(&later),
        s[1],
    )
    .await;
    for old in [s[3], s[5]] {
        assert!(
            !seen.contains(&format!("id=\"seat-{old}\"")),
            "Last-Event-ID {later} must win over since={since}: {seen}"
        );
    }
}

#[tokio::test]
async fn when_staff_release_a_hold_the_buyers_page_is_told_live() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let held = hold(&app, &buyer, event.id, &[s[0], s[1]]).await;
    let since = page_cursor(&buyer, event.id).await;
    let mut stream =
        Stream::open(&buyer, &format!("/events/{}/live?since={since}", event.id)).await;

    let staff_id = seatmap::db::staff::create(
        &app.sql().await,
        "clerk",
        "unused-hash",
        seatmap::domain::role::Role::BoxOffice,
    )
    .await
    .unwrap();
    let hold_id: seatmap::domain::ids::HoldId = held["hold_id"].as_str().unwrap().parse().unwrap();
    seatmap::db::box_office::release(
        &app.pool,
        seatmap::domain::ids::Actor::Staff(staff_id),
        hold_id,
        None,
    )
    .await
    .unwrap();

    let seen = stream.until("The box office released your hold").await;
    assert!(seen.contains(&format!(
        "id=\"seat-{}\" class=\"seat seat--available",
        s[0]
    )));
}

#[tokio::test]
async fn a_page_asking_at_expiry_time_gets_the_seats_as_they_now_are() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let held = hold(&app, &app.buyer(), event.id, &[s[1]]).await;
    let viewer = app.buyer();
    let path = format!("/events/{}/seat-fragments?ids={},{}", event.id, s[1], s[2]);
    let html = |path: String| {
        let viewer = &viewer;
        async move {
            viewer
                .http
                .get(format!("{}{path}", viewer.base))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };
    let before = html(path.clone()).await;
    assert!(before.contains(&format!("id=\"seat-{}\" class=\"seat seat--held", s[1])));
    assert!(
        before.contains("data-held-until="),
        "held seats say when they run out"
    );
    app.lapse_hold(&held["hold_id"]).await;
    let after = html(path).await;
    assert!(
        after.contains(&format!(
            "id=\"seat-{}\" class=\"seat seat--available",
            s[1]
        )),
        "{after}"
    );
    assert!(!after.contains("data-held-until="));
}

#[tokio::test]
async fn a_hold_can_be_extended_once_and_only_in_its_last_two_minutes() {
    let long = spawn_app().await;
    let event = long.create_event(1, 4).await;
    let buyer = long.buyer();
    let held = hold(&long, &buyer, event.id, &[event.seat_ids[0]]).await;
    let hold_id = held["hold_id"].as_str().unwrap();
    let (status, body) = buyer
        .post(&format!("/api/holds/{hold_id}/extend"), json!({}))
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "eight minutes left is too early: {body}"
    );
    assert_eq!(body["error"], "too_early");

    let short = spawn_app_with(|c| c.hold_ttl = Duration::from_secs(60)).await;
    let event = short.create_event(1, 4).await;
    let buyer = short.buyer();
    let held = hold(
        &short,
        &buyer,
        event.id,
        &[event.seat_ids[0], event.seat_ids[1]],
    )
    .await;
    let hold_id = held["hold_id"].as_str().unwrap();
    let stranger = short.buyer();
    let (status, _) = stranger
        .post(&format!("/api/holds/{hold_id}/extend"), json!({}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "only the holder may extend");

    let (status, body) = buyer
        .post(&format!("/api/holds/{hold_id}/extend"), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let before = time::OffsetDateTime::parse(
        held["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let after = time::OffsetDateTime::parse(
        body["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert_eq!((after - before).whole_seconds(), 240);
    assert_eq!(ids(&body["seat_ids"]).len(), 2);
    // The seats carry the new expiry too: lazy expiry must not free them early.
    let held_until: Vec<time::OffsetDateTime> = short
        .sql()
        .await
        .query(
            "SELECT held_until FROM seats WHERE hold_id::text = $1",
            &[&hold_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(held_until.iter().all(|t| *t == after));

    let (status, body) = buyer
        .post(&format!("/api/holds/{hold_id}/extend"), json!({}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "already_extended");
}

#[tokio::test]
async fn the_list_view_offers_available_and_own_seats_with_the_same_actions() {
    let app = spawn_app().await;
    let event = app.create_event(2, 3).await;
    let s = &event.seat_ids;
    hold(&app, &app.buyer(), event.id, &[s[0]]).await;
    let buyer = app.buyer();
    let list = format!("/events/{}/list", event.id);
    let page = |client: &Api| {
        let url = format!("{}{list}", client.base);
        let http = client.http.clone();
        async move { http.get(url).send().await.unwrap().text().await.unwrap() }
    };
    let html = page(&buyer).await;
    assert!(
        !html.contains(&format!("value=\"{}\"", s[0])),
        "taken seats are not listed"
    );
    assert!(html.contains("<h3>Row B</h3>"));
    assert!(html.contains("Stalls, row A, seat 2, Standard €45, available"));

    let token = crate::pages::csrf_from(&buyer, &list).await;
    let response = buyer
        .http
        .post(format!("{}/events/{}/seats", app.base, event.id))
        .form(&[
            ("hold", s[1].to_string()),
            ("back", "list".into()),
            ("csrf", token),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()["location"], list.as_str());
    let html = page(&buyer).await;
    assert!(html.contains("Stalls, row A, seat 2, Standard €45, held by you"));
    assert!(html.contains(&format!("name=\"release\" value=\"{}\"", s[1])));
}

#[tokio::test]
async fn what_is_left_in_a_ga_area_reaches_open_pages_live() {
    let app = spawn_app().await;
    let (event, areas) = app.create_ga_event(2, &[("Standing", 5)]).await;
    let watcher = app.buyer();
    let since = page_cursor(&watcher, event.id).await;
    let mut stream = Stream::open(
        &watcher,
        &format!("/events/{}/live?since={since}", event.id),
    )
    .await;
    let (status, body) = app
        .buyer()
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({ "ga": { "area": areas[0], "count": 2 } }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let seen = stream
        .until(&format!(
            "id=\"ga-left-{}\" hx-swap-oob=\"true\">3 left",
            areas[0]
        ))
        .await;
    assert!(seen.contains("event: update"), "{seen}");
}

/// A page showing one section of a big venue is sent that section's seats
/// only (an arena section needs one change in 38), and an overview none;
/// the cursor still moves past every change, so a reconnect misses nothing.
#[tokio::test]
async fn a_section_page_hears_only_its_own_seats() {
    use seatmap::domain::layout::{RowSpec, SectionSpec};
    let app = crate::support::spawn_app_with(|c| c.overview_above_seats = 4).await;
    let row = || RowSpec {
        label: "A".into(),
        seats: 3,
        tier: "std".into(),
        ..Default::default()
    };
    let event = app
        .create_event_with(vec![
            SectionSpec {
                name: "East".into(),
                rows: vec![row()],
                curve: None,
                side_blocks: None,
            },
            SectionSpec {
                name: "West".into(),
                rows: vec![row()],
                curve: None,
                side_blocks: None,
            },
        ])
        .await;
    let east: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT id FROM sections WHERE event_id = $1 AND name = 'East'",
            &[&event.id],
        )
        .await
        .unwrap()
        .get(0);
    let (east_seat, west_seat) = (event.seat_ids[0], event.seat_ids[3]);
    let watcher = app.buyer();
    let (_, html) =
        crate::pages::page(&watcher, &format!("/events/{}?section={east}", event.id)).await;
    assert!(
        html.contains(&format!(
            "/events/{}/live?section={east}&#38;since=",
            event.id
        )),
        "the section page asks for its section's seats: {}",
        &html[html.find("live-feed").unwrap()..][..300]
    );
    let start = html.find("&#38;since=").unwrap() + "&#38;since=".len();
    let since = &html[start..start + html[start..].find('"').unwrap()];
    let mut section_stream = Stream::open(
        &watcher,
        &format!("/events/{}/live?section={east}&since={since}", event.id),
    )
    .await;
    let mut overview_stream = Stream::open(
        &watcher,
        &format!("/events/{}/live?seats=none&since={since}", event.id),
    )
    .await;
    hold(&app, &app.buyer(), event.id, &[west_seat]).await;
    hold(&app, &app.buyer(), event.id, &[east_seat]).await;
    let seen = section_stream
        .until(&format!("id=\"seat-{east_seat}\""))
        .await;
    assert!(
        !seen.contains(&format!("id=\"seat-{west_seat}\"")),
        "West's change is not sent to East's page: {seen}"
    );
    // The cursor moved past both changes: a stream opened from it is sent
    // neither again, only what comes after (a marker in East).
    let last_id = seen.rsplit("id: ").next().unwrap().lines().next().unwrap();
    assert_ne!(last_id, since, "{seen}");
    let mut resumed = Stream::open(
        &watcher,
        &format!("/events/{}/live?section={east}&since={last_id}", event.id),
    )
    .await;
    let marker = event.seat_ids[1];
    hold(&app, &app.buyer(), event.id, &[marker]).await;
    let after = resumed.until(&format!("id=\"seat-{marker}\"")).await;
    for old in [east_seat, west_seat] {
        assert!(
            !after.contains(&format!("id=\"seat-{old}\"")),
            "seat {old} was sent again from the cursor: {after}"
        );
    }
    let overview = overview_stream.until("event: update\nid:").await;
    assert!(!overview.contains("id=\"seat-"), "{overview}");
}

/// A transaction that changed a seat early and commits late (so its seat
/// has a lower version than one already sent) still reaches the feed, and
/// each committed change reaches it once: the feed's cursor is commit
/// order, not version order. A rolled-back change never reaches it.
#[tokio::test]
async fn a_change_committed_after_a_later_one_was_sent_still_reaches_the_feed_once() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let mut feed = app.state.live.subscribe();
    let mut early = app.own_connection().await;
    let mut rolled_back = app.own_connection().await;

    let early_tx = early.transaction().await.unwrap();
    early_tx
        .execute(
            "UPDATE seats SET status = 'BLOCKED' WHERE id = $1",
            &[&s[0]],
        )
        .await
        .unwrap();
    let doomed = rolled_back.transaction().await.unwrap();
    doomed
        .execute(
            "UPDATE seats SET status = 'BLOCKED' WHERE id = $1",
            &[&s[2]],
        )
        .await
        .unwrap();
    app.sql()
        .await
        .execute(
            "UPDATE seats SET status = 'BLOCKED' WHERE id = $1",
            &[&s[1]],
        )
        .await
        .unwrap();
    let status: String = app
        .sql()
        .await
        .query_one("SELECT status FROM seats WHERE id = $1", &[&s[0]])
        .await
        .unwrap()
        .get(0);
    assert_eq!(status, "AVAILABLE", "the early change is not committed yet");

    let mut heard: Vec<i64> = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !heard.contains(&s[1]) {
        let change = tokio::time::timeout_at(deadline, feed.recv())
            .await
            .expect("the committed change never reached the feed")
            .unwrap();
        heard.extend(change.seats.iter().map(|seat| seat.id.0));
    }
    assert!(!heard.contains(&s[0]), "an uncommitted change was sent");
    doomed.rollback().await.unwrap();
    early_tx.commit().await.unwrap();

    while !heard.contains(&s[0]) {
        let change = tokio::time::timeout_at(deadline, feed.recv())
            .await
            .expect("the late commit never reached the feed")
            .unwrap();
        heard.extend(change.seats.iter().map(|seat| seat.id.0));
    }
    // A later change, committed after everything above: the feed sends in
    // commit order, so once it is heard, a resend or the rolled-back seat
    // would have been heard before it.
    let (status, _) = app.buyer().hold(event.id, &[s[3]]).await;
    assert_eq!(status, StatusCode::CREATED);
    while !heard.contains(&s[3]) {
        let change = tokio::time::timeout_at(deadline, feed.recv())
            .await
            .expect("the marker change never reached the feed")
            .unwrap();
        heard.extend(change.seats.iter().map(|seat| seat.id.0));
    }
    heard.retain(|seat| *seat != s[3]);
    heard.sort_unstable();
    assert_eq!(heard, vec![s[0], s[1]], "each committed change once");
}

/// A page whose stream opened before this instance's live feed took its
/// first snapshot (the database out of reach at start, say) catches up
/// from its own cursor once the feed starts: a change committed between
/// the page's catch-up and the feed's first snapshot is not missed, though
/// the feed itself only sends what commits after that snapshot.
#[tokio::test]
async fn a_page_opened_before_the_feeds_first_snapshot_catches_up() {
    use seatmap::config::{Config, DatabaseSource, Secret};
    let db = crate::support::TestDb::create().await;
    let counter = crate::wire::WireCounter::start(db.pg_config()).await;
    counter.hold_the_live_feed();
    let config = Config::for_tests(DatabaseSource::Url(Secret::new(
        counter.conninfo(&db.pg_config()),
    )));
    let (base, state) = crate::support::serve_instance(&config).await;
    let event = crate::support::create_event_on(&state.pool, 1, 4).await;
    let s = &event.seat_ids;
    let viewer = Api::new(&base);
    let since = page_cursor(&viewer, event.id).await;
    let (status, _) = Api::new(&base).hold(event.id, &[s[0]]).await;
    assert_eq!(status, StatusCode::CREATED);
    // The page's own catch-up, done while the feed has no snapshot yet.
    let mut stream =
        Stream::open(&viewer, &format!("/events/{}/live?since={since}", event.id)).await;
    stream.until(&format!("id=\"seat-{}\"", s[0])).await;
    // After that catch-up and before the feed's first snapshot.
    let (status, _) = Api::new(&base).hold(event.id, &[s[1]]).await;
    assert_eq!(status, StatusCode::CREATED);
    counter.let_the_live_feed_through();
    let seen = stream.until(&format!("id=\"seat-{}\"", s[1])).await;
    assert!(
        seen.contains(&format!("id=\"seat-{}\" class=\"seat seat--held", s[1])),
        "{seen}"
    );
}
