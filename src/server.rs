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

/// How a request's body is arriving, for the whole-request deadline
/// (`app::request_deadline`): a body that stalled past the body timeout
/// makes the answer a 408, whatever the handler made of it; a request
/// past its deadline is the client's fault (408) only while its body is
/// still arriving, and the server's (503) once it has all arrived.
#[derive(Clone, Default)]
pub struct BodyArrival {
    stalled: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
}

impl BodyArrival {
    pub fn stalled(&self) -> bool {
        self.stalled.load(Ordering::Relaxed)
    }

    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Relaxed)
    }
}

/// A request body, watched: notes in its [`BodyArrival`] when it has
/// all arrived, or stalled past the body timeout.
struct Watched {
    inner: std::pin::Pin<Box<TimeoutBody<Incoming>>>,
    arrival: BodyArrival,
}

impl hyper::body::Body for Watched {
    type Data = axum::body::Bytes;
    type Error = tower_http::BoxError;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let polled = self.inner.as_mut().poll_frame(cx);
        match &polled {
            std::task::Poll::Ready(None) => self.arrival.finished.store(true, Ordering::Relaxed),
            std::task::Poll::Ready(Some(Err(err))) if err.is::<TimeoutError>() => {
                self.arrival.stalled.store(true, Ordering::Relaxed);
            }
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
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
            per_connection(
                router.clone(),
                peer,
                limits.body_read_timeout,
                admission.answered(),
            ),
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
/// whose request bodies fail once they stall for `body_timeout`, and which
/// marks the connection `answered` once it has answered a request.
fn per_connection(
    router: Router,
    peer: SocketAddr,
    body_timeout: Duration,
    answered: Arc<AtomicBool>,
) -> impl hyper::service::Service<
    hyper::Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Future + Send,
> + Clone {
    hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let arrival = BodyArrival::default();
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(arrival.clone());
        let request = request.map(|body| {
            // A request with no body has all of it from the start.
            if hyper::body::Body::is_end_stream(&body) {
                arrival.finished.store(true, Ordering::Relaxed);
            }
            axum::body::Body::new(Watched {
                inner: Box::pin(TimeoutBody::new(body_timeout, body)),
                arrival,
            })
        });
        let answered = answered.clone();
        let answer = router.clone().oneshot(request);
        async move {
            let response = answer.await;
            answered.store(true, Ordering::Relaxed);
            response
        }
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
                "SEATMAP_MAX_CONNECTIONS is above what the open-files limit allows; using less"
            );
            limits.max_connections = room;
        }
    }
    limits
}
