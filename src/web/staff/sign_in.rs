//! Staff sign-in and sign-out: rate-limited per account and per address,
//! passwords checked off the async runtime, the session id rotated.

use std::net::IpAddr;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde::Deserialize;
use tower_sessions::Session;

use crate::db;
use crate::db::rate_limits::Counter;
use crate::domain::password;
use crate::error::{AppError, AppResult, Limit};
use crate::web::auth::{sign_in, sign_out};
use crate::web::extract::{ClientIp, QueryInput};
use crate::web::render::render;
use crate::web::security::{CsrfForm, CsrfToken, NoFields, RotateCsrf};
use crate::web::state::AppState;
use crate::words::message;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/login", get(login_page).post(login))
        .route("/staff/logout", post(logout))
}

/// Where to go after signing in: a staff page of this site, spelled in
/// visible ASCII only (anything else, even a control character, would not
/// survive as a Location header), or the console.
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(path)
            if path.starts_with("/staff")
                && path.len() <= 2048
                && path.bytes().all(|b| b.is_ascii_graphic())
                && !path.starts_with("//")
                && !path.contains('\\')
                && !path.contains("://") =>
        {
            path.to_string()
        }
        _ => "/staff".to_string(),
    }
}

pub fn login_redirect(wanted: &str) -> Redirect {
    let query = serde_urlencoded::to_string([("next", wanted)]).unwrap_or_default();
    Redirect::to(&format!("/staff/login?{query}"))
}

#[derive(Template)]
#[template(path = "staff/login.html")]
struct LoginPage {
    csrf: String,
    next: String,
    name: String,
    error: Option<String>,
}

#[derive(Deserialize)]
struct NextQuery {
    next: Option<String>,
}

async fn login_page(
    csrf: CsrfToken,
    QueryInput(query): QueryInput<NextQuery>,
) -> AppResult<Html<String>> {
    render(&LoginPage {
        csrf: csrf.value(),
        next: safe_next(query.next.as_deref()),
        name: String::new(),
        error: None,
    })
}

#[derive(Deserialize)]
struct LoginForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    next: Option<String>,
}

const LOGIN_WINDOW_SECS: i32 = 15 * 60;
/// Longer passwords are refused unhashed: argon2's cost grows with them.
const MAX_PASSWORD_BYTES: usize = 1024;

/// The per-address limit always; the per-account one only for a name an
/// account could have (any other name would be an unbounded key).
fn login_limits(state: &AppState, account: Option<&str>, ip: IpAddr) -> Vec<Counter> {
    let mut limits = vec![Counter {
        key: format!("login:ip:{}", crate::server::network_of(ip)),
        max: state.config.limits.login_failures_per_ip,
    }];
    if let Some(name) = account {
        limits.push(Counter {
            key: format!("login:account:{}", name.to_lowercase()),
            max: state.config.limits.login_failures_per_account,
        });
    }
    limits
}

const TOO_MANY_LOGINS: Limit = Limit::SignIns;

/// At most this many password checks run at once, off the async runtime:
/// a burst of sign-ins queues here instead of taking every core.
static PASSWORD_CHECKS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

async fn password_matches(password: String, stored: String) -> AppResult<bool> {
    let _permit = PASSWORD_CHECKS
        .acquire()
        .await
        .map_err(|e| AppError::Internal(e.into()))?;
    tokio::task::spawn_blocking(move || password::verify(&password, &stored))
        .await
        .map_err(|e| AppError::Internal(e.into()))
}

async fn login(
    State(state): State<AppState>,
    ip: ClientIp,
    session: Session,
    csrf: CsrfToken,
    CsrfForm(form): CsrfForm<LoginForm>,
) -> AppResult<Response> {
    let next = safe_next(form.next.as_deref());
    let plausible = password::valid_staff_name(&form.name);
    // Only a name an account could have is shown back on the form.
    let shown_name = if plausible { form.name.as_str() } else { "" };
    let refuse = |status: StatusCode, error: String| {
        login_refused(csrf.value(), &next, shown_name, status, error)
    };
    let limits = login_limits(&state, plausible.then_some(form.name.as_str()), ip.0);
    let client = state.pool.get().await?;
    // Counted before the password is checked, in the statement that
    // checks the limit: guesses sent all at once can't all be hashed
    // before any of them counts. A right password takes its count back.
    let clock = state.config.limits.clock;
    match db::rate_limits::hit(&client, clock, LOGIN_WINDOW_SECS, &limits, TOO_MANY_LOGINS).await {
        Ok(()) => {}
        Err(err @ AppError::TooManyRequests { .. }) => {
            let AppError::TooManyRequests {
                retry_after_secs, ..
            } = err
            else {
                unreachable!("matched above")
            };
            let minutes = retry_after_secs.div_ceil(60);
            let mut response = refuse(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "{} Try again in {}.",
                    message(&err),
                    crate::words::count(minutes, "minute", "minutes")
                ),
            )?;
            if let Ok(value) = retry_after_secs.to_string().parse() {
                response.headers_mut().insert("retry-after", value);
            }
            return Ok(response);
        }
        Err(other) => return Err(other),
    }
    // A name no account can have, or a password too long to be one, is a
    // failure without hashing anything; it still counts against the address.
    let staff_id = if plausible && form.password.len() <= MAX_PASSWORD_BYTES {
        let account = db::staff::credentials(&client, &form.name).await?;
        let (staff_id, stored) = match account {
            Some((id, hash, version)) => (Some((id, version)), hash),
            None => (None, password::decoy_hash().to_string()),
        };
        // argon2 is slow on purpose: hash with no pooled connection held,
        // or a burst of sign-ins starves every other request of the pool.
        drop(client);
        let matches = password_matches(form.password.clone(), stored).await?;
        staff_id.filter(|_| matches)
    } else {
        drop(client);
        None
    };
    let client = state.pool.get().await?;
    let Some((staff_id, credentials_version)) = staff_id else {
        return refuse(StatusCode::UNAUTHORIZED, "Wrong name or password.".into());
    };
    db::rate_limits::give_back(&client, clock, LOGIN_WINDOW_SECS, &limits).await?;
    sign_in(&session, staff_id, credentials_version).await?;
    db::audit::record(
        &client,
        db::audit::Entry {
            actor: Some(crate::domain::ids::Actor::Staff(staff_id)),
            action: "sign_in",
            event_id: None,
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: format!("from {}", ip.0),
        },
    )
    .await?;
    Ok((Extension(RotateCsrf), Redirect::to(&next)).into_response())
}

/// The login page again, with the name kept and why it was refused.
fn login_refused(
    csrf: String,
    next: &str,
    name: &str,
    status: StatusCode,
    error: String,
) -> AppResult<Response> {
    let page = LoginPage {
        csrf,
        next: next.to_string(),
        name: name.to_string(),
        error: Some(error),
    };
    Ok((status, render(&page)?).into_response())
}

async fn logout(
    session: Session,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<(Extension<RotateCsrf>, Redirect)> {
    sign_out(&session).await?;
    Ok((Extension(RotateCsrf), Redirect::to("/staff/login")))
}
