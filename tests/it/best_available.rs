//! "N best available": parties together, the orphan rule, filters, lazy
//! expiry and concurrency, through the API against a real database.

use std::collections::HashMap;

use futures::future::join_all;
use reqwest::StatusCode;
use seatmap::domain::layout::{RowSpec, SectionSpec};
use serde_json::{Value, json};

use crate::support::{Api, TestApp, ids, spawn_app, spawn_app_with};

pub async fn best(buyer: &Api, event_id: i64, request: Value) -> (StatusCode, Value) {
    buyer
        .post(
            &format!("/api/events/{event_id}/holds"),
            json!({ "best_available": request }),
        )
        .await
}

/// (section, row_index, position) of each seat, by id.
async fn places(app: &TestApp, event_id: i64) -> HashMap<i64, (String, i32, i32)> {
    app.sql()
        .await
        .query(
            "SELECT s.id, sec.name, s.row_index, s.position
               FROM seats s JOIN sections sec ON sec.id = s.section_id
              WHERE s.event_id = $1",
            &[&event_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3))))
        .collect()
}

fn assert_adjacent_in_one_row(seats: &[i64], places: &HashMap<i64, (String, i32, i32)>) {
    let mut spots: Vec<&(String, i32, i32)> = seats.iter().map(|id| &places[id]).collect();
    spots.sort_by_key(|p| p.2);
    for pair in spots.windows(2) {
        assert_eq!(
            (&pair[0].0, pair[0].1),
            (&pair[1].0, pair[1].1),
            "same row: {spots:?}"
        );
        assert_eq!(pair[0].2 + 1, pair[1].2, "adjacent: {spots:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_concurrent_parties_get_disjoint_adjacent_seats_or_a_documented_409() {
    let app = spawn_app().await;
    // 10 rows of 20 = 200 seats for ~300 requested: some parties must be refused.
    let event = app.create_event(10, 20).await;
    let buyers: Vec<Api> = (0..100).map(|_| app.buyer()).collect();
    let sizes: Vec<i64> = (0..100).map(|i| 2 + (i % 3)).collect();
    let answers = join_all(
        buyers
            .iter()
            .zip(&sizes)
            .map(|(buyer, n)| best(buyer, event.id, json!({ "count": n }))),
    )
    .await;

    let places = places(&app, event.id).await;
    let mut owner: HashMap<i64, usize> = HashMap::new();
    let mut refused = 0;
    for (i, (status, body)) in answers.iter().enumerate() {
        match *status {
            StatusCode::CREATED => {
                let added = ids(&body["added"]);
                assert_eq!(added.len() as i64, sizes[i], "{body}");
                assert_eq!(body["together"], true);
                assert_adjacent_in_one_row(&added, &places);
                for seat in added {
                    assert!(owner.insert(seat, i).is_none(), "seat {seat} given twice");
                }
            }
            StatusCode::CONFLICT => {
                let code = body["error"].as_str().unwrap();
                assert!(
                    code == "not_enough_seats" || code == "not_enough_seats_together",
                    "{body}"
                );
                refused += 1;
            }
            other => panic!("undocumented {other}: {body}"),
        }
    }
    eprintln!(
        "handed out {} of 200 seats; {refused} parties refused",
        owner.len()
    );
    // Locking whole rows instead of just the block once left 121 of 200.
    assert!(
        owner.len() > 160,
        "most of the venue was handed out: {}",
        owner.len()
    );
    assert!(
        refused > 0,
        "the venue was oversubscribed, so someone was refused"
    );

    // The database agrees with what the clients were told.
    let holders = app.holders(event.id).await;
    assert_eq!(holders.len(), owner.len());
    for (seat, hold) in holders {
        assert_eq!(answers[owner[&seat]].1["hold_id"].as_str().unwrap(), hold);
    }
}

#[tokio::test]
async fn the_best_block_is_front_and_centre_and_strands_no_single_seat() {
    let app = spawn_app().await;
    let event = app.create_event(2, 10).await;
    let s = &event.seat_ids; // row A = s[0..10], row B = s[10..20]
    // Shape row A as "xx......xx": seats at positions 0,1,8,9 taken.
    let other = app.buyer();
    assert_eq!(
        other.hold(event.id, &[s[0], s[1], s[8], s[9]]).await.0,
        StatusCode::CREATED
    );

    // Three together: the centred blocks (positions 3-5 or 4-6) would each
    // leave one seat alone; 2-4 and 5-7 leave none and tie, the left one wins.
    let buyer = app.buyer();
    let (status, body) = best(&buyer, event.id, json!({ "count": 3 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(ids(&body["added"]), vec![s[2], s[3], s[4]]);
    assert_eq!(
        body["summary"],
        "3 seats together in Stalls, row A, seats 3–5"
    );

    // Row A is now "xxxxx...xx": a free run of 3. A party of 2 must take the
    // front row still (a better row is never given up), and either block
    // there strands a seat, so the better-ranked (5,6) is taken.
    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 2 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(ids(&body["added"]), vec![s[5], s[6]]);

    // A party of 4 no longer fits in row A and goes to row B's centre.
    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 4 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(ids(&body["added"]), vec![s[13], s[14], s[15], s[16]]);
}

#[tokio::test]
async fn filters_by_section_and_tier_and_can_split_a_party_when_asked() {
    let app = spawn_app().await;
    let row = |label: &str, seats: u32, tier: &str| RowSpec {
        label: label.into(),
        seats,
        tier: tier.into(),
        flags: Vec::new(),
    };
    let event = app
        .create_event_with(vec![
            SectionSpec {
                name: "Front".into(),
                rows: vec![row("A", 6, "vip")],
                curve: None,
                side_blocks: None,
            },
            SectionSpec {
                name: "Back".into(),
                rows: vec![row("A", 6, "std"), row("B", 6, "std")],
                curve: None,
                side_blocks: None,
            },
        ])
        .await;
    let places = places(&app, event.id).await;

    let (status, body) = best(
        &app.buyer(),
        event.id,
        json!({ "count": 2, "section": "Back" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(ids(&body["added"]).iter().all(|id| places[id].0 == "Back"));

    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 2, "tier": "vip" })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(ids(&body["added"]).iter().all(|id| places[id].0 == "Front"));

    for (request, code) in [
        (
            json!({ "count": 2, "section": "Gallery" }),
            "unknown_section",
        ),
        (json!({ "count": 2, "tier": "gold" }), "unknown_tier"),
        (json!({ "count": 0 }), "invalid_count"),
        (json!({ "count": 11 }), "invalid_count"),
        (json!({ "count": -2 }), "invalid_count"),
    ] {
        let (status, body) = best(&app.buyer(), event.id, request).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["error"], code);
    }
    let (status, _) = best(&app.buyer(), event.id, json!({ "count": "two" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Break up the Front row so 4 together is impossible there: "x.x.x." after
    // the vip pair above... take every other remaining Front seat.
    let front: Vec<i64> = event.seat_ids[..6].to_vec();
    let free_front: Vec<i64> = {
        let seats = app.buyer().seats(event.id).await;
        seats["seats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["section"] == "Front" && s["status"] == "available")
            .map(|s| s["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(free_front.len(), 4);
    let splitter = app.buyer();
    assert_eq!(
        splitter.hold(event.id, &[free_front[1]]).await.0,
        StatusCode::CREATED
    );
    let (status, body) = best(
        &app.buyer(),
        event.id,
        json!({ "count": 3, "section": "Front" }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "not_enough_seats_together");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("\"together\": false")
    );

    let (status, body) = best(
        &app.buyer(),
        event.id,
        json!({ "count": 3, "section": "Front", "together": false }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["together"], false);
    let added = ids(&body["added"]);
    assert_eq!(added.len(), 3);
    assert!(added.iter().all(|id| front.contains(id)));

    let (status, body) = best(
        &app.buyer(),
        event.id,
        json!({ "count": 2, "section": "Front" }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "not_enough_seats");
}

#[tokio::test]
async fn seats_whose_holds_lapsed_in_the_front_row_are_offered_again() {
    let app = spawn_app().await;
    let event = app.create_event(3, 6).await;
    let front_row: Vec<i64> = event.seat_ids[..6].to_vec();
    let (status, front) = app.buyer().hold(event.id, &front_row).await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, body) = best(&app.buyer(), event.id, json!({ "count": 2 })).await;
    assert!(
        ids(&body["added"]).iter().all(|id| !front_row.contains(id)),
        "front row is held"
    );

    app.lapse_hold(&front["hold_id"]).await;
    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 2 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(ids(&body["added"]), vec![front_row[2], front_row[3]]);
    let (status, body) = best(
        &app.buyer(),
        event.id,
        json!({ "count": 3, "together": false }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(ids(&body["added"]).iter().all(|id| front_row.contains(id)));
}

#[tokio::test]
async fn a_request_skips_seats_another_transaction_has_locked_instead_of_waiting() {
    let app = spawn_app().await;
    let event = app.create_event(2, 6).await;
    let front_row: Vec<i64> = event.seat_ids[..6].to_vec();
    // Another buyer's transaction, mid-flight, holding the front row's locks.
    let mut blocker = app.sql().await;
    let tx = blocker.transaction().await.unwrap();
    tx.query(
        "SELECT id FROM seats WHERE id = ANY($1) FOR UPDATE",
        &[&front_row],
    )
    .await
    .unwrap();

    // Waiting would end in lock_timeout (2 s) and a 503; skipping gives seats.
    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 2 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let added = ids(&body["added"]);
    assert!(added.iter().all(|id| !front_row.contains(id)), "{added:?}");
    let (status, body) = best(
        &app.buyer(),
        event.id,
        json!({ "count": 2, "together": false }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(ids(&body["added"]).iter().all(|id| !front_row.contains(id)));
    tx.rollback().await.unwrap();
}

#[tokio::test]
async fn best_available_respects_the_hold_limit_and_joins_the_existing_hold() {
    let app = spawn_app_with(|c| c.max_seats_per_hold = 4).await;
    let event = app.create_event(2, 8).await;
    let buyer = app.buyer();
    let (_, picked) = buyer.hold(event.id, &[event.seat_ids[15]]).await;
    // "add": the new seats join the hold (by default they would replace it).
    let (status, body) = best(&buyer, event.id, json!({ "count": 3, "mode": "add" })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["hold_id"], picked["hold_id"]);
    assert_eq!(body["expires_at"], picked["expires_at"]);
    assert_eq!(ids(&body["seat_ids"]).len(), 4);
    let (status, body) = best(&buyer, event.id, json!({ "count": 1, "mode": "add" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "hold_limit");
}

/// The count is the party size. Asked for 4 while holding 2, a buyer holds
/// exactly 4 (the 2 go back on sale unless they are among the best);
/// "add" adds; and when no new block can be found, the seats held stay
/// held (the swap is one transaction).
#[tokio::test]
async fn best_available_swaps_held_seats_for_the_party_and_keeps_them_if_it_finds_none() {
    let app = spawn_app().await;
    let event = app.create_event(2, 6).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    assert_eq!(
        buyer.hold(event.id, &[s[10], s[11]]).await.0,
        StatusCode::CREATED
    );

    let (status, body) = best(&buyer, event.id, json!({ "count": 4 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let held = ids(&body["seat_ids"]);
    assert_eq!(held.len(), 4, "exactly the party: {body}");
    assert_eq!(ids(&body["added"]), held);
    let holders = app.holders(event.id).await;
    assert_eq!(holders.len(), 4, "the 2 held before went back on sale");
    assert!(!holders.contains_key(&s[10]) && !holders.contains_key(&s[11]));

    let (status, body) = best(&buyer, event.id, json!({ "count": 2, "mode": "add" })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(ids(&body["seat_ids"]).len(), 6, "added: {body}");
    let (status, body) = best(&buyer, event.id, json!({ "count": 2, "mode": "swap" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "invalid_mode");

    // Another buyer takes 5 of the 6 free seats: 7 could be had, not 8.
    let holding = app.holders(event.id).await;
    let free: Vec<i64> = s
        .iter()
        .copied()
        .filter(|id| !holding.contains_key(id))
        .collect();
    assert_eq!(free.len(), 6);
    let rival = app.buyer();
    let (status, body) = rival.hold(event.id, &free[..5]).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let before = app.holders(event.id).await;
    let (status, body) = best(&buyer, event.id, json!({ "count": 8, "together": false })).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "not_enough_seats");
    assert_eq!(
        app.holders(event.id).await,
        before,
        "a swap that finds nothing releases nothing"
    );
}

/// A candidate block another buyer has part of is let go at once: the
/// search takes the next block and leaves the first block's free seats
/// unlocked for others, instead of sitting on them until it commits.
#[tokio::test]
async fn a_block_only_partly_free_is_let_go_at_once_and_the_next_one_taken() {
    let app = spawn_app().await;
    let event = app.create_event(1, 6).await;
    let s = &event.seat_ids;
    let mut rival = app.own_connection().await;
    let rival_tx = rival.transaction().await.unwrap();
    rival_tx
        .query("SELECT id FROM seats WHERE id = $1 FOR UPDATE", &[&s[1]])
        .await
        .unwrap();

    let mut searcher = app.own_connection().await;
    let search = searcher.transaction().await.unwrap();
    let row = search
        .query_one(
            "SELECT locked, unavailable FROM lock_first_free_block($1, 2)",
            &[&vec![s[0], s[1], s[2], s[3]]],
        )
        .await
        .unwrap();
    let locked: Option<Vec<i64>> = row.get(0);
    let unavailable: Vec<i64> = row.get(1);
    assert_eq!(locked, Some(vec![s[2], s[3]]), "the second block");
    assert_eq!(unavailable, vec![s[1]], "the seat the rival has");
    // While the search's transaction is open, a third buyer can lock the
    // first block's free seat, and not the second block's.
    let third = app.own_connection().await;
    let free_now: Vec<i64> = third
        .query(
            "SELECT id FROM seats WHERE id = ANY($1) ORDER BY id FOR UPDATE SKIP LOCKED",
            &[&vec![s[0], s[1], s[2], s[3]]],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(free_now, vec![s[0]]);
    search.rollback().await.unwrap();
    rival_tx.rollback().await.unwrap();
}

#[tokio::test]
async fn seats_across_an_aisle_are_never_together() {
    let app = spawn_app().await;
    // One row of 10: 3 | aisle | 4 | aisle | 3.
    let event = app
        .create_event_with(vec![SectionSpec {
            name: "Stalls".into(),
            rows: vec![RowSpec {
                label: "A".into(),
                seats: 10,
                tier: "std".into(),
                flags: Vec::new(),
            }],
            curve: None,
            side_blocks: Some(3),
        }])
        .await;
    let s = &event.seat_ids;
    // Five together would have to cross an aisle: there is no such block.
    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 5 })).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"], "not_enough_seats_together", "{body}");
    // Four together are the centre block, seats 4–7.
    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 4 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(ids(&body["added"]), vec![s[3], s[4], s[5], s[6]]);
    // Then three: a side block, never 2 + 1 across the aisle.
    let (status, body) = best(&app.buyer(), event.id, json!({ "count": 3 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let added = ids(&body["added"]);
    assert!(
        added == vec![s[0], s[1], s[2]] || added == vec![s[7], s[8], s[9]],
        "{added:?}"
    );
}

/// The walk stops reading rows once no later row can beat the block found.
/// On random fills its answer must be what a search of every row gives: a
/// block of a row whose best block scores lowest, and, of that row's
/// blocks, the one preferred (no orphan, then the lowest rank sum, then
/// the first). `suggest` finds without holding, so each fill is asked
/// for every party size as it stands.
#[tokio::test]
async fn best_available_equals_the_exhaustive_search_on_random_fills() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use seatmap::db::best_available::{BestAvailableRequest, BestMode, suggest};
    use seatmap::domain::best_available::{Block, FreeSeat, WheelchairSpaces, blocks};
    use seatmap::domain::ids::{EventId, SeatId};

    let app = spawn_app().await;
    let event = app.create_event(12, 24).await;
    let client = app.sql().await;
    let mut rng = StdRng::seed_from_u64(51);
    let mut compared = 0;
    for round in 0..16 {
        let taken_share = 0.2 + 0.05 * f64::from(round);
        let taken: Vec<i64> = event
            .seat_ids
            .iter()
            .filter(|_| rng.random_bool(taken_share))
            .copied()
            .collect();
        client
            .execute(
                "UPDATE seats SET status = CASE WHEN id = ANY($2) THEN 'BLOCKED' ELSE 'AVAILABLE' END
                  WHERE event_id = $1",
                &[&event.id, &taken],
            )
            .await
            .unwrap();
        let free = client
            .query(
                "SELECT id, section_id, row_index, position, rank FROM seats
                  WHERE event_id = $1 AND status = 'AVAILABLE'
                  ORDER BY section_id, row_index, position",
                &[&event.id],
            )
            .await
            .unwrap();
        let mut rows: Vec<Vec<FreeSeat>> = Vec::new();
        let mut last_row: Option<(i64, i32)> = None;
        for seat in &free {
            let row = (seat.get::<_, i64>(1), seat.get::<_, i32>(2));
            if last_row != Some(row) {
                rows.push(Vec::new());
                last_row = Some(row);
            }
            rows.last_mut().unwrap().push(FreeSeat {
                id: SeatId(seat.get(0)),
                position: seat.get(3),
                rank: seat.get(4),
                eligible: true,
                wheelchair: false,
                companion: false,
            });
        }
        for party in 1..=5usize {
            let per_row: Vec<Vec<Block>> = rows
                .iter()
                .map(|row| blocks(row, party, WheelchairSpaces::Any))
                .collect();
            let best_score = per_row.iter().flatten().map(|block| block.rank_sum).min();
            let request = BestAvailableRequest {
                count: party as u32,
                section: None,
                tier: None,
                together: true,
                mode: BestMode::Replace,
                wheelchair: 0,
                avoid_restricted_view: false,
            };
            let found = suggest(&app.pool, EventId(event.id), &request).await;
            let Some(best_score) = best_score else {
                assert!(found.is_err(), "no block of {party} exists, yet {found:?}");
                continue;
            };
            let mut found: Vec<SeatId> = found
                .unwrap_or_else(|err| panic!("a block of {party} exists: {err:?}"))
                .iter()
                .map(|seat| seat.id)
                .collect();
            found.sort_unstable();
            let row = per_row
                .iter()
                .find(|row| row.iter().any(|block| block.seat_ids == found))
                .unwrap_or_else(|| panic!("{found:?} is no block of {party} (fill {round})"));
            let row_score = row.iter().map(|block| block.rank_sum).min().unwrap();
            let preferred = row
                .iter()
                .min_by_key(|block| (block.leaves_orphan, block.rank_sum, block.start))
                .unwrap();
            assert_eq!(
                row_score, best_score,
                "fill {round}, party {party}: {found:?} is in a row scoring {row_score}, the best scores {best_score}"
            );
            assert_eq!(
                preferred.seat_ids, found,
                "fill {round}, party {party}: its row prefers another block"
            );
            compared += 1;
        }
    }
    assert!(compared >= 60, "only {compared} answers compared");
}
