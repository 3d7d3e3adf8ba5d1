//! E-mail through a real SMTP server on loopback (Debian's
//! python3-aiosmtpd, which the test command installs): the message
//! arrives with the tickets, two workers never send one row twice, and
//! killing the app mid-send loses nothing.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use seatmap::config::{MailSettings, Secret};
use seatmap::mail::Worker;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::after_sale::buy;
use crate::support::{TestApp, id_segment, scratch_dir, spawn_app};

const PYTHON: &str = "/usr/bin/python3";

/// aiosmtpd writing every message it accepts into a Maildir.
pub struct SmtpSink {
    port: u16,
    maildir: PathBuf,
    child: tokio::process::Child,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

impl SmtpSink {
    pub async fn start(name: &str) -> SmtpSink {
        let ready = std::process::Command::new(PYTHON)
            .args(["-c", "import aiosmtpd"])
            .status()
            .is_ok_and(|status| status.success());
        assert!(
            ready,
            "the mail tests need Debian's python3-aiosmtpd ({PYTHON} -m aiosmtpd): \
             apt-get install python3-aiosmtpd (tests/run-all.sh installs it)"
        );
        let maildir = scratch_dir(name).join("maildir");
        std::fs::create_dir_all(scratch_dir(name)).expect("a scratch directory");
        let port = free_port();
        let child = tokio::process::Command::new(PYTHON)
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(&maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("starting aiosmtpd");
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                Instant::now() < deadline,
                "aiosmtpd did not listen on {port}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        SmtpSink {
            port,
            maildir,
            child,
        }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message delivered so far, as raw text.
    pub fn messages(&self) -> Vec<String> {
        ["new", "cur"]
            .iter()
            .flat_map(|sub| {
                std::fs::read_dir(self.maildir.join(sub))
                    .into_iter()
                    .flatten()
            })
            .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
            .collect()
    }

    async fn wait_for(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let messages = self.messages();
            if messages.len() >= count {
                return messages;
            }
            assert!(
                Instant::now() < deadline,
                "{} of {count} messages arrived",
                messages.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// The first message (its body decoded) that `matches`, waiting for it;
/// `what` names it if none arrives.
pub async fn wait_for_mail_where(
    sink: &SmtpSink,
    what: &str,
    matches: impl Fn(&str) -> bool,
) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(message) = sink
            .messages()
            .iter()
            .map(|m| unwrapped(m))
            .find(|m| matches(m))
        {
            return message;
        }
        assert!(Instant::now() < deadline, "{what} did not arrive");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The first message to `recipient`, its body decoded, waiting for it.
pub async fn wait_for_mail_to(sink: &SmtpSink, recipient: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(message) = sink
            .messages()
            .iter()
            .map(|m| unwrapped(m))
            .find(|m| header(m, "To") == Some(recipient))
        {
            return message;
        }
        assert!(Instant::now() < deadline, "no mail to {recipient} arrived");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn header<'a>(message: &'a str, name: &str) -> Option<&'a str> {
    message.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// The message with its quoted-printable body decoded (lettre encodes a
/// body with long lines so: "=\r\n" soft breaks, "=3D" for "=").
pub fn unwrapped(message: &str) -> String {
    let joined = message.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'=', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (other, _) => {
                out.push(other);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An app whose outbox sends to `sink`, polled often.
pub async fn app_mailing_to(sink: &SmtpSink) -> TestApp {
    let url = sink.url();
    crate::support::spawn_app_with(|config| {
        config.mail.smtp_url = Some(Secret::new(url));
        config.mail.poll_every = Duration::from_millis(50);
    })
    .await
}

fn settings(sink: &SmtpSink, lease: Duration) -> MailSettings {
    MailSettings {
        smtp_url: Some(Secret::new(sink.url())),
        lease,
        poll_every: Duration::from_millis(20),
        ..MailSettings::default()
    }
}

async fn message_id_of(app: &TestApp, order_id: &str) -> String {
    app.sql()
        .await
        .query_one(
            "SELECT message_id FROM outbox WHERE order_id = $1::text::uuid",
            &[&order_id],
        )
        .await
        .expect("the order's outbox row")
        .get(0)
}

#[tokio::test]
async fn a_purchase_mails_its_tickets_through_a_real_smtp_server() {
    let sink = SmtpSink::start("mail-arrives").await;
    let app = app_mailing_to(&sink).await;
    let event = app.create_event(1, 4).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..2], None).await;
    let order_id = id_segment(&order["order_id"]);

    let messages = sink.wait_for(1).await;
    assert_eq!(messages.len(), 1);
    let message = unwrapped(&messages[0]);
    assert_eq!(header(&message, "To"), Some("ada@example.com"));
    assert_eq!(
        header(&message, "Message-ID"),
        Some(message_id_of(&app, &order_id).await.as_str())
    );
    assert!(
        header(&message, "Subject")
            .unwrap()
            .contains("Your tickets for")
    );
    for ticket in order["tickets"].as_array().unwrap() {
        let code = ticket["code"].as_str().unwrap();
        assert!(message.contains(&format!("/tickets/{code}")), "{message}");
    }
    // The signed link in it opens the order without the buyer's session.
    let link = message
        .split_whitespace()
        .find(|word| word.contains(&format!("/orders/{order_id}?until=")))
        .unwrap_or_else(|| panic!("no order link in {message}"));
    let response = app.buyer().http.get(link).send().await.unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::OK, "{link}");
    // It works until 30 days after the event starts.
    let until: i64 = link
        .split("until=")
        .nth(1)
        .and_then(|rest| rest.split('&').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no expiry in {link}"));
    let starts: time::OffsetDateTime = app
        .sql()
        .await
        .query_one("SELECT starts_at FROM events WHERE id = $1", &[&event.id])
        .await
        .unwrap()
        .get(0);
    assert_eq!(until, (starts + time::Duration::days(30)).unix_timestamp());
    // Sent, once; the buyer's page says so.
    let sent = app
        .count("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND attempts = 1")
        .await;
    assert_eq!(sent, 1);
    let page = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert!(page.contains("were e-mailed to ada@example.com"), "{page}");
}

#[tokio::test]
async fn two_workers_never_send_the_same_row() {
    const ROWS: i64 = 40;
    let sink = SmtpSink::start("mail-two-workers").await;
    // No SMTP for the app itself: only the two workers below send.
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    app.sql()
        .await
        .execute(
            "INSERT INTO outbox (message_id, kind, order_id, recipient, subject)
             SELECT '<copy-' || n || '@seatmap>', kind, order_id, 'copy' || n || '@example.com', subject
               FROM outbox CROSS JOIN generate_series(2, $1::bigint) AS n",
            &[&ROWS],
        )
        .await
        .unwrap();
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let pool = seatmap::db::build_pool(app.db.pg_config(), &app.config.db).unwrap();
            let worker = Worker::new(
                pool,
                &settings(&sink, Duration::from_secs(60)),
                (*app.state.links).clone(),
            )
            .unwrap()
            .expect("SMTP is configured");
            tokio::spawn(worker.run())
        })
        .collect();
    let messages = sink.wait_for(ROWS as usize).await;
    // Give a duplicate, if any were coming, the time to land.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for worker in workers {
        worker.abort();
    }
    let messages = {
        let late = sink.messages();
        assert!(late.len() >= messages.len());
        late
    };
    let mut ids: Vec<String> = messages
        .iter()
        .map(|m| header(m, "Message-ID").expect("a Message-ID").to_string())
        .collect();
    ids.sort();
    let sent = ids.len();
    ids.dedup();
    assert_eq!(sent, ROWS as usize, "every row sent once, none twice");
    assert_eq!(ids.len(), ROWS as usize);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND attempts = 1")
            .await,
        ROWS
    );
    let _ = order;
}

/// An SMTP server that takes a whole message and never says it got it:
/// the app is mid-send for as long as this server likes.
async fn stalling_smtp_server() -> (u16, tokio::sync::oneshot::Receiver<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (got_message, told) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read).lines();
        write.write_all(b"220 stall ESMTP\r\n").await.unwrap();
        let mut in_data = false;
        let mut got_message = Some(got_message);
        while let Ok(Some(line)) = lines.next_line().await {
            if in_data {
                if line == "." {
                    // The whole message is here; never answer it.
                    if let Some(tell) = got_message.take() {
                        let _ = tell.send(());
                    }
                    std::future::pending::<()>().await;
                }
                continue;
            }
            let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
            let reply: &[u8] = match verb.as_str() {
                "EHLO" | "HELO" => b"250 stall\r\n",
                "DATA" => {
                    in_data = true;
                    b"354 go ahead\r\n"
                }
                "QUIT" => b"221 bye\r\n",
                _ => b"250 OK\r\n",
            };
            write.write_all(reply).await.unwrap();
        }
    });
    (port, told)
}

#[tokio::test]
async fn killing_the_app_mid_send_loses_no_message() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let order_id = id_segment(&order["order_id"]);
    let message_id = message_id_of(&app, &order_id).await;

    // The app, as a process, sends to a server that never acknowledges.
    let (stall_port, got_message) = stalling_smtp_server().await;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
        .env("DATABASE_URL", app.db.conninfo())
        .env("SEATMAP_ADDR", "127.0.0.1:0")
        .env("SEATMAP_SMTP_URL", format!("smtp://127.0.0.1:{stall_port}"))
        // A lease (and so an SMTP timeout, a third of it) far longer than
        // any machine takes to kill the app once the message is in: the
        // app can't give up first. The lease's running out is then made,
        // not waited for.
        .env("SEATMAP_MAIL_LEASE_SECS", "600")
        .env("SEATMAP_MAIL_POLL_MS", "50")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("starting seatmap");
    tokio::time::timeout(Duration::from_secs(30), got_message)
        .await
        .expect("the app began sending within 30 s")
        .unwrap();
    child.start_kill().unwrap();
    child.wait().await.unwrap();

    // Killed mid-send: the row is leased, tried once, not sent.
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT attempts, sent_at IS NULL AS unsent, lease IS NOT NULL AS leased FROM outbox",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>("attempts"), 1);
    assert!(row.get::<_, bool>("unsent") && row.get::<_, bool>("leased"));

    // Another worker takes it once the dead one's lease runs out (moved
    // to the past here, as ten minutes would).
    app.lapse_leases().await;
    let sink = SmtpSink::start("mail-after-kill").await;
    let worker = Worker::new(
        seatmap::db::build_pool(app.db.pg_config(), &app.config.db).unwrap(),
        &settings(&sink, Duration::from_secs(3)),
        (*app.state.links).clone(),
    )
    .unwrap()
    .unwrap();
    let sending = tokio::spawn(worker.run());
    let messages = sink.wait_for(1).await;
    assert_eq!(
        header(&messages[0], "Message-ID"),
        Some(message_id.as_str())
    );
    assert!(unwrapped(&messages[0]).contains(order["tickets"][0]["code"].as_str().unwrap()));
    // The sink has the message once the server accepted it; the worker
    // records it as sent only after that answer reaches it. Stopping the
    // worker as soon as the sink had it (as this test once did) could cut
    // that write off: the test failed about one run in ten on a busy machine.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let recorded = loop {
        let sent = app
            .count("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND attempts = 2")
            .await;
        if sent == 1 || tokio::time::Instant::now() >= deadline {
            break sent;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    sending.abort();
    assert_eq!(recorded, 1, "recorded as sent on its second attempt");
}

/// What a purchase takes, the mailer can send: addresses lettre refuses
/// (quoted local parts with commas or markup) or that name a host rather
/// than a domain are refused at the purchase, with nothing held lost.
#[tokio::test]
async fn a_purchase_refuses_addresses_mail_could_never_reach() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &event.seat_ids[..1]).await;
    assert_eq!(status, reqwest::StatusCode::CREATED);
    for email in [
        "\"a,b\"@example.com",
        "\"<b>x</b>\"@example.com",
        "a@127.0.0.1",
        "a@[127.0.0.1]",
        "josé@example.com",
    ] {
        let (status, body) = buyer.purchase(&hold["hold_id"], "Ada", email).await;
        assert_eq!(
            status,
            reqwest::StatusCode::UNPROCESSABLE_ENTITY,
            "{email}: {body}"
        );
        assert_eq!(body["error"], "invalid_email", "{email}");
    }
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
    let (status, _) = buyer
        .purchase(&hold["hold_id"], "Ada", "ada@example.com")
        .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "the hold was kept");
}

/// Moves a failed row's next attempt to now, as waiting out its backoff
/// would.
async fn due_now(app: &TestApp) {
    app.sql()
        .await
        .execute(
            "UPDATE outbox SET next_attempt_at = now() WHERE sent_at IS NULL",
            &[],
        )
        .await
        .unwrap();
}

/// Mail that can't go is given up after the configured attempts (not
/// retried hourly for ever); staff see it failed and send it again by
/// hand; the buyer's page says it could not be sent.
#[tokio::test]
async fn mail_that_keeps_failing_is_given_up_shown_to_staff_and_sent_again_by_hand() {
    let app = spawn_app().await;
    let event = app.create_event(1, 4).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let order_id = id_segment(&order["order_id"]);

    // An SMTP server that isn't there: every attempt fails.
    let nowhere = MailSettings {
        smtp_url: Some(Secret::new(format!("smtp://127.0.0.1:{}", free_port()))),
        lease: Duration::from_secs(30),
        poll_every: Duration::from_millis(20),
        max_attempts: 3,
        ..MailSettings::default()
    };
    let pool = seatmap::db::build_pool(app.db.pg_config(), &app.config.db).unwrap();
    let failing = Worker::new(pool.clone(), &nowhere, (*app.state.links).clone())
        .unwrap()
        .unwrap();
    for attempt in 1..=3 {
        assert_eq!(failing.send_due().await.unwrap(), 1, "attempt {attempt}");
        due_now(&app).await;
    }
    assert_eq!(
        failing.send_due().await.unwrap(),
        0,
        "after 3 attempts nothing is due: it was given up"
    );
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT attempts, failed_at IS NOT NULL AS failed, id FROM outbox",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>("attempts"), 3);
    assert!(row.get::<_, bool>("failed"));
    let message_id: i64 = row.get("id");

    let page = buyer.get_text(&format!("/orders/{order_id}")).await;
    assert!(
        page.contains("We could not e-mail ada@example.com"),
        "{page}"
    );
    let clerk = crate::staff::staff(&app, "clerk").await;
    let mail_page = format!("/staff/events/{}/mail", event.id);
    let listed = clerk.get_text(&mail_page).await;
    assert!(
        listed.contains("gave up") && listed.contains("Send again"),
        "{listed}"
    );

    // Sent again by hand, to a server that is there this time.
    let csrf = crate::pages::csrf_from(&clerk, &mail_page).await;
    let response = clerk
        .http
        .post(format!("{}{mail_page}/{message_id}/retry", app.base))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::SEE_OTHER);
    let sink = SmtpSink::start("mail-sent-again").await;
    let working = Worker::new(
        pool,
        &settings(&sink, Duration::from_secs(30)),
        (*app.state.links).clone(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(working.send_due().await.unwrap(), 1);
    assert_eq!(sink.wait_for(1).await.len(), 1);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND failed_at IS NULL AND attempts = 1")
            .await,
        1
    );
}

/// A message whose order was wholly refunded before it went has nothing
/// to say: it is retired at its first attempt, neither sent nor failed.
/// The refund's own mail goes, saying what was refunded and how.
#[tokio::test]
async fn a_message_whose_order_was_refunded_before_it_went_is_retired() {
    let sink = SmtpSink::start("mail-retired").await;
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let (status, _) = clerk
        .post(
            &format!(
                "/api/staff/events/{}/orders/{}/refund",
                event.id,
                id_segment(&order["order_id"])
            ),
            serde_json::json!({}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let pool = seatmap::db::build_pool(app.db.pg_config(), &app.config.db).unwrap();
    let worker = Worker::new(
        pool,
        &settings(&sink, Duration::from_secs(30)),
        (*app.state.links).clone(),
    )
    .unwrap()
    .unwrap();
    // One row at a time: the confirmation, then the refund's mail.
    assert_eq!(worker.send_due().await.unwrap(), 1);
    assert_eq!(worker.send_due().await.unwrap(), 1);
    assert_eq!(worker.send_due().await.unwrap(), 0, "never leased again");
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT retired_at IS NOT NULL AS retired, failed_at IS NULL AS not_failed, sent_at IS NULL AS unsent
               FROM outbox WHERE kind = 'order_confirmation'",
            &[],
        )
        .await
        .unwrap();
    assert!(
        row.get::<_, bool>("retired")
            && row.get::<_, bool>("not_failed")
            && row.get::<_, bool>("unsent")
    );
    let messages = sink.wait_for(1).await;
    assert_eq!(messages.len(), 1, "only the refund's mail went");
    let refund = unwrapped(&messages[0]);
    assert!(
        header(&refund, "Subject")
            .unwrap()
            .starts_with("Your refund for"),
        "{refund}"
    );
    assert!(refund.contains("We have refunded"), "{refund}");
    assert!(
        refund.contains("Nothing is left of this order."),
        "{refund}"
    );
}

/// Every refund mails the buyer: a part of an order bought in cash at the
/// counter names the ticket refunded, says the money came back in cash,
/// and that the other ticket still stands.
#[tokio::test]
async fn a_partial_refund_at_the_counter_mails_what_was_refunded_and_how() {
    let sink = SmtpSink::start("mail-partial-refund").await;
    let app = app_mailing_to(&sink).await;
    let event = app.create_event(1, 4).await;
    let clerk = crate::staff::staff(&app, "clerk").await;
    let (status, sale) = clerk
        .post(
            &format!("/api/staff/events/{}/sales", event.id),
            serde_json::json!({"seat_ids": &event.seat_ids[..2], "name": "Walk Up",
                               "email": "walkup@example.com", "tender": "cash"}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{sale}");
    let order_id = id_segment(&sale["order_id"]);
    let (_, order) = clerk
        .get(&format!("/api/staff/events/{}/orders/{order_id}", event.id))
        .await;
    let ticket = order["tickets"][0]["id"].clone();
    let place = order["tickets"][0]["place"].as_str().unwrap().to_string();
    wait_for_mail_to(&sink, "walkup@example.com").await;
    let (status, refund) = clerk
        .post(
            &format!("/api/staff/events/{}/orders/{order_id}/refund", event.id),
            serde_json::json!({"ticket_ids": [ticket]}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{refund}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let message = loop {
        if let Some(message) = sink
            .messages()
            .iter()
            .map(|m| unwrapped(m))
            .find(|m| header(m, "Subject").is_some_and(|s| s.starts_with("Your refund for")))
        {
            break message;
        }
        assert!(Instant::now() < deadline, "no refund mail arrived");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(header(&message, "To"), Some("walkup@example.com"));
    assert!(message.contains(&format!("- {place}")), "{message}");
    assert!(message.contains("paid back to you in cash"), "{message}");
    assert!(
        message.contains("Your other ticket is still valid"),
        "{message}"
    );
    // Staff see it on the event's Mail page.
    let page = clerk
        .get_text(&format!("/staff/events/{}/mail", event.id))
        .await;
    assert!(page.contains("<td>Refund</td>"), "{page}");
}

/// A worker sends with no transaction open: caught mid-send (the server
/// has the whole message and never answers), none of its connections is
/// inside a transaction, so a slow mail server holds no lock and no
/// snapshot.
#[tokio::test]
async fn mail_is_sent_with_no_transaction_open() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    buy(&app, event.id, &event.seat_ids[..1], None).await;
    let (port, got_message) = stalling_smtp_server().await;
    let settings = MailSettings {
        smtp_url: Some(Secret::new(format!("smtp://127.0.0.1:{port}"))),
        lease: Duration::from_secs(600),
        poll_every: Duration::from_millis(20),
        ..MailSettings::default()
    };
    let pool = seatmap::db::build_named_pool(app.db.pg_config(), &app.config.db, "mail-under-test")
        .unwrap();
    let worker = Worker::new(pool, &settings, (*app.state.links).clone())
        .unwrap()
        .unwrap();
    let sending = tokio::spawn(worker.run());
    tokio::time::timeout(Duration::from_secs(30), got_message)
        .await
        .expect("the worker began sending within 30 s")
        .unwrap();
    let row = app
        .sql()
        .await
        .query_one(
            "SELECT count(*) AS connections,
                    count(*) FILTER (WHERE xact_start IS NOT NULL) AS in_transaction
               FROM pg_stat_activity
              WHERE datname = current_database() AND application_name = 'mail-under-test'",
            &[],
        )
        .await
        .unwrap();
    sending.abort();
    assert!(
        row.get::<_, i64>("connections") >= 1,
        "the worker's connection is seen"
    );
    assert_eq!(
        row.get::<_, i64>("in_transaction"),
        0,
        "a connection of the worker sits in a transaction while it sends"
    );
}

/// An RFC 2047 subject (words of it as "=?utf-8?b?…?=") as text.
fn decoded_subject(raw: &str) -> String {
    // Whitespace between two encoded words is not part of the text.
    let mut out = String::new();
    let mut last_encoded = false;
    for word in raw.split_whitespace() {
        let encoded = word.starts_with("=?");
        if !out.is_empty() && (!encoded || !last_encoded) {
            out.push(' ');
        }
        out.push_str(&decoded_word(word));
        last_encoded = encoded;
    }
    out
}

fn decoded_word(raw: &str) -> String {
    let Some(inner) = raw
        .strip_prefix("=?utf-8?b?")
        .or_else(|| raw.strip_prefix("=?UTF-8?B?"))
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return raw.to_string();
    };
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for byte in inner.bytes().filter(|b| *b != b'=') {
        let value = ALPHABET.iter().position(|c| *c == byte).expect("base64") as u32;
        bits = (bits << 6) | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    String::from_utf8(out).expect("utf-8")
}

#[tokio::test]
async fn an_order_bought_in_german_is_mailed_in_german() {
    let sink = SmtpSink::start("mail-german").await;
    let app = app_mailing_to(&sink).await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let german = |request: reqwest::RequestBuilder| request.header("accept-language", "de");
    let hold: serde_json::Value = german(
        buyer
            .http
            .post(format!("{}/api/events/{}/holds", buyer.base, event.id)),
    )
    .json(&serde_json::json!({"seat_ids": [event.seat_ids[0]]}))
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let hold_id = id_segment(&hold["hold_id"]);
    let response = german(
        buyer
            .http
            .post(format!("{}/api/holds/{hold_id}/purchase", buyer.base)),
    )
    .json(&serde_json::json!({"name": "Ada", "email": "ada@example.com"}))
    .send()
    .await
    .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::CREATED);

    let messages = sink.wait_for(1).await;
    let message = unwrapped(&messages[0]);
    assert_eq!(
        decoded_subject(header(&message, "Subject").unwrap()),
        "Ihre Karten für Test Night"
    );
    for words in [
        "Hallo Ada,",
        "Stalls, Reihe A, Platz 1 (Standard), 45\u{a0}€",
        "Kartencode:",
        "Gesamt: 45\u{a0}€",
    ] {
        assert!(message.contains(words), "{words:?} in {message}");
    }
    // The date in German, in the venue's zone (UTC here).
    assert!(
        ["Mo.,", "Di.,", "Mi.,", "Do.,", "Fr.,", "Sa.,", "So.,"]
            .iter()
            .any(|day| message.contains(day)),
        "{message}"
    );
}
