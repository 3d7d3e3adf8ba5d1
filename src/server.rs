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
    let gate = AddressGate::new(limits.max_connections, limits.max_connections_per_ip);
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
        let Ok(admission) = gate.admit(peer.ip()) else {
            metrics::counter!(CONNECTIONS_REFUSED).increment(1);
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection =
            http.serve_connection(TokioIo::new(stream), per_connection(router.clone(), peer));
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
    if let Ok((soft, _)) =
        nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
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

/// Counts open connections (or live streams), in total and per client
/// address. In-process on purpose: it bounds this instance's own sockets
/// and tasks, not anything shared.
#[derive(Clone)]
pub struct AddressGate {
    total: Arc<Semaphore>,
    per_address: Arc<Mutex<HashMap<IpAddr, usize>>>,
    max_per_address: usize,
}

/// One admitted connection or stream; gives its places back when dropped.
pub struct Admission {
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

/// Why a gate said no.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    Total,
    Address,
}

impl AddressGate {
    /// `max_per_address` 0 means no per-address cap.
    pub fn new(max_total: usize, max_per_address: usize) -> AddressGate {
        AddressGate {
            total: Arc::new(Semaphore::new(max_total)),
            per_address: Arc::new(Mutex::new(HashMap::new())),
            max_per_address,
        }
    }

    pub fn admit(&self, ip: IpAddr) -> Result<Admission, Full> {
        let total = self
            .total
            .clone()
            .try_acquire_owned()
            .map_err(|_| Full::Total)?;
        if self.max_per_address == 0 {
            return Ok(Admission {
                _total: total,
                address: None,
            });
        }
        let mut counts = self.per_address.lock().unwrap_or_else(|p| p.into_inner());
        let open = counts.entry(ip).or_insert(0);
        if *open >= self.max_per_address {
            return Err(Full::Address);
        }
        *open += 1;
        Ok(Admission {
            _total: total,
            address: Some((ip, self.per_address.clone())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_counts_per_address_and_in_total_and_gives_places_back() {
        let gate = AddressGate::new(3, 2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = gate.admit(a).expect("first from a");
        let _second = gate.admit(a).expect("second from a");
        assert_eq!(
            gate.admit(a).err(),
            Some(Full::Address),
            "a third from one address"
        );
        let _third = gate.admit(b).expect("another address");
        assert_eq!(gate.admit(b).err(), Some(Full::Total), "the total is full");
        drop(first);
        assert!(gate.admit(a).is_ok(), "a place came back");
    }

    #[test]
    fn zero_per_address_means_only_the_total_counts() {
        let gate = AddressGate::new(2, 0);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let _one = gate.admit(a).unwrap();
        let _two = gate.admit(a).unwrap();
        assert_eq!(gate.admit(a).err(), Some(Full::Total));
    }
}
