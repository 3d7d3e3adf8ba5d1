//! Staff roles. The role matrix in docs/box-office.md is the one place that
//! says which role each staff route needs: these tests read it, check it
//! names every staff route the sources make, and walk every route with
//! every role against it. Also: accounts an admin changes, and what a
//! disabled account or a reset password does to a session already open.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use seatmap::domain::role::Role;
use serde_json::{Value, json};
use syn::visit::Visit;

use crate::architecture::{modules, src};
use crate::pages::csrf_from;
use crate::staff::{PASSWORD, create_staff_as, post_form, sign_in_attempt, staff_as};
use crate::support::{Api, TestApp, spawn_app};

/// One row of the matrix: the route, and whether each role (door, box
/// office, manager, admin, in `Role::ALL`'s order) may use it.
#[derive(Debug)]
struct Row {
    method: String,
    path: String,
    allowed: [bool; 4],
}

fn role_matrix() -> Vec<Row> {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/box-office.md"),
    )
    .unwrap();
    let start = readme
        .find("<!-- role-matrix -->")
        .expect("docs/box-office.md has the role matrix, after <!-- role-matrix -->");
    let end = start
        + readme[start..]
            .find("<!-- /role-matrix -->")
            .expect("the role matrix ends with <!-- /role-matrix -->");
    let table = &readme[start..end];
    let header = table
        .lines()
        .find(|line| line.starts_with("| Route"))
        .expect("the matrix has a header row");
    let columns: Vec<&str> = header.split('|').map(str::trim).collect();
    assert_eq!(
        &columns[2..6],
        Role::ALL.map(|role| role.label()).as_slice(),
        "the matrix's columns are the roles, least first"
    );
    table
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let route = cells[1].trim_matches('`');
            let (method, path) = route.split_once(' ').expect("`METHOD /path`");
            let allowed = [2, 3, 4, 5].map(|i| match cells[i] {
                "✓" => true,
                "—" => false,
                other => panic!("{route}: a cell is ✓ or —, not {other:?}"),
            });
            Row {
                method: method.to_string(),
                path: path.to_string(),
                allowed,
            }
        })
        .collect()
}

/// Every `(METHOD, /staff…)` route the sources make with `.route(…)`:
/// the path literal, and each `get`/`post`/… in the method router.
fn staff_page_routes() -> BTreeSet<(String, String)> {
    struct Methods(Vec<String>);
    impl<'ast> Visit<'ast> for Methods {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(function) = &*call.func
                && let Some(last) = function.path.segments.last()
            {
                self.0.push(last.ident.to_string());
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            self.0.push(call.method.to_string());
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    struct Routes(BTreeSet<(String, String)>);
    impl<'ast> Visit<'ast> for Routes {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if call.method == "route"
                && let Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(path),
                    ..
                })) = call.args.first()
                && path.value().starts_with("/staff")
                && let Some(router) = call.args.iter().nth(1)
            {
                let mut methods = Methods(Vec::new());
                methods.visit_expr(router);
                for method in methods.0 {
                    if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                        self.0.insert((method.to_uppercase(), path.value()));
                    }
                }
            }
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    let mut routes = Routes(BTreeSet::new());
    for file in modules(&src()).values() {
        let ast = syn::parse_file(&std::fs::read_to_string(file).unwrap()).unwrap();
        routes.visit_file(&ast);
    }
    routes.0
}

/// Every staff route: the pages' from the sources, the API's from the
/// OpenAPI document (which the architecture tests hold to the sources).
fn every_staff_route() -> BTreeSet<(String, String)> {
    let mut routes = staff_page_routes();
    let document = seatmap::web::openapi::document_json();
    for (path, item) in document["paths"].as_object().unwrap() {
        if path.starts_with("/api/staff") {
            for method in item.as_object().unwrap().keys() {
                routes.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    // Signing in and out is for anyone.
    routes.remove(&("GET".into(), "/staff/login".into()));
    routes.remove(&("POST".into(), "/staff/login".into()));
    routes.remove(&("POST".into(), "/staff/logout".into()));
    routes
}

#[test]
fn the_role_matrix_names_every_staff_route_once_and_each_row_is_a_ladder() {
    let matrix = role_matrix();
    let listed: Vec<(String, String)> = matrix
        .iter()
        .map(|row| (row.method.clone(), row.path.clone()))
        .collect();
    let listed_set: BTreeSet<(String, String)> = listed.iter().cloned().collect();
    assert_eq!(listed.len(), listed_set.len(), "a route is listed twice");
    let routes = every_staff_route();
    let missing: Vec<_> = routes.difference(&listed_set).collect();
    let extra: Vec<_> = listed_set.difference(&routes).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "The role matrix (docs/box-office.md) and the routes differ.\nNot in the matrix: {missing:?}\nNot a route: {extra:?}"
    );
    assert!(
        routes.len() > 60,
        "the reader found {} routes",
        routes.len()
    );
    for row in &matrix {
        // Each role may do what the ones below it may (domain::role).
        let first = row.allowed.iter().position(|&a| a);
        let first = first.unwrap_or_else(|| panic!("{row:?}: no role may use it"));
        assert!(
            row.allowed[first..].iter().all(|&a| a),
            "{row:?}: a role may not do what a lesser one may"
        );
    }
}

/// Everything in the database that a request could change, as one value:
/// each table's rows (sessions and rate-limit counters aside, which a
/// request's own session and limits touch).
async fn fingerprint(app: &TestApp) -> Vec<(String, String)> {
    let sql = app.sql().await;
    let tables: Vec<String> = sql
        .query(
            "SELECT table_name::text FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                AND table_name NOT IN ('sessions', 'rate_limits', 'refinery_schema_history')
              ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut found = Vec::new();
    for table in tables {
        let quoted = seatmap::db::quote_ident(&table);
        let digest: String = sql
            .query_one(
                &format!(
                    "SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {quoted} t"
                ),
                &[],
            )
            .await
            .unwrap()
            .get(0);
        found.push((table, digest));
    }
    found
}

struct Walk {
    event_id: i64,
    target_id: i64,
    /// Ids of things that exist (an allowed role's GET must succeed).
    real: Option<RealIds>,
}

/// One of each thing a staff route names, made for the walk.
struct RealIds {
    hold_id: String,
    order_id: String,
    seat_id: i64,
    ticket_id: i64,
    message_id: i64,
    endpoint_id: String,
    venue_id: i64,
    season_id: i64,
}

impl RealIds {
    async fn make(app: &TestApp, event_id: i64, seats: &[i64]) -> RealIds {
        let (status, hold) = app.buyer().hold(event_id, &seats[2..3]).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        let (_, order) = crate::after_sale::buy(app, event_id, &seats[..1], None).await;
        let order_id = crate::support::id_segment(&order["order_id"]);
        let sql = app.sql().await;
        let ticket_id: i64 = sql
            .query_one(
                "SELECT id FROM tickets WHERE order_id = $1::text::uuid",
                &[&order_id],
            )
            .await
            .unwrap()
            .get(0);
        let message_id: i64 = sql
            .query_one("SELECT id FROM outbox ORDER BY id LIMIT 1", &[])
            .await
            .unwrap()
            .get(0);
        let endpoint = seatmap::db::webhooks::create(
            &sql,
            "https://93.184.216.34/hook",
            &seatmap::domain::webhook::new_secret(),
            &["order.created".to_string()],
            None,
        )
        .await
        .unwrap();
        let layout = seatmap::domain::venue::from_json(
            r#"{"name": "Walk Hall", "tiers": [{"code": "std", "name": "S"}],
                "sections": [{"name": "A", "rows": [{"label": "1", "count": 2, "tier": "std"}]}]}"#,
        )
        .unwrap();
        let venue_id = seatmap::db::venues::import(&sql, &layout, None)
            .await
            .unwrap()
            .0;
        // The event counts as built from it, so a move can be previewed.
        sql.execute(
            "UPDATE events SET venue_id = $1, venue_version = 1 WHERE id = $2",
            &[&venue_id, &event_id],
        )
        .await
        .unwrap();
        // A season of the event and a copy of it.
        let copy = seatmap::db::series::copy_event(
            &app.pool,
            seatmap::domain::ids::EventId(event_id),
            &[time::OffsetDateTime::now_utc() + time::Duration::days(60)],
        )
        .await
        .unwrap();
        // Copies start as drafts; a season is made over published events.
        sql.execute(
            "UPDATE events SET published_at = now() WHERE id = $1",
            &[&copy[0]],
        )
        .await
        .unwrap();
        let season_id = seatmap::db::seasons::create(
            &app.pool,
            &seatmap::db::seasons::NewSeason {
                name: "Walk Season".into(),
                event_ids: vec![seatmap::domain::ids::EventId(event_id), copy[0]],
                prices: None,
                on_sale_at: None,
                choose_events: None,
                release_credit: false,
            },
        )
        .await
        .unwrap()
        .0;
        RealIds {
            season_id,
            hold_id: crate::support::id_segment(&hold["hold_id"]),
            order_id,
            seat_id: seats[1],
            ticket_id,
            message_id,
            endpoint_id: endpoint.0.to_string(),
            venue_id,
        }
    }
}

impl Walk {
    /// The path with each parameter filled: with an id of something that
    /// exists when the walk has them, else with one of the right shape
    /// that names nothing (a refusal must come before any lookup).
    fn path(&self, template: &str) -> String {
        let nothing = "987654321";
        let no_uuid = "00000000-0000-4000-8000-000000000000";
        let path = template
            .replace("{event_id}", &self.event_id.to_string())
            .replace("{staff_id}", &self.target_id.to_string())
            .replace("{delivery_id}", no_uuid)
            .replace("{code}", "std");
        match &self.real {
            Some(real) => path
                .replace("{hold_id}", &real.hold_id)
                .replace("{order_id}", &real.order_id)
                .replace("{seat_id}", &real.seat_id.to_string())
                .replace("{ticket_id}", &real.ticket_id.to_string())
                .replace("{message_id}", &real.message_id.to_string())
                .replace("{endpoint_id}", &real.endpoint_id)
                .replace("{venue_id}", &real.venue_id.to_string())
                .replace("{season_id}", &real.season_id.to_string()),
            None => path
                .replace("{hold_id}", no_uuid)
                .replace("{order_id}", no_uuid)
                .replace("{seat_id}", nothing)
                .replace("{ticket_id}", nothing)
                .replace("{message_id}", nothing)
                .replace("{endpoint_id}", nothing)
                .replace("{venue_id}", nothing)
                .replace("{season_id}", nothing),
        }
    }

    async fn send(&self, client: &Api, csrf: &str, row: &Row) -> (StatusCode, String) {
        let url = format!("{}{}", client.base, self.path(&row.path));
        let method: reqwest::Method = row.method.parse().unwrap();
        let request = client.http.request(method, url);
        let request = if row.path.starts_with("/api/") {
            request
                .header("content-type", "application/json")
                .body("{}")
        } else if row.method == "GET" {
            request
        } else {
            request.form(&[("csrf", csrf)])
        };
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.text().await.unwrap())
    }
}

/// Each route answers each role as the role matrix says: below the route's
/// role, `403` (JSON naming the role for the API, the error page
/// otherwise) with nothing written anywhere; at or above it, anything but
/// 401 and 403 (a 404 for an id that names nothing is fine) and never a
/// 5xx.
#[tokio::test]
async fn every_staff_route_answers_every_role_as_the_role_matrix_says() {
    let app = spawn_app().await;
    let event = app.create_event(2, 4).await;
    let mut clients = Vec::new();
    for role in Role::ALL {
        let client = staff_as(&app, &format!("as-{}", role.as_str()), role).await;
        let csrf = csrf_from(&client, "/staff").await;
        clients.push((role, client, csrf));
    }
    let target_id = create_staff_as(&app, "target", Role::Door).await.0;
    let mut walk = Walk {
        event_id: event.id,
        target_id,
        real: None,
    };
    let matrix = role_matrix();

    let before = fingerprint(&app).await;
    // Signed out: every staff route refuses, before anything is looked
    // up or written: the API with a 401, a page by sending to sign in.
    let signed_out = app.buyer();
    let signed_out_csrf = csrf_from(&signed_out, "/staff/login").await;
    for row in &matrix {
        let (status, body) = walk.send(&signed_out, &signed_out_csrf, row).await;
        let route = format!("{} {} signed out", row.method, row.path);
        if row.path.starts_with("/api/") {
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{route}: {body}");
        } else {
            assert!(
                status == StatusCode::SEE_OTHER || status == StatusCode::UNAUTHORIZED,
                "{route}: {status} {}",
                crate::support::short(&body)
            );
        }
    }
    assert_eq!(
        fingerprint(&app).await,
        before,
        "a signed-out request wrote something"
    );
    let mut refused = 0;
    for row in &matrix {
        for (i, (role, client, csrf)) in clients.iter().enumerate() {
            if row.allowed[i] {
                continue;
            }
            let (status, body) = walk.send(client, csrf, row).await;
            let route = format!("{} {} as {}", row.method, row.path, role.as_str());
            assert_eq!(status, StatusCode::FORBIDDEN, "{route}: {body}");
            if row.path.starts_with("/api/") {
                let body: Value = serde_json::from_str(&body).unwrap();
                assert_eq!(body["error"], "forbidden", "{route}");
                assert_eq!(body["role"], role.as_str(), "{route}");
            } else {
                assert!(
                    body.contains(&format!("Your role is {}", role.label())),
                    "{route}: the page says why: {body}"
                );
            }
            refused += 1;
        }
    }
    assert!(refused > 100, "{refused} refusals walked");
    assert_eq!(
        fingerprint(&app).await,
        before,
        "a refused request wrote something"
    );

    // Allowed, on things that exist: a read succeeds; a change is let in
    // (its answer may refuse the empty body, never the caller).
    walk.real = Some(RealIds::make(&app, event.id, &event.seat_ids).await);
    for row in &matrix {
        for (i, (role, client, csrf)) in clients.iter().enumerate() {
            if !row.allowed[i] {
                continue;
            }
            let (status, body) = walk.send(client, csrf, row).await;
            let route = format!("{} {} as {}", row.method, row.path, role.as_str());
            if row.method == "GET" {
                assert!(
                    status.is_success(),
                    "{route}: {status} {}",
                    crate::support::short(&body)
                );
            } else {
                assert!(
                    status != StatusCode::FORBIDDEN
                        && status != StatusCode::UNAUTHORIZED
                        && !status.is_server_error(),
                    "{route}: {status} {}",
                    crate::support::short(&body)
                );
            }
        }
    }
}

/// A box-office API key reaches the staff JSON API as it did before roles.
#[tokio::test]
async fn a_box_office_key_still_reaches_the_staff_api() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let key = crate::api_keys::make_key(&app, "till", "box-office").await;
    let response = crate::support::http_client()
        .post(format!(
            "{}/api/staff/events/{}/seats/block",
            app.base, event.id
        ))
        .bearer_auth(&key)
        .json(&json!({"seat_ids": [event.seat_ids[0]]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

async fn accounts_page(admin: &Api) -> String {
    admin.get_text("/staff/accounts").await
}

async fn account_action(admin: &Api, path: &str, fields: &[(&str, &str)]) -> StatusCode {
    let token = csrf_from(admin, "/staff/accounts").await;
    let mut all = vec![("csrf", token.as_str())];
    all.extend_from_slice(fields);
    post_form(admin, path, &all).await.status()
}

async fn is_signed_in(client: &Api) -> bool {
    let response = client
        .http
        .get(format!("{}/staff", client.base))
        .send()
        .await
        .unwrap();
    response.status() == StatusCode::OK
}

/// An admin adds an account, changes its role, resets its password and
/// disables it; each change is audited with who made it. A disabled
/// account is signed out at once; a reset ends the account's sessions;
/// and the last admin can't be disabled or demoted.
#[tokio::test]
async fn an_admin_manages_accounts_and_each_change_is_audited_and_takes_effect_at_once() {
    let app = spawn_app().await;
    let admin = staff_as(&app, "root", Role::Admin).await;

    assert_eq!(
        account_action(
            &admin,
            "/staff/accounts",
            &[("name", "gate1"), ("role", "door"), ("password", PASSWORD)],
        )
        .await,
        StatusCode::SEE_OTHER
    );
    let page = accounts_page(&admin).await;
    assert!(page.contains("gate1 can sign in now, as door."), "{page}");
    // A bad role, a short password and a bad name are refused and say so.
    for (fields, says) in [
        (
            [("name", "x1"), ("role", "root"), ("password", PASSWORD)],
            "Choose a role",
        ),
        (
            [("name", "x2"), ("role", "door"), ("password", "short")],
            "A password is 10",
        ),
        (
            [
                ("name", "no spaces"),
                ("role", "door"),
                ("password", PASSWORD),
            ],
            "A staff name is",
        ),
    ] {
        account_action(&admin, "/staff/accounts", &fields).await;
        assert!(accounts_page(&admin).await.contains(says), "{says}");
    }
    assert_eq!(
        app.count("SELECT count(*) FROM staff WHERE name IN ('x1', 'x2', 'no spaces')")
            .await,
        0
    );

    let gate = app.buyer();
    assert_eq!(
        sign_in_attempt(&gate, "gate1", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let gate_id: i64 = app
        .sql()
        .await
        .query_one("SELECT id FROM staff WHERE name = 'gate1'", &[])
        .await
        .unwrap()
        .get(0);
    let (status, _) = gate
        .get(&format!(
            "/api/staff/events/1/orders/{}",
            uuid::Uuid::new_v4()
        ))
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a door account can't read orders"
    );

    // Promoted: the same session may do more at once.
    account_action(
        &admin,
        &format!("/staff/accounts/{gate_id}/role"),
        &[("role", "box_office")],
    )
    .await;
    let (status, _) = gate
        .get(&format!(
            "/api/staff/events/1/orders/{}",
            uuid::Uuid::new_v4()
        ))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "now box office: let in");

    // A reset password ends the session; the new password works.
    let new_password = "another long password";
    account_action(
        &admin,
        &format!("/staff/accounts/{gate_id}/password"),
        &[("password", new_password)],
    )
    .await;
    assert!(!is_signed_in(&gate).await, "the reset ended the session");
    assert_eq!(
        sign_in_attempt(&gate, "gate1", PASSWORD).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        sign_in_attempt(&gate, "gate1", new_password).await.status(),
        StatusCode::SEE_OTHER
    );
    assert!(is_signed_in(&gate).await);

    // Disabled: signed out at once, and can't sign in.
    account_action(&admin, &format!("/staff/accounts/{gate_id}/disable"), &[]).await;
    assert!(!is_signed_in(&gate).await, "disabling signs out at once");
    assert_eq!(
        sign_in_attempt(&gate, "gate1", new_password).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let before_disable = app.buyer();
    assert_eq!(
        sign_in_attempt(&before_disable, "gate1", new_password)
            .await
            .status(),
        StatusCode::UNAUTHORIZED,
        "disabled: no sign-in"
    );
    account_action(&admin, &format!("/staff/accounts/{gate_id}/enable"), &[]).await;
    assert!(
        !is_signed_in(&gate).await,
        "enabling again doesn't bring back a session from before the disable"
    );
    assert_eq!(
        sign_in_attempt(&gate, "gate1", new_password).await.status(),
        StatusCode::SEE_OTHER
    );

    // The only admin can't disable or demote themselves.
    let root_id: i64 = app
        .sql()
        .await
        .query_one("SELECT id FROM staff WHERE name = 'root'", &[])
        .await
        .unwrap()
        .get(0);
    account_action(&admin, &format!("/staff/accounts/{root_id}/disable"), &[]).await;
    assert!(accounts_page(&admin).await.contains("would leave no admin"));
    account_action(
        &admin,
        &format!("/staff/accounts/{root_id}/role"),
        &[("role", "manager")],
    )
    .await;
    assert_eq!(
        app.count("SELECT count(*) FROM staff WHERE name = 'root' AND role = 'admin' AND disabled_at IS NULL")
            .await,
        1
    );

    // Each change is audited, naming who made it and whose account.
    let audited: Vec<(String, String, String)> = app
        .sql()
        .await
        .query(
            "SELECT a.action, s.name, subject.name FROM audit_log a
               JOIN staff s ON s.id = a.staff_id
               JOIN staff subject ON subject.id = a.subject_staff_id
              ORDER BY a.id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let actions: Vec<&str> = audited.iter().map(|(a, _, _)| a.as_str()).collect();
    assert_eq!(
        actions,
        [
            "staff_created",
            "staff_role",
            "staff_password_reset",
            "staff_disabled",
            "staff_enabled"
        ]
    );
    assert!(
        audited
            .iter()
            .all(|(_, by, subject)| by == "root" && subject == "gate1")
    );
    assert!(
        accounts_page(&admin)
            .await
            .contains("gate1: door → box office")
    );
}

/// `staff add` without `--role` makes a manager; with it, that role; a
/// wrong role is refused; `staff role` changes one from the command line.
#[tokio::test]
async fn the_staff_command_takes_a_role() {
    let app = spawn_app().await;
    let typed = format!("{PASSWORD}\n");
    let run = |args: &[&str]| crate::staff::seatmap_command(&app, args, &typed);
    assert!(run(&["staff", "add", "mo"]).status.success());
    assert!(
        run(&["staff", "add", "dee", "--role", "door"])
            .status
            .success()
    );
    let wrong = run(&["staff", "add", "zed", "--role", "root"]);
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("not a role"));
    assert!(run(&["staff", "role", "dee", "admin"]).status.success());
    let roles: Vec<(String, String)> = app
        .sql()
        .await
        .query("SELECT name, role FROM staff ORDER BY name", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        roles,
        [
            ("dee".into(), "admin".into()),
            ("mo".into(), "manager".into())
        ]
    );
    let listed = run(&["staff", "list"]);
    assert!(String::from_utf8_lossy(&listed.stdout).contains("dee\tadmin\t"));
}

/// A staff key made on the command line with a role, as its maker would.
async fn key_with_role(app: &TestApp, role: Role) -> String {
    let name = format!("key-{}", role.as_str());
    let made = crate::staff::seatmap_command(
        app,
        &[
            "apikey",
            "add",
            &name,
            "box-office",
            "--role",
            role.as_str(),
        ],
        "",
    );
    assert!(
        made.status.success(),
        "seatmap apikey add --role {}: {}",
        role.as_str(),
        String::from_utf8_lossy(&made.stderr)
    );
    String::from_utf8(made.stdout).unwrap().trim().to_string()
}

/// Hostile traffic, round three: a key is judged by its role on every
/// staff API route, as a login is: below the route's role, `403` naming
/// the key's role, with nothing written; at or above it, let in.
#[tokio::test]
async fn every_staff_api_route_answers_a_key_of_every_role_as_the_matrix_says() {
    let app = spawn_app().await;
    let event = app.create_event(2, 4).await;
    let target_id = create_staff_as(&app, "target", Role::Door).await.0;
    let walk = Walk {
        event_id: event.id,
        target_id,
        real: None,
    };
    let mut keys = Vec::new();
    for role in Role::ALL {
        keys.push((role, key_with_role(&app, role).await));
    }
    let matrix: Vec<Row> = role_matrix()
        .into_iter()
        .filter(|row| row.path.starts_with("/api/staff"))
        .collect();
    assert!(matrix.len() > 20, "{} API routes", matrix.len());
    let send = |key: &str, row: &Row| {
        let request = crate::support::http_client()
            .request(
                row.method.parse().unwrap(),
                format!("{}{}", app.base, walk.path(&row.path)),
            )
            .bearer_auth(key)
            .header("content-type", "application/json")
            .body("{}");
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            (status, response.text().await.unwrap())
        }
    };
    let before = fingerprint(&app).await;
    let mut refused = 0;
    for row in &matrix {
        for (i, (role, key)) in keys.iter().enumerate() {
            if row.allowed[i] {
                continue;
            }
            let (status, body) = send(key, row).await;
            let route = format!("{} {} with a {} key", row.method, row.path, role.as_str());
            assert_eq!(status, StatusCode::FORBIDDEN, "{route}: {body}");
            let body: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(body["role"], role.as_str(), "{route}: {body}");
            refused += 1;
        }
    }
    assert!(refused > 20, "{refused} refusals walked");
    assert_eq!(
        fingerprint(&app).await,
        before,
        "a refused request wrote something"
    );
    // A key's role changes on the command line, at once.
    let made = crate::staff::seatmap_command(&app, &["apikey", "role", "key-door", "manager"], "");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let reprice = Row {
        method: "PUT".into(),
        path: "/api/staff/events/{event_id}/tiers/std/price".into(),
        allowed: [false, false, true, true],
    };
    let request = crate::support::http_client()
        .put(format!("{}{}", app.base, walk.path(&reprice.path)))
        .bearer_auth(&keys[0].1)
        .json(&json!({"price_cents": 4600}));
    assert_eq!(request.send().await.unwrap().status(), StatusCode::OK);
    for row in &matrix {
        for (i, (role, key)) in keys.iter().enumerate().skip(1) {
            if !row.allowed[i] {
                continue;
            }
            let (status, body) = send(key, row).await;
            let route = format!("{} {} with a {} key", row.method, row.path, role.as_str());
            assert!(
                status != StatusCode::FORBIDDEN
                    && status != StatusCode::UNAUTHORIZED
                    && !status.is_server_error(),
                "{route}: {status} {}",
                crate::support::short(&body)
            );
        }
    }
}

/// Two admins demote each other at the same moment, forced: both wait on
/// the accounts' lock the test holds, then go. One demotion lands; the
/// other admin, no longer one under the lock, changes nothing. An admin
/// is always left.
#[tokio::test]
async fn two_admins_demoting_each_other_at_once_leave_one_admin() {
    let app = crate::support::spawn_app_for_forced_races().await;
    let ada = staff_as(&app, "ada", Role::Admin).await;
    let bob = staff_as(&app, "bob", Role::Admin).await;
    let id_of = |name: &'static str| {
        let app = &app;
        async move {
            app.sql()
                .await
                .query_one("SELECT id FROM staff WHERE name = $1", &[&name])
                .await
                .unwrap()
                .get::<_, i64>(0)
        }
    };
    let (ada_id, bob_id) = (id_of("ada").await, id_of("bob").await);
    let ada_token = csrf_from(&ada, "/staff/accounts").await;
    let bob_token = csrf_from(&bob, "/staff/accounts").await;
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("SELECT id FROM staff ORDER BY id FOR UPDATE")
        .await
        .unwrap();
    let demote = |client: Api, token: String, subject: i64| {
        tokio::spawn(async move {
            post_form(
                &client,
                &format!("/staff/accounts/{subject}/role"),
                &[("csrf", token.as_str()), ("role", "manager")],
            )
            .await
            .status()
        })
    };
    let a = demote(ada.clone(), ada_token, bob_id);
    let b = demote(bob.clone(), bob_token, ada_id);
    app.lock_waiters("FROM staff ORDER BY id FOR UPDATE", 2)
        .await;
    lock.commit().await.unwrap();
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    assert!(!a.is_server_error() && !b.is_server_error(), "{a} {b}");
    assert_eq!(
        app.count("SELECT count(*) FROM staff WHERE role = 'admin' AND disabled_at IS NULL")
            .await,
        1,
        "exactly one admin is left"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE action = 'staff_role'")
            .await,
        1,
        "one demotion happened"
    );
}
