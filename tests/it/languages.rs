//! The buyer's language: chosen from Accept-Language, switched on any page
//! and kept in the session; money, dates and seat names written as that
//! language writes them; API errors' words in it, their codes never.

use reqwest::StatusCode;
use reqwest::header::{ACCEPT_LANGUAGE, LOCATION};
use serde_json::{Value, json};

use crate::support::{Api, spawn_app};

async fn page_in(client: &Api, path: &str, accept: &str) -> String {
    let response = client
        .http
        .get(format!("{}{path}", client.base))
        .header(ACCEPT_LANGUAGE, accept)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.text().await.unwrap()
}

async fn post_in(client: &Api, path: &str, body: Value, accept: &str) -> (StatusCode, Value) {
    let response = client
        .http
        .post(format!("{}{path}", client.base))
        .header(ACCEPT_LANGUAGE, accept)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn accept_language_picks_the_pages_language_and_its_way_of_writing() {
    let app = spawn_app().await;
    let event = app.create_event(2, 4).await;
    let buyer = app.buyer();
    let path = format!("/events/{}", event.id);

    let german = page_in(&buyer, &path, "de-CH,de;q=0.9,en;q=0.5").await;
    assert!(german.contains("<html lang=\"de\">"));
    assert!(german.contains("Beste Plätze"), "the best-available form");
    assert!(
        german.contains("Platz 1, Standard 45\u{a0}€, frei"),
        "a seat's name, price and state"
    );
    assert!(german.contains("Reihe A"));
    // The event's own words stay as staff typed them.
    assert!(german.contains("Test Night"));

    let french = page_in(&buyer, &path, "fr").await;
    assert!(french.contains("<html lang=\"fr\">"));
    assert!(french.contains("Meilleures places"));
    assert!(french.contains("rang A, place 1, Standard 45\u{a0}€, libre"));

    let spanish = page_in(&buyer, &path, "es-MX").await;
    assert!(spanish.contains("Mejores asientos"));

    // Anything else, or nothing: English.
    for accept in ["ja", "", "*"] {
        let english = page_in(&buyer, &path, accept).await;
        assert!(english.contains("<html lang=\"en\">"), "{accept:?}");
        assert!(english.contains("row A, seat 1, Standard €45, available"));
    }
}

#[tokio::test]
async fn the_buyers_choice_is_kept_in_the_session_and_beats_the_header() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let path = format!("/events/{}", event.id);
    let response = buyer
        .http
        .get(format!("{}/language/fr?back={path}", buyer.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()[LOCATION], path.as_str());
    // The browser still says German; the buyer chose French.
    let page = page_in(&buyer, &path, "de").await;
    assert!(page.contains("<html lang=\"fr\">"), "the choice wins");
    assert!(page.contains("<span aria-current=\"true\" lang=\"fr\">Français</span>"));

    // Back to the page the link was on; never to another site.
    let response = buyer
        .http
        .get(format!("{}/language/es", buyer.base))
        .header("referer", format!("{}{path}?section=1", buyer.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()[LOCATION],
        format!("{path}?section=1").as_str()
    );
    for back in ["//evil.example/", "https://evil.example/"] {
        let response = buyer
            .http
            .get(format!("{}/language/de", buyer.base))
            .query(&[("back", back)])
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()[LOCATION], "/", "{back}");
    }
    let response = buyer
        .http
        .get(format!("{}/language/xx", buyer.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_api_errors_words_follow_the_request_and_its_code_never_does() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let seat = event.seat_ids[0];
    let (status, _) = app.buyer().hold(event.id, &[seat]).await;
    assert_eq!(status, StatusCode::CREATED);
    let path = format!("/api/events/{}/holds", event.id);
    let mut words = Vec::new();
    for accept in ["en", "de", "fr", "es"] {
        let (status, body) =
            post_in(&app.buyer(), &path, json!({"seat_ids": [seat]}), accept).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(body["error"], "seats_unavailable", "{accept}");
        words.push(body["message"].as_str().unwrap().to_string());
    }
    assert_eq!(
        words[0],
        "Some of these seats were just taken by someone else."
    );
    assert_eq!(
        words[1],
        "Einige dieser Plätze hat gerade jemand anderes genommen."
    );
    assert!(words[2].starts_with("Quelqu’un d’autre"), "{}", words[2]);
    assert!(words[3].starts_with("Otra persona"), "{}", words[3]);

    // A refusal with numbers in it: German plurals and words.
    let (status, body) = post_in(
        &app.buyer(),
        &path,
        json!({"best_available": {"count": 4}}),
        "de",
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "not_enough_seats");
    assert_eq!(
        body["message"],
        "Nur 3 Plätze sind frei; gewünscht waren 4."
    );
}

#[tokio::test]
async fn staff_pages_stay_english_whatever_the_browser_asks() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let console = page_in(&clerk, &format!("/staff/events/{}", event.id), "de").await;
    assert!(console.contains("<html lang=\"en\">"));
    assert!(
        !console.contains("class=\"language-switch\""),
        "no switch where nothing would change"
    );
    assert!(
        console.contains("€45"),
        "money as the English words around it write it"
    );
    // A buyer page offers the switch.
    let map = page_in(&app.buyer(), &format!("/events/{}", event.id), "de").await;
    assert!(map.contains("class=\"language-switch\""));
}
