//! "Send to someone": the holder of a ticket passes it on, through the
//! API or the ticket page's form. The ticket gets a new code that only
//! its new holder is mailed; the old code stops working at once, at the
//! door too (`db::transfers`). Each try counts as a hold request before
//! the code is looked up, so the form is no code-guessing oracle.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Missing};
use crate::web::admission::admit_hold_request;
use crate::web::auth::{ApiBuyer, Buyer};
use crate::web::buyer::recipient::recipient;
use crate::web::error::responses;
use crate::web::extract::{ApiJson, ClientIp, IdPath};
use crate::web::security::CsrfForm;
use crate::web::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(transfer_json))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct TransferJson {
    /// The ticket's new code (the old one no longer admits anyone).
    code: String,
    /// The new code's ticket page.
    url: String,
}

/// Passes the ticket on: its code is the bearer secret, as on its page.
/// Counted as a hold request first (429 over the limit), so a wrong code
/// costs what a wrong guess at anything else does.
#[utoipa::path(post, path = "/api/tickets/{code}/transfer", tag = "buyers",
    params(("code" = String, Path, description = "The ticket's code")),
    request_body = super::recipient::TransferBody,
    responses(
        (status = 201, description = "Passed on: the new code, mailed to its new holder", body = TransferJson),
        responses::BadRequest,
        responses::NotFound,
        responses::Conflict,
        responses::Unprocessable,
        responses::TooManyRequests,))]
pub(crate) async fn transfer_json(
    State(state): State<AppState>,
    IdPath(code): IdPath<String>,
    buyer: ApiBuyer,
    ip: ClientIp,
    ApiJson(body): ApiJson<super::recipient::TransferBody>,
) -> AppResult<Response> {
    // A code that can't be one is no guess: 404 before anything is counted.
    let code = TicketCode::parse(&code).map_err(|_| AppError::NotFound(Missing::Ticket))?;
    admit_hold_request(&state, buyer.id, buyer.key, ip).await?;
    let to = body.recipient()?;
    let made = db::transfers::transfer(&state.pool, &code, &to, None).await?;
    Ok((
        StatusCode::CREATED,
        Json(TransferJson {
            url: format!("/tickets/{}", made.code),
            code: made.code.to_string(),
        }),
    )
        .into_response())
}

#[derive(Deserialize)]
pub(crate) struct TransferForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    lang: String,
}

/// The ticket page's "Send to someone" form. Passed on, the old code's
/// page says to whom; refused, the ticket page says why.
pub(crate) async fn transfer_form(
    State(state): State<AppState>,
    IdPath(code): IdPath<String>,
    buyer: Buyer,
    ip: ClientIp,
    CsrfForm(form): CsrfForm<TransferForm>,
) -> AppResult<Response> {
    let outcome = async {
        let to = recipient(&form.name, &form.email, Some(&form.lang))?;
        admit_hold_request(&state, buyer.id, None, ip).await?;
        let parsed = TicketCode::parse(&code).map_err(|_| AppError::NotFound(Missing::Ticket))?;
        db::transfers::transfer(&state.pool, &parsed, &to, None).await?;
        Ok::<_, AppError>(parsed)
    }
    .await;
    match outcome {
        Ok(parsed) => Ok(Redirect::to(&format!("/tickets/{parsed}")).into_response()),
        Err(err @ AppError::NotFound(_)) => Err(err),
        Err(refused) => {
            super::ticket_page::ticket_page_refused(
                &state,
                &code,
                &buyer.csrf,
                refused,
                (&form.name, &form.email),
            )
            .await
        }
    }
}
