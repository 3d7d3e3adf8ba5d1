//! One ticket's own page: whoever holds its code may see it (the code is
//! the ticket), print it, take it as a PDF or a wallet pass, and send it
//! to someone. A code that was passed on gets a page saying so.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::db;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Missing};
use crate::web::buyer::tickets::TicketView;
use crate::web::extract::IdPath;
use crate::web::render::render;
use crate::web::security::CsrfToken;
use crate::web::state::AppState;

#[derive(Template)]
#[template(path = "tickets/show.html")]
pub(crate) struct TicketPage {
    event: String,
    venue: String,
    starts: String,
    holder_name: String,
    ticket: TicketView,
    csrf: String,
    /// The "Send to someone" form, for a ticket that can still go.
    transfer: Option<TransferPanel>,
    /// Links to a valid ticket as a file: the PDF always, each wallet
    /// when the site has its keys.
    pdf_url: Option<String>,
    apple_wallet_url: Option<String>,
    google_wallet_url: Option<String>,
}

pub(crate) struct TransferPanel {
    /// (tag, name), the sender's language first.
    langs: Vec<(&'static str, &'static str)>,
    /// Why the last try was refused.
    error: Option<String>,
    /// What the form sent, shown again after a refusal.
    name: String,
    email: String,
}

#[derive(Template)]
#[template(path = "tickets/passed_on.html")]
struct PassedOnPage {
    to_name: String,
    at: String,
}

/// The ticket's page; a code passed on gets 410 and to whom it went.
pub(crate) async fn ticket_page(
    State(state): State<AppState>,
    IdPath(code): IdPath<String>,
    csrf: CsrfToken,
    ip: crate::web::extract::ClientIp,
) -> AppResult<Response> {
    match super::ticket_files::is_file_path(&code) {
        Some((code, "pdf")) => super::ticket_files::ticket_pdf(&state, ip, code).await,
        Some((code, _)) => super::ticket_files::ticket_pkpass(&state, ip, code).await,
        None => ticket_page_with(&state, &code, &csrf, None).await,
    }
}

/// The ticket's page again after a refused transfer, saying why.
pub(crate) async fn ticket_page_refused(
    state: &AppState,
    code: &str,
    csrf: &CsrfToken,
    refused: AppError,
    sent: (&str, &str),
) -> AppResult<Response> {
    let status = crate::web::error::status_of(&refused);
    let text = crate::words::refusal_notice(refused)?;
    let page = ticket_page_with(state, code, csrf, Some((text, sent))).await?;
    Ok((status, page).into_response())
}

async fn ticket_page_with(
    state: &AppState,
    code: &str,
    csrf: &CsrfToken,
    refusal: Option<(String, (&str, &str))>,
) -> AppResult<Response> {
    let code = TicketCode::parse(code).map_err(|_| AppError::NotFound(Missing::Ticket))?;
    let client = state.pool.get().await?;
    let Some(ticket) = db::tickets::by_code(&client, &code).await? else {
        let given = db::transfers::given_away(&client, &code)
            .await?
            .ok_or(AppError::NotFound(Missing::Ticket))?;
        let event = db::events::find(&client, given.event_id)
            .await?
            .ok_or(AppError::NotFound(Missing::Ticket))?;
        let locale = crate::i18n::locale(event.currency, &event.time_zone);
        let page = render(&PassedOnPage {
            to_name: given.to_name,
            at: locale.time(given.at),
        })?;
        return Ok((StatusCode::GONE, page).into_response());
    };
    let view = TicketView::new(&ticket, false)?;
    let transfer = view.is_valid().then(|| {
        let (error, (name, email)) = match refusal {
            Some((text, sent)) => (Some(text), sent),
            None => (None, ("", "")),
        };
        TransferPanel {
            langs: super::recipient::languages(),
            error,
            name: name.to_string(),
            email: email.to_string(),
        }
    });
    let wallets = &state.config.ticket_files;
    let page: Html<String> = render(&TicketPage {
        event: ticket.event_name.clone(),
        venue: ticket.venue.clone(),
        starts: ticket.locale.time(ticket.starts_at),
        holder_name: ticket.holder_name().to_string(),
        pdf_url: view.is_valid().then(|| format!("/tickets/{code}.pdf")),
        apple_wallet_url: (view.is_valid() && wallets.apple.is_some())
            .then(|| format!("/tickets/{code}.pkpass")),
        google_wallet_url: (view.is_valid() && wallets.google.is_some())
            .then(|| format!("/tickets/{code}/google-wallet")),
        ticket: view,
        csrf: csrf.value(),
        transfer,
    })?;
    Ok(page.into_response())
}
