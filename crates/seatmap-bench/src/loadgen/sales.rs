//! New buyers holding one seat each and buying it.

use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::json;

use super::requests::{client, gather, send};
use super::{Report, Target};

/// New buyers, one after another on each worker, hold one random seat and
/// buy it: the purchase (its tickets and its outbox row written in the same
/// transaction) is what is timed; a lost claim (409) is only counted.
pub async fn sales(target: &Target, duration: Duration, workers: usize) -> Report {
    sales_as(target, duration, workers, None).await
}

/// [`sales`], each purchase naming `offer`'s price type for its seat and
/// its promo code (`("child", "BENCH")`), when given.
pub async fn sales_as(
    target: &Target,
    duration: Duration,
    workers: usize,
    offer: Option<(&'static str, &'static str)>,
) -> Report {
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..workers {
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            let base = target.base(worker).to_string();
            let mut report = Report::named("sales");
            while Instant::now() < deadline {
                let http = client(true);
                let seat = target.seat_ids[rand::rng().random_range(0..target.seat_ids.len())];
                let (status, body, _) = send(
                    http.post(format!("{base}/api/events/{}/holds", target.event_id))
                        .json(&json!({ "seat_ids": [seat] })),
                )
                .await;
                report.tally("hold", status);
                if status != 201 {
                    continue;
                }
                report.grant(&body, &[seat]);
                let hold = body["hold_id"].as_str().unwrap_or_default();
                let mut purchase = json!({ "name": "Bench Buyer", "email": "bench@example.com" });
                if let Some((price_type, code)) = offer {
                    purchase["price_types"] = json!({ seat.to_string(): price_type });
                    purchase["promo_code"] = json!(code);
                }
                let (bought, _, took) = send(
                    http.post(format!("{base}/api/holds/{hold}/purchase"))
                        .json(&purchase),
                )
                .await;
                report.record("purchase", bought, took);
            }
            report
        }));
    }
    gather("sales", tasks, started).await
}
