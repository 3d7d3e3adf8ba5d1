//! What taking payment costs, next to today's purchase, side by side.
//!
//!     cargo bench -p seatmap-bench --bench checkout [-- --sales 100 --rounds 3 --workers 4]
//!
//! The app (in this process, through production's `Application`) on its
//! own embedded PostgreSQL with fsync on, the demo event, and the Stripe
//! stand-in (crates/stripe-standin) on loopback. Each sale is a new buyer
//! over HTTP: hold one seat, then
//! - "purchase": the event takes no payment (201, tickets issued);
//! - "checkout": the event is paid online (202, the order waits; its
//!   Checkout Session is made at the stand-in after the commit);
//! - "checkout + webhook": the same, then the stand-in's signed
//!   `checkout.session.completed` sells the seat and issues the ticket.
//!
//! Modes take turns, `rounds` times, `sales` sales each; PostgreSQL's CPU
//! (the postmaster and its children, from /proc) is read around each
//! mode's sales. Medians of the rounds are printed. The stand-in answers
//! on loopback in well under a millisecond; Stripe's API takes hundreds,
//! so the wall times here are the app's and the database's part only.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use seatmap::config::{Config, DatabaseSource, Secret, StripeSettings};
use seatmap::db::database::Database;
use seatmap::startup::Application;
use serde_json::{Value, json};
use stripe_standin::StandIn;

const SECRET: &str = "whsec_bench";

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn postgres_cpu(data_dir: &Path) -> Duration {
    seatmap_bench::postgres_cpu(data_dir).expect("PostgreSQL's CPU time from /proc")
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Purchase,
    Checkout,
    CheckoutAndWebhook,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Purchase => "purchase (no payment)",
            Mode::Checkout => "checkout (order waits)",
            Mode::CheckoutAndWebhook => "checkout + webhook",
        }
    }
}

/// One buyer: hold `seat`, buy or check out, and (with the webhook) pay.
async fn sale(base: &str, event_id: i64, seat: i64, mode: Mode, standin: &StandIn) -> Duration {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .expect("client");
    let started = Instant::now();
    let hold: Value = http
        .post(format!("{base}/api/events/{event_id}/holds"))
        .json(&json!({"seat_ids": [seat]}))
        .send()
        .await
        .expect("hold")
        .json()
        .await
        .expect("hold body");
    let hold_id = hold["hold_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no hold: {hold}"));
    let response = http
        .post(format!("{base}/api/holds/{hold_id}/purchase"))
        .json(&json!({"name": "Bench", "email": "bench@example.com"}))
        .send()
        .await
        .expect("purchase");
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("purchase body");
    match mode {
        Mode::Purchase => assert_eq!(status, 201, "{body}"),
        _ => assert_eq!(status, 202, "{body}"),
    }
    if mode == Mode::CheckoutAndWebhook {
        let session = body["payment_url"]
            .as_str()
            .and_then(|u| u.rsplit('/').next())
            .expect("a session");
        let (event, signature) = standin.complete(session).expect("paying");
        assert_eq!(
            standin.deliver(&event, &signature).await.expect("webhook"),
            200
        );
    }
    started.elapsed()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let sales = arg("--sales", 100);
    let rounds = arg("--rounds", 3);
    let workers = arg("--workers", 4).max(1);
    let data = tempfile::tempdir()?;
    std::fs::set_permissions(
        data.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )?;
    let standin = StandIn::start(SECRET).await?;
    let mut config = Config::for_tests(DatabaseSource::Embedded {
        data_dir: Some(data.path().to_path_buf()),
    });
    config.payments.stripe = Some(StripeSettings {
        secret_key: Secret::new("sk_test_bench"),
        webhook_secret: Secret::new(SECRET),
        api_url: standin.base_url.clone(),
    });
    // The expiry calls wait: nothing lapses during a round.
    config.payments.poll_every = Duration::from_secs(600);
    let database = Database::connect(&config).await?;
    let event_id = seatmap::db::demo::seed_demo(&database.pool).await?.0;
    let app = Application::build(config, &database).await?;
    let base = format!("http://{}", app.addr);
    tokio::spawn(app.run_until(std::future::pending()));
    standin.set_webhook_url(&format!("{base}/payments/stripe/webhook"));
    let client = database.pool.get().await?;
    let seats: Vec<i64> = client
        .query(
            "SELECT id FROM seats WHERE event_id = $1 AND status = 'AVAILABLE' ORDER BY id",
            &[&event_id],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let modes = [Mode::Purchase, Mode::Checkout, Mode::CheckoutAndWebhook];
    const WARM_UP: usize = 20;
    anyhow::ensure!(
        seats.len() >= (WARM_UP + sales * rounds) * modes.len(),
        "the demo has {} seats; ask for fewer --sales or --rounds",
        seats.len()
    );
    let standin = Arc::new(standin);
    let mut next = 0;
    // Per mode: PostgreSQL CPU per sale (ms), sales/s, p50 (ms), a value per round.
    type Rounds = (Mode, Vec<f64>, Vec<f64>, Vec<f64>);
    let mut results: Vec<Rounds> = modes
        .iter()
        .map(|m| (*m, Vec::new(), Vec::new(), Vec::new()))
        .collect();
    // A warm-up round first (statements prepared, caches filled), not counted.
    for round in 0..=rounds {
        for (mode, cpu_per_sale, rate, p50) in results.iter_mut() {
            let payment = if *mode == Mode::Purchase {
                "none"
            } else {
                "online"
            };
            client
                .execute(
                    "UPDATE events SET payment = $2 WHERE id = $1",
                    &[&event_id, &payment],
                )
                .await?;
            let count = if round == 0 { WARM_UP } else { sales };
            let mine: Vec<i64> = seats[next..next + count].to_vec();
            next += count;
            let cpu = postgres_cpu(data.path());
            let started = Instant::now();
            let chunks: Vec<Vec<i64>> = mine
                .chunks(count.div_ceil(workers))
                .map(<[i64]>::to_vec)
                .collect();
            let mut tasks = Vec::new();
            for chunk in chunks {
                let (base, standin, mode) = (base.clone(), standin.clone(), *mode);
                tasks.push(tokio::spawn(async move {
                    let mut times = Vec::new();
                    for seat in chunk {
                        times.push(sale(&base, event_id, seat, mode, &standin).await);
                    }
                    times
                }));
            }
            let mut times = Vec::new();
            for task in tasks {
                times.extend(task.await?);
            }
            let wall = started.elapsed().as_secs_f64();
            let spent = postgres_cpu(data.path()) - cpu;
            if round == 0 {
                continue;
            }
            cpu_per_sale.push(spent.as_secs_f64() * 1000.0 / sales as f64);
            rate.push(sales as f64 / wall);
            p50.push(median(
                times.iter().map(|t| t.as_secs_f64() * 1000.0).collect(),
            ));
        }
    }
    let base_cpu = median(results[0].1.clone());
    println!(
        "\ncheckout cost: {sales} sales per mode and round, {workers} workers, medians of {rounds} rounds in turn \
         (embedded PostgreSQL, fsync on; each sale holds one seat first):"
    );
    for (mode, cpu, rate, p50) in &results {
        let cpu = median(cpu.clone());
        println!(
            "  {:<26} PostgreSQL CPU {cpu:>5.2} ms/sale ({:.2}x purchase)   {:>6.1} sales/s   p50 {:>5.1} ms",
            mode.label(),
            cpu / base_cpu.max(1e-9),
            median(rate.clone()),
            median(p50.clone()),
        );
    }
    Ok(())
}
