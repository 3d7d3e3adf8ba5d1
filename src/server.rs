//! The HTTP server around the router: hyper's HTTP/1 connection builder
//! with a header-read timeout (which also closes idle keep-alive
//! connections), caps on open connections in total and per client address,
//! and a graceful shutdown that ends within a bounded time. Production,
//! the tests and the benchmarks all serve through [`serve`].

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

use crate::config::ServerLimits;

pub const CONNECTIONS_REFUSED: &str = "seatmap_http_connections_refused_total";

/// Serves `router` on `listener` until `shutdown` resolves, then stops
/// accepting, lets requests in flight finish for at most
/// `limits.shutdown_grace`, and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send,
) {
    let limits = effective(limits);
    let gate = ConnectionGate::new(&limits);
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(64 * 1024)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors, say: back off instead of spinning.
                    tracing::warn!(error = %err, "accepting a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some(admission) = gate.admit(peer.ip()) else {
            metrics::counter!(CONNECTIONS_REFUSED).increment(1);
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = http
            .serve_connection(TokioIo::new(stream), per_connection(router.clone(), peer));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, %peer, "connection ended with an error");
            }
            drop(admission);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            grace_secs = limits.shutdown_grace.as_secs(),
            "requests still in flight after the shutdown grace period; closing them"
        );
    }
}

/// The router as a hyper service that knows the connection's peer (for
/// per-address limits, as `into_make_service_with_connect_info` would).
fn per_connection(
    router: Router,
    peer: SocketAddr,
) -> impl hyper::service::Service<
    hyper::Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Future + Send,
> + Clone {
    hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        router.clone().oneshot(request.map(axum::body::Body::new))
    })
}

/// The connection cap may not exceed what the process can open, less a
/// reserve for the database pool, the embedded cluster and files.
fn effective(mut limits: ServerLimits) -> ServerLimits {
    const RESERVE: u64 = 256;
    if let Ok((soft, _)) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
    {
        let room = soft.saturating_sub(RESERVE).max(16) as usize;
        if limits.max_connections > room {
            tracing::warn!(
                configured = limits.max_connections,
                used = room,
                open_files_limit = soft,
                "MAX_CONNECTIONS is above what the open-files limit allows; using less"
            );
            limits.max_connections = room;
        }
    }
    limits
}

/// Counts open connections, in total and per client address.
struct ConnectionGate {
    total: Arc<Semaphore>,
    per_address: Arc<Mutex<HashMap<IpAddr, usize>>>,
    max_per_address: usize,
}

/// One admitted connection; gives its places back when dropped.
struct Admission {
    _total: OwnedSemaphorePermit,
    address: Option<(IpAddr, Arc<Mutex<HashMap<IpAddr, usize>>>)>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        if let Some((ip, counts)) = &self.address {
            let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(open) = counts.get_mut(ip) {
                *open -= 1;
                if *open == 0 {
                    counts.remove(ip);
                }
            }
        }
    }
}

impl ConnectionGate {
    fn new(limits: &ServerLimits) -> ConnectionGate {
        ConnectionGate {
            total: Arc::new(Semaphore::new(limits.max_connections)),
            per_address: Arc::new(Mutex::new(HashMap::new())),
            max_per_address: limits.max_connections_per_ip,
        }
    }

    fn admit(&self, ip: IpAddr) -> Option<Admission> {
        let total = self.total.clone().try_acquire_owned().ok()?;
        if self.max_per_address == 0 {
            return Some(Admission {
                _total: total,
                address: None,
            });
        }
        let mut counts = self.per_address.lock().unwrap_or_else(|p| p.into_inner());
        let open = counts.entry(ip).or_insert(0);
        if *open >= self.max_per_address {
            return None;
        }
        *open += 1;
        Some(Admission {
            _total: total,
            address: Some((ip, self.per_address.clone())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(total: usize, per_address: usize) -> ServerLimits {
        ServerLimits {
            max_connections: total,
            max_connections_per_ip: per_address,
            ..ServerLimits::default()
        }
    }

    #[test]
    fn the_gate_counts_per_address_and_in_total_and_gives_places_back() {
        let gate = ConnectionGate::new(&limits(3, 2));
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = gate.admit(a).expect("first from a");
        let _second = gate.admit(a).expect("second from a");
        assert!(gate.admit(a).is_none(), "a third from one address");
        let _third = gate.admit(b).expect("another address");
        assert!(gate.admit(b).is_none(), "the total is full");
        drop(first);
        assert!(gate.admit(a).is_some(), "a place came back");
    }

    #[test]
    fn zero_per_address_means_only_the_total_counts() {
        let gate = ConnectionGate::new(&limits(2, 0));
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let _one = gate.admit(a).unwrap();
        let _two = gate.admit(a).unwrap();
        assert!(gate.admit(a).is_none());
    }
}
