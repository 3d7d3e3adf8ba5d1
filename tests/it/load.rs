//! CI-sized runs of the load scenarios (seatmap-bench runs them full size),
//! each followed by the database invariant checks.

use std::sync::Arc;
use std::time::Duration;

use seatmap_bench::loadgen::{self, Target};

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
    // Any answer but the documented ones fails: a 503, a 422, no answer, a
    // worker that panicked (its requests would be missing from the counts).
    assert_eq!(
        report.unexpected(),
        Vec::<String>::new(),
        "{}: {:?}",
        report.scenario,
        report.by_action
    );
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
    assert_eq!(
        picks.count_of("release_seat", 204),
        picks.count(201),
        "every pick was released again"
    );

    let best_target = target(&app, 10, 20).await;
    verified(
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

    let mixed_target = target(&app, 10, 40).await;
    let mixed = verified(
        &app,
        loadgen::mixed(&mixed_target, Duration::from_secs(3), 8).await,
    )
    .await;
    println!("mixed: {:?}", mixed.by_action);
    for (action, status) in [
        ("read", 200),
        ("hold", 201),
        ("best", 201),
        ("purchase", 201),
        ("release", 204),
    ] {
        assert!(
            mixed.count_of(action, status) > 0,
            "mixed never got {status} for {action}: {:?}",
            mixed.by_action
        );
    }
    let sold = app
        .count(&format!(
            "SELECT count(*) FROM seats WHERE event_id = {} AND status = 'SOLD'",
            mixed_target.event_id
        ))
        .await;
    assert!(sold > 0, "mixed bought seats, and they are sold");
}
