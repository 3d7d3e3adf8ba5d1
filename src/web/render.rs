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
}

/// Replaces an error response's JSON body with the error page (same status
/// and headers). Other responses pass through.
pub fn render_error_page(response: Response) -> Response {
    let Some(summary) = response.extensions().get::<ErrorSummary>().cloned() else {
        return response;
    };
    let page = ErrorPage {
        title: summary
            .status
            .canonical_reason()
            .unwrap_or("Error")
            .to_string(),
        message: summary.message,
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
