//! API keys: made and revoked on the command line, stored hashed, scoped,
//! a sell key's customers kept apart, limits per key, and the audit log
//! naming a box-office key.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::after_sale::buy;
use crate::support::{TestApp, id_segment, spawn_app, spawn_app_with};

/// A key made as the command makes one (straight into the database).
pub async fn make_key(app: &TestApp, name: &str, scope: &str) -> String {
    let (key, hash) = seatmap::domain::api_key::generate();
    let scope = seatmap::domain::api_key::Scope::parse(scope).unwrap();
    seatmap::db::api_keys::create(&app.sql().await, name, scope, &hash)
        .await
        .unwrap();
    key
}

/// A staff key of `role`, made as the command makes one.
pub async fn make_staff_key(
    app: &TestApp,
    name: &str,
    role: seatmap::domain::role::Role,
) -> String {
    let (key, hash) = seatmap::domain::api_key::generate();
    let scope = seatmap::domain::api_key::Scope::Staff(role);
    seatmap::db::api_keys::create(&app.sql().await, name, scope, &hash)
        .await
        .unwrap();
    key
}

/// A server-to-server caller: no cookie jar, a key, maybe a customer.
struct Integrator {
    http: reqwest::Client,
    base: String,
    key: String,
    customer: Option<String>,
}

impl Integrator {
    fn new(app: &TestApp, key: &str, customer: Option<&str>) -> Integrator {
        Integrator {
            http: crate::support::http_client(),
            base: app.base.clone(),
            key: key.to_string(),
            customer: customer.map(str::to_string),
        }
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.key);
        if let Some(customer) = &self.customer {
            request = request.header("x-customer-ref", customer);
        }
        request
    }

    async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value, bool) {
        let response = request.send().await.unwrap();
        let status = response.status();
        let set_cookie = response.headers().contains_key("set-cookie");
        let text = response.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            set_cookie,
        )
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let (status, body, _) = Self::send(self.request(reqwest::Method::GET, path)).await;
        (status, body)
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let (status, body, _) =
            Self::send(self.request(reqwest::Method::POST, path).json(&body)).await;
        (status, body)
    }

    async fn delete(&self, path: &str) -> StatusCode {
        Self::send(self.request(reqwest::Method::DELETE, path))
            .await
            .0
    }
}

#[tokio::test]
async fn the_command_makes_a_key_once_stores_only_its_hash_and_revokes_it() {
    let app = spawn_app().await;
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
            .args(args)
            .env("DATABASE_URL", app.db.conninfo())
            .env("RUST_LOG", "error")
            .output()
            .unwrap()
    };
    let added = run(&["apikey", "add", "shop", "sell"]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let key = String::from_utf8(added.stdout).unwrap().trim().to_string();
    assert!(key.starts_with("smk_") && key.len() == 36, "{key}");
    // Only its SHA-256 is kept.
    let stored: Vec<u8> = app
        .sql()
        .await
        .query_one("SELECT key_hash FROM api_keys WHERE name = 'shop'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(stored, seatmap::domain::api_key::hash(&key).to_vec());
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM api_keys WHERE key_hash::text LIKE '%{key}%'"
        ))
        .await,
        0
    );
    assert!(!run(&["apikey", "add", "shop", "sell"]).status.success());
    assert!(!run(&["apikey", "add", "other", "admin"]).status.success());
    let listed = String::from_utf8(run(&["apikey", "list"]).stdout).unwrap();
    assert!(
        listed.starts_with("shop\tsell\t") && listed.contains("live"),
        "{listed}"
    );

    let event = app.create_event(1, 4).await;
    let shop = Integrator::new(&app, &key, Some("c-1"));
    let (status, _) = shop
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({ "seat_ids": [event.seat_ids[0]] }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);

    assert!(run(&["apikey", "revoke", "shop"]).status.success());
    assert!(!run(&["apikey", "revoke", "shop"]).status.success());
    let (status, body) = shop
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({ "seat_ids": [event.seat_ids[1]] }),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["error"], "invalid_api_key");
    assert!(
        String::from_utf8(run(&["apikey", "list"]).stdout)
            .unwrap()
            .contains("revoked")
    );

    // Unknown, malformed and non-Bearer credentials are 401s, never the session.
    for header in [
        "Bearer smk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "Bearer nonsense",
        "Basic dXNlcjpwdw==",
    ] {
        let response = crate::support::http_client()
            .get(format!("{}/api/events", app.base))
            .header("authorization", header)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{header}");
    }
}

#[tokio::test]
async fn a_sell_key_holds_and_buys_for_customers_who_cannot_touch_each_others_holds() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let key = make_key(&app, "shop", "sell").await;
    let holds = format!("/api/events/{}/holds", event.id);
    let alice = Integrator::new(&app, &key, Some("alice"));
    let bob = Integrator::new(&app, &key, Some("bob"));

    let (status, hold, set_cookie) = Integrator::send(
        alice
            .request(reqwest::Method::POST, &holds)
            .json(&json!({ "seat_ids": [event.seat_ids[0], event.seat_ids[1]] })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    assert!(!set_cookie, "a key's calls keep no session");
    let hold_path = format!("/api/holds/{}", id_segment(&hold["hold_id"]));
    // Bob, the same key's other customer, another key's "alice", and a
    // browser session: none of them can release, extend or buy it.
    let other_key = make_key(&app, "other-shop", "sell").await;
    let impostor = Integrator::new(&app, &other_key, Some("alice"));
    assert_eq!(bob.delete(&hold_path).await, StatusCode::NOT_FOUND);
    assert_eq!(impostor.delete(&hold_path).await, StatusCode::NOT_FOUND);
    let (status, _) = app.buyer().delete(&hold_path).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = bob
        .post(
            &format!("{hold_path}/purchase"),
            json!({ "name": "Bob", "email": "bob@example.com" }),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Alice sees her hold on the map, and buys it.
    let (_, seats) = alice.get(&format!("/api/events/{}/seats", event.id)).await;
    assert_eq!(seats["hold"]["hold_id"], hold["hold_id"]);
    let (_, seats) = bob.get(&format!("/api/events/{}/seats", event.id)).await;
    assert!(seats["hold"].is_null());
    let (status, order) = alice
        .post(
            &format!("{hold_path}/purchase"),
            json!({ "name": "Alice", "email": "alice@example.com" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(order["tickets"].as_array().unwrap().len(), 2);
    let order_path = format!("/api/orders/{}", id_segment(&order["order_id"]));
    assert_eq!(alice.get(&order_path).await.0, StatusCode::OK);
    assert_eq!(bob.get(&order_path).await.0, StatusCode::NOT_FOUND);

    // A sell key must name its customer.
    let nobody = Integrator::new(&app, &key, None);
    let (status, body) = nobody
        .post(&holds, json!({ "seat_ids": [event.seat_ids[2]] }))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().unwrap().contains("x-customer-ref"));
    app.no_breaches().await;
}

#[tokio::test]
async fn each_scope_does_only_its_own_and_the_audit_log_names_a_box_office_key() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let code = order["tickets"][0]["code"].as_str().unwrap().to_string();
    let reader = Integrator::new(&app, &make_key(&app, "site", "read").await, None);
    let seller = Integrator::new(&app, &make_key(&app, "shop", "sell").await, Some("c"));
    let office = Integrator::new(&app, &make_key(&app, "crm", "box-office").await, None);

    // Read: reads only.
    assert_eq!(
        reader
            .get(&format!("/api/events/{}/seats", event.id))
            .await
            .0,
        StatusCode::OK
    );
    let (status, body) = reader
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({ "seat_ids": [event.seat_ids[3]] }),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["error"], "forbidden");
    // Read and sell keys can't use the staff API.
    let admissions = format!("/api/staff/events/{}/admissions", event.id);
    for caller in [&reader, &seller] {
        let (status, _) = caller.post(&admissions, json!({ "code": code })).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    // A box-office key can; the audit log names it, not a member of staff.
    let (status, scan) = office
        .post(&admissions, json!({ "code": code, "gate": "North" }))
        .await;
    assert_eq!(status, StatusCode::OK, "{scan}");
    assert_eq!(scan["result"], "admitted");
    let (status, sold) = office
        .post(
            &format!("/api/staff/events/{}/sales", event.id),
            json!({ "seat_ids": [event.seat_ids[4]], "name": "From the CRM", "tender": "card" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{sold}");
    let refund = format!(
        "/api/staff/events/{}/orders/{}/refund",
        event.id,
        id_segment(&sold["order_id"])
    );
    // Refunds are a manager's: a box-office key is refused, as a
    // box-office login is; a manager's key may.
    let (status, body) = office.post(&refund, json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["role"], "box_office");
    let manager_key =
        make_staff_key(&app, "crm-manager", seatmap::domain::role::Role::Manager).await;
    let (status, _) = Integrator::new(&app, &manager_key, None)
        .post(&refund, json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT count(*) FILTER (WHERE a.staff_id IS NULL AND k.name LIKE 'crm%') AS by_key, count(*) AS all
               FROM audit_log a LEFT JOIN api_keys k ON k.id = a.api_key_id
              WHERE a.action IN ('box_office_sale', 'refund_order')",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(
        (row.get::<_, i64>("by_key"), row.get::<_, i64>("all")),
        (2, 2)
    );
    let clerk = crate::staff::staff(&app, "clerk").await;
    let console = clerk.get_text(&format!("/staff/events/{}", event.id)).await;
    assert!(
        console.contains("API key crm"),
        "the console's audit log names the key"
    );
    // A box-office key is not a staff session: the HTML console still wants one.
    let response = office
        .request(reqwest::Method::GET, &format!("/staff/events/{}", event.id))
        .send()
        .await
        .unwrap();
    assert_eq!(response.url().path(), "/staff/login", "sent to sign in");
}

#[tokio::test]
async fn hold_limits_count_per_key_and_customer_not_per_address() {
    let app = spawn_app_with(|config| {
        config.limits.clock = crate::support::frozen_limits_clock();
        config.limits.hold_requests_per_ip = 2;
        config.limits.hold_requests_per_key = 3;
    })
    .await;
    let event = app.create_event(1, 10).await;
    let holds = format!("/api/events/{}/holds", event.id);
    let key = make_key(&app, "shop", "sell").await;
    let other = make_key(&app, "other", "sell").await;
    // Three customers of one key from one address: past the address's
    // limit of 2, up to the key's 3.
    for (i, customer) in ["a", "b", "c"].iter().enumerate() {
        let (status, body) = Integrator::new(&app, &key, Some(customer))
            .post(&holds, json!({ "seat_ids": [event.seat_ids[i]] }))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{customer}: {body}");
    }
    let (status, body) = Integrator::new(&app, &key, Some("d"))
        .post(&holds, json!({ "seat_ids": [event.seat_ids[3]] }))
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    // Another key has its own count.
    let (status, _) = Integrator::new(&app, &other, Some("a"))
        .post(&holds, json!({ "seat_ids": [event.seat_ids[4]] }))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    // Browsers from the same address still have the address's limit.
    for (i, expected) in [
        (5, StatusCode::CREATED),
        (6, StatusCode::CREATED),
        (7, StatusCode::TOO_MANY_REQUESTS),
    ] {
        let (status, _) = app.buyer().hold(event.id, &[event.seat_ids[i]]).await;
        assert_eq!(status, expected);
    }
}

/// A bad key is refused even beside a good session cookie: a key that
/// doesn't authenticate never falls back to the session.
#[tokio::test]
async fn a_bad_key_with_a_good_session_is_a_401_not_the_session() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let staff_path = format!(
        "/api/staff/events/{}/orders/{}",
        event.id,
        uuid::Uuid::new_v4()
    );
    // The session alone is staff: the route answers (404: no such order).
    let (status, _) = clerk.get(&staff_path).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    for bad in [
        "not-a-key",
        "smk_0000000000000000000000000000000000000000000000",
    ] {
        let response = clerk
            .http
            .get(format!("{}{staff_path}", app.base))
            .bearer_auth(bad)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{bad}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "invalid_api_key", "{bad}");
    }
    // A revoked key too.
    let key = make_key(&app, "gone", "box-office").await;
    app.sql()
        .await
        .execute("UPDATE api_keys SET revoked_at = now()", &[])
        .await
        .unwrap();
    let response = clerk
        .http
        .get(format!("{}{staff_path}", app.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

/// A sell key's holds don't count against the caller's address cap (its
/// customers all come from the integrator's servers), and a box-office
/// key's release is told to the buyer like staff's.
#[tokio::test]
async fn a_keys_holds_skip_the_address_cap_and_a_box_office_release_tells_the_buyer() {
    let app = spawn_app_with(|config| {
        config.limits.max_holds_per_ip = 2;
    })
    .await;
    let event = app.create_event(1, 10).await;
    // A box-office key releases a browser buyer's hold; the buyer is told.
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &[event.seat_ids[8]]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let office = Integrator::new(&app, &make_key(&app, "office", "box-office").await, None);
    let (status, body) = office
        .post(
            &format!("/api/staff/holds/{}/release", id_segment(&hold["hold_id"])),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, body) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "hold_released", "the buyer is told why");
    let page = buyer.get_text(&format!("/events/{}", event.id)).await;
    assert!(
        page.contains("The box office released your hold"),
        "the buyer's page says so"
    );

    let sell = make_key(&app, "shop", "sell").await;
    for customer in 0..5 {
        let shop = Integrator::new(&app, &sell, Some(&format!("c{customer}")));
        let (status, body) = shop
            .post(
                &format!("/api/events/{}/holds", event.id),
                json!({ "seat_ids": [event.seat_ids[customer]] }),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "customer {customer}: {body}");
    }
    // Five live holds made from this address with the key, yet browsers
    // here still get the address's two.
    for seat in &event.seat_ids[5..7] {
        let (status, body) = app.buyer().hold(event.id, &[*seat]).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, body) = app.buyer().hold(event.id, &[event.seat_ids[7]]).await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "the address's own cap: {body}"
    );
}
