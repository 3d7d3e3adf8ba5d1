//! The router that production and tests both serve, with its middleware.
//! The state it carries is `web::state::AppState`.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};

use crate::db::sessions::PgSessionStore;
use crate::web::error::ErrorSummary;
use crate::web::{self, security};

pub use crate::web::state::AppState;

pub fn build_router(state: AppState) -> Router {
    // Install the metrics recorder before anything is counted.
    crate::observability::metrics();
    let checkout_origin = state
        .config
        .payments
        .stripe
        .as_ref()
        .map(|stripe| stripe.checkout_origin());
    let frames =
        security::FramePolicy::new(&state.config.frame_ancestors, checkout_origin.as_deref());
    // Framed by another site, the cookies must cross sites: SameSite=None,
    // which browsers accept only on Secure cookies.
    let (same_site, same_site_name) = if frames.embeddable() {
        (SameSite::None, "None")
    } else {
        (SameSite::Lax, "Lax")
    };
    let secure = state.config.secure_cookies || frames.embeddable();
    let sessions = SessionManagerLayer::new(PgSessionStore::new(state.pool.clone()))
        .with_name(if secure {
            crate::web::security::SECURE_SESSION_COOKIE
        } else {
            crate::web::security::SESSION_COOKIE
        })
        .with_http_only(true)
        .with_same_site(same_site)
        .with_secure(secure)
        .with_expiry(Expiry::OnInactivity(time::Duration::hours(12)));
    let [nosniff, referrer, opener, no_store] = security::header_layers();
    web::router()
        .fallback(web::not_found)
        // Innermost: only a request every other layer let through takes
        // its key, and a replay still passes the caller's checks.
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::web::idempotency::run_once,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::web::auth::authenticate_bearer,
        ))
        .layer(middleware::from_fn(security::refuse_cross_site))
        .layer(middleware::from_fn_with_state(
            (secure, same_site_name),
            security::csrf_cookie,
        ))
        // Inside the error pages, so that a panic or a request too slow to
        // arrive is answered as a page (or JSON) like any other failure.
        .layer(CatchPanicLayer::custom(panic_answer))
        .layer(middleware::from_fn_with_state(
            state.config.server.request_timeout,
            request_deadline,
        ))
        .layer(middleware::from_fn(html_errors))
        // Outside the error pages, so they are in the request's language.
        .layer(middleware::from_fn(crate::web::lang::choose))
        .layer(middleware::from_fn(refusals_leave_no_session))
        .layer(sessions)
        .layer(middleware::from_fn(session_store_failures))
        // Outside everything that writes a body (error pages included).
        // Its default predicate leaves live streams (text/event-stream)
        // alone, so an update is never held back in a compressor's buffer.
        // Its default level is Brotli's best (quality 11), its slowest, on
        // every dynamic response; level 4 costs far less CPU per byte.
        // What is served often is compressed once instead
        // (`precompressed`).
        .layer(CompressionLayer::new().quality(CompressionLevel::Precise(4)))
        .layer(middleware::from_fn_with_state(
            frames,
            security::frame_headers,
        ))
        .layer(nosniff)
        .layer(referrer)
        .layer(opener)
        .layer(no_store)
        // A last resort for a panic in the layers above the first one.
        .layer(CatchPanicLayer::custom(panic_answer))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .with_state(state)
}

/// A panic is a bug: it is logged in full (inside the request's span, so
/// with its id) and answered with the generic 500, never a dropped
/// connection.
fn panic_answer(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let detail = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic with no message");
    crate::error::AppError::Internal(anyhow::anyhow!("a handler panicked: {detail}"))
        .into_response()
}

/// A whole request, its body included, must arrive and be answered within
/// the deadline. Past it, or once its body stalled (whatever the handler
/// made of that), the answer is a 408 while the body was still arriving;
/// a request that had all arrived and was slow on our side is a 503.
async fn request_deadline(
    axum::extract::State(deadline): axum::extract::State<std::time::Duration>,
    request: Request,
    next: Next,
) -> Response {
    let arrival = request
        .extensions()
        .get::<crate::server::BodyArrival>()
        .cloned()
        .unwrap_or_default();
    match tokio::time::timeout(deadline, next.run(request)).await {
        Ok(response) if !arrival.stalled() => response,
        _ if arrival.finished() && !arrival.stalled() => {
            metrics::counter!(REQUEST_TIMEOUTS).increment(1);
            crate::error::AppError::Unavailable(anyhow::anyhow!(
                "the request was not answered within {} s",
                deadline.as_secs()
            ))
            .into_response()
        }
        _ => {
            metrics::counter!(REQUEST_TIMEOUTS).increment(1);
            crate::error::AppError::RequestTimeout.into_response()
        }
    }
}

pub const REQUEST_TIMEOUTS: &str = "seatmap_http_request_timeouts_total";

/// Every log line of a request carries its id (also sent back in the
/// `x-request-id` response header, or taken from the caller's).
fn request_span(request: &Request) -> tracing::Span {
    let request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %logged_path(request.uri().path()),
        request_id = %request_id,
    )
}

/// The path as logs show it: a ticket's code is the ticket (whoever has it
/// gets in), so it never reaches a log line.
fn logged_path(path: &str) -> &str {
    if path.starts_with("/tickets/") {
        "/tickets/{code}"
    } else {
        path
    }
}

/// The router as a service that knows each connection's peer address
/// (for per-address limits). Production and tests both serve this.
pub fn into_service(
    router: Router,
) -> axum::extract::connect_info::IntoMakeServiceWithConnectInfo<Router, SocketAddr> {
    router.into_make_service_with_connect_info::<SocketAddr>()
}

/// A request that brought no session and was refused (an error, or an
/// answer marked [`Refused`](web::render::Refused)) leaves no session
/// behind: whatever it put in one (a new buyer id) is dropped unsaved, so
/// a flood of refused requests writes nothing. "Brought no session" is
/// judged after the handler: a cookie naming no stored session (made up,
/// or expired) has no id once the handler has looked, like no cookie.
async fn refusals_leave_no_session(request: Request, next: Next) -> Response {
    let session = request
        .extensions()
        .get::<tower_sessions::Session>()
        .cloned();
    let response = next.run(request).await;
    let refused = response.extensions().get::<ErrorSummary>().is_some()
        || response
            .extensions()
            .get::<web::render::Refused>()
            .is_some();
    if let Some(session) = session.filter(|s| refused && s.id().is_none()) {
        session.clear().await;
    }
    response
}

/// tower-sessions answers a failed session save with a bare, empty 500.
/// A save fails when the store (the database) is unreachable or its pool
/// is exhausted: that is overload, so it becomes the documented 503 with
/// `Retry-After`, as a page or JSON like every other error.
async fn session_store_failures(request: Request, next: Next) -> Response {
    let is_api = request.uri().path().starts_with("/api/");
    let response = next.run(request).await;
    let bare_500 = response.status() == StatusCode::INTERNAL_SERVER_ERROR
        && response.extensions().get::<ErrorSummary>().is_none();
    if !bare_500 {
        return response;
    }
    let overload = crate::error::AppError::Unavailable(anyhow::anyhow!(
        "saving the session failed (see the session layer's log line)"
    ))
    .into_response();
    if is_api {
        overload
    } else {
        web::render::render_error_page(overload)
    }
}

/// API paths answer errors in JSON; every other path gets the error page,
/// except that a staff page asked for without signing in sends the browser
/// to the login page (and back afterwards).
async fn html_errors(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    let wanted = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| path.clone());
    // A ticket's file (PDF, wallet pass) is fetched by programs as often
    // as by a browser's navigation: its refusal stays JSON (naming the
    // error, as `wallet_not_configured`) unless a page was asked for.
    let is_file =
        path.ends_with(".pdf") || path.ends_with(".pkpass") || path.ends_with("/google-wallet");
    let wants_page = request
        .headers()
        .get(axum::http::header::ACCEPT)
        .and_then(|accept| accept.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    let response = next.run(request).await;
    if path.starts_with("/api/") || (is_file && !wants_page) {
        return response;
    }
    let needs_sign_in = response.status() == StatusCode::UNAUTHORIZED
        && response.extensions().get::<ErrorSummary>().is_some()
        && path.starts_with("/staff")
        && path != "/staff/login";
    if needs_sign_in {
        return web::staff::login_redirect(&wanted).into_response();
    }
    web::render::render_error_page(response)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ticket_codes_stay_out_of_the_logs() {
        assert_eq!(
            super::logged_path("/tickets/ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
            "/tickets/{code}"
        );
        assert_eq!(super::logged_path("/events/1"), "/events/1");
    }
}
