//! Hostile layouts (issue 44): a refusal stays small whatever the input,
//! and so does the server's memory; what is stored reads back; a section
//! too big for one page is shown a part at a time; a flag is kept once, a
//! CSV is read as spreadsheets write it, and an ETag is matched exactly.

use reqwest::StatusCode;
use reqwest::header::IF_MATCH;
use serde_json::{Value, json};

use crate::staff::{PASSWORD, create_staff_as, sign_in_attempt, staff};
use crate::support::{Api, RunningBinary, spawn_app};
use seatmap::domain::layout::{RowSpec, SectionSpec};
use seatmap::domain::role::Role;

/// The most a layout refusal may be, whatever was sent: 200 problems of a
/// bounded size each (the server's stated bound is well under this).
const MAX_REFUSAL_BYTES: usize = 256 * 1024;

/// A section of rows of seats: `seats` each row, every seat of `tier`.
fn section(name: &str, rows: usize, seats: usize, tier: &str) -> Value {
    json!({"name": name, "rows": (0..rows).map(|r| json!({
        "label": format!("R{r}"),
        "seats": (0..seats).map(|s| json!({"label": (s + 1).to_string(), "tier": tier}))
            .collect::<Vec<_>>(),
    })).collect::<Vec<_>>()})
}

fn layout_with(sections: Vec<Value>) -> Value {
    json!({"name": "Hostile Hall", "tiers": [{"code": "std", "name": "Standard"}],
           "sections": sections})
}

/// The worst inputs found for each validator, smallest first (the memory's
/// high-water mark only grows, so each case is charged what it added).
fn worst_inputs() -> Vec<(&'static str, &'static str, String)> {
    let long = "N".repeat(200_000);
    // The case: a 200 kB section name and 1,000 seats of an
    // unknown tier, each problem once quoting the name.
    let long_section = layout_with(vec![section(&long, 1, 1000, "nope")]);
    // A 200 kB tier name laid out by a `count` row: a thousand seats, each
    // once a copy of it.
    let long_tier = layout_with(vec![json!({"name": "Stalls", "rows": [
        {"label": "A", "count": 1000, "tier": long}]})]);
    // A million seats from 40 kB: a thousand rows of a thousand.
    let million = layout_with(vec![
        json!({"name": "Floor", "rows": (0..1000).map(|r| json!({
        "label": format!("R{r}"), "count": 1000, "tier": "nope"})).collect::<Vec<_>>()}),
    ]);
    // A field the format doesn't know, named by 200 kB.
    let mut unknown_field = layout_with(vec![]);
    unknown_field[long.as_str()] = json!(1);
    // Every seat refused twice over, in a body of 8 MB.
    let big = layout_with(vec![section("Big", 250, 1000, "nope")]);
    let csv_header = format!("{long}\nA,1,1,0,0,std,\n");
    let csv_names: String = std::iter::once("section,row,seat,x,y,tier,flags\n".to_string())
        .chain((0..1000).map(|i| format!("{long},{i},1,0,0,std,\n")))
        .take(40)
        .collect();
    vec![
        ("a long CSV header", "csv", csv_header),
        ("CSV lines of long names", "csv", csv_names),
        ("an unknown 200 kB field", "json", unknown_field.to_string()),
        ("a long section name", "json", long_section.to_string()),
        ("a long tier name laid out", "json", long_tier.to_string()),
        ("a million seats", "json", million.to_string()),
        ("8 MB of refused seats", "json", big.to_string()),
    ]
}

/// Each validator's answer to each worst input is a 4xx of bounded size,
/// and the server's memory grows by no more than a small multiple of what
/// it was sent.
#[tokio::test]
async fn a_layout_refusal_stays_small_whatever_is_sent_and_so_does_the_server() {
    let app = spawn_app().await;
    create_staff_as(&app, "manager", Role::Manager).await;
    let server = RunningBinary::start(&app, &[]).await;
    let manager = Api::new(&server.base);
    assert_eq!(
        sign_in_attempt(&manager, "manager", PASSWORD)
            .await
            .status(),
        StatusCode::SEE_OTHER
    );
    let venue_id = {
        let (status, body) = manager
            .post(
                "/api/staff/venues",
                layout_with(vec![section("Stalls", 2, 4, "std")]),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["id"].as_i64().unwrap()
    };
    let mut peak = server.peak_memory_kb();
    let started_at = peak;
    let mut report = vec![format!("start: VmHWM {started_at} kB")];
    let mut wrong = Vec::new();
    for (case, kind, body) in worst_inputs() {
        let file_name = if kind == "csv" {
            "hall.csv"
        } else {
            "hall.json"
        };
        let mut answers = Vec::new();
        let requests = [
            (reqwest::Method::POST, "/api/staff/venues".to_string()),
            (
                reqwest::Method::PUT,
                format!("/api/staff/venues/{venue_id}/layout"),
            ),
            (
                reqwest::Method::POST,
                format!("/api/staff/layouts/read?file_name={file_name}"),
            ),
        ];
        for (method, path) in requests {
            // The JSON API takes JSON only; the file reader takes either.
            if kind == "csv" && !path.contains("layouts/read") {
                continue;
            }
            let response = manager
                .http
                .request(method.clone(), format!("{}{path}", server.base))
                .header(
                    "content-type",
                    if path.contains("layouts/read") {
                        "text/plain"
                    } else {
                        "application/json"
                    },
                )
                .header(IF_MATCH, "*")
                .body(body.clone())
                .send()
                .await
                .unwrap();
            let status = response.status();
            let answer = response.bytes().await.unwrap().len();
            if !status.is_client_error() {
                wrong.push(format!("{case}: {method} {path} answered {status}"));
            }
            if answer > MAX_REFUSAL_BYTES {
                wrong.push(format!(
                    "{case}: {method} {path}: a {} byte request got a {answer} byte answer",
                    body.len()
                ));
            }
            answers.push(answer);
        }
        let now = server.peak_memory_kb();
        // Each case may cost a small multiple of what it sent (and the
        // first parse's thread heaps, up to 64 MB).
        let grown = ((now - peak) * 1024) as usize;
        if grown > (64 << 20).max(24 * body.len()) {
            wrong.push(format!(
                "{case}: a {} byte request grew the peak by {} MB",
                body.len(),
                grown >> 20
            ));
        }
        report.push(format!(
            "{case}: request {} B, answers {answers:?} B, VmHWM +{} kB",
            body.len(),
            now - peak
        ));
        peak = now;
    }
    eprintln!("{}", report.join("\n"));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // What the largest request may cost is a small multiple of it (a
    // layout's types hold more than its text, and each thread that parses
    // one keeps its own heap): before this bound, a 230 kB request cost
    // 1.2 GB and a 1 MB one would have cost tens.
    let largest = worst_inputs()
        .iter()
        .map(|(_, _, body)| body.len())
        .max()
        .unwrap();
    let grown = ((peak - started_at) * 1024) as usize;
    assert!(
        grown <= 32 * largest,
        "the server's peak memory grew by {} MB for requests of at most {} MB:\n{}",
        grown / 1_000_000,
        largest / 1_000_000,
        report.join("\n")
    );
}

/// Sections at x = −1000 and 99,990 are moved right past the coordinate
/// limit when placed: refused before saving, not stored unreadable. The
/// extremes that are accepted read back, save back unchanged, and open.
#[tokio::test]
async fn a_layout_is_stored_only_if_its_stored_form_reads_back() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let placed = |x: f64| {
        let mut s = section("S", 1, 2, "std");
        s["name"] = json!(format!("S{x}"));
        s["position"] = json!({"x": x, "y": 100});
        s
    };
    let (status, body) = manager
        .post(
            "/api/staff/venues",
            layout_with(vec![placed(-1000.0), placed(99_990.0)]),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["problems"].to_string().contains("100000"),
        "the refusal names the limit: {body}"
    );

    let long_name = "Ä".repeat(200);
    // Every limit at its extreme, each accepted but "turned and curved",
    // which spans 200,000 once placed, past what reads back.
    let mut extremes = vec![
        ("the far corner", layout_with(vec![placed(99_900.0)])),
        ("the far left", layout_with(vec![placed(-100_000.0)])),
        ("names at their longest", {
            let mut s = section(&long_name, 1, 2, "std");
            s["rows"][0]["label"] = json!("R".repeat(16));
            s["rows"][0]["seats"][0]["label"] = json!("9".repeat(16));
            let mut l = layout_with(vec![s]);
            l["name"] = json!(long_name);
            l
        }),
        ("turned and curved", {
            let mut s = json!({"name": "Turned", "rotation": -360, "curve": 100_000,
                               "position": {"x": 50_000, "y": 50_000},
                               "rows": [{"label": "A", "count": 1000, "tier": "std"}]});
            s["outline"] = json!([[-100000, -100000], [100000, -100000], [100000, 100000]]);
            layout_with(vec![s])
        }),
        ("a crowd", {
            let mut l = layout_with(vec![]);
            l["ga_areas"] = json!([{"name": "Floor", "tier": "std", "capacity": 1_000_000,
                                    "outline": [[0, 0], [100000, 0], [100000, 100000]]}]);
            l["labels"] = json!([{"text": "Bar", "x": 100000, "y": 100000}]);
            l["stage"] = json!({"outline": [[0, 0], [100000, 0], [100000, 10]]});
            l
        }),
        ("ranked last", {
            let mut s = section("R", 1, 1, "std");
            s["rows"][0]["seats"][0]["rank"] = json!(i32::MAX);
            s["rows"][0]["seats"][0]["x"] = json!(99_000);
            s["rows"][0]["seats"][0]["y"] = json!(-99_000);
            layout_with(vec![s])
        }),
    ];
    for (i, (case, layout)) in extremes.drain(..).enumerate() {
        let accepted = case != "turned and curved";
        let mut layout = layout;
        // Names of their own, kept within the longest a name may be.
        let name = format!("{i} {}", layout["name"].as_str().unwrap());
        layout["name"] = json!(name.chars().take(200).collect::<String>());
        let (status, body) = manager.post("/api/staff/venues", layout.clone()).await;
        if !accepted {
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{case}: {body}");
            continue;
        }
        assert_eq!(status, StatusCode::CREATED, "{case}: {body}");
        let venue_id = body["id"].as_i64().unwrap();
        let stored = manager
            .http
            .get(format!(
                "{}/api/staff/venues/{venue_id}/layout",
                manager.base
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(stored.status(), StatusCode::OK, "{case}");
        let stored: Value = stored.json().await.unwrap();
        let saved_back = manager
            .http
            .put(format!(
                "{}/api/staff/venues/{venue_id}/layout",
                manager.base
            ))
            .header(IF_MATCH, "\"v1\"")
            .json(&stored)
            .send()
            .await
            .unwrap();
        assert_eq!(
            saved_back.status(),
            StatusCode::OK,
            "{case}: the stored layout saved back unchanged: {}",
            saved_back.text().await.unwrap()
        );
        for page in [
            format!("/staff/venues/{venue_id}"),
            format!("/staff/venues/{venue_id}/preview"),
        ] {
            let response = manager
                .http
                .get(format!("{}{page}", manager.base))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{case}: {page}");
        }
    }
}

/// A 100,000-seat section is shown a part at a time, each part within the
/// budget of a page of the arena's sections; the parts together show
/// every row.
#[tokio::test]
async fn a_section_too_big_for_a_page_is_shown_a_part_at_a_time() {
    let app = spawn_app().await;
    let event = app
        .create_event_with(vec![SectionSpec {
            name: "Field".into(),
            rows: (0..100)
                .map(|i| RowSpec {
                    label: format!("R{i}"),
                    seats: 1000,
                    tier: "std".into(),
                    ..Default::default()
                })
                .collect(),
            curve: None,
            side_blocks: None,
        }])
        .await;
    let section: i64 = app
        .sql()
        .await
        .query_one("SELECT id FROM sections WHERE event_id = $1", &[&event.id])
        .await
        .unwrap()
        .get(0);
    let buyer = app.buyer();
    let first = buyer
        .get_text(&format!("/events/{}?section={section}", event.id))
        .await;
    let seats_shown = first.matches("<button id=\"seat-").count();
    eprintln!(
        "a 100,000-seat section's first page: {} bytes, {seats_shown} seats",
        first.len()
    );
    assert!(
        (1..=2000).contains(&seats_shown),
        "{seats_shown} seats on one page"
    );
    assert!(first.len() <= 2_000_000, "{} bytes", first.len());
    assert!(
        first.contains("R0"),
        "the first part starts at the front row"
    );
    // The last part is linked, and shows the last row.
    let last_part = first
        .match_indices("part=")
        .filter_map(|(at, _)| {
            first[at + 5..]
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<u32>()
                .ok()
        })
        .max()
        .expect("the page links its other parts");
    let last = buyer
        .get_text(&format!(
            "/events/{}?section={section}&part={last_part}",
            event.id
        ))
        .await;
    assert!(last.matches("<button id=\"seat-").count() <= 2000);
    assert!(
        last.contains(&format!("seat-{}\"", event.seat_ids.last().unwrap())),
        "the last part shows the section's last seat"
    );
}

/// A flag repeated is one flag; a CSV with quoted fields and a spreadsheet's
/// byte-order mark reads; an If-Match is matched as the exact tag issued.
#[tokio::test]
async fn flags_are_kept_once_csv_is_read_as_written_and_etags_match_exactly() {
    let app = spawn_app().await;
    let manager = staff(&app, "manager").await;
    let mut flagged = section("Stalls", 1, 2, "std");
    flagged["rows"][0]["seats"][0]["flags"] = json!(vec!["aisle"; 1000]);
    let (status, body) = manager
        .post("/api/staff/venues", layout_with(vec![flagged]))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let venue_id = body["id"].as_i64().unwrap();
    let stored: Value = manager
        .http
        .get(format!(
            "{}/api/staff/venues/{venue_id}/layout",
            manager.base
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let seats = &stored["sections"][0]["rows"][0]["seats"];
    assert_eq!(seats[0]["flags"], json!(["aisle"]), "{stored}");

    let csv = "\u{feff}section,row,seat,x,y,tier,flags\n\
               \"Stalls, left\",A,1,0,0,std,aisle\n\
               \"Stalls, left\",A,2,30,0,std,\"aisle|step_free\"\n";
    let response = manager
        .http
        .post(format!(
            "{}/api/staff/layouts/read?file_name=hall.csv",
            manager.base
        ))
        .header("content-type", "text/plain")
        .body(csv)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let read: Value = response.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["sections"][0]["name"], "Stalls, left", "{read}");
    assert_eq!(
        read["sections"][0]["rows"][0]["seats"][1]["flags"],
        json!(["aisle", "step_free"])
    );

    for (tag, expected) in [
        ("\"v01\"", StatusCode::PRECONDITION_FAILED),
        ("\"v+1\"", StatusCode::PRECONDITION_FAILED),
        ("\"v1\"", StatusCode::OK),
    ] {
        let response = manager
            .http
            .put(format!(
                "{}/api/staff/venues/{venue_id}/layout",
                manager.base
            ))
            .header(IF_MATCH, tag)
            .json(&stored)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), expected, "If-Match: {tag}");
    }
}
