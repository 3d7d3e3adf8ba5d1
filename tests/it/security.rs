//! The protections around the whole app: each refusal, and the normal path
//! still working beside it.

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, SET_COOKIE};
use serde_json::json;

use crate::support::{Api, spawn_app, spawn_app_with};

async fn post_json(api: &Api, path: &str, headers: &[(&str, &str)]) -> StatusCode {
    let mut request = api
        .http
        .post(format!("{}{path}", api.base))
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(json!({"seat_ids": [1]}).to_string())
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn cross_site_writes_are_refused_and_same_site_or_headerless_ones_pass() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let buyer = app.buyer();
    let path = format!("/api/events/{}/holds", event.id);
    let host = app.base.trim_start_matches("http://").to_string();
    let own_origin = app.base.clone();
    let body_for = |seat: i64| json!({ "seat_ids": [seat] }).to_string();

    for headers in [
        vec![("origin", "https://evil.example")],
        vec![("origin", "null")],
        vec![("sec-fetch-site", "cross-site")],
        vec![("sec-fetch-site", "same-site")],
        vec![
            ("sec-fetch-site", "cross-site"),
            ("origin", own_origin.as_str()),
        ],
    ] {
        let mut request = buyer
            .http
            .post(format!("{}{path}", app.base))
            .header("content-type", "application/json")
            .body(body_for(event.seat_ids[0]));
        for (name, value) in &headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{headers:?}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["error"], "forbidden");
    }
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'HELD'")
            .await,
        0,
        "no refused request changed anything"
    );

    // Same origin (by Origin, or by Sec-Fetch-Site), or no such headers at all (curl).
    assert_eq!(
        post_json(
            &buyer,
            &path,
            &[("origin", own_origin.as_str()), ("host", host.as_str())]
        )
        .await,
        StatusCode::CREATED
    );
    assert_eq!(
        buyer.hold(event.id, &[event.seat_ids[1]]).await.0,
        StatusCode::CREATED
    );
    let (status, _) = buyer.post_raw(&path, &body_for(event.seat_ids[2])).await;
    assert_eq!(status, StatusCode::CREATED);
    // Reads are never refused.
    let response = buyer
        .http
        .get(format!("{}/api/events", app.base))
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn html_forms_need_this_sessions_csrf_token() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let stranger = app.buyer();
    let map = format!("/events/{}", event.id);
    let token = crate::pages::csrf_from(&buyer, &map).await;
    let strangers_token = crate::pages::csrf_from(&stranger, &map).await;
    assert_ne!(token, strangers_token);

    let post = |fields: Vec<(&'static str, String)>| {
        let http = buyer.http.clone();
        let url = format!("{}{map}/seats", app.base);
        async move { http.post(url).form(&fields).send().await.unwrap() }
    };
    let seat = event.seat_ids[0].to_string();
    for (what, fields) in [
        ("no token", vec![("hold", seat.clone())]),
        (
            "wrong token",
            vec![("hold", seat.clone()), ("csrf", "0".repeat(64))],
        ),
        (
            "another session's token",
            vec![("hold", seat.clone()), ("csrf", strangers_token.clone())],
        ),
    ] {
        let response = post(fields).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{what}");
        assert!(
            response
                .text()
                .await
                .unwrap()
                .contains("This form has expired"),
            "{what}"
        );
    }
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'HELD'")
            .await,
        0
    );

    let response = post(vec![("hold", seat), ("csrf", token)]).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'HELD'")
            .await,
        1
    );
}

/// The session cookie set, by either of its names (`__Host-` when Secure).
fn session_cookie(headers: &HeaderMap) -> String {
    headers
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("seatmap_session=") || c.starts_with("__Host-seatmap_session="))
        .expect("a session cookie is set")
}

#[tokio::test]
async fn the_session_cookie_is_http_only_and_same_site_lax_and_secure_only_when_asked() {
    let plain = spawn_app().await;
    let event = plain.create_event(1, 2).await;
    let response = plain
        .buyer()
        .http
        .post(format!("{}/api/events/{}/holds", plain.base, event.id))
        .json(&json!({"seat_ids": [event.seat_ids[0]]}))
        .send()
        .await
        .unwrap();
    let cookie = session_cookie(response.headers());
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(!cookie.contains("Secure"), "{cookie}");
    assert!(cookie.starts_with("seatmap_session="), "{cookie}");

    let secure = spawn_app_with(|c| c.secure_cookies = true).await;
    let event = secure.create_event(1, 2).await;
    let response = secure
        .buyer()
        .http
        .post(format!("{}/api/events/{}/holds", secure.base, event.id))
        .json(&json!({"seat_ids": [event.seat_ids[0]]}))
        .send()
        .await
        .unwrap();
    let cookie = session_cookie(response.headers());
    assert!(cookie.contains("Secure"), "{cookie}");
    // No other host (a sibling subdomain) can plant a __Host- cookie.
    assert!(cookie.starts_with("__Host-seatmap_session="), "{cookie}");
    assert!(
        cookie.contains("Path=/") && !cookie.contains("Domain"),
        "{cookie}"
    );
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let visitor = app.buyer();
    for path in [
        "/".to_string(),
        format!("/events/{}", event.id),
        "/api/events".to_string(),
        "/static/app.js".to_string(),
        "/no/such/page".to_string(),
    ] {
        let response = visitor
            .http
            .get(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        let headers = response.headers();
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("script-src 'self';"), "{path}: {csp}");
        assert!(
            !csp.contains("script-src 'self' 'unsafe-inline'"),
            "{path}: {csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "same-origin", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
    }
    // And the pages keep to the CSP: no inline <script> bodies, no <style>.
    let html = visitor
        .http
        .get(format!("{}/events/{}", app.base, event.id))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!html.contains("<style"));
    assert_eq!(
        html.matches("<script").count(),
        html.matches("<script src=").count()
    );
}

#[tokio::test]
async fn live_holds_are_capped_per_address_however_many_sessions_it_starts() {
    let app = spawn_app_with(|c| c.limits.max_holds_per_ip = 2).await;
    let event = app.create_event(1, 10).await;
    let s = &event.seat_ids;
    let first = app.buyer();
    let second = app.buyer();
    assert_eq!(first.hold(event.id, &[s[0]]).await.0, StatusCode::CREATED);
    assert_eq!(second.hold(event.id, &[s[1]]).await.0, StatusCode::CREATED);

    // A third session from the same address is refused a new hold...
    let third = app.buyer();
    let response = third
        .http
        .post(format!("{}/api/events/{}/holds", app.base, event.id))
        .json(&json!({"seat_ids": [s[2]]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=480).contains(&retry), "{retry}");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"], "too_many_holds");
    // ...while sessions that already hold can still add seats to their hold.
    assert_eq!(first.hold(event.id, &[s[3]]).await.0, StatusCode::CREATED);

    // Releasing a hold frees a place for the new session.
    let (_, seats) = second.get(&format!("/api/events/{}/seats", event.id)).await;
    let hold_id = seats["hold"]["hold_id"].as_str().unwrap().to_string();
    assert_eq!(
        second.delete(&format!("/api/holds/{hold_id}")).await.0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(third.hold(event.id, &[s[2]]).await.0, StatusCode::CREATED);
}

#[tokio::test]
async fn a_trusted_proxy_header_counts_each_client_address_separately() {
    let app = spawn_app_with(|c| {
        c.limits.max_holds_per_ip = 1;
        c.trust_forwarded_for = true;
    })
    .await;
    let event = app.create_event(1, 4).await;
    let hold_from = |ip: &'static str, seat: i64| {
        let buyer = app.buyer();
        let url = format!("{}/api/events/{}/holds", app.base, event.id);
        async move {
            buyer
                .http
                .post(url)
                .header("x-forwarded-for", format!("203.0.113.9, {ip}"))
                .json(&json!({"seat_ids": [seat]}))
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(
        hold_from("198.51.100.1", event.seat_ids[0]).await,
        StatusCode::CREATED
    );
    assert_eq!(
        hold_from("198.51.100.2", event.seat_ids[1]).await,
        StatusCode::CREATED
    );
    assert_eq!(
        hold_from("198.51.100.1", event.seat_ids[2]).await,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn hold_requests_are_rate_limited_per_session_and_a_new_session_does_not_reset_the_address() {
    let app = spawn_app_with(|c| {
        c.limits.clock = crate::support::frozen_limits_clock();
        c.limits.hold_requests_per_session = 3;
        c.limits.hold_requests_per_ip = 5;
    })
    .await;
    let event = app.create_event(2, 10).await;
    let s = &event.seat_ids;
    let eager = app.buyer();
    for seat in &s[0..3] {
        assert_eq!(eager.hold(event.id, &[*seat]).await.0, StatusCode::CREATED);
    }
    let response = eager
        .http
        .post(format!("{}/api/events/{}/holds", app.base, event.id))
        .json(&json!({"seat_ids": [s[3]]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"], "rate_limited");

    // A fresh session gets its own per-session allowance, but the address
    // has used 3 of its 5 (the refused request counted nothing): two more
    // requests, then 429 for any session.
    let fresh = app.buyer();
    assert_eq!(fresh.hold(event.id, &[s[4]]).await.0, StatusCode::CREATED);
    assert_eq!(fresh.hold(event.id, &[s[5]]).await.0, StatusCode::CREATED);
    assert_eq!(
        fresh.hold(event.id, &[s[7]]).await.0,
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        app.buyer().hold(event.id, &[s[6]]).await.0,
        StatusCode::TOO_MANY_REQUESTS
    );
    // Best available counts too.
    let (status, _) = app
        .buyer()
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({"best_available": {"count": 2}}),
        )
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // Reads and purchases are not hold requests and still work.
    assert_eq!(
        eager
            .get(&format!("/api/events/{}/seats", event.id))
            .await
            .0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn only_allowed_origins_may_frame_the_buyer_pages_and_never_the_staff_ones() {
    let app = spawn_app_with(|c| {
        c.frame_ancestors = vec!["https://tickets.example.org".into()];
    })
    .await;
    let event = app.create_event(1, 2).await;
    let visitor = app.buyer();
    let get = |path: String| {
        let http = visitor.http.clone();
        let url = format!("{}{path}", app.base);
        async move { http.get(url).send().await.unwrap() }
    };
    let buyer_page = get(format!("/events/{}", event.id)).await;
    let csp = buyer_page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("frame-ancestors 'self' https://tickets.example.org;"),
        "{csp}"
    );
    assert!(
        buyer_page.headers().get("x-frame-options").is_none(),
        "X-Frame-Options has no allow-list, so it must not deny the framing CSP allows"
    );
    // Its cookies must reach a third-party frame.
    let response = visitor
        .http
        .post(format!("{}/api/events/{}/holds", app.base, event.id))
        .json(&json!({"seat_ids": [event.seat_ids[0]]}))
        .send()
        .await
        .unwrap();
    let cookie = session_cookie(response.headers());
    for attribute in ["SameSite=None", "Secure", "Partitioned"] {
        assert!(cookie.contains(attribute), "{attribute} missing: {cookie}");
    }
    for staff_path in ["/staff/login", "/staff"] {
        let staff = get(staff_path.to_string()).await;
        let csp = staff.headers()["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'"),
            "{staff_path}: {csp}"
        );
        assert_eq!(staff.headers()["x-frame-options"], "DENY", "{staff_path}");
    }
}

/// Tickets, orders and CSV exports are never kept by a cache; static
/// assets still are.
#[tokio::test]
async fn tickets_orders_and_exports_are_no_store() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (buyer, order) = crate::after_sale::buy(&app, event.id, &event.seat_ids[..1], None).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let code = order["tickets"][0]["code"].as_str().unwrap();
    let order_path = format!("/orders/{}", crate::support::id_segment(&order["order_id"]));
    for (client, path) in [
        (&buyer, format!("/tickets/{code}")),
        (&buyer, order_path.clone()),
        (&buyer, format!("/api{order_path}")),
        (&buyer, "/my/orders".to_string()),
        (&clerk, format!("/staff/events/{}/orders.csv", event.id)),
        (&clerk, format!("/staff/events/{}/door-list.csv", event.id)),
        (&clerk, format!("/staff/events/{}", event.id)),
    ] {
        let response = client
            .http
            .get(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-store", "{path}");
    }
    let asset = buyer
        .http
        .get(format!("{}/static/app.css", app.base))
        .send()
        .await
        .unwrap();
    assert!(
        asset.headers()["cache-control"]
            .to_str()
            .unwrap()
            .starts_with("public"),
        "assets stay cacheable"
    );
}

/// With SEATMAP_METRICS_TOKEN set, /metrics answers only the bearer of it
/// (and an API key is no way in).
#[tokio::test]
async fn metrics_can_be_restricted_to_a_token() {
    let app =
        spawn_app_with(|c| c.metrics_token = Some(seatmap::config::Secret::new("scrape-me-7")))
            .await;
    let http = crate::support::http_client();
    let url = format!("{}/metrics", app.base);
    let bare = http.get(&url).send().await.unwrap();
    assert_eq!(bare.status(), StatusCode::UNAUTHORIZED);
    let wrong = http
        .get(&url)
        .bearer_auth("scrape-me-8")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let right = http
        .get(&url)
        .bearer_auth("scrape-me-7")
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), StatusCode::OK);
    assert!(right.text().await.unwrap().contains("seatmap_"));
    // Without the setting, metrics stay open as before.
    let open = spawn_app().await;
    let response = http
        .get(format!("{}/metrics", open.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

/// The CSRF token is masked afresh on every page (BREACH): two pages carry
/// different bytes, each of which a form may send back; the bare token of
/// the cookie is not one of them.
#[tokio::test]
async fn the_csrf_token_differs_on_every_page_and_each_works() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let path = format!("/events/{}", event.id);
    let first = crate::pages::csrf_from(&buyer, &path).await;
    let second = crate::pages::csrf_from(&buyer, &path).await;
    assert_ne!(first, second, "the same token, masked differently");
    for (token, seat) in [(&first, event.seat_ids[0]), (&second, event.seat_ids[1])] {
        let response = buyer
            .http
            .post(format!("{}{path}/seats", app.base))
            .form(&[("csrf", token.as_str()), ("hold", &seat.to_string())])
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::SEE_OTHER,
            "a masked token works"
        );
    }
    assert_eq!(
        app.count("SELECT count(*) FROM seats WHERE status = 'HELD'")
            .await,
        2
    );
    let bare = buyer.cookie("seatmap_csrf").expect("the CSRF cookie");
    let response = buyer
        .http
        .post(format!("{}{path}/seats", app.base))
        .form(&[
            ("csrf", bare.as_str()),
            ("hold", &event.seat_ids[2].to_string()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::FORBIDDEN,
        "the bare token is refused"
    );
}

/// Names can't carry bidi controls or invisible characters, which would
/// let a buyer pass for someone else in a staff list.
#[tokio::test]
async fn names_with_bidi_or_invisible_characters_are_refused() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &event.seat_ids[..1]).await;
    for name in ["\u{202E}ecilA", "Ad\u{FEFF}a", "A\u{200B}da", "Ada\u{2066}"] {
        let (status, body) = buyer
            .purchase(&hold["hold_id"], name, "ada@example.com")
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name:?}");
        assert_eq!(body["error"], "invalid_name", "{name:?}");
    }
    let (status, _) = buyer
        .purchase(&hold["hold_id"], "Zoë می\u{200C}خواهم", "ada@example.com")
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "a joiner between Persian letters is a name"
    );
}
