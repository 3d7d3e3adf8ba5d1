//! Sessions live in PostgreSQL, so any instance serves any buyer.

use reqwest::StatusCode;
use seatmap::db::sessions::PgSessionStore;
use tower_sessions::SessionStore;
use tower_sessions::session::{Id, Record};

use crate::support::{ids, spawn_app, statuses};

#[tokio::test]
async fn a_second_instance_sees_the_same_session_and_its_hold() {
    let app = spawn_app().await;
    let other_instance = app.second_instance().await;
    let event = app.create_event(1, 4).await;
    let s = &event.seat_ids;
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &[s[0]]).await;
    assert_eq!(status, StatusCode::CREATED);

    let same_buyer_elsewhere = buyer.on(&other_instance);
    let seats = same_buyer_elsewhere.seats(event.id).await;
    assert_eq!(seats["hold"]["hold_id"], hold["hold_id"]);
    assert_eq!(statuses(&seats)[&s[0]], "mine");
    let (status, more) = same_buyer_elsewhere.hold(event.id, &[s[1]]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(more["hold_id"], hold["hold_id"]);
    assert_eq!(ids(&more["seat_ids"]), vec![s[0], s[1]]);
}

#[tokio::test]
async fn the_store_saves_loads_deletes_and_ignores_expired_records() {
    let app = spawn_app().await;
    let store = PgSessionStore::new(app.pool.clone());
    let mut record = Record {
        id: Id::default(),
        data: [("buyer_id".to_string(), serde_json::json!("b-1"))].into(),
        expiry_date: time::OffsetDateTime::now_utc() + time::Duration::hours(1),
    };
    store.create(&mut record).await.unwrap();
    let loaded = store.load(&record.id).await.unwrap().expect("saved record");
    assert_eq!(loaded.data, record.data);

    record
        .data
        .insert("notice".into(), serde_json::json!({"x": 1}));
    store.save(&record).await.unwrap();
    assert_eq!(store.load(&record.id).await.unwrap().unwrap().data.len(), 2);

    store.delete(&record.id).await.unwrap();
    assert!(store.load(&record.id).await.unwrap().is_none());

    let mut stale = Record {
        id: Id::default(),
        data: Default::default(),
        expiry_date: time::OffsetDateTime::now_utc() - time::Duration::seconds(1),
    };
    store.create(&mut stale).await.unwrap();
    assert!(
        store.load(&stale.id).await.unwrap().is_none(),
        "expired reads as absent"
    );
    assert_eq!(store.delete_expired().await.unwrap(), 1);
}
