//! The door offline: the list a device keeps (hashes, never codes), and
//! the batches devices send when they are back online. The server still
//! admits each ticket once; what two gates both let in, or a refunded
//! ticket let in, is recorded and shown to both.

use futures::future::join_all;
use hmac::{Hmac, Mac};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::Sha256;

use crate::after_sale::buy;
use crate::staff::{staff, staff_as};
use crate::support::{Api, TestApp, id_segment, spawn_app};
use seatmap::domain::role::Role;

fn codes(order: &Value) -> Vec<String> {
    order["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["code"].as_str().unwrap().to_string())
        .collect()
}

/// The hash a device computes (door-offline.js), written here again from
/// the documented rule, not taken from the app's code: HMAC-SHA256 of the
/// code under the list's key, first 16 bytes, lowercase hex.
pub fn hash_for(key_hex: &str, code: &str) -> String {
    device_hash(key_hex, code)
}

fn device_hash(key_hex: &str, code: &str) -> String {
    let key: Vec<u8> = (0..key_hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&key_hex[i..i + 2], 16).unwrap())
        .collect();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(code.as_bytes());
    mac.finalize().into_bytes()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn door_list(door: &Api, event_id: i64) -> Value {
    let (status, list) = door
        .get(&format!("/api/staff/events/{event_id}/door-list"))
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list
}

async fn send_batch(
    door: &Api,
    event_id: i64,
    device: &str,
    scans: &[(&str, &str, &str)],
) -> (StatusCode, Value) {
    door.post(
        &format!("/api/staff/events/{event_id}/admissions/batch"),
        json!({
            "device": device,
            "scans": scans.iter().map(|(hash, gate, at)| json!({"hash": hash, "gate": gate, "scanned_at": at})).collect::<Vec<_>>(),
        }),
    )
    .await
}

struct Door {
    app: TestApp,
    event_id: i64,
    codes: Vec<String>,
    order: Value,
    gate_a: Api,
    gate_b: Api,
    /// The devices the server issued to each gate's account.
    device_a: String,
    device_b: String,
    key: String,
}

async fn door() -> Door {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..3], None).await;
    let gate_a = staff_as(&app, "gate-a", Role::Door).await;
    let gate_b = staff_as(&app, "gate-b", Role::Door).await;
    let list = door_list(&gate_a, event.id).await;
    let device_a = issued_device(&gate_a).await;
    let device_b = issued_device(&gate_b).await;
    Door {
        device_a,
        device_b,
        event_id: event.id,
        codes: codes(&order),
        order,
        gate_a,
        gate_b,
        key: list["key"].as_str().unwrap().to_string(),
        app,
    }
}

/// The list names every ticket by its hash and place, and never carries
/// a code; a device's hash of a scanned code finds its ticket.
#[tokio::test]
async fn the_door_list_holds_hashes_a_device_can_match_and_no_code() {
    let d = door().await;
    let (status, list) = d
        .gate_a
        .get(&format!("/api/staff/events/{}/door-list", d.event_id))
        .await;
    assert_eq!(status, StatusCode::OK);
    let text = list.to_string();
    for code in &d.codes {
        assert!(!text.contains(code.as_str()), "a code is in the list");
        assert!(
            !text.contains(&code[code.len() - 8..]),
            "part of a code is in the list"
        );
    }
    let tickets = list["tickets"].as_array().unwrap();
    assert_eq!(tickets.len(), 3);
    for code in &d.codes {
        let hash = device_hash(&d.key, code);
        let ticket = tickets
            .iter()
            .find(|t| t["hash"] == hash.as_str())
            .unwrap_or_else(|| panic!("{hash} is not in the list"));
        assert_eq!(ticket["state"], "valid");
        assert!(ticket["place"].as_str().unwrap().contains("row"));
    }
    // Another event's list has another key.
    let other = d.app.create_event(1, 2).await;
    assert_ne!(door_list(&d.gate_a, other.id).await["key"], list["key"]);
}

/// Two gates both let one ticket in while offline. However their batches
/// arrive, the server holds one admission (the first batch's), the other
/// is recorded as "admitted twice" naming both gates in time order, and
/// both gates see it in their next list. Sending a batch again records
/// nothing new.
#[tokio::test]
async fn two_gates_admitting_one_ticket_offline_leave_one_admission_and_a_conflict_both_see() {
    let d = door().await;
    let hash = device_hash(&d.key, &d.codes[0]);
    // Each device's scan time, as it keeps it (a batch sent again
    // carries the same).
    let (a_at, b_at) = (at_minute(2), at_minute(5));
    let (status, a) = send_batch(
        &d.gate_a,
        d.event_id,
        &d.device_a,
        &[(&hash, "Gate A", &a_at)],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert_eq!(a["results"][0]["result"], "admitted");
    let (_, b) = send_batch(
        &d.gate_b,
        d.event_id,
        &d.device_b,
        &[(&hash, "Gate B", &b_at)],
    )
    .await;
    assert_eq!(b["results"][0]["result"], "admitted_twice", "{b}");
    let message = b["results"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("Admitted twice: "), "{message}");
    let (at_a, at_b) = (
        message.find("Gate A").unwrap(),
        message.find("Gate B").unwrap(),
    );
    assert!(at_a < at_b, "in time order: {message}");

    let admissions: Vec<(String, String)> = d
        .app
        .sql()
        .await
        .query(
            "SELECT admitted_gate, admitted_device FROM tickets WHERE admitted_at IS NOT NULL",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(admissions, [("Gate A".to_string(), d.device_a.clone())]);
    // Both gates are told, in their lists.
    for gate in [&d.gate_a, &d.gate_b] {
        let list = door_list(gate, d.event_id).await;
        assert_eq!(list["conflicts"].as_array().unwrap().len(), 1);
        assert_eq!(list["conflicts"][0]["message"], message);
    }
    // A batch sent again (its answer lost) changes nothing.
    let (_, again_b) = send_batch(
        &d.gate_b,
        d.event_id,
        &d.device_b,
        &[(&hash, "Gate B", &b_at)],
    )
    .await;
    assert_eq!(again_b["results"][0]["result"], "admitted_twice");
    let (_, again_a) = send_batch(
        &d.gate_a,
        d.event_id,
        &d.device_a,
        &[(&hash, "Gate A", &a_at)],
    )
    .await;
    assert_eq!(
        again_a["results"][0]["result"], "admitted",
        "the device's own admission, sent again"
    );
    assert_eq!(
        d.app.count("SELECT count(*) FROM door_conflicts").await,
        1,
        "re-sent batches record nothing new"
    );
    // And the report shows it.
    let manager = staff(&d.app, "boss").await;
    let report = manager
        .get_text(&format!("/staff/events/{}/report", d.event_id))
        .await;
    assert!(report.contains("Admitted twice: "), "the report lists it");
}

/// Many devices sync one ticket's offline admission at the same moment:
/// the same conditional statement as online scans lets exactly one admit
/// it; every other is a recorded conflict.
#[tokio::test]
async fn twelve_devices_syncing_one_ticket_at_once_admit_it_exactly_once() {
    let d = door().await;
    let hash = device_hash(&d.key, &d.codes[1]);
    let answers = join_all((0..12).map(|i| {
        let gate = d.gate_a.clone();
        let hash = hash.clone();
        let event_id = d.event_id;
        async move {
            let device = issued_device(&gate).await;
            let gate_name = format!("Gate {i}");
            let at = at_minute(10 + i);
            send_batch(&gate, event_id, &device, &[(&hash, &gate_name, &at)]).await
        }
    }))
    .await;
    let mut admitted = 0;
    for (status, answer) in &answers {
        assert_eq!(*status, StatusCode::OK, "{answer}");
        match answer["results"][0]["result"].as_str().unwrap() {
            "admitted" => admitted += 1,
            "admitted_twice" => {}
            other => panic!("{other}"),
        }
    }
    assert_eq!(admitted, 1);
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL")
            .await,
        1
    );
    assert_eq!(d.app.count("SELECT count(*) FROM door_conflicts").await, 11);
}

/// A ticket refunded while a device was offline, and let in by it, is
/// reported; it stays refunded and unadmitted.
#[tokio::test]
async fn a_ticket_refunded_while_a_device_was_offline_is_reported() {
    let d = door().await;
    let manager = staff(&d.app, "boss").await;
    let (status, refund) = manager
        .post(
            &format!(
                "/api/staff/events/{}/orders/{}/refund",
                d.event_id,
                id_segment(&d.order["order_id"])
            ),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{refund}");
    let hash = device_hash(&d.key, &d.codes[2]);
    let (_, answer) = send_batch(
        &d.gate_b,
        d.event_id,
        &d.device_b,
        &[(&hash, "Gate B", &at_minute(5))],
    )
    .await;
    assert_eq!(answer["results"][0]["result"], "refunded", "{answer}");
    assert!(
        answer["conflicts"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Refunded ticket let in: ")
    );
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL")
            .await,
        0
    );
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM tickets WHERE voided_at IS NOT NULL")
            .await,
        3,
        "still refunded"
    );
    for gate in [&d.gate_a, &d.gate_b] {
        let list = door_list(gate, d.event_id).await;
        assert_eq!(list["conflicts"][0]["kind"], "refunded", "{list}");
    }
}

/// An online scan from a device, then the same device's offline admission
/// of that ticket sent later (it had not heard back): no conflict.
#[tokio::test]
async fn a_devices_own_online_admission_is_no_conflict_when_its_offline_copy_arrives() {
    let d = door().await;
    let page = d
        .gate_a
        .get_text(&format!("/staff/events/{}/door", d.event_id))
        .await;
    let token =
        crate::pages::csrf_from(&d.gate_a, &format!("/staff/events/{}/door", d.event_id)).await;
    assert!(page.contains("data-door-device"));
    let response = crate::staff::post_form(
        &d.gate_a,
        &format!("/staff/events/{}/door/scan", d.event_id),
        &[
            ("csrf", &token),
            ("code", &d.codes[0]),
            ("gate", "Gate A"),
            ("device", &d.device_a),
        ],
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let device: String = d
        .app
        .sql()
        .await
        .query_one(
            "SELECT admitted_device FROM tickets WHERE code = $1",
            &[&d.codes[0]],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(device, d.device_a, "the online scan names its device");
    let hash = device_hash(&d.key, &d.codes[0]);
    let (_, answer) = send_batch(
        &d.gate_a,
        d.event_id,
        &d.device_a,
        &[(&hash, "Gate A", &minutes_ago(0))],
    )
    .await;
    assert_eq!(answer["results"][0]["result"], "admitted", "{answer}");
    assert_eq!(d.app.count("SELECT count(*) FROM door_conflicts").await, 0);
}

/// Bad batches are 422s that say what is wrong, and change nothing; an
/// unknown hash is "unknown"; buyers and no one else can send one.
#[tokio::test]
async fn bad_batches_are_refused_and_unknown_hashes_are_unknown() {
    let d = door().await;
    let good = device_hash(&d.key, &d.codes[0]);
    let at_text = at_minute(2);
    let at = at_text.as_str();
    let too_many: Vec<(&str, &str, &str)> = (0..501).map(|_| (good.as_str(), "A", at)).collect();
    for (device, scans) in [
        ("", vec![(good.as_str(), "A", at)]),
        ("bad device!", vec![(good.as_str(), "A", at)]),
        ("dv_notissued", vec![(good.as_str(), "A", at)]),
        (d.device_a.as_str(), vec![("XYZ", "A", at)]),
        (d.device_a.as_str(), vec![(good.as_str(), "A", "yesterday")]),
        (d.device_a.as_str(), vec![(good.as_str(), "", at)]),
        (d.device_a.as_str(), too_many),
    ] {
        let (status, body) = send_batch(&d.gate_a, d.event_id, device, &scans).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{device}: {body}");
    }
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL")
            .await,
        0
    );
    let (_, unknown) = send_batch(
        &d.gate_a,
        d.event_id,
        &d.device_a,
        &[(&"0".repeat(32), "A", at)],
    )
    .await;
    assert_eq!(unknown["results"][0]["result"], "unknown");
    let (status, _) =
        send_batch(&d.app.buyer(), d.event_id, &d.device_a, &[(&good, "A", at)]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = send_batch(&d.gate_a, 987654, &d.device_a, &[(&good, "A", at)]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The later scan's batch may arrive first: then the server's admission
/// is that gate's, and the message still names both gates in time order.
#[tokio::test]
async fn batches_arriving_out_of_time_order_keep_the_first_arrival_and_tell_it_in_time_order() {
    let d = door().await;
    let hash = device_hash(&d.key, &d.codes[0]);
    let (_, b) = send_batch(
        &d.gate_b,
        d.event_id,
        &d.device_b,
        &[(&hash, "Gate B", &at_minute(5))],
    )
    .await;
    assert_eq!(b["results"][0]["result"], "admitted", "{b}");
    let (_, a) = send_batch(
        &d.gate_a,
        d.event_id,
        &d.device_a,
        &[(&hash, "Gate A", &at_minute(2))],
    )
    .await;
    assert_eq!(a["results"][0]["result"], "admitted_twice", "{a}");
    let message = a["results"][0]["message"].as_str().unwrap();
    assert!(
        message.find("Gate A").unwrap() < message.find("Gate B").unwrap(),
        "{message}"
    );
    let gate: String = d
        .app
        .sql()
        .await
        .query_one(
            "SELECT admitted_gate FROM tickets WHERE code = $1",
            &[&d.codes[0]],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(gate, "Gate B", "the first to arrive holds the admission");
}

/// A device id the server issues to this caller (the door page asks for
/// one when it first loads).
pub async fn issued_device(door: &Api) -> String {
    let (status, body) = door.post("/api/staff/door-devices", json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["device"].as_str().unwrap().to_string()
}

/// A scan time half an hour ago plus `minute` minutes: the times a test's
/// gates scan at, in the order their minutes give.
fn at_minute(minute: i64) -> String {
    minutes_ago(30 - minute)
}

fn minutes_ago(minutes: i64) -> String {
    crate::support::rfc3339(time::OffsetDateTime::now_utc() - time::Duration::minutes(minutes))
}

/// Hostile traffic, round three: the server names devices, a device name
/// made up or borrowed from another account is refused, and every repeat
/// admission of an admitted ticket is a conflict unless it is the same
/// device's same admission sent again; a scan time far from the event is
/// refused and recorded; each fetch of the door list is audited.
#[tokio::test]
async fn repeat_admissions_are_conflicts_whatever_device_they_name_and_times_are_bounded() {
    let d = door().await;
    let hash = device_hash(&d.key, &d.codes[0]);
    let first_at = minutes_ago(10);
    // A name the server never issued is refused.
    let (status, body) = send_batch(
        &d.gate_a,
        d.event_id,
        "gate-A",
        &[(&hash, "Gate A", &first_at)],
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let device_a = issued_device(&d.gate_a).await;
    let device_b = issued_device(&d.gate_b).await;
    assert_ne!(device_a, device_b);
    let (status, body) = send_batch(
        &d.gate_a,
        d.event_id,
        &device_a,
        &[(&hash, "Gate A", &first_at)],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["results"][0]["result"], "admitted");
    // Another account can't speak as gate A's device.
    let (status, body) = send_batch(
        &d.gate_b,
        d.event_id,
        &device_a,
        &[(&hash, "Gate B", &minutes_ago(5))],
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    // The same batch again is no conflict.
    let (_, again) = send_batch(
        &d.gate_a,
        d.event_id,
        &device_a,
        &[(&hash, "Gate A", &first_at)],
    )
    .await;
    assert_eq!(again["results"][0]["result"], "admitted", "{again}");
    assert_eq!(d.app.count("SELECT count(*) FROM door_conflicts").await, 0);
    // Gate A's own device name from another gate and time, six times:
    // six conflicts.
    for minutes in 1..=6 {
        let (_, replay) = send_batch(
            &d.gate_a,
            d.event_id,
            &device_a,
            &[(&hash, "Gate C", &minutes_ago(minutes))],
        )
        .await;
        assert_eq!(replay["results"][0]["result"], "admitted_twice", "{replay}");
    }
    assert_eq!(d.app.count("SELECT count(*) FROM door_conflicts").await, 6);
    // The same device at the same gate, but well past its admission's
    // time (not the same scan sent again): a conflict too.
    let (_, later) = send_batch(
        &d.gate_a,
        d.event_id,
        &device_a,
        &[(&hash, "Gate A", &minutes_ago(0))],
    )
    .await;
    assert_eq!(later["results"][0]["result"], "admitted_twice", "{later}");
    assert_eq!(d.app.count("SELECT count(*) FROM door_conflicts").await, 7);
    // A scan at the dawn of time admits nothing, and is recorded.
    let other = device_hash(&d.key, &d.codes[1]);
    let (status, body) = send_batch(
        &d.gate_b,
        d.event_id,
        &device_b,
        &[(&other, "Gate B", "0001-01-01T00:00:00Z")],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["results"][0]["result"], "out_of_window", "{body}");
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL")
            .await,
        1
    );
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM door_conflicts WHERE kind = 'out_of_window'")
            .await,
        1
    );
    // Each fetch of the list is in the audit log, with who fetched it.
    let before = d
        .app
        .count("SELECT count(*) FROM audit_log WHERE action = 'door_list_fetched'")
        .await;
    door_list(&d.gate_b, d.event_id).await;
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM audit_log WHERE action = 'door_list_fetched' AND staff_id IS NOT NULL")
            .await,
        before + 1
    );
    // No one without the door's rights gets it: a buyer, a read key, a sell key.
    let (status, _) = d
        .app
        .buyer()
        .get(&format!("/api/staff/events/{}/door-list", d.event_id))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    for scope in ["read", "sell"] {
        let key = crate::api_keys::make_key(&d.app, &format!("k-{scope}"), scope).await;
        let response = crate::support::http_client()
            .get(format!(
                "{}/api/staff/events/{}/door-list",
                d.app.base, d.event_id
            ))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{scope} key");
    }
}

/// A door device whose account was signed out, or disabled (a phone lost
/// with its list), admits nobody: its batch is refused before anything is
/// looked up, and the tickets stay unadmitted (docs/box-office.md).
#[tokio::test]
async fn a_signed_out_or_disabled_door_device_admits_nobody() {
    let d = door().await;
    let hash = device_hash(&d.key, &d.codes[0]);
    // Signed out on the device: its batch is a 401.
    let token = crate::pages::csrf_from(&d.gate_b, "/staff").await;
    crate::staff::post_form(&d.gate_b, "/staff/logout", &[("csrf", &token)]).await;
    let (status, _) = send_batch(
        &d.gate_b,
        d.event_id,
        &d.device_b,
        &[(&hash, "Gate B", &minutes_ago(1))],
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Its account disabled by an admin: the device's session ends at once.
    let admin = staff_as(&d.app, "root", Role::Admin).await;
    let gate_a_id: i64 = d
        .app
        .sql()
        .await
        .query_one("SELECT id FROM staff WHERE name = 'gate-a'", &[])
        .await
        .unwrap()
        .get(0);
    let token = crate::pages::csrf_from(&admin, "/staff/accounts").await;
    let disabled = crate::staff::post_form(
        &admin,
        &format!("/staff/accounts/{gate_a_id}/disable"),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(disabled.status(), StatusCode::SEE_OTHER);
    let (status, _) = send_batch(
        &d.gate_a,
        d.event_id,
        &d.device_a,
        &[(&hash, "Gate A", &minutes_ago(1))],
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        d.app
            .count("SELECT count(*) FROM tickets WHERE admitted_at IS NOT NULL")
            .await,
        0,
        "nobody was admitted"
    );
}
