//! The waitlist: joining a sold-out event, freed seats kept for waiting
//! parties (a general claim is told `waitlist_first`), offers made in join
//! order by a worker that two instances can run at once, and an offer
//! lapsing while its buyer pays.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::staff::{staff, staff_as};
use crate::support::{Api, TestApp, spawn_app_with};
use seatmap::db::waitlist_offers::offer_pass;
use seatmap::domain::ids::EventId;
use seatmap::domain::role::Role;

const OFFER: Duration = Duration::from_secs(1800);

/// An app whose offer worker doesn't run by itself: the tests run its
/// passes, as one instance or two.
async fn app() -> TestApp {
    spawn_app_with(|c| {
        c.waitlist.every = None;
        // These tests join many parties from one loopback address; the
        // per-address cap has a test of its own.
        c.waitlist.entries_per_client = 1_000;
    })
    .await
}

/// Every seat of the event held, a row per buyer (a hold has at most 10
/// seats); the buyers, with their holds' ids.
async fn sell_out(
    app: &TestApp,
    event_id: i64,
    seats: &[i64],
    per_row: usize,
) -> Vec<(Api, String)> {
    let mut holders = Vec::new();
    for row in seats.chunks(per_row) {
        let buyer = app.buyer();
        let (status, hold) = buyer.hold(event_id, row).await;
        assert_eq!(status, StatusCode::CREATED, "{hold}");
        holders.push((buyer, hold["hold_id"].as_str().unwrap().to_string()));
    }
    holders
}

/// Joins, and confirms the address as the link in the party's mail would
/// (tested on its own in the last test): a party these tests make waits
/// for offers.
async fn join(app: &TestApp, buyer: &Api, event_id: i64, body: Value) -> (StatusCode, Value) {
    let (status, joined) = join_unconfirmed(buyer, event_id, body).await;
    if status == StatusCode::CREATED {
        app.sql()
            .await
            .execute(
                "UPDATE waitlist_entries SET confirmed_at = now() WHERE id = $1::text::uuid",
                &[&joined["entry_id"].as_str().unwrap()],
            )
            .await
            .unwrap();
    }
    (status, joined)
}

async fn join_unconfirmed(buyer: &Api, event_id: i64, body: Value) -> (StatusCode, Value) {
    buyer
        .post(&format!("/api/events/{event_id}/waitlist"), body)
        .await
}

/// Each seat's (row, position), for adjacency.
async fn geometry(app: &TestApp, event_id: i64) -> HashMap<i64, (i32, i32)> {
    app.sql()
        .await
        .query(
            "SELECT id, row_index, position FROM seats WHERE event_id = $1",
            &[&event_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get::<_, i64>(0), (r.get(1), r.get(2))))
        .collect()
}

async fn pass(app: &TestApp, event_id: i64) -> seatmap::db::waitlist_offers::Pass {
    offer_pass(&app.pool, EventId(event_id), OFFER)
        .await
        .unwrap()
}

#[tokio::test]
async fn joining_needs_a_sold_out_event_and_a_freed_seat_goes_to_the_waitlist_first() {
    let app = app().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let fan = app.buyer();
    // Seats are on sale: joining is refused, saying how many.
    let (status, body) = join(
        &app,
        &fan,
        event.id,
        json!({"count": 2, "email": "fan@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "not_sold_out");
    let holders = sell_out(&app, event.id, s, 4).await;
    // Bad input is a 422 that says what.
    for bad in [
        json!({"count": 0, "email": "fan@example.com"}),
        json!({"count": 2, "email": "not an address"}),
        json!({"count": 2, "email": "fan@example.com", "section": "Nowhere"}),
        json!({"count": 2, "email": "fan@example.com", "max_price_cents": -1}),
    ] {
        let (status, body) = join(&app, &fan, event.id, bad.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }
    let (status, joined) = join(
        &app,
        &fan,
        event.id,
        json!({"count": 2, "together": true, "email": "fan@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{joined}");
    assert_eq!(joined["position"], 1);
    let (status, again) = join(
        &app,
        &fan,
        event.id,
        json!({"count": 3, "email": "other@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "one place per buyer: {again}");
    assert_eq!(again["error"], "already_waiting");
    let (status, again) = join(
        &app,
        &app.buyer(),
        event.id,
        json!({"count": 1, "email": "FAN@example.com"}),
    )
    .await;
    assert_eq!(
        again["error"], "already_waiting",
        "one place per address: {status}"
    );
    let (status, second) = join(
        &app,
        &app.buyer(),
        event.id,
        json!({"count": 1, "email": "b@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    assert_eq!(second["position"], 2);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'waitlist_joined'")
            .await,
        2,
        "each party is mailed its place"
    );

    // A seat comes free: a general buyer can't have it.
    let (owner, hold_id) = &holders[0];
    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[1]))
        .await;
    assert!(status.is_success());
    let general = app.buyer();
    let (status, refused) = general.hold(event.id, &[s[1]]).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "waitlist_first");
    let (status, refused) = general
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({"best_available": {"count": 1}}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "waitlist_first");

    // The party of 2 doesn't fit one seat; the party of 1 behind it is
    // offered it, and the party of 2 keeps its place.
    let done = pass(&app, event.id).await;
    assert_eq!(done.offered.len(), 1);
    let clerk = staff_as(&app, "clerk", Role::BoxOffice).await;
    let (status, list) = clerk
        .get(&format!("/api/staff/events/{}/waitlist", event.id))
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list[0]["status"], "waiting");
    assert_eq!(list[0]["position"], 1);
    assert_eq!(list[1]["status"], "offered");
    assert_eq!(list[1]["offer"]["seat_ids"], json!([s[1]]));
    // A door account can't see it.
    let door = staff_as(&app, "gate", Role::Door).await;
    let (status, _) = door
        .get(&format!("/api/staff/events/{}/waitlist", event.id))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // Paused, the waitlist keeps nothing: a freed seat is on general sale.
    let manager = staff(&app, "boss").await;
    let token = crate::pages::csrf_from(&manager, &format!("/staff/events/{}", event.id)).await;
    let response = crate::staff::post_form(
        &manager,
        &format!("/staff/events/{}/waitlist/pause", event.id),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[2]))
        .await;
    let (status, held) = general.hold(event.id, &[s[2]]).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");

    // Leaving: only the party that joined may, through the API.
    let entry = joined["entry_id"].as_str().unwrap();
    let (status, _) = general
        .delete(&format!("/api/events/{}/waitlist/{entry}", event.id))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, left) = fan
        .delete(&format!("/api/events/{}/waitlist/{entry}", event.id))
        .await;
    assert_eq!(status, StatusCode::OK, "{left}");
    assert_eq!(left["status"], "left");
}

/// Whether `count` seats fit in `free`: side by side in one row when
/// `together`, anywhere otherwise.
fn fits(
    free: &HashSet<i64>,
    geometry: &HashMap<i64, (i32, i32)>,
    count: usize,
    together: bool,
) -> bool {
    if !together {
        return free.len() >= count;
    }
    let spots: HashSet<(i32, i32)> = free.iter().map(|id| geometry[id]).collect();
    spots
        .iter()
        .any(|&(row, pos)| (0..count as i32).all(|k| spots.contains(&(row, pos + k))))
}

/// 60 parties of 1 to 4 wait for a sold-out event of 100 seats; 20 seats
/// are freed at once in scattered places while 100 general buyers hammer
/// exactly those seats. No general buyer gets one; two instances' offer
/// passes run together; no seat is offered twice; parties that asked to
/// sit together are side by side; and no party that fitted what was free
/// at its turn was passed over for one behind it.
#[tokio::test]
async fn freed_seats_go_to_waiting_parties_in_order_while_a_herd_hammers_them() {
    let app = app().await;
    let event = app.create_event(10, 10).await;
    let s = event.seat_ids.clone();
    let holders = sell_out(&app, event.id, &s, 10).await;
    let geometry = geometry(&app, event.id).await;

    let mut parties = Vec::new();
    for i in 0..60 {
        let count = 1 + (i * 7 % 4) as i64;
        let together = i % 3 != 0;
        let (status, joined) = join(
            &app,
            &app.buyer(),
            event.id,
            json!({"count": count, "together": together, "email": format!("p{i}@example.com")}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{joined}");
        parties.push((
            joined["entry_id"].as_str().unwrap().to_string(),
            count as usize,
            together,
        ));
    }

    // 20 seats in scattered places: a few runs of 2 or 3, and singles.
    let freed: Vec<i64> = [
        (0, 2),
        (0, 3),
        (1, 7),
        (2, 0),
        (2, 1),
        (2, 2),
        (3, 5),
        (4, 9),
        (5, 4),
        (5, 5),
        (6, 1),
        (6, 8),
        (7, 3),
        (7, 4),
        (7, 5),
        (8, 0),
        (8, 9),
        (9, 2),
        (9, 6),
        (9, 7),
    ]
    .iter()
    .map(|&(row, pos)| s[row * 10 + pos])
    .collect();
    let releases = freed.iter().map(|seat| {
        let row = s.iter().position(|x| x == seat).unwrap() / 10;
        let (owner, hold_id) = holders[row].clone();
        let seat = *seat;
        async move {
            let (status, body) = owner
                .delete(&format!("/api/holds/{hold_id}/seats/{seat}"))
                .await;
            assert!(status.is_success(), "{body}");
        }
    });
    let herd = (0..100).map(|i| {
        let buyer = app.buyer();
        let seats = freed.clone();
        async move {
            let mut answers = Vec::new();
            for k in 0..3 {
                let seat = seats[(i * 3 + k) % seats.len()];
                let (status, body) = buyer.hold(event.id, &[seat]).await;
                answers.push((status, body["error"].as_str().unwrap_or("").to_string()));
            }
            answers
        }
    });
    let (_, answers) = tokio::join!(join_all(releases), join_all(herd));
    let mut waitlist_first = 0;
    for (status, error) in answers.into_iter().flatten() {
        assert_eq!(
            status,
            StatusCode::CONFLICT,
            "a general buyer got a freed seat"
        );
        assert!(
            error == "waitlist_first" || error == "seats_unavailable",
            "{error}"
        );
        waitlist_first += usize::from(error == "waitlist_first");
    }
    assert!(
        waitlist_first > 0,
        "some buyers came after the seats were freed"
    );

    // Two instances pass over the waitlist at once, until a pass that ran
    // offers nothing more (the queue's lock lets one of them run).
    for round in 0.. {
        assert!(round < 20, "the passes never settled");
        let (a, b) = tokio::join!(pass(&app, event.id), pass(&app, event.id));
        if (a.ran || b.ran) && a.offered.is_empty() && b.offered.is_empty() {
            break;
        }
    }

    // What each party was offered, in join order.
    let offers: Vec<(String, String, Vec<i64>)> = app
        .sql()
        .await
        .query(
            "SELECT w.id::text, w.status, coalesce(array_agg(s.id ORDER BY s.id)
                                                   FILTER (WHERE s.id IS NOT NULL), '{}')
               FROM waitlist_entries w LEFT JOIN seats s ON s.hold_id = w.hold_id
              WHERE w.event_id = $1 GROUP BY w.id, w.joined_seq ORDER BY w.joined_seq",
            &[&event.id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(offers.len(), 60);
    let mut free: HashSet<i64> = freed.iter().copied().collect();
    let mut offered_seats = HashSet::new();
    let mut offered = 0;
    for ((entry, status, seats), (id, count, together)) in offers.iter().zip(&parties) {
        assert_eq!(entry, id);
        if status == "offered" {
            offered += 1;
            assert_eq!(seats.len(), *count, "{entry}");
            for seat in seats {
                assert!(free.contains(seat), "{seat} was not free for {entry}");
                assert!(offered_seats.insert(*seat), "{seat} offered twice");
                free.remove(seat);
            }
            if *together {
                let mut spots: Vec<(i32, i32)> = seats.iter().map(|id| geometry[id]).collect();
                spots.sort();
                assert!(
                    spots
                        .windows(2)
                        .all(|w| w[0].0 == w[1].0 && w[1].1 == w[0].1 + 1),
                    "{entry} asked to sit together: {spots:?}"
                );
            }
        } else {
            assert_eq!(status, "waiting");
            assert!(
                !fits(&free, &geometry, *count, *together),
                "{entry} ({count}, together {together}) fitted what was free at its turn and was passed over"
            );
        }
    }
    assert!(offered >= 8, "only {offered} parties were offered seats");
    // Every hold on a freed seat is an offer's: no general buyer has one.
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM seats s JOIN holds h ON h.id = s.hold_id
              WHERE s.id = ANY(ARRAY{freed:?}::bigint[]) AND s.status = 'HELD'
                AND h.expires_at > now()
                AND NOT EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.hold_id = h.id)"
        ))
        .await,
        0
    );
    app.no_breaches().await;
}

/// Two workers pass over one waitlist at the same moment, again and
/// again: each party gets one offer at most, and never two holds.
#[tokio::test]
async fn two_workers_at_once_make_each_party_one_offer() {
    let app = spawn_app_with(|c| {
        c.waitlist.every = None;
        c.waitlist.entries_per_client = 1_000;
        // The first worker waits on the test's lock: the test's timeout.
        c.db.lock_timeout = Duration::from_secs(60);
        c.db.statement_timeout = Duration::from_secs(90);
    })
    .await;
    let event = app.create_event(2, 10).await;
    let s = event.seat_ids.clone();
    let holders = sell_out(&app, event.id, &s, 10).await;
    for i in 0..8 {
        let (status, joined) = join(
            &app,
            &app.buyer(),
            event.id,
            json!({"count": 1, "email": format!("w{i}@example.com")}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{joined}");
    }
    for (k, (owner, hold_id)) in holders.iter().enumerate() {
        for seat in &s[k * 10..k * 10 + 3] {
            let (status, _) = owner
                .delete(&format!("/api/holds/{hold_id}/seats/{seat}"))
                .await;
            assert!(status.is_success());
        }
    }
    // Forced overlap: the first worker is inside its pass (the event's
    // queue row taken) and held there by a lock of the test's on holds;
    // a second worker arriving then must skip the event, not wait for it
    // nor walk the parties beside it.
    let mut locker = app.own_connection().await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE holds IN EXCLUSIVE MODE")
        .await
        .unwrap();
    let first = tokio::spawn({
        let pool = app.pool.clone();
        async move { offer_pass(&pool, EventId(event.id), OFFER).await.unwrap() }
    });
    app.lock_waiter("holds").await;
    let second = tokio::time::timeout(Duration::from_secs(20), pass(&app, event.id))
        .await
        .expect("a second worker waited for the first instead of skipping its event");
    assert!(
        !second.ran,
        "a second worker walked the queue beside the first"
    );
    lock.commit().await.unwrap();
    let first = first.await.unwrap();
    assert!(first.ran);
    assert_eq!(first.offered.len(), 6, "{first:?}");
    // And again unforced, many at once: still one offer each.
    for _ in 0..5 {
        join_all((0..4).map(|_| pass(&app, event.id))).await;
    }
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM waitlist_entries WHERE event_id = {} AND status = 'offered'",
            event.id
        ))
        .await,
        6
    );
    assert_eq!(
        app.count(
            "SELECT count(*) FROM (SELECT buyer_id FROM holds GROUP BY event_id, buyer_id
                                   HAVING count(*) > 1) twice"
        )
        .await,
        0,
        "no party (or buyer) has two holds"
    );
}

/// The offer's signed link gives its hold to the browser that opens it;
/// the party buys; the next pass marks the offer accepted, and the report
/// counts the seats the waitlist sold.
#[tokio::test]
async fn an_offer_opened_from_its_link_is_bought_and_counted() {
    let app = app().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let holders = sell_out(&app, event.id, s, 4).await;
    let fan = app.buyer();
    let (_, joined) = join(
        &app,
        &fan,
        event.id,
        json!({"count": 2, "email": "fan@example.com"}),
    )
    .await;
    let entry: Uuid = joined["entry_id"].as_str().unwrap().parse().unwrap();
    let (owner, hold_id) = &holders[0];
    let (status, _) = owner.delete(&format!("/api/holds/{hold_id}")).await;
    assert!(status.is_success());
    assert_eq!(pass(&app, event.id).await.offered.len(), 1);

    // The link in the offer's mail opens the party's page, in another
    // browser; its button takes the offer. A link alone takes nothing.
    let until = time::OffsetDateTime::now_utc() + time::Duration::days(1);
    let page =
        app.state
            .links
            .key
            .sign_waitlist(seatmap::domain::ids::WaitlistEntryId(entry), "", until);
    let phone = app.buyer();
    let page_path = format!("/waitlist/{entry}?until={}&sig={}", page.until, page.sig);
    let html = phone.get_text(&page_path).await;
    assert!(html.contains("See and buy your seats"), "{html}");
    let forged = phone
        .http
        .get(format!(
            "{}/waitlist/{entry}?until={}&sig=00",
            app.base, page.until
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(
        forged.status(),
        StatusCode::NOT_FOUND,
        "a bad signature opens nothing"
    );
    let take = app.state.links.key.sign_waitlist(
        seatmap::domain::ids::WaitlistEntryId(entry),
        "/offer",
        until,
    );
    let token = crate::pages::csrf_from(&phone, &page_path).await;
    let with_page_sig = crate::staff::post_form(
        &phone,
        &format!(
            "/waitlist/{entry}/offer?until={}&sig={}",
            page.until, page.sig
        ),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(
        with_page_sig.status(),
        StatusCode::NOT_FOUND,
        "the page's signature takes nothing"
    );
    let opened = crate::staff::post_form(
        &phone,
        &format!(
            "/waitlist/{entry}/offer?until={}&sig={}",
            take.until, take.sig
        ),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(opened.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        opened.headers()["location"],
        format!("/events/{}", event.id).as_str()
    );
    // Taken once: another browser can't take it away.
    let thief = app.buyer();
    let thief_token = crate::pages::csrf_from(&thief, &page_path).await;
    let stolen = crate::staff::post_form(
        &thief,
        &format!(
            "/waitlist/{entry}/offer?until={}&sig={}",
            take.until, take.sig
        ),
        &[("csrf", &thief_token)],
    )
    .await;
    assert_eq!(stolen.status(), StatusCode::CONFLICT);
    let seats = phone.seats(event.id).await;
    let hold = &seats["hold"];
    assert_eq!(
        hold["seat_ids"].as_array().unwrap().len(),
        2,
        "the party's 2: {seats}"
    );
    let (status, order) = phone
        .purchase(&hold["hold_id"], "Fan", "fan@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let done = pass(&app, event.id).await;
    assert_eq!(done.accepted, 1);
    let summary = seatmap::db::waitlist::summary(&app.sql().await, EventId(event.id))
        .await
        .unwrap();
    assert_eq!(summary.seats_sold, 2);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'waitlist_offer'")
            .await,
        1
    );
}

/// An offer runs out at the moment its buyer pays. Forced both ways: the
/// payment reaches the seats first (it passed the hold's check before the
/// deadline) and wins, the next party gets nothing; or the worker passes
/// first after the deadline, the next party gets the seats, and the
/// payment is refused as expired. Never both, never neither.
#[tokio::test]
async fn an_offer_lapsing_while_its_buyer_pays_has_one_winner_either_way() {
    for pay_first in [true, false] {
        // The payment waits on a seat the test holds past the deadline:
        // longer than the usual lock timeout.
        let app = spawn_app_with(|c| {
            c.waitlist.every = None;
            c.db.lock_timeout = Duration::from_secs(30);
            c.db.statement_timeout = Duration::from_secs(30);
        })
        .await;
        let event = app.create_event(1, 2).await;
        let s = &event.seat_ids;
        let holders = sell_out(&app, event.id, s, 2).await;
        let first = app.buyer();
        let (one, _) = join(
            &app,
            &first,
            event.id,
            json!({"count": 1, "email": "one@example.com"}),
        )
        .await;
        let (two, _) = join(
            &app,
            &app.buyer(),
            event.id,
            json!({"count": 1, "email": "two@example.com"}),
        )
        .await;
        assert_eq!((one, two), (StatusCode::CREATED, StatusCode::CREATED));
        let (owner, hold_id) = &holders[0];
        let (status, _) = owner
            .delete(&format!("/api/holds/{hold_id}/seats/{}", s[0]))
            .await;
        assert!(status.is_success());
        // Paying first, the payment must pass the hold's check before the
        // offer runs out by the clock (its purchase then holds the hold's
        // lock, so the test can't move the expiry): long enough to take
        // the offer and start paying on a loaded machine. The other way
        // round, the offer is lapsed in the database, no clock waited on.
        let short = if pay_first {
            Duration::from_secs(15)
        } else {
            OFFER
        };
        let offered = offer_pass(&app.pool, EventId(event.id), short)
            .await
            .unwrap();
        assert_eq!(offered.offered.len(), 1);
        let (entry, offer_hold) = offered.offered[0];
        let until = time::OffsetDateTime::now_utc() + time::Duration::days(1);
        let page = app.state.links.key.sign_waitlist(entry, "", until);
        let take = app.state.links.key.sign_waitlist(entry, "/offer", until);
        let token = crate::pages::csrf_from(
            &first,
            &format!("/waitlist/{entry}?until={}&sig={}", page.until, page.sig),
        )
        .await;
        let taken = crate::staff::post_form(
            &first,
            &format!(
                "/waitlist/{entry}/offer?until={}&sig={}",
                take.until, take.sig
            ),
            &[("csrf", &token)],
        )
        .await;
        assert_eq!(taken.status(), StatusCode::SEE_OTHER, "the offer is taken");

        let (paid, second_offer) = if pay_first {
            // The payment passes the hold's check, then waits on the seat
            // the test holds; the deadline passes; the worker finds the
            // seat locked and skips it; the payment goes on and wins.
            let mut locker = app.own_connection().await;
            let lock = locker.transaction().await.unwrap();
            lock.execute("SELECT 1 FROM seats WHERE id = $1 FOR UPDATE", &[&s[0]])
                .await
                .unwrap();
            let paying = {
                let first = first.clone();
                let hold = json!(offer_hold.0.to_string());
                tokio::spawn(async move { first.purchase(&hold, "One", "one@example.com").await })
            };
            app.lock_waiter("UPDATE seats").await;
            // Past the offer's own expiry, by the database's clock.
            let expires: time::OffsetDateTime = app
                .sql()
                .await
                .query_one(
                    "SELECT expires_at FROM holds WHERE id = $1",
                    &[&offer_hold.0],
                )
                .await
                .unwrap()
                .get(0);
            let left = (expires - time::OffsetDateTime::now_utc()).max(time::Duration::ZERO);
            tokio::time::sleep(Duration::try_from(left).unwrap() + Duration::from_millis(300))
                .await;
            let during = pass(&app, event.id).await;
            lock.rollback().await.unwrap();
            let (status, _) = paying.await.unwrap();
            (status, during.offered.len())
        } else {
            app.lapse_hold(&json!(offer_hold.0.to_string())).await;
            let after = pass(&app, event.id).await;
            let (status, answer) = first
                .purchase(&json!(offer_hold.0.to_string()), "One", "one@example.com")
                .await;
            assert_eq!(answer["error"], "hold_expired", "{answer}");
            (status, after.offered.len())
        };
        let sold = app
            .count(&format!(
                "SELECT count(*) FROM seats WHERE id = {} AND status = 'SOLD'",
                s[0]
            ))
            .await;
        // The pass that ran while the payment waited must not have called
        // the offer lapsed (its purchase held the hold's lock).
        let settle = pass(&app, event.id).await;
        let statuses: Vec<String> = app
            .sql()
            .await
            .query(
                "SELECT status FROM waitlist_entries WHERE event_id = $1 ORDER BY joined_seq",
                &[&event.id],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let lapsed_mail = app
            .count("SELECT count(*) FROM outbox WHERE kind = 'waitlist_lapsed'")
            .await;
        if pay_first {
            assert_eq!(
                paid,
                StatusCode::CREATED,
                "the payment that came first wins"
            );
            assert_eq!(second_offer, 0, "the next party is offered nothing");
            assert_eq!(sold, 1);
            assert_eq!(settle.accepted, 1);
            assert_eq!(statuses, ["accepted", "waiting"]);
            assert_eq!(lapsed_mail, 0, "a paid offer is never called lapsed");
        } else {
            assert_eq!(paid, StatusCode::GONE, "the late payment is refused");
            assert_eq!(second_offer, 1, "the next party is offered the seat");
            assert_eq!(sold, 0);
            assert_eq!(statuses, ["lapsed", "offered"]);
            assert_eq!(lapsed_mail, 1);
        }
        app.no_breaches().await;
    }
}

/// A party waiting for one section keeps nothing in another: best
/// available and picks there work as if nobody waited. Nor does the
/// waitlist keep a wheelchair space (offers never give one).
#[tokio::test]
async fn a_party_waiting_for_one_section_keeps_nothing_elsewhere_nor_wheelchair_spaces() {
    use seatmap::domain::layout::Flag;
    let app = app().await;
    let event = app
        .create_event_with(vec![
            crate::accessible::section("Stalls", 1, 4, &[(1, Flag::Wheelchair)]),
            crate::accessible::section("Balcony", 1, 4, &[]),
        ])
        .await;
    let s = event.seat_ids.clone();
    let holders = sell_out(&app, event.id, &s, 4).await;
    let (status, joined) = join(
        &app,
        &app.buyer(),
        event.id,
        json!({"count": 1, "section": "Balcony", "email": "b@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{joined}");
    for (owner, hold_id) in &holders {
        let (status, _) = owner.delete(&format!("/api/holds/{hold_id}")).await;
        assert!(status.is_success());
    }
    let (status, found) = app
        .buyer()
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({"best_available": {"count": 2, "section": "Stalls"}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "Stalls is nobody's: {found}");
    let (status, refused) = app
        .buyer()
        .post(
            &format!("/api/events/{}/holds", event.id),
            json!({"best_available": {"count": 1, "section": "Balcony"}}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "waitlist_first");
    // The wheelchair space (Stalls, seat 1) is never the waitlist's.
    let (status, held) = app.buyer().hold(event.id, &[s[0]]).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");
}

/// An offer that runs out: its party may join again at the back, once,
/// from its page; a manager's clear takes every waiting party off, and a
/// pause then resume brings the waitlist's hold on freed seats back.
#[tokio::test]
async fn a_lapsed_party_rejoins_once_and_staff_clear_pause_and_resume() {
    let app = app().await;
    let event = app.create_event(1, 4).await;
    let s = event.seat_ids.clone();
    let holders = sell_out(&app, event.id, &s, 4).await;
    let fan = app.buyer();
    let (_, joined) = join(
        &app,
        &fan,
        event.id,
        json!({"count": 1, "email": "fan@example.com"}),
    )
    .await;
    let entry: Uuid = joined["entry_id"].as_str().unwrap().parse().unwrap();
    let (owner, hold_id) = &holders[0];
    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[0]))
        .await;
    assert!(status.is_success());
    let offered = offer_pass(&app.pool, EventId(event.id), Duration::from_secs(1))
        .await
        .unwrap();
    assert_eq!(offered.offered.len(), 1);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(pass(&app, event.id).await.lapsed, 1);

    // The party's page offers a rejoin; it puts the party at the back.
    let until = time::OffsetDateTime::now_utc() + time::Duration::days(1);
    let page =
        app.state
            .links
            .key
            .sign_waitlist(seatmap::domain::ids::WaitlistEntryId(entry), "", until);
    let page_path = format!("/waitlist/{entry}?until={}&sig={}", page.until, page.sig);
    let html = fan.get_text(&page_path).await;
    assert!(html.contains("Join again at the back"), "{html}");
    let rejoin = app.state.links.key.sign_waitlist(
        seatmap::domain::ids::WaitlistEntryId(entry),
        "/rejoin",
        until,
    );
    let rejoin_path = format!(
        "/waitlist/{entry}/rejoin?until={}&sig={}",
        rejoin.until, rejoin.sig
    );
    let token = crate::pages::csrf_from(&fan, &page_path).await;
    let first = crate::staff::post_form(&fan, &rejoin_path, &[("csrf", &token)]).await;
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    let again = crate::staff::post_form(&fan, &rejoin_path, &[("csrf", &token)]).await;
    assert_eq!(again.status(), StatusCode::CONFLICT, "once only");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM waitlist_entries WHERE event_id = {} AND status = 'waiting'",
            event.id
        ))
        .await,
        1
    );

    // Cleared by a manager: nobody waits, and a freed seat is on sale.
    let manager = staff(&app, "boss").await;
    let console = format!("/staff/events/{}", event.id);
    let token = crate::pages::csrf_from(&manager, &console).await;
    let form = |action: &str| format!("/staff/events/{}/waitlist/{action}", event.id);
    let cleared = crate::staff::post_form(&manager, &form("clear"), &[("csrf", &token)]).await;
    assert_eq!(cleared.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM waitlist_entries WHERE event_id = {} AND status = 'waiting'",
            event.id
        ))
        .await,
        0
    );
    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[1]))
        .await;
    assert!(status.is_success());
    let (status, held) = app.buyer().hold(event.id, &[s[1]]).await;
    assert_eq!(status, StatusCode::CREATED, "nobody waits: {held}");

    // Paused and resumed: while someone waits again, freed seats are kept.
    // (The lapsed offer's seat is free too: a buyer takes it, so the event
    // is sold out again and the next party may join.)
    let (status, held) = app.buyer().hold(event.id, &[s[0]]).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");
    let (status, _) = join(
        &app,
        &app.buyer(),
        event.id,
        json!({"count": 1, "email": "x@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    for action in ["pause", "resume"] {
        let response = crate::staff::post_form(&manager, &form(action), &[("csrf", &token)]).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{action}");
    }
    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", s[2]))
        .await;
    assert!(status.is_success());
    let (status, refused) = app.buyer().hold(event.id, &[s[2]]).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "waitlist_first");
    let audited: Vec<String> = app
        .sql()
        .await
        .query(
            "SELECT action FROM audit_log WHERE action LIKE 'waitlist_%' ORDER BY id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        audited,
        ["waitlist_cleared", "waitlist_paused", "waitlist_resumed"]
    );
}

/// Hostile traffic, round three: one address (an IPv6 /64 alike) or one
/// sell key waits at most a few times per event, however many sessions,
/// made-up addresses or customer references it brings; and a party gets
/// no offer, nor keeps a seat from the general sale, until the address it
/// gave is confirmed from the link in its mail.
#[tokio::test]
async fn one_address_or_key_waits_a_few_times_and_only_confirmed_parties_get_offers() {
    let sink = crate::mail::SmtpSink::start("waitlist-confirm").await;
    let url = sink.url();
    let app = spawn_app_with(|c| {
        c.waitlist.every = None;
        c.mail.smtp_url = Some(seatmap::config::Secret::new(url));
        c.mail.poll_every = Duration::from_millis(50);
    })
    .await;
    let event = app.create_event(1, 4).await;
    let holders = sell_out(&app, event.id, &event.seat_ids, 2).await;
    let mut entries = Vec::new();
    for i in 0..6 {
        let (status, body) = join_unconfirmed(
            &app.buyer(),
            event.id,
            json!({"count": 1, "email": format!("flood+{i}@example.com")}),
        )
        .await;
        if i < 4 {
            assert_eq!(status, StatusCode::CREATED, "{body}");
            assert_eq!(body["status"], "unconfirmed", "{body}");
            entries.push(body["entry_id"].as_str().unwrap().to_string());
        } else {
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "entry {i}: {body}");
            assert_eq!(body["error"], "too_many_entries", "{body}");
        }
    }
    // Another address is still served.
    let neighbour = Api::from_address(&app.base, "127.0.0.2");
    let (status, body) = join_unconfirmed(
        &neighbour,
        event.id,
        json!({"count": 1, "email": "neighbour@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // A sell key's customers count against the key.
    let key = crate::api_keys::make_key(&app, "reseller", "sell").await;
    let mut created = 0;
    for i in 0..6 {
        let response = crate::support::client_builder()
            .local_address("127.0.0.3".parse::<std::net::IpAddr>().unwrap())
            .build()
            .unwrap()
            .post(format!("{}/api/events/{}/waitlist", app.base, event.id))
            .bearer_auth(&key)
            .header("x-customer-ref", format!("customer-{i}"))
            .json(&json!({"count": 1, "email": format!("c{i}@example.net")}))
            .send()
            .await
            .unwrap();
        match response.status() {
            StatusCode::CREATED => created += 1,
            StatusCode::TOO_MANY_REQUESTS => {}
            other => panic!("a key's join answered {other}"),
        }
    }
    assert_eq!(created, 4, "a key's entries per event are capped");

    // A seat comes free: nobody has confirmed, so nobody is offered it,
    // and the general sale may have it.
    let (owner, hold_id) = &holders[0];
    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", event.seat_ids[0]))
        .await;
    assert!(status.is_success());
    assert!(pass(&app, event.id).await.offered.is_empty());
    let (status, body) = app.buyer().hold(event.id, &[event.seat_ids[0]]).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "unconfirmed parties keep nothing: {body}"
    );

    // The first party's mail carries its confirmation link; the link
    // opens a page whose button confirms, and then it is offered a seat.
    let first = &entries[0];
    let mail = crate::mail::wait_for_mail_to(&sink, "flood+0@example.com").await;
    let link = mail
        .split_whitespace()
        .find(|word| word.contains(&format!("/waitlist/{first}/confirm?")))
        .unwrap_or_else(|| panic!("no confirmation link in {mail}"))
        .to_string();
    let path = &link[link.find("/waitlist/").unwrap()..];
    let party = app.buyer();
    let page = party.get_text(path).await;
    assert!(page.contains("Confirm"), "{page}");
    let token = crate::pages::csrf_from(&party, path).await;
    // A wrong signature confirms nothing.
    let forged = path.replace("sig=", "sig=0");
    let refused = crate::staff::post_form(&party, &forged, &[("csrf", &token)]).await;
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        app.count("SELECT count(*) FROM waitlist_entries WHERE confirmed_at IS NOT NULL")
            .await,
        0
    );
    let confirmed = crate::staff::post_form(&party, path, &[("csrf", &token)]).await;
    assert_eq!(confirmed.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM waitlist_entries WHERE id = '{first}' AND confirmed_at IS NOT NULL"
        ))
        .await,
        1
    );

    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", event.seat_ids[1]))
        .await;
    assert!(status.is_success());
    let offered = pass(&app, event.id).await.offered;
    assert_eq!(offered.len(), 1, "{offered:?}");
    assert_eq!(offered[0].0.to_string(), *first);
    app.no_breaches().await;
}

/// The offer worker's own loop (every instance runs it; here every
/// 100 ms): a seat freed is offered by the worker itself, with no pass
/// called by the test, and the offer's mail arrives with a link that opens
/// the party's page, whose button takes the offer.
#[tokio::test]
async fn the_workers_own_loop_offers_a_freed_seat_and_mails_a_link_that_works() {
    let sink = crate::mail::SmtpSink::start("waitlist-loop").await;
    let url = sink.url();
    let app = spawn_app_with(|c| {
        c.waitlist.every = Some(Duration::from_millis(100));
        c.mail.smtp_url = Some(seatmap::config::Secret::new(url));
        c.mail.poll_every = Duration::from_millis(50);
    })
    .await;
    let event = app.create_event(1, 2).await;
    let holders = sell_out(&app, event.id, &event.seat_ids, 2).await;
    let party = app.buyer();
    let (status, joined) = join(
        &app,
        &party,
        event.id,
        json!({"count": 1, "email": "loop@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{joined}");
    let (owner, hold_id) = &holders[0];
    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", event.seat_ids[0]))
        .await;
    assert!(status.is_success());
    // The worker finds it by itself.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while app
        .count("SELECT count(*) FROM waitlist_entries WHERE status = 'offered'")
        .await
        == 0
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the worker made no offer"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The offer's mail: its link opens the party's page, which offers the seats.
    let offer = loop {
        let mails: Vec<String> = sink
            .messages()
            .into_iter()
            .map(|m| crate::mail::unwrapped(&m))
            .filter(|m| m.contains("held for you"))
            .collect();
        if let Some(mail) = mails.into_iter().next() {
            break mail;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no offer mail arrived"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let entry = joined["entry_id"].as_str().unwrap();
    let link = offer
        .split_whitespace()
        .find(|word| word.contains(&format!("/waitlist/{entry}?")))
        .unwrap_or_else(|| panic!("no link to the party's page in {offer}"));
    let path = &link[link.find("/waitlist/").unwrap()..];
    let stranger = app.buyer();
    let page = stranger.get_text(path).await;
    assert!(page.contains("See and buy your seats"), "{page}");
    let token = crate::pages::csrf_from(&stranger, path).await;
    // The page's button is signed for its own action: found in the page.
    let take = page
        .split('"')
        .find(|part| part.starts_with(&format!("/waitlist/{entry}/offer?")))
        .map(|part| part.replace("&amp;", "&").replace("&#38;", "&"))
        .expect("the page's button to take the offer");
    let taken = crate::staff::post_form(&stranger, &take, &[("csrf", &token)]).await;
    assert_eq!(taken.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        status_of_seat(&stranger.seats(event.id).await, event.seat_ids[0]),
        "mine",
        "the offer's hold is the browser's that took it"
    );
}

fn status_of_seat(seats: &Value, seat: i64) -> String {
    seats["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == seat)
        .map(|s| s["status"].as_str().unwrap().to_string())
        .unwrap()
}

/// The box office is not bound by the waitlist (docs/box-office.md): a
/// seat the waitlist keeps from buyers is sold at the counter.
#[tokio::test]
async fn the_box_office_sells_a_seat_the_waitlist_keeps_from_buyers() {
    let app = app().await;
    let event = app.create_event(1, 2).await;
    let holders = sell_out(&app, event.id, &event.seat_ids, 2).await;
    let (status, _) = join(
        &app,
        &app.buyer(),
        event.id,
        json!({"count": 1, "email": "first@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (owner, hold_id) = &holders[0];
    let (status, _) = owner
        .delete(&format!("/api/holds/{hold_id}/seats/{}", event.seat_ids[0]))
        .await;
    assert!(status.is_success());
    let (status, body) = app.buyer().hold(event.id, &event.seat_ids[..1]).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "waitlist_first", "kept from buyers: {body}");
    let clerk = staff(&app, "clerk").await;
    let (status, sold) = clerk
        .post(
            &format!("/api/staff/events/{}/sales", event.id),
            json!({"seat_ids": [event.seat_ids[0]], "name": "At the counter", "tender": "cash"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "the counter sells it: {sold}");
    app.no_breaches().await;
}

/// The waitlist's mail is on the event's Mail page with the orders', and
/// staff can send a message that went (a party who says it never came)
/// once more, as a new message: the first one's record stays.
#[tokio::test]
async fn waitlist_mail_is_on_the_mail_page_and_sent_mail_can_be_sent_again() {
    let app = crate::support::spawn_app().await;
    let event = app.create_event(1, 2).await;
    sell_out(&app, event.id, &event.seat_ids, 2).await;
    let party = app.buyer();
    let (status, joined) = join_unconfirmed(
        &party,
        event.id,
        json!({"email": "party@example.com", "count": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{joined}");
    let clerk = crate::staff::staff_as(&app, "clerk", seatmap::domain::role::Role::BoxOffice).await;
    let mail_page = format!("/staff/events/{}/mail", event.id);
    let page = clerk.get_text(&mail_page).await;
    assert!(page.contains("<td>Waitlist place</td>"), "{page}");
    assert!(page.contains("party@example.com"), "{page}");

    // Sent: "Send again" queues a copy with its own Message-ID.
    let (id, message_id): (i64, String) = {
        let row = app
            .sql()
            .await
            .query_one(
                "UPDATE outbox SET sent_at = now() WHERE kind = 'waitlist_joined'
                 RETURNING id, message_id",
                &[],
            )
            .await
            .unwrap();
        (row.get(0), row.get(1))
    };
    let token = crate::pages::csrf_from(&clerk, &mail_page).await;
    let response = crate::staff::post_form(
        &clerk,
        &format!("{mail_page}/{id}/retry"),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let copies = app
        .sql()
        .await
        .query(
            "SELECT message_id, sent_at IS NULL FROM outbox
              WHERE kind = 'waitlist_joined' AND recipient = 'party@example.com' ORDER BY id",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(copies.len(), 2);
    assert_eq!(copies[0].get::<_, String>(0), message_id);
    assert_ne!(copies[1].get::<_, String>(0), message_id);
    assert!(copies[1].get::<_, bool>(1), "the copy waits to be sent");
    assert_eq!(
        app.count(
            "SELECT count(*) FROM audit_log WHERE action = 'send_mail_again'
                AND detail LIKE '%to party@example.com'"
        )
        .await,
        1
    );
    // Another event's page can't send it.
    let other = app.create_event(1, 1).await;
    let other_page = format!("/staff/events/{}/mail", other.id);
    let token = crate::pages::csrf_from(&clerk, &other_page).await;
    let response = crate::staff::post_form(
        &clerk,
        &format!("{other_page}/{id}/retry"),
        &[("csrf", &token)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE kind = 'waitlist_joined'")
            .await,
        2
    );
}
