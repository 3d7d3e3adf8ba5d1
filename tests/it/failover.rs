//! Failover mid-sale (issue 53): a primary with a synchronous standby made
//! by pg_basebackup, from the system's PostgreSQL binaries. Buyers hold and
//! buy while the primary's postmaster is SIGKILLed and the standby is
//! promoted; the app, started with both hosts in its URL, serves again
//! without a restart. Every purchase answered 201 is on the new primary
//! with its tickets, no seat is sold twice, and every other answer was a
//! 503 (with Retry-After) or a 409.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pg_embedded::{Durability, PgCluster, SUPERUSER};
use reqwest::StatusCode;
use seatmap::config::{Config, DatabaseSource, Secret};
use serde_json::{Value, json};

use crate::support::{Api, create_event_on, id_segment, scratch_dir, serve_instance, superuser_at};

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work)
        .await
        .expect("a blocking step")
}

struct Clusters {
    dir: PathBuf,
    primary: Option<PgCluster>,
    standby: Option<PgCluster>,
}

impl Drop for Clusters {
    fn drop(&mut self) {
        for cluster in [self.standby.take(), self.primary.take()]
            .into_iter()
            .flatten()
        {
            let _ = cluster.stop();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What one buyer saw.
#[derive(Default)]
struct Seen {
    /// (order id, seats) of every purchase answered 201.
    bought: Vec<(String, usize)>,
    /// Every other answer: (what, status, error code, had Retry-After).
    others: Vec<(&'static str, StatusCode, String, bool)>,
    /// When each purchase answered 201 was sent and answered.
    bought_at: Vec<(Instant, Instant)>,
    /// When each 503 was answered.
    unavailable_at: Vec<Instant>,
}

async fn post(buyer: &Api, path: &str, body: &Value, key: &str) -> (StatusCode, Value, bool) {
    let answer = buyer.post_keyed(path, key, body).await;
    (answer.status, answer.body, answer.retry_after)
}

/// Holds one seat at a time and buys it, until told to stop. A purchase
/// answered 503 is sent again with its key until it is answered otherwise.
async fn buy_until(buyer: Api, event_id: i64, seats: Vec<i64>, stop: Arc<AtomicBool>) -> Seen {
    let mut seen = Seen::default();
    for seat in seats {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let key = uuid::Uuid::new_v4().to_string();
        let path = format!("/api/events/{event_id}/holds");
        let (status, hold, retry) = post(&buyer, &path, &json!({"seat_ids": [seat]}), &key).await;
        if status != StatusCode::CREATED {
            seen.others
                .push(("hold", status, hold["error"].to_string(), retry));
            if status == StatusCode::SERVICE_UNAVAILABLE {
                seen.unavailable_at.push(Instant::now());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let path = format!("/api/holds/{}/purchase", id_segment(&hold["hold_id"]));
        let body = json!({"name": "Ada Lovelace", "email": "ada@example.com"});
        let key = uuid::Uuid::new_v4().to_string();
        for _ in 0..200 {
            let sent = Instant::now();
            let (status, order, retry) = post(&buyer, &path, &body, &key).await;
            if status == StatusCode::CREATED {
                let seats = order["seat_ids"].as_array().map_or(0, Vec::len);
                seen.bought
                    .push((order["order_id"].as_str().unwrap().to_owned(), seats));
                seen.bought_at.push((sent, Instant::now()));
                // A buyer's pace, not a load test's: sales must go on past
                // the promotion on a fast machine too.
                tokio::time::sleep(Duration::from_millis(50)).await;
                break;
            }
            seen.others
                .push(("purchase", status, order["error"].to_string(), retry));
            if status == StatusCode::SERVICE_UNAVAILABLE {
                seen.unavailable_at.push(Instant::now());
            }
            if status != StatusCode::SERVICE_UNAVAILABLE {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    seen
}

#[tokio::test]
async fn a_sale_survives_the_primary_dying_and_its_synchronous_standby_taking_over() {
    let dir = scratch_dir(&format!(
        "failover-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    ));
    let primary_dir = dir.join("primary");
    let standby_dir = dir.join("standby");
    let mut clusters = Clusters {
        dir: dir.clone(),
        primary: None,
        standby: None,
    };
    let primary = {
        let dir = primary_dir.clone();
        blocking(move || PgCluster::start(&dir, Durability::Durable))
            .await
            .expect("starting the primary")
    };
    superuser_at(&primary_dir, "postgres")
        .await
        .batch_execute("CREATE DATABASE seatmap")
        .await
        .unwrap();
    let standby = {
        let (primary_dir, standby_dir) = (primary_dir.clone(), standby_dir.clone());
        blocking(move || {
            let attached = PgCluster::start(&primary_dir, Durability::Durable)?;
            attached.base_backup(&standby_dir)?;
            PgCluster::start(&standby_dir, Durability::Durable)
        })
        .await
        .expect("making and starting the standby")
    };
    clusters.primary = Some(primary);
    clusters.standby = Some(standby);
    // From now on the primary commits only once the standby has the
    // commit (synchronous_commit on, the default, and any standby
    // synchronous). Set after the standby exists: until then every commit
    // would wait for one.
    let sync = superuser_at(&primary_dir, "postgres").await;
    for statement in [
        "ALTER SYSTEM SET synchronous_standby_names = '*'",
        "SELECT pg_reload_conf()",
    ] {
        sync.batch_execute(statement).await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while sync
        .query_opt(
            "SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'",
            &[],
        )
        .await
        .unwrap()
        .is_none()
    {
        assert!(
            Instant::now() < deadline,
            "the standby never became synchronous"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Both hosts in the URL; only a read-write one is taken.
    let url = format!(
        "host={},{} port=5432,5432 user={SUPERUSER} dbname=seatmap target_session_attrs=read-write",
        primary_dir.display(),
        standby_dir.display()
    );
    let mut config = Config::for_tests(DatabaseSource::Url(Secret::new(url)));
    config.db.pool_wait = Duration::from_secs(3);
    let (base, state) = serve_instance(&config).await;
    // Enough seats that no buyer runs out before the promotion: each paces
    // itself (below) and has 160, more than 7 s of sales at that pace.
    let event = create_event_on(&state.pool, 40, 25).await;

    let stop = Arc::new(AtomicBool::new(false));
    let buyers: Vec<_> = (0..6)
        .map(|i| {
            let seats: Vec<i64> = event.seat_ids[i * 160..(i + 1) * 160].to_vec();
            tokio::spawn(buy_until(Api::new(&base), event.id, seats, stop.clone()))
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(2)).await;

    let killed_at = Instant::now();
    let primary = clusters.primary.take().unwrap();
    blocking(move || primary.kill_hard())
        .await
        .expect("killing the primary");
    // The operator's tool (pg_auto_failover, say) notices and promotes.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let promoted: bool = superuser_at(&standby_dir, "postgres")
        .await
        .query_one("SELECT pg_promote(true, 30)", &[])
        .await
        .unwrap()
        .get(0);
    assert!(promoted);
    let promoted_at = Instant::now();
    // Sales go on for a while on the new primary, then stop.
    tokio::time::sleep(Duration::from_secs(4)).await;
    stop.store(true, Ordering::Relaxed);
    let mut seen = Seen::default();
    for buyer in buyers {
        let one = buyer.await.unwrap();
        seen.bought.extend(one.bought);
        seen.others.extend(one.others);
        seen.bought_at.extend(one.bought_at);
        seen.unavailable_at.extend(one.unavailable_at);
    }

    // The gap: from the kill to the first sale sent after the first 503.
    let first_refusal = seen.unavailable_at.iter().min().copied();
    let first_sale_after = first_refusal.and_then(|refused| {
        seen.bought_at
            .iter()
            .filter(|(sent, _)| *sent > refused)
            .map(|(_, answered)| *answered)
            .min()
    });
    assert!(
        seen.bought_at.iter().any(|(sent, _)| *sent > promoted_at),
        "the app did not sell again after the promotion, without a restart: {} sales, other answers {:?}",
        seen.bought.len(),
        seen.others.iter().rev().take(8).collect::<Vec<_>>()
    );
    for (what, status, code, retry_after) in &seen.others {
        assert!(
            *status == StatusCode::SERVICE_UNAVAILABLE || *status == StatusCode::CONFLICT,
            "{what}: {status} {code}"
        );
        if *status == StatusCode::SERVICE_UNAVAILABLE {
            assert!(retry_after, "{what}: a 503 says when to come back");
        }
    }
    // Every purchase a buyer was told about is on the new primary, with its
    // tickets; no seat is sold twice.
    let now_primary = superuser_at(&standby_dir, "seatmap").await;
    for (order_id, seats) in &seen.bought {
        let tickets: i64 = now_primary
            .query_one(
                "SELECT count(*) FROM tickets WHERE order_id = $1::text::uuid",
                &[order_id],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(tickets, *seats as i64, "order {order_id} and its tickets");
    }
    let twice: i64 = now_primary
        .query_one(
            "SELECT count(*) FROM (SELECT seat_id FROM order_lines GROUP BY seat_id
              HAVING count(*) > 1) s",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(twice, 0);
    let sold: i64 = now_primary
        .query_one(
            "SELECT count(*) FROM seats WHERE event_id = $1 AND status = 'SOLD'",
            &[&event.id],
        )
        .await
        .unwrap()
        .get(0);
    let told: usize = seen.bought.iter().map(|(_, seats)| seats).sum();
    assert!(sold as usize >= told, "{sold} sold, {told} told");
    // What operators see: readiness on the new primary, and the gap.
    let ops = Api::new(&base);
    let (status, ready) = ops.get("/readyz").await;
    assert_eq!(status, StatusCode::OK, "{ready}");
    assert_eq!(ready["primary"], true);
    let metrics = ops.get_text("/metrics").await;
    assert!(
        metrics.contains("seatmap_db_reconnects_total"),
        "reconnects are counted: {}",
        metrics
            .lines()
            .filter(|l| l.contains("seatmap_db"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(metrics.contains("seatmap_db_last_outage_seconds"));
    println!(
        "failover: {} purchases told, {} answers 503 and {} 409; promoted {:.1} s after the kill; \
         the first sale after the first 503 answered {:.1} s after the kill",
        seen.bought.len(),
        seen.unavailable_at.len(),
        seen.others.len() - seen.unavailable_at.len(),
        promoted_at.duration_since(killed_at).as_secs_f64(),
        first_sale_after
            .map(|at| at.duration_since(killed_at).as_secs_f64())
            .unwrap_or(f64::NAN)
    );
}
