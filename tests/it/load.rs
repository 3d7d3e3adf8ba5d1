//! CI-sized runs of the load scenarios (seatmap-bench runs them full size),
//! each followed by the database invariant checks.

use std::sync::Arc;
use std::time::Duration;

use seatmap::loadgen::{self, Target};

use crate::support::{TestApp, spawn_app};

async fn target(app: &TestApp, rows: usize, per_row: u32) -> Target {
    let event = app.create_event(rows, per_row).await;
    Target {
        bases: vec![app.base.clone()],
        event_id: event.id,
        seat_ids: Arc::new(event.seat_ids),
    }
}

async fn verified(app: &TestApp, mut report: loadgen::Report) -> loadgen::Report {
    loadgen::verify(&app.pool, &mut report, app.config.max_seats_per_hold)
        .await
        .unwrap();
    assert_eq!(report.breaches, Vec::<String>::new(), "{}", report.scenario);
    assert_eq!(
        report.count(0),
        0,
        "{}: requests got no answer",
        report.scenario
    );
    assert_eq!(report.count(500), 0, "{}: server errors", report.scenario);
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hot_seat_has_one_winner_and_answers_everyone() {
    let app = spawn_app().await;
    let target = target(&app, 4, 25).await;
    let report = verified(&app, loadgen::hot_seat(&target, 300, 32).await).await;
    assert_eq!(report.count(201), 1);
    assert_eq!(report.count(409), 299);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn picks_best_available_and_a_mixed_load_leave_every_invariant_whole() {
    let app = spawn_app().await;
    let picks_target = target(&app, 10, 40).await;
    let picks = verified(
        &app,
        loadgen::picks(&picks_target, Duration::from_secs(2), 8).await,
    )
    .await;
    assert!(picks.count(201) > 0);

    let best_target = target(&app, 10, 20).await;
    let best = verified(
        &app,
        loadgen::best(&best_target, 0.95, 8, Duration::from_secs(30)).await,
    )
    .await;
    let held = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'HELD'",
            best_target.event_id
        ))
        .await;
    assert!(held >= 150, "the venue filled: {held} of 200 held");
    assert!(
        best.statuses.keys().all(|s| [201, 409].contains(s)),
        "{:?}",
        best.statuses
    );

    let mixed_target = target(&app, 10, 40).await;
    let mixed = verified(
        &app,
        loadgen::mixed(&mixed_target, Duration::from_secs(3), 8).await,
    )
    .await;
    assert!(mixed.requests > 0);
}
