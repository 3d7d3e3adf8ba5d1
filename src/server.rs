//! The HTTP server around the router: hyper's HTTP/1 connection builder
//! with a header-read timeout (which also closes idle keep-alive
//! connections), a timeout on each wait for more of a request body, caps
//! on open connections in total and per client network that always leave
//! a newcomer room (see [`gate`]), and a graceful shutdown that ends within
//! a bounded time. Production, the tests and the benchmarks all serve
//! through [`serve`]. The deadline on a whole request is the router's
//! (`app::request_deadline`), so that its answer is a page or JSON.

mod gate;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::timeout::{TimeoutBody, TimeoutError};

pub use gate::{AddressGate, Admission, Full, network_of};

use crate::config::ServerLimits;

pub const CONNECTIONS_REFUSED: &str = "seatmap_http_connections_refused_total";
/// Connections closed to make room for a client with fewer open.
pub const CONNECTIONS_EVICTED: &str = "seatmap_http_connections_evicted_total";

/// Set on a request whose body stopped arriving for longer than the body
/// timeout: whatever the handler then answered, the answer is a 408.
#[derive(Clone, Default)]
pub struct BodyStalled(Arc<AtomicBool>);

impl BodyStalled {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

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
        let Ok(admission) = gate.admit_or_evict(peer.ip()) else {
            metrics::counter!(CONNECTIONS_REFUSED).increment(1);
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = http.serve_connection(
            TokioIo::new(stream),
            per_connection(router.clone(), peer, limits.body_read_timeout),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => {
                    if let Err(err) = ended {
                        tracing::debug!(error = %err, %peer, "connection ended with an error");
                    }
                }
                () = admission.evicted() => {
                    metrics::counter!(CONNECTIONS_EVICTED).increment(1);
                    tracing::debug!(%peer, "connection closed to make room for another client");
                }
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
/// per-address limits, as `into_make_service_with_connect_info` would),
/// and whose request bodies fail once they stall for `body_timeout`.
fn per_connection(
    router: Router,
    peer: SocketAddr,
    body_timeout: Duration,
) -> impl hyper::service::Service<
    hyper::Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Future + Send,
> + Clone {
    hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let stalled = BodyStalled::default();
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(stalled.clone());
        let request = request.map(|body| {
            axum::body::Body::new(TimeoutBody::new(body_timeout, body).map_err(move |err| {
                if err.is::<TimeoutError>() {
                    stalled.0.store(true, Ordering::Relaxed);
                }
                err
            }))
        });
        router.clone().oneshot(request)
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
