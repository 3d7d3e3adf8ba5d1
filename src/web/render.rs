//! Rendering shared by every room: a template to HTML, and an error
//! response to the error page a browser sees.

use askama::Template;
use axum::response::{Html, Response};

use crate::error::{AppError, AppResult};
use crate::web::error::ErrorSummary;

/// The one place a template becomes a response: a render failure is a 500
/// with the generic error page, never a panic.
pub fn render(template: &impl Template) -> AppResult<Html<String>> {
    template
        .render()
        .map(Html)
        .map_err(|err| AppError::Internal(anyhow::Error::new(err).context("rendering a template")))
}

#[derive(Template)]
#[template(path = "error.html")]
pub(crate) struct ErrorPage {
    title: String,
    message: String,
    back: Option<String>,
}

/// Marks an answer that refused what was asked (a fragment or redirect
/// carrying a refusal notice): a request that brought no session and was
/// refused leaves none (see `app::refusals_leave_no_session`).
#[derive(Debug, Clone, Copy)]
pub struct Refused;

/// A refusal as a page of its own (409), for a buyer whose first request
/// was refused: saying why there and then needs no session to carry a
/// notice to the next page. It links `back` (the seat map).
pub fn refused_page(text: String, back: String) -> Response {
    use axum::response::IntoResponse;
    let status = axum::http::StatusCode::CONFLICT;
    let mut response = (status, text.clone()).into_response();
    response.extensions_mut().insert(ErrorSummary {
        status,
        message: text,
        back: Some(back),
    });
    response
}

/// Replaces an error response's JSON body with the error page (same status
/// and headers). Other responses pass through.
pub fn render_error_page(response: Response) -> Response {
    let Some(summary) = response.extensions().get::<ErrorSummary>().cloned() else {
        return response;
    };
    let title = match summary.status {
        axum::http::StatusCode::CONFLICT => "Not possible right now",
        status => status.canonical_reason().unwrap_or("Error"),
    };
    let page = ErrorPage {
        title: title.to_string(),
        message: summary.message,
        back: summary.back,
    };
    let (mut parts, _) = response.into_parts();
    let body = match page.render() {
        Ok(html) => html,
        Err(err) => {
            tracing::error!(error = %err, "rendering the error page");
            format!("{} {}", summary.status.as_u16(), page.title)
        }
    };
    parts.headers.insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, body.into())
}
