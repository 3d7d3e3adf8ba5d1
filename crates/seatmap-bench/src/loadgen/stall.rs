//! Request bodies that stall, and a clean client beside them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::requests::tasks_lost;

/// What stalled request bodies did to a clean client.
#[derive(Debug, Default, Serialize)]
pub struct StallReport {
    /// Stalled bodies sent (each a connection, opened again when closed).
    pub stalled_sent: u64,
    /// Of those, closed by the server while the attack ran.
    pub stalled_closed: u64,
    /// The longest the server kept a stalled body's connection open
    /// before closing it.
    pub longest_open_secs: f64,
    /// Still open when the attack ended, and the oldest of them.
    pub still_open: u64,
    pub oldest_still_open_secs: f64,
    pub probes: u64,
    pub probes_answered: u64,
}

/// Sends, from each of `addresses` loopback addresses (127.0.0.2 on),
/// `per_address` hold requests that promise 1,000 bytes of body and send
/// one, each connection opened again as soon as the server closes it,
/// for `duration`. A clean address (127.0.0.250) asks /healthz every
/// second, on a new connection, giving each 5 s.
pub async fn stalled_bodies(
    base: &str,
    event_id: i64,
    addresses: u8,
    per_address: usize,
    duration: Duration,
) -> StallReport {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server: std::net::SocketAddr = base
        .trim_start_matches("http://")
        .parse()
        .expect("a loopback base URL");
    let until = Instant::now() + duration;
    let request = format!(
        "POST /api/events/{event_id}/holds HTTP/1.1\r\nHost: seatmap\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
    );
    let sent = Arc::new(AtomicU64::new(0));
    let closed = Arc::new(AtomicU64::new(0));
    let longest_ms = Arc::new(AtomicU64::new(0));
    let still_open = Arc::new(AtomicU64::new(0));
    let oldest_open_ms = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for address in 0..addresses {
        for _ in 0..per_address {
            let local = std::net::SocketAddr::from(([127, 0, 0, 2 + address], 0));
            let (request, sent, closed, longest_ms) = (
                request.clone(),
                sent.clone(),
                closed.clone(),
                longest_ms.clone(),
            );
            let (still_open, oldest_open_ms) = (still_open.clone(), oldest_open_ms.clone());
            tasks.push(tokio::spawn(async move {
                while Instant::now() < until {
                    let Ok(socket) = tokio::net::TcpSocket::new_v4() else {
                        break;
                    };
                    let connected = async {
                        socket.bind(local)?;
                        socket.connect(server).await
                    };
                    if let Ok(mut stream) = connected.await {
                        if stream.write_all(request.as_bytes()).await.is_ok() {
                            sent.fetch_add(1, Ordering::Relaxed);
                            let opened = Instant::now();
                            let mut buffer = [0u8; 1024];
                            loop {
                                let read =
                                    tokio::time::timeout_at(until.into(), stream.read(&mut buffer))
                                        .await;
                                match read {
                                    Err(_) => {
                                        still_open.fetch_add(1, Ordering::Relaxed);
                                        oldest_open_ms.fetch_max(
                                            opened.elapsed().as_millis() as u64,
                                            Ordering::Relaxed,
                                        );
                                        break;
                                    }
                                    Ok(Ok(0)) | Ok(Err(_)) => {
                                        closed.fetch_add(1, Ordering::Relaxed);
                                        longest_ms.fetch_max(
                                            opened.elapsed().as_millis() as u64,
                                            Ordering::Relaxed,
                                        );
                                        break;
                                    }
                                    Ok(Ok(_)) => {}
                                }
                            }
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }));
        }
    }
    let probe = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 250]))
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(5))
        .build()
        .expect("http client");
    let (mut probes, mut answered) = (0, 0);
    tokio::time::sleep(Duration::from_secs(1)).await;
    while Instant::now() + Duration::from_secs(5) < until {
        let asked = Instant::now();
        probes += 1;
        if probe
            .get(format!("{base}/healthz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == reqwest::StatusCode::OK)
        {
            answered += 1;
        }
        tokio::time::sleep(Duration::from_secs(1).saturating_sub(asked.elapsed())).await;
    }
    tasks_lost(tasks).await;
    StallReport {
        stalled_sent: sent.load(Ordering::Relaxed),
        stalled_closed: closed.load(Ordering::Relaxed),
        longest_open_secs: longest_ms.load(Ordering::Relaxed) as f64 / 1000.0,
        still_open: still_open.load(Ordering::Relaxed),
        oldest_still_open_secs: oldest_open_ms.load(Ordering::Relaxed) as f64 / 1000.0,
        probes,
        probes_answered: answered,
    }
}
