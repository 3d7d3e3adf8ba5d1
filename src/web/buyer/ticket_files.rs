//! The ticket as a file to take away: a PDF of one ticket (by its code)
//! or of an order's tickets (by the order page's access), an Apple Wallet
//! pass, and an "Add to Google Wallet" link. Each is made from a read of
//! the ticket: no file costs a database write, and none is stored in
//! PostgreSQL. Making files is CPU work (a season order's PDF of 400
//! tickets is a second of a core), so it is bounded per instance and per
//! client network (`web::file_work`), and an order's PDF is kept a while in
//! memory for the order as it stands (its tickets, their codes, the
//! language): asked again, it costs nothing.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};

use crate::db;
use crate::db::tickets::{Ticket, TicketState};
use crate::domain::ids::OrderId;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Missing};
use crate::ticket_files::facts::{COLOURS, facts, order_ref, paper};
use crate::ticket_files::{TicketFacts, apple, google, pdf};
use crate::web::auth::Viewer;
use crate::web::extract::{ClientIp, IdPath, QueryInput};
use crate::web::order_access::{OrderAccess, order_owner};
use crate::web::state::AppState;

fn file(content_type: &'static str, disposition: String, body: Vec<u8>) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // The file carries a bearer code: no shared cache keeps it.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

/// The ticket whose code is `code` (a code passed on is
/// `409 ticket_transferred`; whether the ticket is still good is
/// [`must_be_valid`]'s to say).
async fn ticket_by_code(state: &AppState, code: &str) -> AppResult<Ticket> {
    let code = TicketCode::parse(code).map_err(|_| AppError::NotFound(Missing::Ticket))?;
    let client = state.pool.get().await?;
    match db::tickets::by_code(&client, &code).await? {
        Some(ticket) => Ok(ticket),
        None => Err(match db::transfers::given_away(&client, &code).await? {
            Some(_) => AppError::Conflict(crate::error::Conflict::TicketTransferred),
            None => AppError::NotFound(Missing::Ticket),
        }),
    }
}

/// Only a ticket that still gets in is handed out as a file.
fn must_be_valid(ticket: &Ticket) -> AppResult<()> {
    match ticket.state() {
        TicketState::Valid | TicketState::PassedOn { .. } => Ok(()),
        TicketState::Admitted { .. } => Err(AppError::Conflict(crate::error::Conflict::TicketUsed)),
        TicketState::Refunded { .. } | TicketState::Released { .. } => {
            Err(AppError::Conflict(crate::error::Conflict::TicketVoided))
        }
    }
}

/// `/tickets/{code}.pdf`: one ticket, A4 or Letter.
pub(crate) async fn ticket_pdf(
    state: &AppState,
    client: ClientIp,
    code: &str,
) -> AppResult<Response> {
    let ticket = ticket_by_code(state, code).await?;
    must_be_valid(&ticket)?;
    let title = crate::i18n::t1("ticket-title", "event", &ticket.event_name);
    let paper = paper(&ticket);
    let facts = vec![facts(&ticket)];
    let body = made_off_runtime(state, client, move || {
        pdf::tickets_pdf(&facts, paper, &title)
    })
    .await?;
    Ok(file(
        "application/pdf",
        format!(
            "inline; filename=\"ticket-{}.pdf\"",
            &ticket.code.as_str()[..8]
        ),
        body,
    ))
}

/// `/orders/{order_id}/tickets.pdf`: every ticket the buyer still holds,
/// one a page, for whoever may open the order's page.
pub(crate) async fn order_pdf(
    State(state): State<AppState>,
    IdPath(order_id): IdPath<OrderId>,
    QueryInput(access): QueryInput<OrderAccess>,
    viewer: Viewer,
    ip: ClientIp,
) -> AppResult<Response> {
    let owner = order_owner(&state, order_id, &access, &viewer)?;
    let client = state.pool.get().await?;
    db::orders::find(&client, order_id, owner)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    let tickets = db::tickets::for_order(&client, order_id).await?;
    drop(client);
    let holding: Vec<&Ticket> = tickets
        .iter()
        .filter(|ticket| ticket.state_for_buyer() == TicketState::Valid)
        .collect();
    let Some(first) = holding.first() else {
        return Err(AppError::NotFound(Missing::Ticket));
    };
    let title = crate::i18n::t1("ticket-title", "event", &first.event_name);
    let paper = paper(first);
    let facts: Vec<TicketFacts> = holding.iter().map(|ticket| facts(ticket)).collect();
    // The order as it stands, printed: its tickets' every word and code.
    let key: [u8; 32] = {
        use sha2::Digest;
        sha2::Sha256::digest(format!("{title}\0{paper:?}\0{facts:?}").as_bytes()).into()
    };
    let body = match state.files.kept(&key) {
        Some(body) => body,
        None => {
            let made =
                made_off_runtime(&state, ip, move || pdf::tickets_pdf(&facts, paper, &title))
                    .await?;
            let made = Arc::new(made);
            state.files.keep(key, made.clone());
            made
        }
    };
    let body = Vec::clone(&body);
    Ok(file(
        "application/pdf",
        format!(
            "inline; filename=\"tickets-{}.pdf\"",
            order_ref(order_id).to_lowercase()
        ),
        body,
    ))
}

/// `/tickets/{code}.pkpass`: an Apple Wallet pass, where the site has
/// Apple's keys (404 `wallet_not_configured` otherwise).
pub(crate) async fn ticket_pkpass(
    state: &AppState,
    client: ClientIp,
    code: &str,
) -> AppResult<Response> {
    let keys = state
        .config
        .ticket_files
        .apple
        .clone()
        .ok_or(AppError::NotFound(Missing::Wallet))?;
    let ticket = ticket_by_code(state, code).await?;
    must_be_valid(&ticket)?;
    let facts = facts(&ticket);
    let organization = organization(state);
    let body = made_off_runtime(state, client, move || {
        apple::pkpass(&keys, &facts, &organization, COLOURS)
    })
    .await?;
    Ok(file(
        "application/vnd.apple.pkpass",
        format!(
            "attachment; filename=\"ticket-{}.pkpass\"",
            &ticket.code.as_str()[..8]
        ),
        body,
    ))
}

/// "Add to Google Wallet": a redirect to Google's save page, carrying the
/// signed pass (404 `wallet_not_configured` where the site has no key).
pub(crate) async fn google_wallet(
    State(state): State<AppState>,
    IdPath(code): IdPath<String>,
) -> AppResult<Response> {
    let keys = state
        .config
        .ticket_files
        .google
        .clone()
        .ok_or(AppError::NotFound(Missing::Wallet))?;
    let ticket = ticket_by_code(&state, &code).await?;
    must_be_valid(&ticket)?;
    let url = google::save_url(
        &keys,
        &facts(&ticket),
        &state.links.public_url,
        &organization(&state),
        COLOURS,
    )
    .map_err(AppError::Internal)?;
    let mut response = Redirect::to(&url).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    Ok(response)
}

/// Who issues the passes, as wallets show it: the site's host name.
fn organization(state: &AppState) -> String {
    url::Url::parse(&state.links.public_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_string))
        .unwrap_or_else(|| "seatmap".to_string())
}

/// Makes a file in its turn of the instance's file work (PDF layout and
/// RSA signing are CPU work); its words were chosen before, in the
/// request's language.
async fn made_off_runtime(
    state: &AppState,
    client: ClientIp,
    make: impl FnOnce() -> anyhow::Result<Vec<u8>> + Send + 'static,
) -> AppResult<Vec<u8>> {
    state.files.make(client.network(), make).await
}

/// "CODE.pdf" or "CODE.pkpass" as (code, extension): the ticket page's
/// route takes these too (a route's parameter can't have a suffix).
pub(crate) fn is_file_path(code: &str) -> Option<(&str, &str)> {
    code.rsplit_once('.')
        .filter(|(_, extension)| matches!(*extension, "pdf" | "pkpass"))
}
