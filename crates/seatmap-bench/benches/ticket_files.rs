//! The time to make a ticket's files, in-process: one PDF ticket, a
//! four-ticket order's PDF, one Apple Wallet pass (RSA-2048 signature) and
//! one Google Wallet save link, each made 100 times; prints the median
//! and the 95th percentile.
//!
//!     cargo bench -p seatmap-bench --bench ticket_files
//!
//! The pass's keys are a throwaway chain made with the `openssl` command,
//! as the integration tests make theirs. Nothing here touches a database:
//! the files are made from a ticket's facts alone.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use seatmap::ticket_files::apple::{AppleWalletKeys, pkpass};
use seatmap::ticket_files::google::{GoogleWalletKeys, save_url};
use seatmap::ticket_files::pdf::{Paper, tickets_pdf};
use seatmap::ticket_files::{Labels, PassColours, TicketFacts};

const RUNS: usize = 100;

/// A file maker, by name.
type Maker<'a> = (&'static str, Box<dyn Fn() -> Vec<u8> + 'a>);

fn facts(seat: u32) -> TicketFacts {
    let starts_at = time::OffsetDateTime::now_utc() + time::Duration::days(30);
    TicketFacts {
        event_name: "Seatmap Philharmonic: Demo Night".into(),
        venue: "Demo Hall".into(),
        starts_text: "Sun 27 Dec 2026, 20:00 CET".into(),
        starts_at,
        starts_offset: time::UtcOffset::from_hms(1, 0, 0).unwrap(),
        place: vec![
            ("Section".into(), "Orchestra".into()),
            ("Row".into(), "B".into()),
            ("Seat".into(), seat.to_string()),
        ],
        kind: "Premium · Adult".into(),
        price: "€85.00".into(),
        holder_name: "Ada Lovelace".into(),
        order_ref: "AA87971B".into(),
        code: "DYK35PBSNEIVZ7M37KJL2A2RBIN2F2Y4".into(),
        code_grouped: "DYK3 5PBS NEIV Z7M3 7KJL 2A2R BIN2 F2Y4".into(),
        serial: format!("ticket-{seat}-0123456789abcdef"),
        event_key: "event-1".into(),
        labels: Labels {
            event: "Event".into(),
            date: "Date".into(),
            venue: "Venue".into(),
            ticket_type: "Ticket".into(),
            price: "Price".into(),
            holder: "Name".into(),
            order: "Order".into(),
            code: "Code".into(),
            door_note: "Show this code at the door. Each ticket admits once.".into(),
            language: "en".into(),
        },
    }
}

const COLOURS: PassColours = PassColours {
    background: (29, 53, 87),
    foreground: (255, 255, 255),
    label: (168, 218, 220),
};

fn openssl(dir: &Path, args: &[&str]) {
    let output = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl is needed (Debian package openssl)");
    assert!(output.status.success(), "openssl {args:?}");
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// (median, p95) of `RUNS` calls of `make`, and the size of what it made.
fn measure(make: impl Fn() -> Vec<u8>) -> (Duration, Duration, usize) {
    let size = make().len();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(make());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[RUNS / 2], times[RUNS * 95 / 100], size)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    openssl(
        d,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "wwdr.key",
            "-out",
            "wwdr.pem",
            "-days",
            "2",
            "-subj",
            "/CN=Bench WWDR",
        ],
    );
    openssl(
        d,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "pass.key",
            "-out",
            "pass.csr",
            "-subj",
            "/CN=Bench pass",
        ],
    );
    openssl(
        d,
        &[
            "x509",
            "-req",
            "-in",
            "pass.csr",
            "-CA",
            "wwdr.pem",
            "-CAkey",
            "wwdr.key",
            "-CAcreateserial",
            "-out",
            "pass.pem",
            "-days",
            "2",
        ],
    );
    let apple = AppleWalletKeys::from_pem(
        "pass.com.example.bench",
        "ABCDE12345",
        &read(d, "pass.pem"),
        &read(d, "pass.key"),
        &read(d, "wwdr.pem"),
    )
    .expect("the bench's pass keys");
    let google_json = serde_json::json!({
        "type": "service_account",
        "client_email": "bench@example.iam.gserviceaccount.com",
        "private_key": read(d, "pass.key"),
    });
    let google = GoogleWalletKeys::from_service_account_json(
        "3388000000012345678",
        &google_json.to_string(),
    )
    .expect("the bench's Google key");

    let one = [facts(14)];
    let four: Vec<TicketFacts> = (11..15).map(facts).collect();
    println!("ticket files, {RUNS} runs each (median, p95, size):");
    let rows: [Maker; 4] = [
        (
            "PDF, one ticket",
            Box::new(|| tickets_pdf(&one, Paper::A4, "Ticket").unwrap()),
        ),
        (
            "PDF, four tickets",
            Box::new(|| tickets_pdf(&four, Paper::A4, "Tickets").unwrap()),
        ),
        (
            "Apple Wallet pass",
            Box::new(|| pkpass(&apple, &one[0], "seatmap", COLOURS).unwrap()),
        ),
        (
            "Google Wallet link",
            Box::new(|| {
                save_url(
                    &google,
                    &one[0],
                    "https://tickets.example",
                    "seatmap",
                    COLOURS,
                )
                .unwrap()
                .into_bytes()
            }),
        ),
    ];
    for (name, make) in rows {
        let (median, p95, size) = measure(make);
        println!(
            "  {name:<20} median {:>7.2} ms   p95 {:>7.2} ms   {size} bytes",
            median.as_secs_f64() * 1000.0,
            p95.as_secs_f64() * 1000.0
        );
    }
}
