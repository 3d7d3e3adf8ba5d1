//! The server-rendered pages, driven as a browser without JavaScript would
//! (form posts and redirects) and as htmx does (fragments).

use reqwest::StatusCode;
use reqwest::header::LOCATION;

use crate::support::{Api, spawn_app, statuses};

pub async fn page(buyer: &Api, path: &str) -> (StatusCode, String) {
    let response = buyer
        .http
        .get(format!("{}{path}", buyer.base))
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

/// The CSRF token a page's forms carry, as a browser would find it.
pub async fn csrf_from(buyer: &Api, page_path: &str) -> String {
    let (_, html) = page(buyer, page_path).await;
    let start = html
        .find("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no csrf field on {page_path}"))
        + "name=\"csrf\" value=\"".len();
    html[start..start + html[start..].find('"').unwrap()].to_string()
}

/// Posts a form with the session's CSRF token, read from the event page
/// `path` belongs to (`/events/{id}/...`).
pub async fn post_form(
    buyer: &Api,
    path: &str,
    form: &[(&str, String)],
    htmx: bool,
) -> reqwest::Response {
    let event_page: String = path.split('/').take(3).collect::<Vec<_>>().join("/");
    let token = csrf_from(buyer, &event_page).await;
    let mut fields: Vec<(&str, String)> = form.to_vec();
    fields.push(("csrf", token));
    let mut request = buyer
        .http
        .post(format!("{}{path}", buyer.base))
        .form(&fields);
    if htmx {
        request = request.header("HX-Request", "true");
    }
    request.send().await.unwrap()
}

/// A field of the Undo form in a best-available answer's notice.
pub fn undo_field(html: &str, name: &str) -> String {
    let form = &html[html.find("class=\"undo-form\"").expect("an Undo form")..];
    let marker = format!("name=\"{name}\" value=\"");
    let start = form
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in {form}"))
        + marker.len();
    form[start..start + form[start..].find('"').unwrap()].to_string()
}

#[tokio::test]
async fn the_event_list_and_seat_map_render_every_seat_as_a_labelled_button() {
    let app = spawn_app().await;
    let event = app.create_event(2, 5).await;
    let visitor = app.buyer();
    let (status, html) = page(&visitor, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(&format!("href=\"/events/{}\"", event.id)));
    assert!(html.contains("10 of 10 seats left"));
    assert!(
        html.contains(r#"<link rel="icon" href="/static/favicon.svg?v="#),
        "the pages name a favicon"
    );
    let icon = visitor
        .http
        .get(format!("{}/static/favicon.svg", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(icon.status(), StatusCode::OK);
    assert_eq!(icon.headers()["content-type"], "image/svg+xml");

    let (status, html) = page(&visitor, &format!("/events/{}", event.id)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        html.matches("class=\"seat seat--available tier-").count(),
        10
    );
    assert!(html.contains("aria-label=\"Stalls, row B, seat 3, Standard €45, available\""));
    for legend in [
        "held by you",
        "held by another buyer",
        "sold",
        "not for sale",
    ] {
        assert!(html.contains(legend), "legend lacks {legend}");
    }
    assert!(html.contains("src=\"/static/htmx.min.js?v="));
    // The vendored scripts are served by the app itself.
    for asset in ["/static/htmx.min.js", "/static/app.js", "/static/app.css"] {
        let response = visitor
            .http
            .get(format!("{}{asset}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
    }
}

#[tokio::test]
async fn without_javascript_a_buyer_holds_seats_and_buys_through_forms_and_redirects() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let map = format!("/events/{}", event.id);

    for seat in [s[1], s[2]] {
        let response = post_form(
            &buyer,
            &format!("{map}/seats"),
            &[("hold", seat.to_string())],
            false,
        )
        .await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
        assert_eq!(response.headers()[LOCATION], map.as_str());
    }
    let (_, html) = page(&buyer, &map).await;
    assert!(
        html.contains("Holding Stalls, row A, seat 3 (€45)."),
        "notice after redirect"
    );
    assert_eq!(html.matches("seat seat--mine tier-").count(), 2);
    assert!(html.contains("aria-pressed=\"true\""));
    assert!(html.contains("data-expires-at=\""));
    assert!(html.contains("Held for <strong class=\"countdown__time\">0"));
    assert!(html.contains("Buy for €90"));
    // The notice is shown once.
    let (_, again) = page(&buyer, &map).await;
    assert!(!again.contains("Holding Stalls"));

    // Clicking my seat again releases it.
    let response = post_form(
        &buyer,
        &format!("{map}/seats"),
        &[("release", s[2].to_string())],
        false,
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(statuses(&buyer.seats(event.id).await)[&s[2]], "available");

    let response = post_form(
        &buyer,
        &format!("{map}/purchase"),
        &[
            ("name", "Grace Hopper".into()),
            ("email", "grace@example.com".into()),
        ],
        false,
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let order_path = response.headers()[LOCATION].to_str().unwrap().to_string();
    assert!(order_path.starts_with("/orders/"));
    let (status, html) = page(&buyer, &order_path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Your tickets"));
    assert!(html.contains("Stalls, row A, seat 2"));
    assert!(html.contains("€45"));
    assert!(html.contains("Grace Hopper"));
    // Another session can't see the order.
    let (status, _) = page(&app.buyer(), &order_path).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn htmx_actions_answer_with_the_panel_the_changed_seat_and_a_notice() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let rival = app.buyer();
    let seats_path = format!("/events/{}/seats", event.id);

    let response = post_form(&buyer, &seats_path, &[("hold", s[0].to_string())], true).await;
    assert_eq!(response.status(), StatusCode::OK);
    let fragment = response.text().await.unwrap();
    assert!(
        fragment.starts_with("<section id=\"hold-panel\""),
        "{fragment}"
    );
    assert!(fragment.contains(&format!("id=\"seat-{}\" class=\"seat seat--mine", s[0])));
    assert!(fragment.contains("hx-swap-oob=\"true\""));
    assert!(fragment.contains("Holding Stalls, row A, seat 1"));

    // The rival clicks the same (stale, still "available") seat: told it's
    // taken, shown as held, and nothing changes.
    let response = post_form(&rival, &seats_path, &[("hold", s[0].to_string())], true).await;
    assert_eq!(response.status(), StatusCode::OK);
    let fragment = response.text().await.unwrap();
    assert!(
        fragment.contains("was just taken by someone else"),
        "{fragment}"
    );
    assert!(fragment.contains(&format!("id=\"seat-{}\" class=\"seat seat--held", s[0])));
    assert!(fragment.contains("You hold no seats"));

    // Clicking a taken seat explains it and changes nothing.
    let response = post_form(&rival, &seats_path, &[("inspect", s[0].to_string())], true).await;
    let fragment = response.text().await.unwrap();
    assert!(fragment.contains("is held by another buyer"), "{fragment}");
    assert_eq!(statuses(&buyer.seats(event.id).await)[&s[0]], "mine");
}

#[tokio::test]
async fn the_buy_form_refuses_bad_details_keeping_them_and_explains_an_expired_hold() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let map = format!("/events/{}", event.id);
    post_form(
        &buyer,
        &format!("{map}/seats"),
        &[("hold", s[0].to_string())],
        false,
    )
    .await;

    let response = post_form(
        &buyer,
        &format!("{map}/purchase"),
        &[("name", "Ada".into()), ("email", "ada-at-example".into())],
        false,
    )
    .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = response.text().await.unwrap();
    assert!(html.contains("Enter a valid email address"));
    assert!(html.contains("value=\"ada-at-example\""));

    app.lapse_every_hold(event.id).await;
    let response = post_form(
        &buyer,
        &format!("{map}/purchase"),
        &[("name", "Ada".into()), ("email", "ada@example.com".into())],
        false,
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (_, html) = page(&buyer, &map).await;
    assert!(html.contains("Your hold expired at"), "{html}");
    assert!(html.contains("could not be bought"));
    assert_eq!(
        html.matches("seat seat--available tier-").count(),
        4,
        "seats shown as they now are"
    );
    let orders: i64 = app.count("SELECT count(*) FROM orders").await;
    assert_eq!(orders, 0);
}

#[tokio::test]
async fn bad_page_requests_get_an_html_error_page_not_a_500() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let visitor = app.buyer();
    for path in [
        "/events/999999",
        "/events/abc",
        "/nowhere",
        "/orders/not-a-uuid",
        "/static/missing.js",
    ] {
        let (status, html) = page(&visitor, path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(html.contains("<h1>Not Found</h1>"), "{path}: {html}");
    }
    let seats_path = format!("/events/{}/seats", event.id);
    for form in [vec![("hold", "abc".to_string())], vec![]] {
        let response = post_form(&visitor, &seats_path, &form, false).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{form:?}");
        assert!(
            response
                .text()
                .await
                .unwrap()
                .contains("<h1>Bad Request</h1>")
        );
    }
    let response = post_form(
        &visitor,
        &seats_path,
        &[("hold", "424242".to_string())],
        false,
    )
    .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

/// GET `path` as raw bytes (this client never decompresses), asking for
/// `encoding` if given; returns the Content-Encoding and the body's size.
async fn fetch_encoded(base: &str, path: &str, encoding: Option<&str>) -> (Option<String>, usize) {
    let client = crate::support::http_client();
    let mut request = client.get(format!("{base}{path}"));
    if let Some(encoding) = encoding {
        request = request.header("accept-encoding", encoding);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let content_encoding = response
        .headers()
        .get("content-encoding")
        .map(|v| v.to_str().unwrap().to_string());
    (content_encoding, response.bytes().await.unwrap().len())
}

/// Pages, JSON and assets go compressed to a client that accepts it, and
/// plain to one that doesn't; a live stream never is, so an update can't
/// wait in a compressor's buffer.
#[tokio::test]
async fn responses_are_compressed_when_accepted_except_live_streams() {
    let app = spawn_app().await;
    let event = app.create_event(20, 30).await;
    let map = format!("/events/{}", event.id);
    let seats = format!("/api/events/{}/seats", event.id);
    for (path, encoding) in [
        (map.as_str(), "gzip"),
        (seats.as_str(), "br"),
        ("/static/htmx.min.js", "gzip"),
    ] {
        let (plain_encoding, plain) = fetch_encoded(&app.base, path, None).await;
        assert_eq!(plain_encoding, None, "{path} without Accept-Encoding");
        let (used, compressed) = fetch_encoded(&app.base, path, Some(encoding)).await;
        assert_eq!(used.as_deref(), Some(encoding), "{path}");
        assert!(
            compressed * 3 < plain,
            "{path}: {compressed} bytes compressed, {plain} plain"
        );
    }

    let stream = crate::support::http_client()
        .get(format!("{}/events/{}/live", app.base, event.id))
        .header("accept-encoding", "gzip, br")
        .timeout(std::time::Duration::from_secs(60))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.headers().get("content-encoding"), None);
    let mut stream = stream;
    let seat = event.seat_ids[7];
    assert_eq!(
        app.buyer().hold(event.id, &[seat]).await.0,
        StatusCode::CREATED
    );
    let wanted = format!("id=\"seat-{seat}\"");
    crate::support::read_stream_until(&mut stream, &mut String::new(), &wanted).await;
}

/// The events list says what the cheapest free place costs, and it moves
/// as the cheap seats go.
#[tokio::test]
async fn the_event_list_shows_the_lowest_price_still_free() {
    use seatmap::domain::layout::{RowSpec, SectionSpec};
    let app = spawn_app().await;
    let event = app
        .create_event_with(vec![SectionSpec {
            name: "Stalls".into(),
            rows: vec![
                RowSpec {
                    label: "A".into(),
                    seats: 3,
                    tier: "vip".into(),
                    ..Default::default()
                },
                RowSpec {
                    label: "B".into(),
                    seats: 3,
                    tier: "std".into(),
                    ..Default::default()
                },
            ],
            curve: None,
            side_blocks: None,
        }])
        .await;
    let buyer = app.buyer();
    let (_, html) = page(&buyer, "/").await;
    assert!(html.contains("from €45"), "{html}");
    let (_, events) = buyer.get("/api/events").await;
    assert_eq!(events[0]["from_cents"], 4500, "{events}");

    let cheap = &event.seat_ids[3..];
    assert_eq!(buyer.hold(event.id, cheap).await.0, StatusCode::CREATED);
    let (_, html) = page(&buyer, "/").await;
    assert!(html.contains("from €99"), "the €45 seats are held: {html}");
    app.lapse_every_hold(event.id).await;
    let (_, html) = page(&buyer, "/").await;
    assert!(
        html.contains("from €45"),
        "a lapsed hold's seats are free again: {html}"
    );
}

/// Counts and prices people read have their thousands grouped.
#[tokio::test]
async fn big_numbers_are_grouped_in_thousands() {
    let app = spawn_app().await;
    let event = app.create_event(40, 30).await;
    let visitor = app.buyer();
    let (_, list) = page(&visitor, "/").await;
    assert!(list.contains("1,200 of 1,200 seats left"), "{list}");
    let (_, map) = page(&visitor, &format!("/events/{}", event.id)).await;
    assert!(map.contains("1,200 of 1,200 seats left"));
}

/// A venue over the overview threshold opens on section shapes (links with
/// what is left and the cheapest price), shows one section's seats at a
/// time, keeps a no-JavaScript pick in its section, and lists by section.
#[tokio::test]
async fn a_big_venue_opens_on_an_overview_and_shows_one_section_at_a_time() {
    use seatmap::domain::layout::{RowSpec, SectionSpec};
    let app = crate::support::spawn_app_with(|c| c.overview_above_seats = 10).await;
    let row = |label: &str, tier: &str| RowSpec {
        label: label.into(),
        seats: 4,
        tier: tier.into(),
        ..Default::default()
    };
    let event = app
        .create_event_with(vec![
            SectionSpec {
                name: "North".into(),
                rows: vec![row("A", "vip"), row("B", "std")],
                curve: Some(300.0),
                side_blocks: None,
            },
            SectionSpec {
                name: "South".into(),
                rows: vec![row("A", "std"), row("B", "std")],
                curve: None,
                side_blocks: None,
            },
        ])
        .await;
    let buyer = app.buyer();
    let section_ids: Vec<i64> = app
        .sql()
        .await
        .query(
            "SELECT id FROM sections WHERE event_id = $1 ORDER BY sort_order",
            &[&event.id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let (status, overview) = page(&buyer, &format!("/events/{}", event.id)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        overview.matches("class=\"seat seat--").count() - overview.matches("seat--legend").count(),
        0,
        "no seats on the overview"
    );
    assert!(
        overview.contains(&format!(
            "href=\"/events/{}?section={}\"",
            event.id, section_ids[1]
        )),
        "{overview}"
    );
    assert!(
        overview.contains("aria-label=\"Section North from €45, 8 of 8 seats left\""),
        "{overview}"
    );

    // A section's seats, and only its seats.
    let north = format!("/events/{}?section={}", event.id, section_ids[0]);
    let (_, html) = page(&buyer, &north).await;
    assert_eq!(
        html.matches("name=\"hold\"").count(),
        8,
        "North's eight seats"
    );
    assert!(
        html.contains("aria-current=\"page\""),
        "the overview marks North"
    );
    // Sold out shows on the overview.
    let south_seats = &event.seat_ids[8..];
    assert_eq!(
        buyer.hold(event.id, south_seats).await.0,
        StatusCode::CREATED
    );
    let (_, overview) = page(&app.buyer(), &format!("/events/{}", event.id)).await;
    assert!(
        overview.contains("aria-label=\"Section South Sold out\""),
        "{overview}"
    );

    // Without JavaScript a pick comes back to the same section.
    let token = csrf_from(&buyer, &north).await;
    let response = buyer
        .http
        .post(format!("{}/events/{}/seats", app.base, event.id))
        .form(&[
            ("csrf", token.as_str()),
            ("hold", &event.seat_ids[0].to_string()),
            ("section", &section_ids[0].to_string()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()[LOCATION],
        format!("/events/{}?section={}#map-area", event.id, section_ids[0])
    );

    // The list view goes by section too.
    let (_, list) = page(&buyer, &format!("/events/{}/list", event.id)).await;
    assert!(list.contains("Choose a section"), "{list}");
    assert!(
        !list.contains("name=\"hold\""),
        "no seats until a section is chosen"
    );
    let (_, list) = page(
        &buyer,
        &format!("/events/{}/list?section={}", event.id, section_ids[0]),
    )
    .await;
    assert_eq!(
        list.matches("name=\"hold\"").count(),
        7,
        "North's seats still free"
    );

    // Unknown or malformed sections are clear 4xx answers.
    let (status, _) = page(&buyer, &format!("/events/{}?section=999999", event.id)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = page(&buyer, &format!("/events/{}?section=north", event.id)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// The price filter works without JavaScript: the map comes back with the
/// tiers outside the range dimmed, and the choices kept.
#[tokio::test]
async fn the_price_filter_dims_tiers_outside_the_range() {
    let app = spawn_app().await;
    let event = app.create_event(2, 3).await;
    let buyer = app.buyer();
    let (_, plain) = page(&buyer, &format!("/events/{}", event.id)).await;
    assert!(
        plain.contains("class=\"map-frame \""),
        "nothing dimmed by default"
    );
    // The test event's tiers: Standard €45 (tier-0), VIP €99 (tier-1).
    let (status, html) = page(
        &buyer,
        &format!("/events/{}?price_min=9900&price_max=9900", event.id),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("class=\"map-frame dim-tier-0\""), "{html}");
    assert!(
        html.contains("<option value=\"9900\" selected>€99</option>"),
        "{html}"
    );
    let (status, _) = page(&buyer, &format!("/events/{}?price_min=cheap", event.id)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn best_available_that_swaps_seats_names_them_and_undo_brings_them_back_all_or_nothing() {
    let app = spawn_app().await;
    // Row A (5 seats) is the best; the buyer holds two seats of row B.
    let event = app.create_event(2, 5).await;
    let buyer = app.buyer();
    let event_path = format!("/events/{}", event.id);
    let (row_b_1, row_b_2) = (event.seat_ids[5], event.seat_ids[6]);
    let (status, body) = buyer.hold(event.id, &[row_b_1, row_b_2]).await;
    assert_eq!(status, StatusCode::CREATED);
    let hold_id = body["hold_id"].as_str().unwrap().to_string();
    let held_by_buyer = || async {
        let mut ids: Vec<i64> = app
            .holders(event.id)
            .await
            .into_iter()
            .filter(|(_, holder)| *holder == hold_id)
            .map(|(seat, _)| seat)
            .collect();
        ids.sort_unstable();
        ids
    };
    let found = post_form(
        &buyer,
        &format!("{event_path}/best"),
        &[("count", "2".into())],
        true,
    )
    .await;
    assert_eq!(found.status(), StatusCode::OK);
    let html = found.text().await.unwrap();
    assert!(
        html.contains("Released 2 seats: Stalls, row B, seats 1–2; now holding 2 seats together in Stalls, row A"),
        "{html}"
    );
    assert!(
        html.contains("action=\"/events/") && html.contains("/best/undo\""),
        "{html}"
    );
    let (drop_a, drop_b) = {
        let held = held_by_buyer().await;
        assert_eq!(held.len(), 2);
        assert!(!held.contains(&row_b_1), "{held:?}");
        (held[0], held[1])
    };
    let undo_path = format!("{event_path}/best/undo");
    let drop = format!("{drop_a},{drop_b}");
    // The page's Undo signs what it gives back.
    let proof = undo_field(&html, "proof");

    // Hostile or broken forms are refused plainly and change nothing.
    for restore in ["abc", "1,,x", ""] {
        let response = post_form(
            &buyer,
            &undo_path,
            &[
                ("hold", hold_id.clone()),
                ("restore", restore.into()),
                ("drop", drop.clone()),
            ],
            false,
        )
        .await;
        assert_eq!(
            response.status(),
            StatusCode::BAD_REQUEST,
            "restore={restore}"
        );
    }
    // One of the old seats now held by another buyer: nothing changes.
    let rival = app.buyer();
    let (status, body) = rival.hold(event.id, &[row_b_1]).await;
    assert_eq!(status, StatusCode::CREATED);
    let rival_hold = body["hold_id"].as_str().unwrap().to_string();
    let refused = post_form(
        &buyer,
        &undo_path,
        &[
            ("hold", hold_id.clone()),
            ("restore", format!("{row_b_1},{row_b_2}")),
            ("drop", drop.clone()),
            ("proof", proof.clone()),
        ],
        true,
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let html = refused.text().await.unwrap();
    assert!(html.contains("no longer all free"), "{html}");
    assert_eq!(
        held_by_buyer().await,
        vec![drop_a, drop_b],
        "a refused undo keeps the seats found"
    );
    app.no_breaches().await;

    // With the old seats free again, Undo swaps back in one go.
    let (status, _) = rival.delete(&format!("/api/holds/{rival_hold}")).await;
    assert!(status.is_success(), "{status}");
    let undone = post_form(
        &buyer,
        &undo_path,
        &[
            ("hold", hold_id.clone()),
            ("restore", format!("{row_b_1},{row_b_2}")),
            ("drop", drop),
            ("proof", proof),
        ],
        true,
    )
    .await;
    assert_eq!(undone.status(), StatusCode::OK);
    assert!(
        undone
            .text()
            .await
            .unwrap()
            .contains("Back to your earlier seats")
    );
    assert_eq!(held_by_buyer().await, vec![row_b_1, row_b_2]);
    app.no_breaches().await;
}

#[tokio::test]
async fn undo_gives_up_only_the_new_seats_acts_on_its_own_live_hold_and_never_touches_anothers() {
    let app = spawn_app().await;
    let event = app.create_event(2, 5).await;
    let s = &event.seat_ids;
    let (a1, a2, a3, b1) = (s[0], s[1], s[2], s[5]);
    let buyer = app.buyer();
    let event_path = format!("/events/{}", event.id);
    // A2 and B1 held; best available for 3 finds A1–A3, keeping A2.
    let (status, body) = buyer.hold(event.id, &[a2, b1]).await;
    assert_eq!(status, StatusCode::CREATED);
    let hold_id = body["hold_id"].as_str().unwrap().to_string();
    let found = post_form(
        &buyer,
        &format!("{event_path}/best"),
        &[("count", "3".into())],
        true,
    )
    .await;
    let html = found.text().await.unwrap();
    assert!(html.contains("Released 1 seat: Stalls, row B, seat 1; now holding 3 seats together in Stalls, row A, seats 1–3"), "{html}");
    let field = |name: &str| undo_field(&html, name);
    assert_eq!(field("restore"), b1.to_string());
    assert_eq!(
        field("drop"),
        format!("{a1},{a3}"),
        "A2, found again, is not given up"
    );
    assert_eq!(field("hold"), hold_id);
    let offered = |hold: &str, restore: &str, drop: &str| {
        vec![
            ("hold", hold.to_string()),
            ("restore", restore.to_string()),
            ("drop", drop.to_string()),
            ("proof", field("proof")),
        ]
    };

    // The undo the page offered, altered: another buyer's seat to drop,
    // seats the swap never released to take back, another buyer's hold.
    // Each is refused, and nothing of anyone's moves.
    let rival = app.buyer();
    let (status, body) = rival.hold(event.id, &[s[9]]).await;
    assert_eq!(status, StatusCode::CREATED);
    let rival_hold = body["hold_id"].as_str().unwrap().to_string();
    let undo = format!("{event_path}/best/undo");
    let before = app.holders(event.id).await;
    let b1s = b1.to_string();
    let a1a3 = format!("{a1},{a3}");
    let free_seats = format!("{},{}", s[3], s[4]);
    for (what, form) in [
        (
            "a rival's seat to drop",
            offered(&hold_id, &b1s, &s[9].to_string()),
        ),
        (
            "seats never released to restore",
            offered(&hold_id, &free_seats, &a1a3),
        ),
        ("the rival's hold", offered(&rival_hold, &b1s, &a1a3)),
        ("no proof", offered(&hold_id, &b1s, &a1a3)[..3].to_vec()),
    ] {
        let forged = post_form(&buyer, &undo, &form, true).await;
        assert_eq!(forged.status(), StatusCode::BAD_REQUEST, "{what}");
        let text = forged.text().await.unwrap();
        assert!(
            text.contains("This undo is not one this page offered"),
            "{what}: {text}"
        );
        assert_eq!(app.holders(event.id).await, before, "{what}: nothing moved");
    }

    // The undo as offered: B1 back, A1 and A3 given up, A2 kept.
    let undone = post_form(&buyer, &undo, &offered(&hold_id, &b1s, &a1a3), true).await;
    assert_eq!(undone.status(), StatusCode::OK);
    let held = app.holders(event.id).await;
    let mut mine: Vec<i64> = held
        .iter()
        .filter(|(_, h)| **h == hold_id)
        .map(|(s, _)| *s)
        .collect();
    mine.sort_unstable();
    assert_eq!(mine, vec![a2, b1], "the swap undone");
    assert_eq!(held[&s[9]], rival_hold, "the rival keeps their seat");

    // Once the hold is bought, an old Undo refuses and opens nothing.
    let (status, body) = buyer
        .purchase(&serde_json::json!(hold_id), "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let stale = post_form(&buyer, &undo, &offered(&hold_id, &b1s, &a1a3), true).await;
    assert_eq!(stale.status(), StatusCode::OK);
    assert!(stale.text().await.unwrap().contains("already been bought"));
    assert!(
        !app.holders(event.id).await.contains_key(&a1),
        "no new hold took A1"
    );
    app.no_breaches().await;
}

#[tokio::test]
async fn best_available_on_a_draft_is_not_found_as_every_buyer_route_answers() {
    let app = spawn_app().await;
    let event = app.create_event(1, 5).await;
    let buyer = app.buyer();
    let token = csrf_from(&buyer, &format!("/events/{}", event.id)).await;
    // Back to a draft: buyers are told it doesn't exist.
    app.sql()
        .await
        .execute(
            "UPDATE events SET published_at = NULL WHERE id = $1",
            &[&event.id],
        )
        .await
        .unwrap();
    for htmx in [true, false] {
        let mut request = buyer
            .http
            .post(format!("{}/events/{}/best", buyer.base, event.id))
            .form(&[("count", "2".to_string()), ("csrf", token.clone())]);
        if htmx {
            request = request.header("HX-Request", "true");
        }
        let answer = request.send().await.unwrap();
        assert_eq!(answer.status(), StatusCode::NOT_FOUND, "htmx: {htmx}");
    }
    let (status, _) = buyer.hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "as a pick is");
    assert_eq!(app.holders(event.id).await.len(), 0, "nothing held");
}
