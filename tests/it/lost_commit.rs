//! A purchase whose `COMMIT` answer is lost (issue 53): a proxy between
//! the app and PostgreSQL lets the purchase's `COMMIT` through, then cuts
//! the connection before its answer comes back. The sale landed; the app
//! finds that out on a new connection and answers 201 with the order, and
//! a retry with the same `Idempotency-Key` buys nothing twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::support::{id_segment, spawn_app_with};

/// A simple-query `COMMIT`, as tokio-postgres sends it.
const COMMIT: &[u8] = b"Q\0\0\0\x0bCOMMIT\0";
/// What marks a purchase's transaction on its connection (the order's
/// insert, prepared in the transaction on a fresh connection).
const PURCHASE: &[u8] = b"INSERT INTO orders";

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

struct CutProxy {
    port: u16,
    armed: Arc<AtomicBool>,
    cut: Arc<AtomicUsize>,
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

async fn upstream(host: &tokio_postgres::config::Host, port: u16) -> Box<dyn Stream> {
    match host {
        tokio_postgres::config::Host::Tcp(host) => Box::new(
            tokio::net::TcpStream::connect((host.as_str(), port))
                .await
                .expect("the proxy reaches PostgreSQL"),
        ),
        tokio_postgres::config::Host::Unix(dir) => Box::new(
            tokio::net::UnixStream::connect(dir.join(format!(".s.PGSQL.{port}")))
                .await
                .expect("the proxy reaches PostgreSQL"),
        ),
    }
}

/// Forwards every connection to PostgreSQL; while armed, the first
/// `COMMIT` of a purchase's transaction goes through and its answer is
/// dropped with the connection.
async fn cut_proxy(pg: tokio_postgres::Config) -> CutProxy {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let armed = Arc::new(AtomicBool::new(false));
    let cut = Arc::new(AtomicUsize::new(0));
    let host = pg.get_hosts()[0].clone();
    let pg_port = pg.get_ports().first().copied().unwrap_or(5432);
    let (armed_for_task, cut_for_task) = (armed.clone(), cut.clone());
    tokio::spawn(async move {
        loop {
            let Ok((client, _)) = listener.accept().await else {
                return;
            };
            let server = upstream(&host, pg_port).await;
            let (armed, cut) = (armed_for_task.clone(), cut_for_task.clone());
            tokio::spawn(async move {
                let (mut client_read, mut client_write) = tokio::io::split(client);
                let (mut server_read, mut server_write) = tokio::io::split(server);
                let cutting = Arc::new(AtomicBool::new(false));
                let cutting_replies = cutting.clone();
                let replies = tokio::spawn(async move {
                    let mut buffer = vec![0u8; 64 * 1024];
                    loop {
                        let Ok(n) = server_read.read(&mut buffer).await else {
                            return;
                        };
                        if n == 0 || cutting_replies.load(Ordering::SeqCst) {
                            return;
                        }
                        if client_write.write_all(&buffer[..n]).await.is_err() {
                            return;
                        }
                    }
                });
                let mut buffer = vec![0u8; 64 * 1024];
                let mut in_purchase = false;
                while let Ok(n) = client_read.read(&mut buffer).await {
                    if n == 0 {
                        break;
                    }
                    let chunk = &buffer[..n];
                    in_purchase |= contains(chunk, PURCHASE);
                    let commit = contains(chunk, COMMIT);
                    if commit && in_purchase && armed.swap(false, Ordering::SeqCst) {
                        // Replies are dropped from now on; the COMMIT goes
                        // through, PostgreSQL commits and answers, and the
                        // app's side of the connection is closed unanswered.
                        cutting.store(true, Ordering::SeqCst);
                        let _ = server_write.write_all(chunk).await;
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        cut.fetch_add(1, Ordering::SeqCst);
                        replies.abort();
                        return;
                    }
                    if commit {
                        in_purchase = false;
                    }
                    if server_write.write_all(chunk).await.is_err() {
                        break;
                    }
                }
                replies.abort();
            });
        }
    });
    CutProxy { port, armed, cut }
}

#[tokio::test]
async fn a_purchase_whose_commit_answer_is_lost_is_answered_as_it_landed_and_a_retry_buys_nothing_twice()
 {
    let db = crate::support::TestDb::create().await;
    let proxy = cut_proxy(db.pg_config()).await;
    let mut through_proxy = db.pg_config();
    through_proxy.host("127.0.0.1").port(proxy.port);
    let conninfo = {
        let mut parts = vec![format!("host=127.0.0.1 port={}", proxy.port)];
        if let Some(user) = through_proxy.get_user() {
            parts.push(format!("user={user}"));
        }
        if let Some(password) = through_proxy.get_password() {
            parts.push(format!("password={}", String::from_utf8_lossy(password)));
        }
        parts.push(format!("dbname={}", through_proxy.get_dbname().unwrap()));
        parts.join(" ")
    };
    let app = spawn_app_with(|config| {
        config.database =
            seatmap::config::DatabaseSource::Url(seatmap::config::Secret::new(conninfo));
    })
    .await;
    let event = app.create_event(1, 4).await;
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(event.id, &event.seat_ids[..2]).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let path = format!("/api/holds/{}/purchase", id_segment(&hold["hold_id"]));
    let body = json!({"name": "Ada Lovelace", "email": "ada@example.com"});
    let purchase = |key: &'static str| {
        let (buyer, path, body) = (buyer.clone(), path.clone(), body.clone());
        async move {
            let answer = buyer.post_keyed(&path, key, &body).await;
            (answer.status, answer.body)
        }
    };

    proxy.armed.store(true, Ordering::SeqCst);
    let (status, order) = purchase("lost-answer").await;
    assert_eq!(
        proxy.cut.load(Ordering::SeqCst),
        1,
        "the COMMIT's answer was cut"
    );
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let orders = format!("SELECT count(*) FROM orders WHERE event_id = {}", event.id);
    assert_eq!(app.count(&orders).await, 1);
    assert_eq!(order["seat_ids"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        order["tickets"].as_array().map(Vec::len),
        Some(2),
        "{order}"
    );
    let tickets = app
        .count(&format!(
            "SELECT count(*) FROM tickets WHERE order_id = '{}'",
            order["order_id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(tickets, 2);

    // The client never trusted that answer and retries with its key.
    let (status, again) = purchase("lost-answer").await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_eq!(again["order_id"], order["order_id"]);
    assert_eq!(app.count(&orders).await, 1, "nothing bought twice");
}
