//! Accessible seating: best available holds wheelchair spaces and companion
//! seats back from parties that didn't ask for them, gives a wheelchair
//! party its spaces with the rest beside them, and lets them join general
//! sale when the event says (by time, judged in the claim, or by hand).

use std::collections::{HashMap, HashSet};

use futures::future::join_all;
use reqwest::StatusCode;
use seatmap::domain::layout::{Flag, RowSpec, SectionSpec};
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::best_available::best;
use crate::pages::{csrf_from, page};
use crate::staff::{console_action, staff};
use crate::support::{Api, TestApp, ids, spawn_app};

pub fn section(name: &str, rows: usize, per_row: u32, flags: &[(u32, Flag)]) -> SectionSpec {
    SectionSpec {
        name: name.into(),
        rows: (0..rows)
            .map(|i| RowSpec {
                label: ((b'A' + i as u8) as char).to_string(),
                seats: per_row,
                tier: "std".into(),
                flags: flags.to_vec(),
            })
            .collect(),
        curve: None,
        side_blocks: None,
    }
}

/// Each seat's (row, position, flags), by id.
async fn seat_facts(app: &TestApp, event_id: i64) -> HashMap<i64, (i32, i32, Vec<String>)> {
    app.sql()
        .await
        .query(
            "SELECT id, row_index, position, accessibility FROM seats WHERE event_id = $1",
            &[&event_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3))))
        .collect()
}

fn is_kept(flags: &[String]) -> bool {
    flags.iter().any(|f| f == "wheelchair" || f == "companion")
}

async fn put_settings(clerk: &Api, event_id: i64, body: Value) -> (StatusCode, Value) {
    let response = clerk
        .http
        .put(format!(
            "{}/api/staff/events/{event_id}/accessible-seating",
            clerk.base
        ))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_general_parties_never_get_one_of_twenty_wheelchair_spaces() {
    let app = spawn_app().await;
    // 10 rows of 20. The best seats of every row (the centre) are kept:
    // wheelchair spaces at 9 and 10 (20 in all), companion seats at 8 and
    // 11. That leaves 160 ordinary seats for ~200 asked for.
    let event = app
        .create_event_with(vec![section(
            "Stalls",
            10,
            20,
            &[
                (8, Flag::Companion),
                (9, Flag::Wheelchair),
                (10, Flag::Wheelchair),
                (11, Flag::Companion),
            ],
        )])
        .await;
    let facts = seat_facts(&app, event.id).await;
    let buyers: Vec<Api> = (0..100).map(|_| app.buyer()).collect();
    let requests: Vec<Value> = (0..100)
        .map(|i| json!({ "count": 1 + i % 3, "together": i % 7 != 0 }))
        .collect();
    let answers = join_all(
        buyers
            .iter()
            .zip(&requests)
            .map(|(buyer, request)| best(buyer, event.id, request.clone())),
    )
    .await;
    let mut given: HashSet<i64> = HashSet::new();
    let mut refused_naming_kept = 0;
    for (status, body) in &answers {
        match *status {
            StatusCode::CREATED => {
                for seat in ids(&body["added"]) {
                    assert!(
                        !is_kept(&facts[&seat].2),
                        "a general party got kept seat {seat} {:?}: {body}",
                        facts[&seat]
                    );
                    assert!(given.insert(seat), "seat {seat} given twice");
                }
            }
            StatusCode::CONFLICT => {
                let code = body["error"].as_str().unwrap();
                assert!(
                    code == "not_enough_seats" || code == "not_enough_seats_together",
                    "{body}"
                );
                if body["message"]
                    .as_str()
                    .unwrap()
                    .contains("kept for wheelchair users")
                {
                    refused_naming_kept += 1;
                }
            }
            other => panic!("undocumented {other}: {body}"),
        }
    }
    eprintln!("general herd: {} of 160 ordinary seats given", given.len());
    assert!(
        given.len() > 130,
        "most ordinary seats went: {}",
        given.len()
    );
    assert!(
        refused_naming_kept > 0,
        "a party refused for want of seats was told some are kept"
    );
    let kept_free = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'AVAILABLE'
               AND accessibility && ARRAY['wheelchair', 'companion']",
            event.id
        ))
        .await;
    assert_eq!(
        kept_free, 40,
        "every wheelchair space and companion seat is still free"
    );
    app.no_breaches().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_wheelchair_parties_at_once_each_get_a_space_with_its_companion_beside_it() {
    let app = spawn_app().await;
    // Two wheelchair spaces in each of 10 rows, each with its companion
    // seat on the outer side: the ordinary seat on the space's other side
    // ranks better (nearer the centre), and neither block strands a seat,
    // so only preferring companion seats puts the party's companion on one.
    let event = app
        .create_event_with(vec![section(
            "Stalls",
            10,
            20,
            &[
                (2, Flag::Companion),
                (3, Flag::Wheelchair),
                (16, Flag::Wheelchair),
                (17, Flag::Companion),
            ],
        )])
        .await;
    let facts = seat_facts(&app, event.id).await;
    let buyers: Vec<Api> = (0..20).map(|_| app.buyer()).collect();
    let sizes: Vec<i64> = (0..20).map(|i| 2 + i % 2).collect();
    let answers = join_all(
        buyers
            .iter()
            .zip(&sizes)
            .map(|(buyer, n)| best(buyer, event.id, json!({ "count": n, "wheelchair": 1 }))),
    )
    .await;
    let mut spaces: HashSet<i64> = HashSet::new();
    let mut given: HashSet<i64> = HashSet::new();
    for ((status, body), size) in answers.iter().zip(&sizes) {
        assert_eq!(*status, StatusCode::CREATED, "{body}");
        let added = ids(&body["added"]);
        assert_eq!(added.len() as i64, *size, "{body}");
        assert_eq!(body["together"], true, "{body}");
        let mut places: Vec<(i32, i32)> =
            added.iter().map(|id| (facts[id].0, facts[id].1)).collect();
        places.sort();
        assert!(
            places
                .windows(2)
                .all(|p| p[0].0 == p[1].0 && p[0].1 + 1 == p[1].1),
            "adjacent in one row: {places:?}"
        );
        let wheelchair: Vec<i64> = added
            .iter()
            .copied()
            .filter(|id| facts[id].2.iter().any(|f| f == "wheelchair"))
            .collect();
        assert_eq!(wheelchair.len(), 1, "exactly one space: {body}");
        assert!(
            added
                .iter()
                .any(|id| facts[id].2.iter().any(|f| f == "companion")),
            "its companion seat beside it: {places:?}"
        );
        spaces.insert(wheelchair[0]);
        for seat in added {
            assert!(given.insert(seat), "seat {seat} given twice");
        }
    }
    assert_eq!(spaces.len(), 20, "every space went to one party");

    // The 21st party is told there is none, in a way a program can read.
    let (status, body) = best(&app.buyer(), event.id, json!({"count": 2, "wheelchair": 1})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "no_wheelchair_space", "{body}");
    assert_eq!(body["wheelchair_spaces_free"], 0);
    app.no_breaches().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kept_seats_join_general_best_available_only_once_the_release_time_has_come() {
    let app = spawn_app().await;
    // 6 rows of 10; the front row's centre is kept, so once released it is
    // the best there is and the next party gets it.
    let mut sections = vec![section("Stalls", 6, 10, &[])];
    sections[0].rows[0].flags = vec![
        (3, Flag::Companion),
        (4, Flag::Wheelchair),
        (5, Flag::Wheelchair),
        (6, Flag::Companion),
    ];
    let event = app.create_event_with(sections).await;
    // The release is moved in the database, not waited for by the clock:
    // first an hour away, while 25 single-seat parties come at once; then
    // just past, and 25 more.
    let release_in = |secs: i64| {
        let app = &app;
        async move {
            app.sql()
                .await
                .query_one(
                    "UPDATE events SET accessible_release_secs =
                            floor(extract(epoch FROM starts_at - now()))::int - $2::int
                      WHERE id = $1
                     RETURNING starts_at - make_interval(secs => accessible_release_secs)",
                    &[&event.id, &(secs as i32)],
                )
                .await
                .unwrap()
                .get::<_, OffsetDateTime>(0)
        }
    };
    let herd = |count: usize| {
        let app = &app;
        async move {
            let buyers: Vec<Api> = (0..count).map(|_| app.buyer()).collect();
            let answers = join_all(
                buyers
                    .iter()
                    .map(|buyer| best(buyer, event.id, json!({ "count": 1 }))),
            )
            .await;
            for (status, body) in &answers {
                assert_eq!(*status, StatusCode::CREATED, "{body}");
            }
        }
    };
    let kept_given = || {
        let app = &app;
        async move {
            app.count(&format!(
                "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'HELD'
                    AND accessibility && ARRAY['wheelchair', 'companion']",
                event.id
            ))
            .await
        }
    };
    release_in(3600).await;
    herd(25).await;
    assert_eq!(
        kept_given().await,
        0,
        "no kept seat went before the release"
    );
    let release_at = release_in(-1).await;
    assert!(release_at <= OffsetDateTime::now_utc());
    herd(25).await;
    assert_eq!(
        kept_given().await,
        4,
        "once released, the best seats went first"
    );
    // Each hold that got a kept seat was made (its transaction's now(), the
    // clock the claim judged the release by) after the release.
    let early = app
        .count(&format!(
            "SELECT count(*) FROM holds h JOIN seats s ON s.hold_id = h.id
              WHERE h.event_id = {} AND s.accessibility && ARRAY['wheelchair', 'companion']
                AND h.created_at < '{}'::timestamptz",
            event.id,
            crate::support::rfc3339(release_at)
        ))
        .await;
    assert_eq!(early, 0);
}

#[tokio::test]
async fn staff_release_and_re_hold_by_hand_audited_and_see_the_counts() {
    let app = spawn_app().await;
    let mut sections = vec![section("Stalls", 2, 6, &[])];
    sections[0].rows[0].flags = vec![(2, Flag::Wheelchair), (3, Flag::Companion)];
    let event = app.create_event_with(sections).await;
    let facts = seat_facts(&app, event.id).await;
    let clerk = staff(&app, "clerk").await;

    let (status, body) = clerk
        .get(&format!(
            "/api/staff/events/{}/accessible-seating",
            event.id
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["release"], "auto");
    assert_eq!(body["held_back_now"], true);
    assert_eq!(body["release_at"], Value::Null);

    // Released by hand: a general party of 2 gets the front row's centre.
    let (status, body) = put_settings(&clerk, event.id, json!({"release": "released"})).await;
    assert_eq!(
        (status, body["held_back_now"].clone()),
        (StatusCode::OK, json!(false)),
        "{body}"
    );
    let (status, first) = best(&app.buyer(), event.id, json!({"count": 2})).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert!(
        ids(&first["added"]).iter().all(|id| is_kept(&facts[id].2)),
        "{first}"
    );

    // Held again (with every seat free again): the next general party of
    // 2 gets ordinary seats only.
    app.sql()
        .await
        .execute(
            "UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL
              WHERE event_id = $1",
            &[&event.id],
        )
        .await
        .unwrap();
    let (status, _) = put_settings(&clerk, event.id, json!({"release": "held"})).await;
    assert_eq!(status, StatusCode::OK);
    let buyer = app.buyer();
    let (status, second) = best(&buyer, event.id, json!({"count": 2})).await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    assert!(
        ids(&second["added"])
            .iter()
            .all(|id| !is_kept(&facts[id].2)),
        "{second}"
    );

    // By time: 30 days before a start a week away is already past.
    let (status, body) = put_settings(
        &clerk,
        event.id,
        json!({"release": "auto", "release_before_start_secs": 30 * 86400}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["held_back_now"], false);
    assert!(body["release_at"].is_string());
    let (_, body) = put_settings(
        &clerk,
        event.id,
        json!({"release": "auto", "release_before_start_secs": 86400}),
    )
    .await;
    assert_eq!(body["held_back_now"], true, "{body}");

    for bad in [
        json!({"release": "sometimes"}),
        json!({"release": "auto", "release_before_start_secs": -1}),
        json!({"release": "auto", "release_before_start_secs": 31_536_001}),
    ] {
        let (status, body) = put_settings(&clerk, event.id, bad.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert_eq!(body["error"], "invalid_accessible_seating");
    }
    let (status, _) = put_settings(&app.buyer(), event.id, json!({"release": "held"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let audited = app
        .count(&format!(
            "SELECT count(*) FROM audit_log WHERE event_id = {} AND action = 'set_accessible_seating'
               AND staff_id IS NOT NULL",
            event.id
        ))
        .await;
    assert_eq!(audited, 4, "every change is in the audit log");

    // The console's form does the same; a by-hand choice keeps the time
    // for when "auto" comes back.
    let response = console_action(
        &clerk,
        event.id,
        &format!("/staff/events/{}/accessible-seating", event.id),
        &[("release", "released"), ("release_hours", "")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (_, body) = clerk
        .get(&format!(
            "/api/staff/events/{}/accessible-seating",
            event.id
        ))
        .await;
    assert_eq!(
        (
            body["release"].clone(),
            body["release_before_start_secs"].clone()
        ),
        (json!("released"), json!(86400))
    );

    // Counts: one wheelchair space sold, its companion seat held.
    let sold = app.buyer();
    let (status, mine) = sold.hold(event.id, &[event.seat_ids[2]]).await;
    assert_eq!(status, StatusCode::CREATED, "{mine}");
    let (status, order) = sold
        .purchase(&mine["hold_id"], "Ada", "ada@example.test")
        .await;
    assert!(status.is_success(), "{order}");
    let (status, held) = app.buyer().hold(event.id, &[event.seat_ids[3]]).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");
    let (_, body) = clerk
        .get(&format!(
            "/api/staff/events/{}/accessible-seating",
            event.id
        ))
        .await;
    let counts = body["counts"].as_array().unwrap();
    let of = |kind: &str| counts.iter().find(|c| c["kind"] == kind).unwrap().clone();
    assert_eq!(
        (
            of("wheelchair")["sold"].clone(),
            of("wheelchair")["free"].clone()
        ),
        (json!(1), json!(0))
    );
    assert_eq!(
        (
            of("companion")["held"].clone(),
            of("companion")["free"].clone()
        ),
        (json!(1), json!(0))
    );
    let (_, report) = page(&clerk, &format!("/staff/events/{}/report", event.id)).await;
    assert!(
        report.contains("Wheelchair spaces</td><td>1</td>"),
        "{report}"
    );
}

#[tokio::test]
async fn a_wheelchair_party_is_told_what_exists_when_nothing_fits() {
    let app = spawn_app().await;
    let mut circle = section("Circle", 2, 4, &[]);
    // Row A: two spaces at the ends of a 4-seat row; a party of 4 with one
    // wheelchair user can't sit together there (the block would hold both).
    circle.rows[0].flags = vec![
        (0, Flag::Wheelchair),
        (1, Flag::Companion),
        (3, Flag::Wheelchair),
    ];
    let event = app
        .create_event_with(vec![section("Stalls", 2, 6, &[]), circle])
        .await;
    let facts = seat_facts(&app, event.id).await;
    let buyer = app.buyer();

    let (status, body) = best(
        &buyer,
        event.id,
        json!({"count": 2, "wheelchair": 1, "section": "Stalls"}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "no_wheelchair_space", "{body}");
    assert_eq!(body["elsewhere"], json!([{"section": "Circle", "free": 2}]));
    assert!(
        body["message"].as_str().unwrap().contains("Circle (2)"),
        "{body}"
    );

    let (status, body) = best(&buyer, event.id, json!({"count": 4, "wheelchair": 1})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "wheelchair_not_together", "{body}");
    assert_eq!(body["wheelchair_spaces_free"], 2);

    // Apart: one space, and the best three other seats.
    let (status, body) = best(
        &buyer,
        event.id,
        json!({"count": 4, "wheelchair": 1, "together": false}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let added = ids(&body["added"]);
    let spaces = added
        .iter()
        .filter(|id| facts[id].2.iter().any(|f| f == "wheelchair"))
        .count();
    assert_eq!((added.len(), spaces), (4, 1), "{body}");

    // More wheelchair users than people, or fewer than none: 422.
    for wheelchair in [3, -1] {
        let (status, body) = best(
            &buyer,
            event.id,
            json!({"count": 2, "wheelchair": wheelchair}),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["error"], "invalid_count");
    }
}

#[tokio::test]
async fn a_party_can_ask_to_avoid_a_restricted_view() {
    let app = spawn_app().await;
    let mut sections = vec![section("Stalls", 2, 4, &[])];
    sections[0].rows[0].flags = (0..4).map(|p| (p, Flag::RestrictedView)).collect();
    let event = app.create_event_with(sections).await;
    let facts = seat_facts(&app, event.id).await;
    let (status, plain) = best(&app.buyer(), event.id, json!({"count": 2})).await;
    assert_eq!(status, StatusCode::CREATED, "{plain}");
    assert!(
        ids(&plain["added"]).iter().all(|id| facts[id].0 == 0),
        "front row first: {plain}"
    );
    let (status, clear) = best(
        &app.buyer(),
        event.id,
        json!({"count": 2, "avoid_restricted_view": true}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{clear}");
    assert!(
        ids(&clear["added"]).iter().all(|id| facts[id].0 == 1),
        "{clear}"
    );
}

#[tokio::test]
async fn the_map_asks_before_a_kept_seat_is_picked_and_its_form_asks_for_spaces() {
    let app = spawn_app().await;
    let mut sections = vec![section("Stalls", 2, 6, &[])];
    sections[0].rows[1].flags = vec![
        (0, Flag::Wheelchair),
        (1, Flag::Companion),
        (5, Flag::StepFree),
    ];
    let event = app.create_event_with(sections).await;
    let buyer = app.buyer();
    let path = format!("/events/{}", event.id);
    let (status, html) = page(&buyer, &path).await;
    assert_eq!(status, StatusCode::OK);
    let space = event.seat_ids[6];
    let button = html
        .split("<button")
        .find(|b| b.contains(&format!("id=\"seat-{space}\"")))
        .unwrap();
    assert!(
        button.contains(
            "data-confirm-pick=\"This is a wheelchair space. Is it for a wheelchair user?\""
        ),
        "{button}"
    );
    let ordinary = event.seat_ids[2];
    let plain = html
        .split("<button")
        .find(|b| b.contains(&format!("id=\"seat-{ordinary}\"")))
        .unwrap();
    assert!(!plain.contains("data-confirm-pick"), "{plain}");
    assert!(html.contains("<option value=\"step_free\">step-free access</option>"));
    let (_, filtered) = page(&buyer, &format!("{path}?feature=step_free")).await;
    assert!(filtered.contains("want-step-free"));

    // The form: a party of 2 with a wheelchair user gets the space and its
    // companion seat.
    let token = csrf_from(&buyer, &path).await;
    let response = buyer
        .http
        .post(format!("{}{path}/best", buyer.base))
        .form(&[
            ("csrf", token.as_str()),
            ("count", "2"),
            ("wheelchair", "1"),
        ])
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success() || response.status().is_redirection());
    let held: Vec<i64> = app
        .sql()
        .await
        .query(
            "SELECT id FROM seats WHERE event_id = $1 AND status = 'HELD' ORDER BY id",
            &[&event.id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(held, vec![event.seat_ids[6], event.seat_ids[7]]);
}
